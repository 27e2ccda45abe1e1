// conv2d_backward_input_tiled (for real GPUs): the same sums as conv2d_backward_input, with the
// operands staged in workgroup memory:
//   dx[n,ci,ih,iw] = sum_{co,kh,kw} dy[n,co,ih-kh+1,iw-kw+1] * w[co,ci,kh,kw]
// (3x3, stride 1, padding 1, NCHW): a forward convolution of dy with the kernel transposed (ci <->
// co) and flipped (tap 8-t), which is what the workgroup stages. dy is the gradient of the
// pre-activation (the ReLU mask was applied by its producer). dx is written, not accumulated.
// A workgroup owns TCI input channels x one ROWS x TW pixel tile of one image. It walks the output
// channels TCO at a time: it stages their flipped weights (ws: [TCO*9 taps][TCI/4] vec4s of 4 input
// channels) and their dy tile with its 1-pixel halo (ds: [TCO][ROWS+2][TW+2], zeros outside the
// image), then every invocation (8 input channels x 4 adjacent pixels of a row, 32 accumulators)
// reads a 6-pixel dy row once per kernel row and two weight vec4s per tap from workgroup memory.
// Loads use clamped addresses and select(), not branches (SwiftShader compiles branches slowly).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 dy      read        [N, CO, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off
//   3 dx      read_write  [N, CI, H, W] (written, not accumulated)
// dispatch: (ceil(H/ROWS) * ceil(W/TW), ceil(CI/TCI), N); workgroup size (TCI/8) * ROWS * (TW/4)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

override TCI: u32 = 32; // input channels (outputs of this kernel) per workgroup (a multiple of 8)
override TCO: u32 = 8; // output channels (summed over) staged at a time
override ROWS: u32 = 4; // pixel tile height
override TW: u32 = 16; // pixel tile width (a multiple of 4)
override PG: u32 = ROWS * TW / 4u; // pixel groups (4 pixels of a row) per tile
override WG: u32 = TCI / 8u * PG;

// ws[(c * 9 + tap) * (TCI/4) + q] = w[co0 + c, ci0 + 4q .. ci0 + 4q + 3, 8 - tap] (zeros past CO / CI)
var<workgroup> ws: array<vec4f, TCO * 9u * TCI / 4u>;
// ds[(c * (ROWS+2) + rr) * (TW+2) + cc] = dy[n, co0 + c, r0 - 1 + rr, c0 - 1 + cc]
var<workgroup> ds: array<f32, TCO * (ROWS + 2u) * (TW + 2u)>;

