// conv2d_backward_weight_wide (stage 1 of 2, for CPU rasterisers such as SwiftShader): the same
// split-K partial sums as conv2d_backward_weight,
//   dw[co,ci,kh,kw] = sum_{n,oh,ow} dy[n,co,oh,ow] * x[n,ci,oh+kh-1,ow+kw-1]
//   db[co]          = sum_{n,oh,ow} dy[n,co,oh,ow]
// (3x3, stride 1, padding 1, NCHW), with larger register blocks: one invocation owns 8 output x 2
// input channels. Per 4 pixels it loads 32 dy and 36 x values for 608 multiply-adds
// (conv2d_backward_weight: 34 loads for 160); on SwiftShader every load is a gather that costs far
// more than a multiply-add (see conv2d_forward_wide.wgsl). Slice s (dispatch z) sums image rows
// [s*R/S, (s+1)*R/S) of the R = N*H rows and writes partial[s, co, j] with j = ci*9 + kh*3 + kw
// and j = CI*9 the bias sum, as conv2d_backward_weight does, for conv2d_backward_weight_reduce.
// The accumulators are mat3x4f values (columns kw = 0..2, rows 4 output channels) named by
// constants. Padding uses clamped addresses and 0/1 masks, not branches.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, CO, H, W]
//   2 x        read        [N, CI, H, W]
//   3 partial  read_write  [splits, CO, CI*9 + 1]
// dispatch: (ceil(ceil(CI/2) * ceil(CO/8) / WG_X), 1, splits)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

override WG_X: u32 = 16;

// 4 pixels of dy at p (columns dc, masked by md) for 4 output channels whose planes start at p.
fn dys(p: vec4u, dc: vec4u, md: vec4f) -> mat4x4f {
  return mat4x4f(
    vec4f(dy[p.x + dc.x], dy[p.x + dc.y], dy[p.x + dc.z], dy[p.x + dc.w]) * md,
    vec4f(dy[p.y + dc.x], dy[p.y + dc.y], dy[p.y + dc.z], dy[p.y + dc.w]) * md,
    vec4f(dy[p.z + dc.x], dy[p.z + dc.y], dy[p.z + dc.z], dy[p.z + dc.w]) * md,
    vec4f(dy[p.w + dc.x], dy[p.w + dc.y], dy[p.w + dc.z], dy[p.w + dc.w]) * md,
  );
}

// One input row's 6 columns ow0-1 .. ow0+4 (clamped addresses, masked).
struct Row { a: vec4f, b: vec2f }

fn xrow(row: u32, ca: vec4u, cb: vec2u, ma: vec4f, mb: vec2f) -> Row {
  return Row(
    vec4f(x[row + ca.x], x[row + ca.y], x[row + ca.z], x[row + ca.w]) * ma,
    vec2f(x[row + cb.x], x[row + cb.y]) * mb,
  );
}

// a + the three taps of one kernel row for 4 output channels: column kw gains, per channel, the
// dot product of its 4 dy pixels (d's columns) with the inputs under kw.
fn taps(a: mat3x4f, d: mat4x4f, r: Row) -> mat3x4f {
  return a + mat3x4f(r.a * d, vec4f(r.a.yzw, r.b.x) * d, vec4f(r.a.zw, r.b) * d);
}

// Writes one kernel row's taps of 4 output channels (those past the end are dropped).
fn put(s: u32, co: u32, ci: u32, kh: u32, a: mat3x4f) {
  if (ci >= params.ci) { return; }
  let stride = params.ci * 9u + 1u;
  for (var c = 0u; c < 4u; c++) {
    if (co + c < params.co) {
      let base = (s * params.co + co + c) * stride + ci * 9u + kh * 3u;
      partial[base] = a[0][c];
      partial[base + 1u] = a[1][c];
      partial[base + 2u] = a[2][c];
    }
  }
}

fn put_bias(s: u32, co: u32, b: vec4f) {
  let stride = params.ci * 9u + 1u;
  for (var c = 0u; c < 4u; c++) {
    if (co + c < params.co) { partial[(s * params.co + co + c) * stride + params.ci * 9u] = b[c]; }
  }
}

