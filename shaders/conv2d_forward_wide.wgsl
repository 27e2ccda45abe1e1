// conv2d_forward_wide (for CPU rasterisers such as SwiftShader): the same as conv2d_forward,
//   y[n,co,oh,ow] = act(b[co] + sum_{ci,kh,kw} w[co,ci,kh,kw] * x[n,ci,oh+kh-1,ow+kw-1])
// (3x3, stride 1, zero padding 1, NCHW; act = ReLU when params.relu == 1), with far larger
// register blocks: one invocation computes 16 output channels x 16 adjacent pixels of one row.
// On SwiftShader every buffer load is a 4-lane gather that costs far more than a multiply-add, so
// the speed follows the multiply-adds per load: per input channel and kernel row this kernel loads
// 20 inputs and 48 weights for 768 multiply-adds (conv2d_forward: 18 loads for 48). The 256
// accumulators are 16 mat4x4f values (4 channels x 4 pixels each) named and indexed by constants:
// arrays indexed in loops live in memory there and ran slower than conv2d_forward. On a real GPU
// this many registers per invocation would starve it, so GPUs run conv2d_forward (Tuning.convBlock).
// Padding uses clamped addresses and 0/1 masks computed once per invocation, not branches.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [N, CI, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off
//   3 y       read_write  [N, CO, H, W]
// dispatch: (ceil(H * ceil(W/16) / WG_X), ceil(ceil(CO/16) / WG_Y), N)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32, b_off: u32, relu: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

override WG_X: u32 = 16;
override WG_Y: u32 = 1;

// a + the outer product of 4 channels' weights t and 4 pixels' inputs v (column c: channel c).
fn opa(a: mat4x4f, t: vec4f, v: vec4f) -> mat4x4f {
  return mat4x4f(fma(vec4f(t.x), v, a[0]), fma(vec4f(t.y), v, a[1]), fma(vec4f(t.z), v, a[2]), fma(vec4f(t.w), v, a[3]));
}

// One kernel row's three taps for 4 channels x 4 pixels: t0..t2 are the weights of kw = 0..2,
// v the inputs under kw = 0 and nx the next 4 input columns (kw = 1, 2 shift them in).
fn taps(a: mat4x4f, t0: vec4f, t1: vec4f, t2: vec4f, v: vec4f, nx: vec4f) -> mat4x4f {
  return opa(opa(opa(a, t0, v), t1, vec4f(v.yzw, nx.x)), t2, vec4f(v.zw, nx.xy));
}

// The weights at offset k of 4 channels whose weights start at b.
fn wt(b: vec4u, k: u32) -> vec4f {
  return vec4f(theta[b.x + k], theta[b.y + k], theta[b.z + k], theta[b.w + k]);
}

// Where the weights of channels co .. co+3 start; channels past the end read the last channel's
// (store1 drops their results).
fn wbase(co: u32) -> vec4u {
  let c = min(vec4u(co) + vec4u(0u, 1u, 2u, 3u), vec4u(params.co - 1u));
  return c * (params.ci * 9u) + params.w_off;
}

// 4 input columns of one row (clamped addresses c), times their masks m.
fn xv(row: u32, c: vec4u, m: vec4f) -> vec4f {
  return vec4f(x[row + c.x], x[row + c.y], x[row + c.z], x[row + c.w]) * m;
}

// Input column ow0 + j - 1 clamped into the row, and its mask (1 inside, 0 in the padding).
fn cols(ow0: u32, j: u32) -> vec4u {
  let c = vec4u(ow0 + j) + vec4u(0u, 1u, 2u, 3u);
  return min(max(c, vec4u(1u)), vec4u(params.w)) - 1u;
}
fn masks(ow0: u32, j: u32) -> vec4f {
  let c = vec4u(ow0 + j) + vec4u(0u, 1u, 2u, 3u);
  return select(vec4f(0.0), vec4f(1.0), (c >= vec4u(1u)) & (c <= vec4u(params.w)));
}

// Stores the first n (1 or 2) of v at y[i], y[i + 1]: the only write of y, so that fp16 activations
// (src/gpu/half-acts.ts) can replace it with one whole-word store of two halves.
fn y_store2(i: u32, v: vec2f, n: u32) {
  y[i] = v.x;
  if (n > 1u) { y[i + 1u] = v.y; }
}

