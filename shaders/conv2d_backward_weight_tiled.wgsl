// conv2d_backward_weight_tiled (stage 1 of 2, for real GPUs): the same split-K partial sums as
// conv2d_backward_weight, with the operands staged in workgroup memory:
//   dw[co,ci,kh,kw] = sum_{n,oh,ow} dy[n,co,oh,ow] * x[n,ci,oh+kh-1,ow+kw-1]
//   db[co]          = sum_{n,oh,ow} dy[n,co,oh,ow]
// (3x3, stride 1, padding 1, NCHW). The reduction runs over pixel tiles of ROWS x TW (units: every
// image's tiles, in order); slice s (dispatch z) takes units [s*U/S, (s+1)*U/S) and writes
// partial[s, co, j] with j = ci*9 + kh*3 + kw and j = CI*9 the bias sum, as the register kernel
// does, so conv2d_backward_weight_reduce.wgsl sums the slices the same way.
// A workgroup owns TCO output x TCI input channels: per unit it loads the tile of dy
// ([ROWS*TW] x TCO/4 vec4s) and the tile of x with its 1-pixel halo ([TCI][ROWS+2][TW+2], zeros
// outside the image) once, then each invocation (4 output channels x 1 input channel, 36
// accumulators + bias) walks the tile with a 3-wide sliding window per kernel row. Every dy value
// is read from global memory once per TCI input channels instead of once per channel.
// Loads use clamped addresses and select(), not branches (SwiftShader compiles branches slowly).
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, CO, H, W] gradient of the pre-activation
//   2 x        read        [N, CI, H, W] the layer's input
//   3 partial  read_write  [S, CO, CI*9 + 1]
// dispatch: (ceil(CO/TCO) * ceil(CI/TCI), 1, S); workgroup size (TCO/4) * TCI

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

override TCO: u32 = 64; // output channels per workgroup (a multiple of 4)
override TCI: u32 = 16; // input channels per workgroup
override ROWS: u32 = 2; // pixel tile height
override TW: u32 = 16; // pixel tile width
override WG: u32 = TCO / 4u * TCI;

// dy tile: pixel p = r*TW + c, channel group g = 4 output channels: dys[p * (TCO/4) + g]
var<workgroup> dys: array<vec4f, ROWS * TW * TCO / 4u>;
// x tile with halo: xs[(ci * (ROWS+2) + rr) * (TW+2) + cc] = x[n, ci0+ci, r0-1+rr, c0-1+cc]
var<workgroup> xs: array<f32, TCI * (ROWS + 2u) * (TW + 2u)>;

