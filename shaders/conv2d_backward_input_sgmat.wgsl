// conv2d_backward_input_sgmat: dx[n,ci,ih,iw] = sum_{co,kh,kw} dy[n,co,ih-kh+1,iw-kw+1] * w[co,ci,kh,kw]
// (the input gradient of conv2d_forward: 3x3, stride 1, padding 1, NCHW) as an implicit GEMM: rows
// m = the input pixels (n, ih, iw), columns = the input channels, depth k = co*9 + kh*3 + kw;
// A[m, k] = dy at (ih-kh+1, iw-kw+1) (zero outside the image), B[k, ci] = w[co, ci, kh, kw].
// The f16 subgroup-matrix form for devices with shader-f16 and chromium-experimental-subgroup-matrix
// (f16 x f16 -> f32 at 16x16x16: the tensor cores), chosen in fp16 runs only (src/nn/layers): a
// GEMM C = A B with four subgroups per workgroup owning an MT x NT tile of C (16 rows each). For each KT-deep step it
// stages A and B into workgroup memory as f16 (each operand read as float32, the way the kernel's
// storage form gives it: packed halves through unpack2x16float, else float32, then rounded to f16,
// exact for values that are halves already), then multiplies 16x16 blocks with
// subgroupMatrixMultiplyAccumulate into float32 accumulators. Out-of-range rows, columns and depth
// are staged as zeros, so every shape works; products of halves are exact in float32 and the sums
// float32, so the result differs from the float32 kernel's on the same halves only by the order of
// the float32 sums.
// dy (float32 gradients, scaled by the loss scale) is rounded to f16 as staged.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 dy      read        [N, CO, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off
//   3 dx      read_write  [N, CI, H, W] (written, not accumulated)
// dispatch: (ceil(N*H*W / 64), ceil(CI / 32), 1); workgroup size 128 (four subgroups of 32)

enable f16;
enable chromium_experimental_subgroup_matrix;
// Subgroup s (lid / SG) loads its own rows of A: offsets differ between subgroups, which the
// uniformity analysis would refuse; within a subgroup they are uniform, as the builtins need.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

const MT: u32 = 64u; // rows of C per workgroup: 16 per subgroup
const NT: u32 = 32u; // columns of C per workgroup (2 matrices of 16)
const KT: u32 = 32u; // depth staged per step (2 matrices of 16)
override SG: u32 = 32; // the subgroup size
const WG: u32 = 128u; // 4 subgroups of 32: SG must be 32

// A: MT x KT, column-major (r, kk) at kk*MT + r
var<workgroup> a_tile: array<f16, 2048>;
// B: KT x NT, column-major (kk, c) at c*KT + kk
var<workgroup> b_tile: array<f16, 1024>;
// C: MT x NT float32, column-major (r, c) at c*MT + r
var<workgroup> c_tile: array<f32, 2048>;

// A[m, k]: dy at input pixel (ih, iw) of image offset img shifted by the kernel offset of
// k = co*9 + kh*3 + kw (0 outside the image, past the pixels (ok false) or past the depth).
fn a_value(k: u32, ih: i32, iw: i32, img: u32, ok: bool) -> f32 {
  let kk = params.co * 9u;
  let kc = min(k, kk - 1u);
  let oh = ih + 1 - i32(kc % 9u / 3u);
  let ow = iw + 1 - i32(kc % 3u);
  let inside = ok && k < kk && oh >= 0 && oh < i32(params.h) && ow >= 0 && ow < i32(params.w);
  let row = u32(clamp(oh, 0, i32(params.h) - 1));
  let col = u32(clamp(ow, 0, i32(params.w) - 1));
  return select(0.0, dy[img + (kc / 9u * params.h + row) * params.w + col], inside);
}

// B[k, ci] = w[co, ci, kh, kw] with k = co*9 + kh*3 + kw.
fn b_value(k: u32, c: u32, ke: u32) -> f32 {
  let kc = min(k, ke - 1u);
  let at = params.w_off + (kc / 9u * params.ci + min(c, params.ci - 1u)) * 9u + kc % 9u;
  return select(0.0, theta[at], k < ke && c < params.ci);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  // This invocation's subgroup (invocations are numbered subgroup by subgroup) and its rows of C.
  let sg = lid / SG;
  let kb = 0u;
  let ke = params.co * 9u;
  // Staging: A's row index is fixed per invocation (lid % 64), B's depth index too (lid % 32).
  let a_fast = lid % 64u;
  let b_fast = lid % 32u;
  let hw = params.h * params.w;
  let total = params.n * hw;
  let m = m0 + a_fast;
  let m_ok = m < total;
  let mm = min(m, total - 1u);
  let p = mm % hw;
  let ph = i32(p / params.w);
  let pw = i32(p % params.w);
  let img = mm / hw * params.co * hw;
  var acc0 = subgroup_matrix_result<f32, 16, 16>();
  var acc1 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    for (var t = 0u; t < 16u; t++) {
      let a_slow = lid / 64u + 2u * t;
      a_tile[a_slow * 64u + a_fast] = f16(a_value(k0 + a_slow, ph, pw, img, m_ok));
    }
    for (var t = 0u; t < 8u; t++) {
      let b_slow = lid / 32u + 4u * t;
      b_tile[b_slow * 32u + b_fast] = f16(b_value(k0 + b_fast, n0 + b_slow, ke));
    }
    workgroupBarrier();
    let a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a_tile, 0u + sg * 16u, MT);
    acc0 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 0u, KT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 512u, KT), acc1);
    let a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a_tile, 1024u + sg * 16u, MT);
    acc0 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 16u, KT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 528u, KT), acc1);
    workgroupBarrier();
  }
  subgroupMatrixStore<col_major>(&c_tile, 0u + sg * 16u, acc0, MT);
  subgroupMatrixStore<col_major>(&c_tile, 1024u + sg * 16u, acc1, MT);
  workgroupBarrier();
  for (var idx = lid; idx < MT * NT; idx += WG) {
    let c = idx / MT;
    let r = idx % MT;
    let m = m0 + r;
    let ci = n0 + c;
    if (m < params.n * hw && ci < params.ci) {
      dx[(m / hw * params.ci + ci) * hw + m % hw] = c_tile[c * MT + r];
    }
  }
}
