// linear_forward_tiled (stage 1 of 2, for real GPUs): the split-K partial sums of linear_forward,
//   partial[s, n, o] = sum_{i in slice s} x[n, i] * w[o, i]   (w is [O, I] row-major)
// with the operands staged in workgroup memory. A workgroup owns TN samples x TO features: for each
// TK-wide step of its slice it loads a TN x TK tile of x and a TO x TK tile of w into k-major
// arrays (consecutive invocations read consecutive inputs of a row: coalesced loads), then every
// invocation (4 samples x 4 features, 16 accumulators) walks the TK inputs, reading 8 values for
// 16 multiply-adds. Slice s (dispatch z) sums the inputs [s*I/S, (s+1)*I/S): fc1 has 4096-long sums
// and only 128 features, so the split fills the GPU. linear_forward_reduce.wgsl adds the S slices
// in order, then the bias and the ReLU. Loads use clamped addresses and select(), not branches.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 x        read        [N, I]
//   2 theta    read        flat parameters: weight [O, I] at w_off
//   3 partial  read_write  [S, N, O]
// dispatch: (ceil(O/TO), ceil(N/TN), S); workgroup size (TO/4) * (TN/4)

struct Params { n: u32, i: u32, o: u32, w_off: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

override TN: u32 = 64; // samples per workgroup (a multiple of 4)
override TO: u32 = 64; // features per workgroup (a multiple of 4)
override TK: u32 = 16; // inputs staged per step
override WG: u32 = TO / 4u * (TN / 4u);

// k-major tiles, rows padded by 4 floats (keeps each invocation's 4 values 16-byte aligned while
// spreading a step's stores over the banks): xs[k * (TN + 4) + sample], ws[k * (TO + 4) + feature]
var<workgroup> xs: array<f32, TK * (TN + 4u)>;
var<workgroup> ws: array<f32, TK * (TO + 4u)>;

fn put(s: u32, n: u32, o0: u32, acc: vec4f) {
  if (n >= params.n) { return; }
  let row = (s * params.n + n) * params.o;
  for (var l = 0u; l < 4u; l++) {
    if (o0 + l < params.o) { partial[row + o0 + l] = acc[l]; }
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) t: u32) {
  let tx = t % (TO / 4u); // this invocation's features: o0 + 4tx ..
  let ty = t / (TO / 4u); // and samples: n0 + 4ty ..
  let o0 = wid.x * TO;
  let n0 = wid.y * TN;
  let s = wid.z;
  let k_begin = s * params.i / params.splits;
  let k_end = (s + 1u) * params.i / params.splits;
  let nl = params.n - 1u;
  let ol = params.o - 1u;
  let il = params.i - 1u;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var kt = k_begin; kt < k_end; kt += TK) {
    for (var e = t; e < TN * TK; e += WG) {
      let r = e / TK;
      let c = e % TK;
      let ok = n0 + r < params.n && kt + c < k_end;
      let v = x[min(n0 + r, nl) * params.i + min(kt + c, il)];
      xs[c * (TN + 4u) + r] = select(0.0, v, ok);
    }
    for (var e = t; e < TO * TK; e += WG) {
      let r = e / TK;
      let c = e % TK;
      let ok = o0 + r < params.o && kt + c < k_end;
      let v = theta[params.w_off + min(o0 + r, ol) * params.i + min(kt + c, il)];
      ws[c * (TO + 4u) + r] = select(0.0, v, ok);
    }
    workgroupBarrier();
    for (var c = 0u; c < TK; c++) {
      let xb = c * (TN + 4u) + ty * 4u;
      let wb = c * (TO + 4u) + tx * 4u;
      let wv = vec4f(ws[wb], ws[wb + 1u], ws[wb + 2u], ws[wb + 3u]);
      acc0 += xs[xb] * wv;
      acc1 += xs[xb + 1u] * wv;
      acc2 += xs[xb + 2u] * wv;
      acc3 += xs[xb + 3u] * wv;
    }
    workgroupBarrier();
  }
  let n = n0 + ty * 4u;
  let o = o0 + tx * 4u;
  put(s, n, o, acc0);
  put(s, n + 1u, o, acc1);
  put(s, n + 2u, o, acc2);
  put(s, n + 3u, o, acc3);
}
