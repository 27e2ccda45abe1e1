// conv2d_forward_tiled (for real GPUs): the same sums as conv2d_forward, with the operands staged
// in workgroup memory:
//   y[n,co,oh,ow] = act(b[co] + sum_{ci,kh,kw} w[co,ci,kh,kw] * x[n,ci,oh+kh-1,ow+kw-1])
// (3x3, stride 1, zero padding 1, NCHW; act = ReLU when params.relu == 1).
// A workgroup owns TCO output channels x one ROWS x TW pixel tile of one image. It walks the input
// channels TCI at a time: it stages their weights (ws: [TCI*9 taps][TCO/4] vec4s of 4 output
// channels) and their input tile with its 1-pixel halo (xs: [TCI][ROWS+2][TW+2], zeros outside the
// image), then every invocation (8 output channels x 4 adjacent pixels of a row, 32 accumulators)
// reads a 6-pixel input row once per kernel row and two weight vec4s per tap from workgroup memory.
// Each weight is read from global memory once per pixel tile, each input value once per TCO
// output channels (conv2d_forward reads both once per 4 channels / 4 pixels of an invocation).
// Loads use clamped addresses and select(), not branches (SwiftShader compiles branches slowly).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [N, CI, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off
//   3 y       read_write  [N, CO, H, W]
// dispatch: (ceil(H/ROWS) * ceil(W/TW), ceil(CO/TCO), N); workgroup size (TCO/8) * ROWS * (TW/4)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32, b_off: u32, relu: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

override TCO: u32 = 32; // output channels per workgroup (a multiple of 8)
override TCI: u32 = 8; // input channels staged at a time
override ROWS: u32 = 4; // pixel tile height
override TW: u32 = 16; // pixel tile width (a multiple of 4)
override PG: u32 = ROWS * TW / 4u; // pixel groups (4 pixels of a row) per tile
override WG: u32 = TCO / 8u * PG;

// ws[(c * 9 + tap) * (TCO/4) + q] = w[co0 + 4q .. co0 + 4q + 3, ci0 + c, tap] (zeros past CO / CI)
var<workgroup> ws: array<vec4f, TCI * 9u * TCO / 4u>;
// xs[(c * (ROWS+2) + rr) * (TW+2) + cc] = x[n, ci0 + c, r0 - 1 + rr, c0 - 1 + cc]
var<workgroup> xs: array<f32, TCI * (ROWS + 2u) * (TW + 2u)>;

// Stores the first n (1 or 2) of v at y[i], y[i + 1]: the only write of y, so that fp16 activations
// (src/gpu/half-acts.ts) can replace it with one whole-word store of two halves.
fn y_store2(i: u32, v: vec2f, n: u32) {
  y[i] = v.x;
  if (n > 1u) { y[i + 1u] = v.y; }
}