@compute @workgroup_size(WG_X)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let ci_pairs = (params.ci + 1u) / 2u;
  if (gid.x >= ci_pairs * ((params.co + 7u) / 8u)) { return; }
  let ci0 = (gid.x % ci_pairs) * 2u;
  let co0 = (gid.x / ci_pairs) * 8u;
  let s = gid.z;
  let h = params.h;
  let w = params.w;
  let rows = params.n * h;
  let row_begin = s * rows / params.splits;
  let row_end = (s + 1u) * rows / params.splits;
  // Channels past the end read the last channel; put() drops their sums.
  let lc = vec4u(params.co - 1u);
  let ch0 = min(vec4u(co0) + vec4u(0u, 1u, 2u, 3u), lc);
  let ch1 = min(vec4u(co0 + 4u) + vec4u(0u, 1u, 2u, 3u), lc);
  let ci1 = min(ci0 + 1u, params.ci - 1u);
  var p00 = mat3x4f(); var p01 = mat3x4f(); var p02 = mat3x4f();
  var p10 = mat3x4f(); var p11 = mat3x4f(); var p12 = mat3x4f();
  var q00 = mat3x4f(); var q01 = mat3x4f(); var q02 = mat3x4f();
  var q10 = mat3x4f(); var q11 = mat3x4f(); var q12 = mat3x4f();
  var bias0 = vec4f(0.0);
  var bias1 = vec4f(0.0);
  let one = vec4f(1.0);
  let lw = w - 1u;
  for (var row = row_begin; row < row_end; row++) {
    let n = row / h;
    let oh = row % h;
    // Input rows oh-1, oh, oh+1, clamped, with 0/1 masks for the padding rows.
    let o0 = select(oh - 1u, 0u, oh == 0u) * w;
    let o1 = oh * w;
    let o2 = min(oh + 1u, h - 1u) * w;
    let m0 = select(1.0, 0.0, oh == 0u);
    let m2 = select(1.0, 0.0, oh + 1u >= h);
    let xp0 = (n * params.ci + ci0) * h * w;
    let xp1 = (n * params.ci + ci1) * h * w;
    let plane = n * params.co;
    let dp0 = ((vec4u(plane) + ch0) * h + oh) * w;
    let dp1 = ((vec4u(plane) + ch1) * h + oh) * w;
    for (var ow0 = 0u; ow0 < w; ow0 += 4u) {
      // Columns ow0-1 .. ow0+4 of the input (clamped) and ow0 .. ow0+3 of dy, with masks.
      let ca = vec4u(select(ow0 - 1u, 0u, ow0 == 0u), ow0, min(ow0 + 1u, lw), min(ow0 + 2u, lw));
      let cb = vec2u(min(ow0 + 3u, lw), min(ow0 + 4u, lw));
      let ma = vec4f(select(1.0, 0.0, ow0 == 0u), 1.0, select(0.0, 1.0, ow0 + 1u < w), select(0.0, 1.0, ow0 + 2u < w));
      let mb = vec2f(select(0.0, 1.0, ow0 + 3u < w), select(0.0, 1.0, ow0 + 4u < w));
      let dc = vec4u(ca.yzw, cb.x);
      let md = vec4f(ma.yzw, mb.x);
      let d0 = dys(dp0, dc, md);
      let d1 = dys(dp1, dc, md);
      bias0 += one * d0;
      bias1 += one * d1;
      var r = xrow(xp0 + o0, ca, cb, ma * m0, mb * m0);
      p00 = taps(p00, d0, r);
      q00 = taps(q00, d1, r);
      r = xrow(xp0 + o1, ca, cb, ma, mb);
      p01 = taps(p01, d0, r);
      q01 = taps(q01, d1, r);
      r = xrow(xp0 + o2, ca, cb, ma * m2, mb * m2);
      p02 = taps(p02, d0, r);
      q02 = taps(q02, d1, r);
      r = xrow(xp1 + o0, ca, cb, ma * m0, mb * m0);
      p10 = taps(p10, d0, r);
      q10 = taps(q10, d1, r);
      r = xrow(xp1 + o1, ca, cb, ma, mb);
      p11 = taps(p11, d0, r);
      q11 = taps(q11, d1, r);
      r = xrow(xp1 + o2, ca, cb, ma * m2, mb * m2);
      p12 = taps(p12, d0, r);
      q12 = taps(q12, d1, r);
    }
  }
  // p: output channels co0 .. co0+3, q: co0+4 .. co0+7; first digit: input channel ci0 or ci0+1.
  put(s, co0, ci0, 0u, p00); put(s, co0, ci0, 1u, p01); put(s, co0, ci0, 2u, p02);
  put(s, co0 + 4u, ci0, 0u, q00); put(s, co0 + 4u, ci0, 1u, q01); put(s, co0 + 4u, ci0, 2u, q02);
  if (ci0 + 1u < params.ci) {
    put(s, co0, ci0 + 1u, 0u, p10); put(s, co0, ci0 + 1u, 1u, p11); put(s, co0, ci0 + 1u, 2u, p12);
    put(s, co0 + 4u, ci0 + 1u, 0u, q10); put(s, co0 + 4u, ci0 + 1u, 1u, q11); put(s, co0 + 4u, ci0 + 1u, 2u, q12);
  }
  if (ci0 == 0u) {
    put_bias(s, co0, bias0);
    put_bias(s, co0 + 4u, bias1);
  }
}
