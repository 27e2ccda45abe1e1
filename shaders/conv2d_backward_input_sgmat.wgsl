// conv2d_backward_input_sgmat: dx[n,ci,ih,iw] = sum_{co,kh,kw} dy[n,co,ih-kh+1,iw-kw+1] * w[co,ci,kh,kw]
// (the input gradient of conv2d_forward: 3x3, stride 1, padding 1, NCHW) as an implicit GEMM: rows
// m = the input pixels (n, ih, iw), columns = the input channels, depth k = co*9 + kh*3 + kw;
// A[m, k] = dy at (ih-kh+1, iw-kw+1) (zero outside the image), B[k, ci] = w[co, ci, kh, kw].
// The f16 subgroup-matrix form for devices with shader-f16 and chromium-experimental-subgroup-matrix
// (f16 x f16 -> f32 at 16x16x16: the tensor cores), chosen in fp16 runs only (src/nn/layers): a
// GEMM C = A B with one subgroup per workgroup owning an MT x NT tile of C. For each KT-deep step it
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
// dispatch: (ceil(N*H*W / 64), ceil(CI / 32), 1); workgroup size SG (one subgroup)

enable f16;
enable chromium_experimental_subgroup_matrix;

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

const MT: u32 = 64u; // rows of C per workgroup (4 matrices of 16)
const NT: u32 = 32u; // columns of C per workgroup (2 matrices of 16)
const KT: u32 = 32u; // depth staged per step (2 matrices of 16)
override SG: u32 = 32; // the subgroup size: a workgroup is one subgroup

// A: MT x KT, column-major (r, kk) at kk*MT + r
var<workgroup> a_tile: array<f16, 2048>;
// B: KT x NT, column-major (kk, c) at c*KT + kk
var<workgroup> b_tile: array<f16, 1024>;
// C: MT x NT float32, column-major (r, c) at c*MT + r
var<workgroup> c_tile: array<f32, 2048>;

// A[m, k]: dy at input pixel m shifted by the kernel offset of k = co*9 + kh*3 + kw (0 outside).
fn a_value(m: u32, k: u32, ke: u32) -> f32 {
  let hw = params.h * params.w;
  let mm = min(m, params.n * hw - 1u);
  let kc = min(k, ke - 1u);
  let p = mm % hw;
  let oh = i32(p / params.w) + 1 - i32(kc % 9u / 3u);
  let ow = i32(p % params.w) + 1 - i32(kc % 3u);
  let inside = m < params.n * hw && k < ke && oh >= 0 && oh < i32(params.h) && ow >= 0 && ow < i32(params.w);
  let row = u32(clamp(oh, 0, i32(params.h) - 1));
  let col = u32(clamp(ow, 0, i32(params.w) - 1));
  return select(0.0, dy[((mm / hw * params.co + kc / 9u) * params.h + row) * params.w + col], inside);
}

// B[k, ci] = w[co, ci, kh, kw] with k = co*9 + kh*3 + kw.
fn b_value(k: u32, c: u32, ke: u32) -> f32 {
  let kc = min(k, ke - 1u);
  let at = params.w_off + (kc / 9u * params.ci + min(c, params.ci - 1u)) * 9u + kc % 9u;
  return select(0.0, theta[at], k < ke && c < params.ci);
}

@compute @workgroup_size(SG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  let kb = 0u;
  let ke = params.co * 9u;
  var acc_0_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_0_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_1_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_1_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_2_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_2_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_3_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_3_1 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    for (var idx = lid; idx < MT * KT; idx += SG) {
      let r = idx % MT;
      let kk = idx / MT;
      a_tile[idx] = f16(a_value(m0 + r, k0 + kk, ke));
    }
    for (var idx = lid; idx < KT * NT; idx += SG) {
      let kk = idx % KT;
      let c = idx / KT;
      b_tile[idx] = f16(b_value(k0 + kk, n0 + c, ke));
    }
    workgroupBarrier();
    let a0_0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 0u, true, MT);
    let a0_1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 16u, true, MT);
    let a0_2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 32u, true, MT);
    let a0_3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 48u, true, MT);
    let b0_0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 0u, true, KT);
    let b0_1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 512u, true, KT);
    acc_0_0 = subgroupMatrixMultiplyAccumulate(a0_0, b0_0, acc_0_0);
    acc_0_1 = subgroupMatrixMultiplyAccumulate(a0_0, b0_1, acc_0_1);
    acc_1_0 = subgroupMatrixMultiplyAccumulate(a0_1, b0_0, acc_1_0);
    acc_1_1 = subgroupMatrixMultiplyAccumulate(a0_1, b0_1, acc_1_1);
    acc_2_0 = subgroupMatrixMultiplyAccumulate(a0_2, b0_0, acc_2_0);
    acc_2_1 = subgroupMatrixMultiplyAccumulate(a0_2, b0_1, acc_2_1);
    acc_3_0 = subgroupMatrixMultiplyAccumulate(a0_3, b0_0, acc_3_0);
    acc_3_1 = subgroupMatrixMultiplyAccumulate(a0_3, b0_1, acc_3_1);
    let a1_0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1024u, true, MT);
    let a1_1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1040u, true, MT);
    let a1_2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1056u, true, MT);
    let a1_3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1072u, true, MT);
    let b1_0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 16u, true, KT);
    let b1_1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 528u, true, KT);
    acc_0_0 = subgroupMatrixMultiplyAccumulate(a1_0, b1_0, acc_0_0);
    acc_0_1 = subgroupMatrixMultiplyAccumulate(a1_0, b1_1, acc_0_1);
    acc_1_0 = subgroupMatrixMultiplyAccumulate(a1_1, b1_0, acc_1_0);
    acc_1_1 = subgroupMatrixMultiplyAccumulate(a1_1, b1_1, acc_1_1);
    acc_2_0 = subgroupMatrixMultiplyAccumulate(a1_2, b1_0, acc_2_0);
    acc_2_1 = subgroupMatrixMultiplyAccumulate(a1_2, b1_1, acc_2_1);
    acc_3_0 = subgroupMatrixMultiplyAccumulate(a1_3, b1_0, acc_3_0);
    acc_3_1 = subgroupMatrixMultiplyAccumulate(a1_3, b1_1, acc_3_1);
    workgroupBarrier();
  }
  subgroupMatrixStore(&c_tile, 0u, acc_0_0, true, MT);
  subgroupMatrixStore(&c_tile, 1024u, acc_0_1, true, MT);
  subgroupMatrixStore(&c_tile, 16u, acc_1_0, true, MT);
  subgroupMatrixStore(&c_tile, 1040u, acc_1_1, true, MT);
  subgroupMatrixStore(&c_tile, 32u, acc_2_0, true, MT);
  subgroupMatrixStore(&c_tile, 1056u, acc_2_1, true, MT);
  subgroupMatrixStore(&c_tile, 48u, acc_3_0, true, MT);
  subgroupMatrixStore(&c_tile, 1072u, acc_3_1, true, MT);
  workgroupBarrier();
  let hw = params.h * params.w;
  for (var idx = lid; idx < MT * NT; idx += SG) {
    let c = idx / MT;
    let r = idx % MT;
    let m = m0 + r;
    let ci = n0 + c;
    if (m < params.n * hw && ci < params.ci) {
      dx[(m / hw * params.ci + ci) * hw + m % hw] = c_tile[c * MT + r];
    }
  }
}
