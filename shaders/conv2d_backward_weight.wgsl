// conv2d_backward_weight (stage 1 of 2): split-K partial sums of the weight and bias gradients
//   dw[co,ci,kh,kw] = sum_{n,oh,ow} dy[n,co,oh,ow] * x[n,ci,oh+kh-1,ow+kw-1]
//   db[co]          = sum_{n,oh,ow} dy[n,co,oh,ow]
// for conv2d_forward (3x3, stride 1, padding 1, NCHW). The reduction runs over N*H*W, far longer
// than the output, so the N*H image rows are split into S slices (dispatch z); slice s writes
// partial[s, co, j] with j = ci*9 + kh*3 + kw, and j = CI*9 holds the bias sum.
// conv2d_backward_weight_reduce.wgsl then adds the S slices into the gradient.
// One invocation owns 4 output channels x one input channel x all 9 taps (36 accumulators) and
// walks its slice 4 columns at a time. The zero padding is applied with clamped addresses and 0/1
// masks, not branches: per-element branches make SwiftShader's shader compiler take minutes.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, CO, H, W] gradient of the pre-activation
//   2 x        read        [N, CI, H, W] the layer's input
//   3 partial  read_write  [S, CO, CI*9 + 1]
// dispatch: (ceil(CI * ceil(CO/4) / WG_X), 1, S)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

override WG_X: u32 = 64;

// Accumulates the three taps (kw = 0, 1, 2) of one kernel row: the row's input columns
// ow0-1 .. ow0+4 (clamped addresses, zero where masked) correlated with the 4 channels' dy rows.
fn row_taps(a0: ptr<function, vec4f>, a1: ptr<function, vec4f>, a2: ptr<function, vec4f>, row: u32, m: f32,
            ca: vec4u, cb: vec2u, ma: vec4f, mb: vec2f, d0: vec4f, d1: vec4f, d2: vec4f, d3: vec4f) {
  let xa = vec4f(x[row + ca.x], x[row + ca.y], x[row + ca.z], x[row + ca.w]) * (ma * m);
  let xb = vec2f(x[row + cb.x], x[row + cb.y]) * (mb * m);
  let x1 = vec4f(xa.yzw, xb.x);
  let x2 = vec4f(xa.zw, xb);
  *a0 += vec4f(dot(d0, xa), dot(d1, xa), dot(d2, xa), dot(d3, xa));
  *a1 += vec4f(dot(d0, x1), dot(d1, x1), dot(d2, x1), dot(d3, x1));
  *a2 += vec4f(dot(d0, x2), dot(d1, x2), dot(d2, x2), dot(d3, x2));
}

fn put(s: u32, co: u32, ci: u32, t0: vec4f, t1: vec4f, t2: vec4f) {
  if (co >= params.co) { return; }
  let base = (s * params.co + co) * (params.ci * 9u + 1u) + ci * 9u;
  // t0 = taps (0,0) (0,1) (0,2) (1,0); t1 = (1,1) (1,2) (2,0) (2,1); t2 = (2,2), bias
  partial[base] = t0.x; partial[base + 1u] = t0.y; partial[base + 2u] = t0.z;
  partial[base + 3u] = t0.w; partial[base + 4u] = t1.x; partial[base + 5u] = t1.y;
  partial[base + 6u] = t1.z; partial[base + 7u] = t1.w; partial[base + 8u] = t2.x;
  if (ci == 0u) { partial[(s * params.co + co) * (params.ci * 9u + 1u) + params.ci * 9u] = t2.y; }
}