fn store(n: u32, ci: u32, ih: u32, iw0: u32, acc: vec4f) {
  if (ci >= params.ci || ih >= params.h || iw0 >= params.w) { return; }
  let base = ((n * params.ci + ci) * params.h + ih) * params.w + iw0;
  dx[base] = acc.x;
  if (iw0 + 1u < params.w) { dx[base + 1u] = acc.y; }
  if (iw0 + 2u < params.w) { dx[base + 2u] = acc.z; }
  if (iw0 + 3u < params.w) { dx[base + 3u] = acc.w; }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) t: u32) {
  let h = params.h;
  let w = params.w;
  let hw = h * w;
  let col_tiles = (w + TW - 1u) / TW;
  let r0 = (wid.x / col_tiles) * ROWS;
  let c0 = (wid.x % col_tiles) * TW;
  let ci0 = wid.y * TCI;
  let n = wid.z;
  // Pixel group fastest: neighbouring invocations store neighbouring pixels of one channel plane.
  let pg = t % PG;
  let q = t / PG; // input channels ci0 + 8q .. ci0 + 8q + 7
  let r = pg / (TW / 4u);
  let c = (pg % (TW / 4u)) * 4u;
  let xw = TW + 2u;
  let xplane = (ROWS + 2u) * xw;
  let quads = TCI / 4u;
  let kk = params.ci * 9u;
  var a0 = vec4f(0.0); var a1 = vec4f(0.0); var a2 = vec4f(0.0); var a3 = vec4f(0.0);
  var b0 = vec4f(0.0); var b1 = vec4f(0.0); var b2 = vec4f(0.0); var b3 = vec4f(0.0);
  for (var co0 = 0u; co0 < params.co; co0 += TCO) {
    // Weights: element i = output channel i / (TCI*9), (input channel, tap) i % (TCI*9): each
    // output channel's row of TCI*9 weights is contiguous in theta.
    for (var i = t; i < TCO * TCI * 9u; i += WG) {
      let cl = i / (TCI * 9u);
      let j = i % (TCI * 9u);
      let il = j / 9u;
      let tap = j % 9u;
      let co = co0 + cl;
      let ci = ci0 + il;
      let inside = co < params.co && ci < params.ci;
      let v = theta[params.w_off + min(co, params.co - 1u) * kk + min(ci, params.ci - 1u) * 9u + tap];
      ws[(cl * 9u + 8u - tap) * quads + il / 4u][il % 4u] = select(0.0, v, inside);
    }
    for (var i = t; i < TCO * xplane; i += WG) {
      let cl = i / xplane;
      let ih = i32(r0 + (i % xplane) / xw) - 1;
      let iw = i32(c0 + i % xw) - 1;
      let co = co0 + cl;
      let inside = co < params.co && ih >= 0 && ih < i32(h) && iw >= 0 && iw < i32(w);
      let hc = u32(clamp(ih, 0, i32(h) - 1));
      let wc = u32(clamp(iw, 0, i32(w) - 1));
      ds[i] = select(0.0, dy[(n * params.co + min(co, params.co - 1u)) * hw + hc * w + wc], inside);
    }
    workgroupBarrier();
    for (var cl = 0u; cl < TCO; cl++) {
      for (var kh = 0u; kh < 3u; kh++) {
        // dy columns c-1 .. c+4 of row r+kh-1 (halo index = column + 1).
        let xr = (cl * (ROWS + 2u) + r + kh) * xw + c;
        let xa = vec4f(ds[xr], ds[xr + 1u], ds[xr + 2u], ds[xr + 3u]);
        let xb = vec2f(ds[xr + 4u], ds[xr + 5u]);
        let x1 = vec4f(xa.yzw, xb.x);
        let x2 = vec4f(xa.zw, xb);
        let wk = ((cl * 9u) + kh * 3u) * quads + 2u * q;
        let u0 = ws[wk];
        let v0 = ws[wk + 1u];
        let u1 = ws[wk + quads];
        let v1 = ws[wk + quads + 1u];
        let u2 = ws[wk + 2u * quads];
        let v2 = ws[wk + 2u * quads + 1u];
        // a_p / b_p: pixel p, input channels 8q .. 8q+3 / 8q+4 .. 8q+7.
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
  let ih = r0 + r;
  let iw = c0 + c;
  let ci = ci0 + 8u * q;
  store(n, ci, ih, iw, vec4f(a0.x, a1.x, a2.x, a3.x));
  store(n, ci + 1u, ih, iw, vec4f(a0.y, a1.y, a2.y, a3.y));
  store(n, ci + 2u, ih, iw, vec4f(a0.z, a1.z, a2.z, a3.z));
  store(n, ci + 3u, ih, iw, vec4f(a0.w, a1.w, a2.w, a3.w));
  store(n, ci + 4u, ih, iw, vec4f(b0.x, b1.x, b2.x, b3.x));
  store(n, ci + 5u, ih, iw, vec4f(b0.y, b1.y, b2.y, b3.y));
  store(n, ci + 6u, ih, iw, vec4f(b0.z, b1.z, b2.z, b3.z));
  store(n, ci + 7u, ih, iw, vec4f(b0.w, b1.w, b2.w, b3.w));
}
