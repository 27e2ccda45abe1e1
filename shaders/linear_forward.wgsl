// linear_forward: y[n,o] = act(b[o] + sum_i x[n,i] * w[o,i])   (torch.nn.Linear; w is [O, I] row-major)
// act = ReLU when params.relu == 1 (fused). Each output tile of 4 samples x 4 features is computed
// by KSPLIT invocations of one workgroup (local x, the fastest-varying index, so that a warp's KSPLIT
// invocations read consecutive inputs of the same rows: coalesced loads), each summing every
// KSPLIT-th input feature, then reduced in workgroup memory: with few output tiles and a long
// reduction (fc1: 4096 inputs) this puts KSPLIT times more invocations to work on a GPU. KSPLIT = 1
// (the default, best on a CPU rasteriser) is plain register blocking.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [N, I]
//   2 theta   read        flat parameters: weight [O, I] at w_off, bias [O] at b_off
//   3 y       read_write  [N, O]
// dispatch: (ceil(ceil(O/4) / WG_X), ceil(ceil(N/4) / WG_Y), 1) with workgroups of KSPLIT x WG_X x WG_Y
// (invocation (s, tx, ty) of workgroup (wx, wy): slice s of the tile of features 4(wx WG_X + tx) and
// samples 4(wy WG_Y + ty))

struct Params { n: u32, i: u32, o: u32, w_off: u32, b_off: u32, relu: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

override WG_X: u32 = 16;
override WG_Y: u32 = 4;
override KSPLIT: u32 = 1;

// Partial 4x4 tiles of every invocation: [tile (local y, z)][k slice][row] as vec4 over 4 features.
var<workgroup> part: array<vec4f, WG_X * WG_Y * KSPLIT * 4>;

fn store(n: u32, o0: u32, acc: vec4f) {
  if (n >= params.n) { return; }
  for (var j = 0u; j < 4u; j++) {
    let o = o0 + j;
    if (o < params.o) {
      var v = acc[j] + theta[params.b_off + o];
      if (params.relu == 1u) { v = max(v, 0.0); }
      y[n * params.o + o] = v;
    }
  }
}

@compute @workgroup_size(KSPLIT, WG_X, WG_Y)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let slice = lid.x;
  let tx = lid.y;
  let ty = lid.z;
  let o0 = (wid.x * WG_X + tx) * 4u;
  let n0 = (wid.y * WG_Y + ty) * 4u;
  let in_range = o0 < params.o && n0 < params.n;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  if (in_range) {
    // Rows past the end repeat the last row; store() drops them.
    let xr0 = n0 * params.i;
    let xr1 = min(n0 + 1u, params.n - 1u) * params.i;
    let xr2 = min(n0 + 2u, params.n - 1u) * params.i;
    let xr3 = min(n0 + 3u, params.n - 1u) * params.i;
    let wr0 = params.w_off + o0 * params.i;
    let wr1 = params.w_off + min(o0 + 1u, params.o - 1u) * params.i;
    let wr2 = params.w_off + min(o0 + 2u, params.o - 1u) * params.i;
    let wr3 = params.w_off + min(o0 + 3u, params.o - 1u) * params.i;
    for (var k = slice; k < params.i; k += KSPLIT) {
      let wv = vec4f(theta[wr0 + k], theta[wr1 + k], theta[wr2 + k], theta[wr3 + k]);
      acc0 += x[xr0 + k] * wv;
      acc1 += x[xr1 + k] * wv;
      acc2 += x[xr2 + k] * wv;
      acc3 += x[xr3 + k] * wv;
    }
  }
  if (KSPLIT > 1u) {
    let tile = (ty * WG_X + tx) * KSPLIT;
    let at = (tile + slice) * 4u;
    part[at] = acc0;
    part[at + 1u] = acc1;
    part[at + 2u] = acc2;
    part[at + 3u] = acc3;
    workgroupBarrier();
    if (slice != 0u) { return; }
    for (var s = 1u; s < KSPLIT; s++) {
      let b = (tile + s) * 4u;
      acc0 += part[b];
      acc1 += part[b + 1u];
      acc2 += part[b + 2u];
      acc3 += part[b + 3u];
    }
  }
  if (!in_range) { return; }
  store(n0, o0, acc0);
  store(n0 + 1u, o0, acc1);
  store(n0 + 2u, o0, acc2);
  store(n0 + 3u, o0, acc3);
}
