// conv2d_forward: y[n,co,oh,ow] = act(b[co] + sum_{ci,kh,kw} w[co,ci,kh,kw] * x[n,ci,oh+kh-1,ow+kw-1])
// 3x3 kernel, stride 1, zero padding 1, NCHW, so the output is H x W like the input; act = ReLU
// when params.relu == 1 (fused: saves a pass, and the backward only needs y > 0).
// Implicit GEMM with register blocking: one invocation computes 4 output channels x 4 adjacent
// pixels of one row; it reads a 6-pixel input row once and reuses it for the three kernel columns.
// Padding uses clamped addresses and 0/1 masks computed once per invocation, not branches.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [N, CI, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off
//   3 y       read_write  [N, CO, H, W]
// dispatch: (ceil(H * ceil(W/4) / WG_X), ceil(ceil(CO/4) / WG_Y), N)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32, b_off: u32, relu: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

override WG_X: u32 = 64;
override WG_Y: u32 = 1;

// Stores the first n (1 or 2) of v at y[i], y[i + 1]: the only write of y, so that fp16 activations
// (src/gpu/half-acts.ts) can replace it with one whole-word store of two halves.
fn y_store2(i: u32, v: vec2f, n: u32) {
  y[i] = v.x;
  if (n > 1u) { y[i + 1u] = v.y; }
}

fn store(n: u32, co: u32, oh: u32, ow0: u32, acc: vec4f) {
  if (co >= params.co) { return; }
  let b = theta[params.b_off + co];
  let base = ((n * params.co + co) * params.h + oh) * params.w + ow0;
  var v = acc + b;
  if (params.relu == 1u) { v = max(v, vec4f(0.0)); }
  y_store2(base, v.xy, min(params.w - ow0, 2u));
  if (ow0 + 2u < params.w) { y_store2(base + 2u, v.zw, min(params.w - ow0 - 2u, 2u)); }
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let h = params.h;
  let w = params.w;
  let groups_per_row = (w + 3u) / 4u;
  let co0 = gid.y * 4u;
  if (gid.x >= h * groups_per_row || co0 >= params.co) { return; }
  let n = gid.z;
  let oh = gid.x / groups_per_row;
  let ow0 = (gid.x % groups_per_row) * 4u;
  let kk = params.ci * 9u;
  // Channels past the end read the last channel's weights; store() drops their results.
  let last = params.co - 1u;
  let wb0 = params.w_off + co0 * kk;
  let wb1 = params.w_off + min(co0 + 1u, last) * kk;
  let wb2 = params.w_off + min(co0 + 2u, last) * kk;
  let wb3 = params.w_off + min(co0 + 3u, last) * kk;
  // Input columns ow0-1 .. ow0+4, clamped, with 0/1 masks (kernel column kw uses ow0+kw-1 ..).
  let lw = w - 1u;
  let ca = vec4u(select(ow0 - 1u, 0u, ow0 == 0u), ow0, min(ow0 + 1u, lw), min(ow0 + 2u, lw));
  let cb = vec2u(min(ow0 + 3u, lw), min(ow0 + 4u, lw));
  let ma = vec4f(select(1.0, 0.0, ow0 == 0u), 1.0, select(0.0, 1.0, ow0 + 1u < w), select(0.0, 1.0, ow0 + 2u < w));
  let mb = vec2f(select(0.0, 1.0, ow0 + 3u < w), select(0.0, 1.0, ow0 + 4u < w));
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var ci = 0u; ci < params.ci; ci++) {
    let plane = (n * params.ci + ci) * h * w;
    for (var kh = 0u; kh < 3u; kh++) {
      // Input row oh+kh-1, clamped; m zeroes the padding rows.
      let r = oh + kh;
      let m = select(1.0, 0.0, r == 0u || r > h);
      let row = plane + (min(max(r, 1u), h) - 1u) * w;
      let xa = vec4f(x[row + ca.x], x[row + ca.y], x[row + ca.z], x[row + ca.w]) * (ma * m);
      let xb = vec2f(x[row + cb.x], x[row + cb.y]) * (mb * m);
      let x1 = vec4f(xa.yzw, xb.x);
      let x2 = vec4f(xa.zw, xb);
      let k = ci * 9u + kh * 3u;
      acc0 += theta[wb0 + k] * xa + theta[wb0 + k + 1u] * x1 + theta[wb0 + k + 2u] * x2;
      acc1 += theta[wb1 + k] * xa + theta[wb1 + k + 1u] * x1 + theta[wb1 + k + 2u] * x2;
      acc2 += theta[wb2 + k] * xa + theta[wb2 + k + 1u] * x1 + theta[wb2 + k + 2u] * x2;
      acc3 += theta[wb3 + k] * xa + theta[wb3 + k + 1u] * x1 + theta[wb3 + k + 2u] * x2;
    }
  }
  store(n, co0, oh, ow0, acc0);
  store(n, co0 + 1u, oh, ow0, acc1);
  store(n, co0 + 2u, oh, ow0, acc2);
  store(n, co0 + 3u, oh, ow0, acc3);
}
