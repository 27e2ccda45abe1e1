// linear_backward_input: dx[n,i] = mask(n,i) * sum_o dy[n,o] * w[o,i]
// The input gradient of linear_forward. With relu_mask == 1 the layer's input is a ReLU output
// r = relu(z) and this kernel writes dz = dr * (r > 0) directly (the ReLU backward, fused).
// One invocation computes 4 samples x 4 adjacent input features.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 dy      read        [N, O]
//   2 theta   read        flat parameters: weight [O, I] at w_off
//   3 x       read        [N, I] the forward input (read only when relu_mask == 1)
//   4 dx      read_write  [N, I] (written, not accumulated)
// dispatch: (ceil(ceil(I/4) / WG_X), ceil(ceil(N/4) / WG_Y), 1)

struct Params { n: u32, i: u32, o: u32, w_off: u32, relu_mask: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<f32>;
@group(0) @binding(4) var<storage, read_write> dx: array<f32>;

override WG_X: u32 = 16;
override WG_Y: u32 = 4;

fn store(n: u32, i0: u32, acc: vec4f) {
  if (n >= params.n) { return; }
  for (var j = 0u; j < 4u; j++) {
    let i = i0 + j;
    if (i < params.i) {
      let at = n * params.i + i;
      var v = acc[j];
      if (params.relu_mask == 1u && !(x[at] > 0.0)) { v = 0.0; }
      dx[at] = v;
    }
  }
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let i0 = gid.x * 4u;
  let n0 = gid.y * 4u;
  if (i0 >= params.i || n0 >= params.n) { return; }
  let last = params.i - 1u;
  let c0 = i0;
  let c1 = min(i0 + 1u, last);
  let c2 = min(i0 + 2u, last);
  let c3 = min(i0 + 3u, last);
  let r0 = n0 * params.o;
  let r1 = min(n0 + 1u, params.n - 1u) * params.o;
  let r2 = min(n0 + 2u, params.n - 1u) * params.o;
  let r3 = min(n0 + 3u, params.n - 1u) * params.o;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var o = 0u; o < params.o; o++) {
    let wr = params.w_off + o * params.i;
    let wv = vec4f(theta[wr + c0], theta[wr + c1], theta[wr + c2], theta[wr + c3]);
    acc0 += dy[r0 + o] * wv;
    acc1 += dy[r1 + o] * wv;
    acc2 += dy[r2 + o] * wv;
    acc3 += dy[r3 + o] * wv;
  }
  store(n0, i0, acc0);
  store(n0 + 1u, i0, acc1);
  store(n0 + 2u, i0, acc2);
  store(n0 + 3u, i0, acc3);
}
