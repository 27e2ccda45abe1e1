// conv2d_backward_input_wide (for CPU rasterisers such as SwiftShader): the same as
// conv2d_backward_input,
//   dx[n,ci,ih,iw] = sum_{co,kh,kw} dy[n,co,ih-kh+1,iw-kw+1] * w[co,ci,kh,kw]
// (3x3, stride 1, padding 1, NCHW: a correlation of dy with the flipped kernel), with the register
// blocks of conv2d_forward_wide: one invocation computes 16 input channels x 16 adjacent pixels of
// one row, loading 20 dy values and 48 weights per output channel and kernel row for 768
// multiply-adds (conv2d_backward_input: 18 loads for 48). Why this wins on SwiftShader and why
// GPUs run conv2d_backward_input instead: see conv2d_forward_wide.wgsl (Tuning.convBlock).
// Padding uses clamped addresses and 0/1 masks computed once per invocation, not branches.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 dy      read        [N, CO, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off
//   3 dx      read_write  [N, CI, H, W] (written, not accumulated)
// dispatch: (ceil(H * ceil(W/16) / WG_X), ceil(ceil(CI/16) / WG_Y), N)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

override WG_X: u32 = 16;
override WG_Y: u32 = 1;

// a + the outer product of 4 channels' weights t and 4 pixels' dy values v (column c: channel c).
fn opa(a: mat4x4f, t: vec4f, v: vec4f) -> mat4x4f {
  return mat4x4f(fma(vec4f(t.x), v, a[0]), fma(vec4f(t.y), v, a[1]), fma(vec4f(t.z), v, a[2]), fma(vec4f(t.w), v, a[3]));
}

// One kernel row's three taps for 4 channels x 4 pixels: pixel p under kernel column kw reads dy
// column p-kw+1, so v (columns p-1 ..) goes with kw = 2 and nx (the next 4 columns) shifts in
// for kw = 1 and 0; t0..t2 are the weights of kw = 0..2.
fn taps(a: mat4x4f, t0: vec4f, t1: vec4f, t2: vec4f, v: vec4f, nx: vec4f) -> mat4x4f {
  return opa(opa(opa(a, t2, v), t1, vec4f(v.yzw, nx.x)), t0, vec4f(v.zw, nx.xy));
}

// The weights at offset k of 4 input channels whose weights (for one output channel) start at b.
fn wt(b: vec4u, k: u32) -> vec4f {
  return vec4f(theta[b.x + k], theta[b.y + k], theta[b.z + k], theta[b.w + k]);
}

// Where the weights of input channels ci .. ci+3 start (for output channel 0); channels past the
// end read the last channel's (store1 drops their results).
fn wbase(ci: u32) -> vec4u {
  let c = min(vec4u(ci) + vec4u(0u, 1u, 2u, 3u), vec4u(params.ci - 1u));
  return c * 9u + params.w_off;
}

// 4 dy columns of one row (clamped addresses c), times their masks m.
fn dv(row: u32, c: vec4u, m: vec4f) -> vec4f {
  return vec4f(dy[row + c.x], dy[row + c.y], dy[row + c.z], dy[row + c.w]) * m;
}

// dy column iw0 + j - 1 clamped into the row, and its mask (1 inside, 0 in the padding).
fn cols(iw0: u32, j: u32) -> vec4u {
  let c = vec4u(iw0 + j) + vec4u(0u, 1u, 2u, 3u);
  return min(max(c, vec4u(1u)), vec4u(params.w)) - 1u;
}
fn masks(iw0: u32, j: u32) -> vec4f {
  let c = vec4u(iw0 + j) + vec4u(0u, 1u, 2u, 3u);
  return select(vec4f(0.0), vec4f(1.0), (c >= vec4u(1u)) & (c <= vec4u(params.w)));
}