fn put(s: u32, co: u32, ci: u32, t0: vec4f, t1: vec4f, t2: vec4f, with_bias: bool) {
  if (co >= params.co || ci >= params.ci) { return; }
  let row = (s * params.co + co) * (params.ci * 9u + 1u);
  let base = row + ci * 9u;
  // t0 = taps (0,0) (0,1) (0,2) (1,0); t1 = (1,1) (1,2) (2,0) (2,1); t2 = (2,2), bias
  partial[base] = t0.x; partial[base + 1u] = t0.y; partial[base + 2u] = t0.z;
  partial[base + 3u] = t0.w; partial[base + 4u] = t1.x; partial[base + 5u] = t1.y;
  partial[base + 6u] = t1.z; partial[base + 7u] = t1.w; partial[base + 8u] = t2.x;
  if (with_bias) { partial[row + params.ci * 9u] = t2.y; }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) t: u32) {
  let h = params.h;
  let w = params.w;
  let ci_tiles = (params.ci + TCI - 1u) / TCI;
  let co0 = (wid.x / ci_tiles) * TCO;
  let ci0 = (wid.x % ci_tiles) * TCI;
  let groups = TCO / 4u;
  let g = t % groups; // this invocation's 4 output channels: co0 + 4g ..
  let cl = t / groups; // and its input channel: ci0 + cl
  let row_tiles = (h + ROWS - 1u) / ROWS;
  let col_tiles = (w + TW - 1u) / TW;
  let per_image = row_tiles * col_tiles;
  let units = params.n * per_image;
  let s = wid.z;
  let u_begin = s * units / params.splits;
  let u_end = (s + 1u) * units / params.splits;
  let hw = h * w;
  let xw = TW + 2u;
  let xplane = (ROWS + 2u) * xw;

  var a00 = vec4f(0.0); var a01 = vec4f(0.0); var a02 = vec4f(0.0);
  var a10 = vec4f(0.0); var a11 = vec4f(0.0); var a12 = vec4f(0.0);
  var a20 = vec4f(0.0); var a21 = vec4f(0.0); var a22 = vec4f(0.0);
  var bias = vec4f(0.0);

  for (var u = u_begin; u < u_end; u++) {
    let n = u / per_image;
    let r0 = ((u % per_image) / col_tiles) * ROWS;
    let c0 = (u % col_tiles) * TW;
    // Stage dy: element i = channel (i / (ROWS*TW)) of the tile, pixel i % (ROWS*TW), so that
    // neighbouring invocations read neighbouring pixels of one channel plane.
    for (var i = t; i < TCO * ROWS * TW; i += WG) {
      let cl_o = i / (ROWS * TW);
      let p = i % (ROWS * TW);
      let oh = r0 + p / TW;
      let ow = c0 + p % TW;
      let co = co0 + cl_o;
      let inside = co < params.co && oh < h && ow < w;
      let v = dy[(n * params.co + min(co, params.co - 1u)) * hw + min(oh, h - 1u) * w + min(ow, w - 1u)];
      dys[p * groups + cl_o / 4u][cl_o % 4u] = select(0.0, v, inside);
    }
    // Stage x with its halo (zero padding outside the image, zero for channels past CI).
    for (var i = t; i < TCI * xplane; i += WG) {
      let cl_i = i / xplane;
      let rr = (i % xplane) / xw;
      let cc = i % xw;
      let ih = i32(r0 + rr) - 1;
      let iw = i32(c0 + cc) - 1;
      let ci = ci0 + cl_i;
      let inside = ci < params.ci && ih >= 0 && ih < i32(h) && iw >= 0 && iw < i32(w);
      let hc = u32(clamp(ih, 0, i32(h) - 1));
      let wc = u32(clamp(iw, 0, i32(w) - 1));
      let v = x[(n * params.ci + min(ci, params.ci - 1u)) * hw + hc * w + wc];
      xs[i] = select(0.0, v, inside);
    }
    workgroupBarrier();
    let xb = cl * xplane;
    for (var r = 0u; r < ROWS; r++) {
      let x0 = xb + r * xw; // input rows oh-1, oh, oh+1 of output row r
      let x1 = x0 + xw;
      let x2 = x1 + xw;
      // Sliding windows: columns c, c+1 of each kernel row; column c+2 is read in the loop.
      var p0 = xs[x0]; var q0 = xs[x0 + 1u];
      var p1 = xs[x1]; var q1 = xs[x1 + 1u];
      var p2 = xs[x2]; var q2 = xs[x2 + 1u];
      for (var c = 0u; c < TW; c++) {
        let d = dys[(r * TW + c) * groups + g];
        let n0 = xs[x0 + c + 2u];
        let n1 = xs[x1 + c + 2u];
        let n2 = xs[x2 + c + 2u];
        a00 += d * p0; a01 += d * q0; a02 += d * n0;
        a10 += d * p1; a11 += d * q1; a12 += d * n1;
        a20 += d * p2; a21 += d * q2; a22 += d * n2;
        bias += d;
        p0 = q0; q0 = n0;
        p1 = q1; q1 = n1;
        p2 = q2; q2 = n2;
      }
    }
    workgroupBarrier();
  }
  let ci = ci0 + cl;
  let co = co0 + 4u * g;
  let wb = ci == 0u; // one input channel's invocations write the bias sums
  put(s, co, ci, vec4f(a00.x, a01.x, a02.x, a10.x), vec4f(a11.x, a12.x, a20.x, a21.x), vec4f(a22.x, bias.x, 0.0, 0.0), wb);
  put(s, co + 1u, ci, vec4f(a00.y, a01.y, a02.y, a10.y), vec4f(a11.y, a12.y, a20.y, a21.y), vec4f(a22.y, bias.y, 0.0, 0.0), wb);
  put(s, co + 2u, ci, vec4f(a00.z, a01.z, a02.z, a10.z), vec4f(a11.z, a12.z, a20.z, a21.z), vec4f(a22.z, bias.z, 0.0, 0.0), wb);
  put(s, co + 3u, ci, vec4f(a00.w, a01.w, a02.w, a10.w), vec4f(a11.w, a12.w, a20.w, a21.w), vec4f(a22.w, bias.w, 0.0, 0.0), wb);
}
