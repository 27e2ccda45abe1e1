// linear_backward_weight: dw[o,i] += sum_n dy[n,o] * x[n,i];  db[o] += sum_n dy[n,o]
// The parameter gradients of linear_forward, accumulated into the flat gradient buffer (like
// PyTorch's .grad +=, so gradient accumulation needs no extra pass). Each tile of 4 output x 4
// adjacent input features is computed by NSPLIT invocations of one workgroup (local z), each
// summing every NSPLIT-th sample, then added up in workgroup memory: fc2 (10 x 128 features) has
// only 96 tiles for a batch-long sum. NSPLIT = 1 (the default; SwiftShader) is plain register
// blocking. Invocations of the first input group also sum the bias gradient.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 dy      read        [N, O] gradient of the pre-activation
//   2 x       read        [N, I] the forward input
//   3 grad    read_write  flat gradients: weight [O, I] at w_off, bias [O] at b_off
// dispatch: (ceil(ceil(I/4) / WG_X), ceil(ceil(O/4) / WG_Y), 1) with workgroups of WG_X x WG_Y x NSPLIT

struct Params { n: u32, i: u32, o: u32, w_off: u32, b_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> grad: array<f32>;

override WG_X: u32 = 16;
override WG_Y: u32 = 4;
override NSPLIT: u32 = 1;

// Partial sums of every invocation: [tile (local x, y)][n slice][4 output rows + bias], vec4 over 4 features.
var<workgroup> part: array<vec4f, WG_X * WG_Y * NSPLIT * 5>;

fn store(o: u32, i0: u32, acc: vec4f) {
  if (o >= params.o) { return; }
  for (var j = 0u; j < 4u; j++) {
    if (i0 + j < params.i) { grad[params.w_off + o * params.i + i0 + j] += acc[j]; }
  }
}

@compute @workgroup_size(WG_X, WG_Y, NSPLIT)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let i0 = gid.x * 4u;
  let o0 = gid.y * 4u;
  let in_range = i0 < params.i && o0 < params.o;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  var bias = vec4f(0.0);
  if (in_range) {
    sum_tile(i0, o0, lid.z, &acc0, &acc1, &acc2, &acc3, &bias);
  }
  if (NSPLIT > 1u) {
    let tile = (lid.y * WG_X + lid.x) * NSPLIT;
    let at = (tile + lid.z) * 5u;
    part[at] = acc0;
    part[at + 1u] = acc1;
    part[at + 2u] = acc2;
    part[at + 3u] = acc3;
    part[at + 4u] = bias;
    workgroupBarrier();
    if (lid.z != 0u) { return; }
    for (var s = 1u; s < NSPLIT; s++) {
      let b = (tile + s) * 5u;
      acc0 += part[b];
      acc1 += part[b + 1u];
      acc2 += part[b + 2u];
      acc3 += part[b + 3u];
      bias += part[b + 4u];
    }
  }
  if (!in_range) { return; }
  store(o0, i0, acc0);
  store(o0 + 1u, i0, acc1);
  store(o0 + 2u, i0, acc2);
  store(o0 + 3u, i0, acc3);
  if (i0 == 0u) {
    for (var j = 0u; j < 4u; j++) {
      if (o0 + j < params.o) { grad[params.b_off + o0 + j] += bias[j]; }
    }
  }
}

// The tile's sums over the samples n = first, first + NSPLIT, ...
fn sum_tile(i0: u32, o0: u32, first: u32, a0: ptr<function, vec4f>, a1: ptr<function, vec4f>,
            a2: ptr<function, vec4f>, a3: ptr<function, vec4f>, bias: ptr<function, vec4f>) {
  let il = params.i - 1u;
  let ol = params.o - 1u;
  let c1 = min(i0 + 1u, il);
  let c2 = min(i0 + 2u, il);
  let c3 = min(i0 + 3u, il);
  let p1 = min(o0 + 1u, ol);
  let p2 = min(o0 + 2u, ol);
  let p3 = min(o0 + 3u, ol);
  for (var n = first; n < params.n; n += NSPLIT) {
    let xr = n * params.i;
    let dr = n * params.o;
    let xv = vec4f(x[xr + i0], x[xr + c1], x[xr + c2], x[xr + c3]);
    let dv = vec4f(dy[dr + o0], dy[dr + p1], dy[dr + p2], dy[dr + p3]);
    *a0 += dv.x * xv;
    *a1 += dv.y * xv;
    *a2 += dv.z * xv;
    *a3 += dv.w * xv;
    *bias += dv;
  }
}