@compute @workgroup_size(WG_X)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let co_groups = (params.co + 3u) / 4u;
  if (gid.x >= params.ci * co_groups) { return; }
  let ci = gid.x % params.ci;
  let co0 = (gid.x / params.ci) * 4u;
  let s = gid.z;
  let rows = params.n * params.h;
  let row_begin = s * rows / params.splits;
  let row_end = (s + 1u) * rows / params.splits;
  let h = params.h;
  let w = params.w;
  // Channels past the end read the last channel; put() drops their sums.
  let lc = params.co - 1u;
  let c0 = co0;
  let c1 = min(co0 + 1u, lc);
  let c2 = min(co0 + 2u, lc);
  let c3 = min(co0 + 3u, lc);
  var a00 = vec4f(0.0); var a01 = vec4f(0.0); var a02 = vec4f(0.0);
  var a10 = vec4f(0.0); var a11 = vec4f(0.0); var a12 = vec4f(0.0);
  var a20 = vec4f(0.0); var a21 = vec4f(0.0); var a22 = vec4f(0.0);
  var bias = vec4f(0.0);
  let one = vec4f(1.0);
  for (var row = row_begin; row < row_end; row++) {
    let n = row / h;
    let oh = row % h;
    let xplane = (n * params.ci + ci) * h * w;
    // Input rows oh-1, oh, oh+1, clamped, with 0/1 masks for the padding rows.
    let r0 = xplane + select(oh - 1u, 0u, oh == 0u) * w;
    let r1 = xplane + oh * w;
    let r2 = xplane + min(oh + 1u, h - 1u) * w;
    let m0 = select(1.0, 0.0, oh == 0u);
    let m2 = select(1.0, 0.0, oh + 1u >= h);
    let dr = oh * w;
    let p0 = (n * params.co + c0) * h * w + dr;
    let p1 = (n * params.co + c1) * h * w + dr;
    let p2 = (n * params.co + c2) * h * w + dr;
    let p3 = (n * params.co + c3) * h * w + dr;
    for (var ow0 = 0u; ow0 < w; ow0 += 4u) {
      // Columns ow0-1 .. ow0+4 of the input (clamped) and ow0 .. ow0+3 of dy, with masks.
      let lw = w - 1u;
      let ca = vec4u(select(ow0 - 1u, 0u, ow0 == 0u), ow0, min(ow0 + 1u, lw), min(ow0 + 2u, lw));
      let cb = vec2u(min(ow0 + 3u, lw), min(ow0 + 4u, lw));
      let ma = vec4f(select(1.0, 0.0, ow0 == 0u), 1.0, select(0.0, 1.0, ow0 + 1u < w), select(0.0, 1.0, ow0 + 2u < w));
      let mb = vec2f(select(0.0, 1.0, ow0 + 3u < w), select(0.0, 1.0, ow0 + 4u < w));
      let md = vec4f(ma.yzw, mb.x);
      let dc = vec4u(ca.yzw, cb.x);
      let d0 = vec4f(dy[p0 + dc.x], dy[p0 + dc.y], dy[p0 + dc.z], dy[p0 + dc.w]) * md;
      let d1 = vec4f(dy[p1 + dc.x], dy[p1 + dc.y], dy[p1 + dc.z], dy[p1 + dc.w]) * md;
      let d2 = vec4f(dy[p2 + dc.x], dy[p2 + dc.y], dy[p2 + dc.z], dy[p2 + dc.w]) * md;
      let d3 = vec4f(dy[p3 + dc.x], dy[p3 + dc.y], dy[p3 + dc.z], dy[p3 + dc.w]) * md;
      bias += vec4f(dot(d0, one), dot(d1, one), dot(d2, one), dot(d3, one));
      row_taps(&a00, &a01, &a02, r0, m0, ca, cb, ma, mb, d0, d1, d2, d3);
      row_taps(&a10, &a11, &a12, r1, 1.0, ca, cb, ma, mb, d0, d1, d2, d3);
      row_taps(&a20, &a21, &a22, r2, m2, ca, cb, ma, mb, d0, d1, d2, d3);
    }
  }
  put(s, co0, ci, vec4f(a00.x, a01.x, a02.x, a10.x), vec4f(a11.x, a12.x, a20.x, a21.x), vec4f(a22.x, bias.x, 0.0, 0.0));
  put(s, co0 + 1u, ci, vec4f(a00.y, a01.y, a02.y, a10.y), vec4f(a11.y, a12.y, a20.y, a21.y), vec4f(a22.y, bias.y, 0.0, 0.0));
  put(s, co0 + 2u, ci, vec4f(a00.z, a01.z, a02.z, a10.z), vec4f(a11.z, a12.z, a20.z, a21.z), vec4f(a22.z, bias.z, 0.0, 0.0));
  put(s, co0 + 3u, ci, vec4f(a00.w, a01.w, a02.w, a10.w), vec4f(a11.w, a12.w, a20.w, a21.w), vec4f(a22.w, bias.w, 0.0, 0.0));
}