fn store(n: u32, co: u32, oh: u32, ow0: u32, acc: vec4f) {
  if (co >= params.co || oh >= params.h || ow0 >= params.w) { return; }
  let base = ((n * params.co + co) * params.h + oh) * params.w + ow0;
  var v = acc + theta[params.b_off + co];
  if (params.relu == 1u) { v = max(v, vec4f(0.0)); }
  y_store2(base, v.xy, min(params.w - ow0, 2u));
  if (ow0 + 2u < params.w) { y_store2(base + 2u, v.zw, min(params.w - ow0 - 2u, 2u)); }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) t: u32) {
  let h = params.h;
  let w = params.w;
  let hw = h * w;
  let col_tiles = (w + TW - 1u) / TW;
  let r0 = (wid.x / col_tiles) * ROWS;
  let c0 = (wid.x % col_tiles) * TW;
  let co0 = wid.y * TCO;
  let n = wid.z;
  // Pixel group fastest: neighbouring invocations store neighbouring pixels of one channel plane.
  let pg = t % PG;
  let q = t / PG; // output channels co0 + 8q .. co0 + 8q + 7
  let r = pg / (TW / 4u);
  let c = (pg % (TW / 4u)) * 4u;
  let xw = TW + 2u;
  let xplane = (ROWS + 2u) * xw;
  let quads = TCO / 4u;
  let kk = params.ci * 9u;
  var a0 = vec4f(0.0); var a1 = vec4f(0.0); var a2 = vec4f(0.0); var a3 = vec4f(0.0);
  var b0 = vec4f(0.0); var b1 = vec4f(0.0); var b2 = vec4f(0.0); var b3 = vec4f(0.0);
  for (var ci0 = 0u; ci0 < params.ci; ci0 += TCI) {
    // Weights: element i = output channel i / (TCI*9), (input channel, tap) i % (TCI*9), so that
    // neighbouring invocations read neighbouring floats of one output channel's row.
    for (var i = t; i < TCO * TCI * 9u; i += WG) {
      let ol = i / (TCI * 9u);
      let j = i % (TCI * 9u);
      let co = co0 + ol;
      let inside = co < params.co && ci0 + j / 9u < params.ci;
      let v = theta[params.w_off + min(co, params.co - 1u) * kk + min(ci0 * 9u + j, kk - 1u)];
      ws[j * quads + ol / 4u][ol % 4u] = select(0.0, v, inside);
    }
    for (var i = t; i < TCI * xplane; i += WG) {
      let cl = i / xplane;
      let ih = i32(r0 + (i % xplane) / xw) - 1;
      let iw = i32(c0 + i % xw) - 1;
      let ci = ci0 + cl;
      let inside = ci < params.ci && ih >= 0 && ih < i32(h) && iw >= 0 && iw < i32(w);
      let hc = u32(clamp(ih, 0, i32(h) - 1));
      let wc = u32(clamp(iw, 0, i32(w) - 1));
      xs[i] = select(0.0, x[(n * params.ci + min(ci, params.ci - 1u)) * hw + hc * w + wc], inside);
    }
    workgroupBarrier();
    for (var cl = 0u; cl < TCI; cl++) {
      for (var kh = 0u; kh < 3u; kh++) {
        // Input columns c-1 .. c+4 of row r+kh-1 (halo index = column + 1).
        let xr = (cl * (ROWS + 2u) + r + kh) * xw + c;
        let xa = vec4f(xs[xr], xs[xr + 1u], xs[xr + 2u], xs[xr + 3u]);
        let xb = vec2f(xs[xr + 4u], xs[xr + 5u]);
        let x1 = vec4f(xa.yzw, xb.x);
        let x2 = vec4f(xa.zw, xb);
        let wk = ((cl * 9u) + kh * 3u) * quads + 2u * q;
        let u0 = ws[wk];
        let v0 = ws[wk + 1u];
        let u1 = ws[wk + quads];
        let v1 = ws[wk + quads + 1u];
        let u2 = ws[wk + 2u * quads];
        let v2 = ws[wk + 2u * quads + 1u];
        // a_p / b_p: pixel p, output channels 8q .. 8q+3 / 8q+4 .. 8q+7.
        a0 += u0 * xa.x + u1 * x1.x + u2 * x2.x;
        a1 += u0 * xa.y + u1 * x1.y + u2 * x2.y;
        a2 += u0 * xa.z + u1 * x1.z + u2 * x2.z;
        a3 += u0 * xa.w + u1 * x1.w + u2 * x2.w;
        b0 += v0 * xa.x + v1 * x1.x + v2 * x2.x;
        b1 += v0 * xa.y + v1 * x1.y + v2 * x2.y;
        b2 += v0 * xa.z + v1 * x1.z + v2 * x2.z;
        b3 += v0 * xa.w + v1 * x1.w + v2 * x2.w;
      }
    }
    workgroupBarrier();
  }
  let oh = r0 + r;
  let ow = c0 + c;
  let co = co0 + 8u * q;
  store(n, co, oh, ow, vec4f(a0.x, a1.x, a2.x, a3.x));
  store(n, co + 1u, oh, ow, vec4f(a0.y, a1.y, a2.y, a3.y));
  store(n, co + 2u, oh, ow, vec4f(a0.z, a1.z, a2.z, a3.z));
  store(n, co + 3u, oh, ow, vec4f(a0.w, a1.w, a2.w, a3.w));
  store(n, co + 4u, oh, ow, vec4f(b0.x, b1.x, b2.x, b3.x));
  store(n, co + 5u, oh, ow, vec4f(b0.y, b1.y, b2.y, b3.y));
  store(n, co + 6u, oh, ow, vec4f(b0.z, b1.z, b2.z, b3.z));
  store(n, co + 7u, oh, ow, vec4f(b0.w, b1.w, b2.w, b3.w));
}