// Bias, ReLU and the in-bounds writes of one channel's 4 pixels.
fn store1(n: u32, co: u32, oh: u32, ow: u32, acc: vec4f) {
  if (co >= params.co) { return; }
  var v = acc + theta[params.b_off + co];
  if (params.relu == 1u) { v = max(v, vec4f(0.0)); }
  let w = params.w;
  let base = ((n * params.co + co) * params.h + oh) * w + ow;
  if (ow < w) { y_store2(base, v.xy, min(w - ow, 2u)); }
  if (ow + 2u < w) { y_store2(base + 2u, v.zw, min(w - ow - 2u, 2u)); }
}
fn store4(n: u32, co: u32, oh: u32, ow: u32, a: mat4x4f) {
  store1(n, co, oh, ow, a[0]);
  store1(n, co + 1u, oh, ow, a[1]);
  store1(n, co + 2u, oh, ow, a[2]);
  store1(n, co + 3u, oh, ow, a[3]);
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let h = params.h;
  let w = params.w;
  let groups_per_row = (w + 15u) / 16u;
  let co0 = gid.y * 16u;
  if (gid.x >= h * groups_per_row || co0 >= params.co) { return; }
  let n = gid.z;
  let oh = gid.x / groups_per_row;
  let ow0 = (gid.x % groups_per_row) * 16u;
  // Where the weights of channels co0 .. co0+15 start, 4 per vec4.
  let b0 = wbase(co0);
  let b1 = wbase(co0 + 4u);
  let b2 = wbase(co0 + 8u);
  let b3 = wbase(co0 + 12u);
  // Input columns ow0-1 .. ow0+18 in five vec4s (the last two are never used by a kernel tap).
  let c0 = cols(ow0, 0u);
  let c1 = cols(ow0, 4u);
  let c2 = cols(ow0, 8u);
  let c3 = cols(ow0, 12u);
  let c4 = cols(ow0, 16u);
  let m0 = masks(ow0, 0u);
  let m1 = masks(ow0, 4u);
  let m2 = masks(ow0, 8u);
  let m3 = masks(ow0, 12u);
  let m4 = masks(ow0, 16u);
  // a<g><p>: channels co0+4g .. +3 x pixels ow0+4p .. +3.
  var a00 = mat4x4f(); var a01 = mat4x4f(); var a02 = mat4x4f(); var a03 = mat4x4f();
  var a10 = mat4x4f(); var a11 = mat4x4f(); var a12 = mat4x4f(); var a13 = mat4x4f();
  var a20 = mat4x4f(); var a21 = mat4x4f(); var a22 = mat4x4f(); var a23 = mat4x4f();
  var a30 = mat4x4f(); var a31 = mat4x4f(); var a32 = mat4x4f(); var a33 = mat4x4f();
  for (var ci = 0u; ci < params.ci; ci++) {
    let plane = (n * params.ci + ci) * h * w;
    for (var kh = 0u; kh < 3u; kh++) {
      // Input row oh+kh-1, clamped; m zeroes the padding rows.
      let r = oh + kh;
      let m = select(1.0, 0.0, r == 0u || r > h);
      let row = plane + (min(max(r, 1u), h) - 1u) * w;
      let x0 = xv(row, c0, m0 * m);
      let x1 = xv(row, c1, m1 * m);
      let x2 = xv(row, c2, m2 * m);
      let x3 = xv(row, c3, m3 * m);
      let x4 = xv(row, c4, m4 * m);
      let k = ci * 9u + kh * 3u;
      var t0 = wt(b0, k);
      var t1 = wt(b0, k + 1u);
      var t2 = wt(b0, k + 2u);
      a00 = taps(a00, t0, t1, t2, x0, x1);
      a01 = taps(a01, t0, t1, t2, x1, x2);
      a02 = taps(a02, t0, t1, t2, x2, x3);
      a03 = taps(a03, t0, t1, t2, x3, x4);
      t0 = wt(b1, k);
      t1 = wt(b1, k + 1u);
      t2 = wt(b1, k + 2u);
      a10 = taps(a10, t0, t1, t2, x0, x1);
      a11 = taps(a11, t0, t1, t2, x1, x2);
      a12 = taps(a12, t0, t1, t2, x2, x3);
      a13 = taps(a13, t0, t1, t2, x3, x4);
      t0 = wt(b2, k);
      t1 = wt(b2, k + 1u);
      t2 = wt(b2, k + 2u);
      a20 = taps(a20, t0, t1, t2, x0, x1);
      a21 = taps(a21, t0, t1, t2, x1, x2);
      a22 = taps(a22, t0, t1, t2, x2, x3);
      a23 = taps(a23, t0, t1, t2, x3, x4);
      t0 = wt(b3, k);
      t1 = wt(b3, k + 1u);
      t2 = wt(b3, k + 2u);
      a30 = taps(a30, t0, t1, t2, x0, x1);
      a31 = taps(a31, t0, t1, t2, x1, x2);
      a32 = taps(a32, t0, t1, t2, x2, x3);
      a33 = taps(a33, t0, t1, t2, x3, x4);
    }
  }
  store4(n, co0, oh, ow0, a00); store4(n, co0, oh, ow0 + 4u, a01);
  store4(n, co0, oh, ow0 + 8u, a02); store4(n, co0, oh, ow0 + 12u, a03);
  store4(n, co0 + 4u, oh, ow0, a10); store4(n, co0 + 4u, oh, ow0 + 4u, a11);
  store4(n, co0 + 4u, oh, ow0 + 8u, a12); store4(n, co0 + 4u, oh, ow0 + 12u, a13);
  store4(n, co0 + 8u, oh, ow0, a20); store4(n, co0 + 8u, oh, ow0 + 4u, a21);
  store4(n, co0 + 8u, oh, ow0 + 8u, a22); store4(n, co0 + 8u, oh, ow0 + 12u, a23);
  store4(n, co0 + 12u, oh, ow0, a30); store4(n, co0 + 12u, oh, ow0 + 4u, a31);
  store4(n, co0 + 12u, oh, ow0 + 8u, a32); store4(n, co0 + 12u, oh, ow0 + 12u, a33);
}