// The in-bounds writes of one channel's 4 pixels.
fn store1(n: u32, ci: u32, ih: u32, iw: u32, acc: vec4f) {
  if (ci >= params.ci) { return; }
  let w = params.w;
  let base = ((n * params.ci + ci) * params.h + ih) * w + iw;
  if (iw < w) { dx[base] = acc.x; }
  if (iw + 1u < w) { dx[base + 1u] = acc.y; }
  if (iw + 2u < w) { dx[base + 2u] = acc.z; }
  if (iw + 3u < w) { dx[base + 3u] = acc.w; }
}
fn store4(n: u32, ci: u32, ih: u32, iw: u32, a: mat4x4f) {
  store1(n, ci, ih, iw, a[0]);
  store1(n, ci + 1u, ih, iw, a[1]);
  store1(n, ci + 2u, ih, iw, a[2]);
  store1(n, ci + 3u, ih, iw, a[3]);
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let h = params.h;
  let w = params.w;
  let groups_per_row = (w + 15u) / 16u;
  let ci0 = gid.y * 16u;
  if (gid.x >= h * groups_per_row || ci0 >= params.ci) { return; }
  let n = gid.z;
  let ih = gid.x / groups_per_row;
  let iw0 = (gid.x % groups_per_row) * 16u;
  let kk = params.ci * 9u;
  // Where the weights of input channels ci0 .. ci0+15 start (output channel 0), 4 per vec4.
  let b0 = wbase(ci0);
  let b1 = wbase(ci0 + 4u);
  let b2 = wbase(ci0 + 8u);
  let b3 = wbase(ci0 + 12u);
  // dy columns iw0-1 .. iw0+18 in five vec4s (the last two are never used by a kernel tap).
  let c0 = cols(iw0, 0u);
  let c1 = cols(iw0, 4u);
  let c2 = cols(iw0, 8u);
  let c3 = cols(iw0, 12u);
  let c4 = cols(iw0, 16u);
  let m0 = masks(iw0, 0u);
  let m1 = masks(iw0, 4u);
  let m2 = masks(iw0, 8u);
  let m3 = masks(iw0, 12u);
  let m4 = masks(iw0, 16u);
  // a<g><p>: input channels ci0+4g .. +3 x pixels iw0+4p .. +3.
  var a00 = mat4x4f(); var a01 = mat4x4f(); var a02 = mat4x4f(); var a03 = mat4x4f();
  var a10 = mat4x4f(); var a11 = mat4x4f(); var a12 = mat4x4f(); var a13 = mat4x4f();
  var a20 = mat4x4f(); var a21 = mat4x4f(); var a22 = mat4x4f(); var a23 = mat4x4f();
  var a30 = mat4x4f(); var a31 = mat4x4f(); var a32 = mat4x4f(); var a33 = mat4x4f();
  for (var co = 0u; co < params.co; co++) {
    let plane = (n * params.co + co) * h * w;
    for (var kh = 0u; kh < 3u; kh++) {
      // dy row ih-kh+1 (stored as r = ih-kh+2 to stay unsigned), clamped; m zeroes padding rows.
      let r = ih + 2u - kh;
      let m = select(1.0, 0.0, r == 0u || r > h);
      let row = plane + (min(max(r, 1u), h) - 1u) * w;
      let d0 = dv(row, c0, m0 * m);
      let d1 = dv(row, c1, m1 * m);
      let d2 = dv(row, c2, m2 * m);
      let d3 = dv(row, c3, m3 * m);
      let d4 = dv(row, c4, m4 * m);
      let k = co * kk + kh * 3u;
      var t0 = wt(b0, k);
      var t1 = wt(b0, k + 1u);
      var t2 = wt(b0, k + 2u);
      a00 = taps(a00, t0, t1, t2, d0, d1);
      a01 = taps(a01, t0, t1, t2, d1, d2);
      a02 = taps(a02, t0, t1, t2, d2, d3);
      a03 = taps(a03, t0, t1, t2, d3, d4);
      t0 = wt(b1, k);
      t1 = wt(b1, k + 1u);
      t2 = wt(b1, k + 2u);
      a10 = taps(a10, t0, t1, t2, d0, d1);
      a11 = taps(a11, t0, t1, t2, d1, d2);
      a12 = taps(a12, t0, t1, t2, d2, d3);
      a13 = taps(a13, t0, t1, t2, d3, d4);
      t0 = wt(b2, k);
      t1 = wt(b2, k + 1u);
      t2 = wt(b2, k + 2u);
      a20 = taps(a20, t0, t1, t2, d0, d1);
      a21 = taps(a21, t0, t1, t2, d1, d2);
      a22 = taps(a22, t0, t1, t2, d2, d3);
      a23 = taps(a23, t0, t1, t2, d3, d4);
      t0 = wt(b3, k);
      t1 = wt(b3, k + 1u);
      t2 = wt(b3, k + 2u);
      a30 = taps(a30, t0, t1, t2, d0, d1);
      a31 = taps(a31, t0, t1, t2, d1, d2);
      a32 = taps(a32, t0, t1, t2, d2, d3);
      a33 = taps(a33, t0, t1, t2, d3, d4);
    }
  }
  store4(n, ci0, ih, iw0, a00); store4(n, ci0, ih, iw0 + 4u, a01);
  store4(n, ci0, ih, iw0 + 8u, a02); store4(n, ci0, ih, iw0 + 12u, a03);
  store4(n, ci0 + 4u, ih, iw0, a10); store4(n, ci0 + 4u, ih, iw0 + 4u, a11);
  store4(n, ci0 + 4u, ih, iw0 + 8u, a12); store4(n, ci0 + 4u, ih, iw0 + 12u, a13);
  store4(n, ci0 + 8u, ih, iw0, a20); store4(n, ci0 + 8u, ih, iw0 + 4u, a21);
  store4(n, ci0 + 8u, ih, iw0 + 8u, a22); store4(n, ci0 + 8u, ih, iw0 + 12u, a23);
  store4(n, ci0 + 12u, ih, iw0, a30); store4(n, ci0 + 12u, ih, iw0 + 4u, a31);
  store4(n, ci0 + 12u, ih, iw0 + 8u, a32); store4(n, ci0 + 12u, ih, iw0 + 12u, a33);
}
