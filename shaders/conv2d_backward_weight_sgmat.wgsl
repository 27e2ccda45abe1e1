// conv2d_backward_weight_sgmat (stage 1 of 2): the split-K partial sums of conv2d_backward_weight,
//   partial[s, co, j] = sum_{pixels m in slice s} dy[m, co] * x[m's window, j]   (j = ci*9 + kh*3 + kw)
//   partial[s, co, CI*9] = sum_{m in slice s} dy[m, co]                           (the bias)
// (3x3, stride 1, padding 1, NCHW) as a GEMM: rows = the output channels, columns j (the bias as a
// column of ones), depth = the pixels (n, oh, ow) of slice s: [s*P/S, (s+1)*P/S) of P = N*H*W;
// A[co, m] = dy, B[m, j] = x under pixel m's window (zero outside the image).
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
// conv2d_backward_weight_reduce.wgsl sums the slices, as for the other weight-gradient kernels.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, CO, H, W] gradient of the pre-activation
//   2 x        read        [N, CI, H, W] the layer's input
//   3 partial  read_write  [S, CO, CI*9 + 1]
// dispatch: (ceil(CO / 64), ceil((CI*9 + 1) / 64), S); workgroup size SG (one subgroup)

enable f16;
enable chromium_experimental_subgroup_matrix;

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

const MT: u32 = 64u; // rows of C per workgroup (4 matrices of 16)
const NT: u32 = 64u; // columns of C per workgroup (4 matrices of 16)
const KT: u32 = 32u; // depth staged per step (2 matrices of 16)
override SG: u32 = 32; // the subgroup size: a workgroup is one subgroup

// A: MT x KT, row-major (r, kk) at r*KT + kk
var<workgroup> a_tile: array<f16, 2048>;
// B: KT x NT, column-major (kk, c) at c*KT + kk
var<workgroup> b_tile: array<f16, 2048>;
// C: MT x NT float32, row-major (r, c) at r*NT + c
var<workgroup> c_tile: array<f32, 4096>;

// A[co, m] = dy[n, co, oh, ow] at pixel m = (n, oh, ow) of the slice (0 past it).
fn a_value(c: u32, m: u32, ke: u32) -> f32 {
  let hw = params.h * params.w;
  let mm = min(m, ke - 1u);
  return select(0.0, dy[(mm / hw * params.co + min(c, params.co - 1u)) * hw + mm % hw], m < ke && c < params.co);
}

// B[m, j]: x under pixel m's window at j = ci*9 + kh*3 + kw, 1 at j = CI*9 (the bias), 0 past it.
fn b_value(m: u32, j: u32, ke: u32) -> f32 {
  let hw = params.h * params.w;
  let kk = params.ci * 9u;
  let mm = min(m, ke - 1u);
  let jc = min(j, kk - 1u);
  let p = mm % hw;
  let ih = i32(p / params.w) + i32(jc % 9u / 3u) - 1;
  let iw = i32(p % params.w) + i32(jc % 3u) - 1;
  let inside = m < ke && j < kk && ih >= 0 && ih < i32(params.h) && iw >= 0 && iw < i32(params.w);
  let row = u32(clamp(ih, 0, i32(params.h) - 1));
  let col = u32(clamp(iw, 0, i32(params.w) - 1));
  let v = select(0.0, x[((mm / hw * params.ci + jc / 9u) * params.h + row) * params.w + col], inside);
  return select(v, 1.0, m < ke && j == kk);
}

@compute @workgroup_size(SG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  let total = params.n * params.h * params.w;
  let kb = wid.z * total / params.splits;
  let ke = (wid.z + 1u) * total / params.splits;
  var acc_0_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_0_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_0_2 = subgroup_matrix_result<f32, 16, 16>();
  var acc_0_3 = subgroup_matrix_result<f32, 16, 16>();
  var acc_1_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_1_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_1_2 = subgroup_matrix_result<f32, 16, 16>();
  var acc_1_3 = subgroup_matrix_result<f32, 16, 16>();
  var acc_2_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_2_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_2_2 = subgroup_matrix_result<f32, 16, 16>();
  var acc_2_3 = subgroup_matrix_result<f32, 16, 16>();
  var acc_3_0 = subgroup_matrix_result<f32, 16, 16>();
  var acc_3_1 = subgroup_matrix_result<f32, 16, 16>();
  var acc_3_2 = subgroup_matrix_result<f32, 16, 16>();
  var acc_3_3 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    for (var idx = lid; idx < MT * KT; idx += SG) {
      let r = idx / KT;
      let kk = idx % KT;
      a_tile[idx] = f16(a_value(m0 + r, k0 + kk, ke));
    }
    for (var idx = lid; idx < KT * NT; idx += SG) {
      let kk = idx % KT;
      let c = idx / KT;
      b_tile[idx] = f16(b_value(k0 + kk, n0 + c, ke));
    }
    workgroupBarrier();
    let a0_0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 0u, false, KT);
    let a0_1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 512u, false, KT);
    let a0_2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1024u, false, KT);
    let a0_3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1536u, false, KT);
    let b0_0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 0u, true, KT);
    let b0_1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 512u, true, KT);
    let b0_2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 1024u, true, KT);
    let b0_3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 1536u, true, KT);
    acc_0_0 = subgroupMatrixMultiplyAccumulate(a0_0, b0_0, acc_0_0);
    acc_0_1 = subgroupMatrixMultiplyAccumulate(a0_0, b0_1, acc_0_1);
    acc_0_2 = subgroupMatrixMultiplyAccumulate(a0_0, b0_2, acc_0_2);
    acc_0_3 = subgroupMatrixMultiplyAccumulate(a0_0, b0_3, acc_0_3);
    acc_1_0 = subgroupMatrixMultiplyAccumulate(a0_1, b0_0, acc_1_0);
    acc_1_1 = subgroupMatrixMultiplyAccumulate(a0_1, b0_1, acc_1_1);
    acc_1_2 = subgroupMatrixMultiplyAccumulate(a0_1, b0_2, acc_1_2);
    acc_1_3 = subgroupMatrixMultiplyAccumulate(a0_1, b0_3, acc_1_3);
    acc_2_0 = subgroupMatrixMultiplyAccumulate(a0_2, b0_0, acc_2_0);
    acc_2_1 = subgroupMatrixMultiplyAccumulate(a0_2, b0_1, acc_2_1);
    acc_2_2 = subgroupMatrixMultiplyAccumulate(a0_2, b0_2, acc_2_2);
    acc_2_3 = subgroupMatrixMultiplyAccumulate(a0_2, b0_3, acc_2_3);
    acc_3_0 = subgroupMatrixMultiplyAccumulate(a0_3, b0_0, acc_3_0);
    acc_3_1 = subgroupMatrixMultiplyAccumulate(a0_3, b0_1, acc_3_1);
    acc_3_2 = subgroupMatrixMultiplyAccumulate(a0_3, b0_2, acc_3_2);
    acc_3_3 = subgroupMatrixMultiplyAccumulate(a0_3, b0_3, acc_3_3);
    let a1_0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 16u, false, KT);
    let a1_1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 528u, false, KT);
    let a1_2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1040u, false, KT);
    let a1_3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>>(&a_tile, 1552u, false, KT);
    let b1_0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 16u, true, KT);
    let b1_1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 528u, true, KT);
    let b1_2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 1040u, true, KT);
    let b1_3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>>(&b_tile, 1552u, true, KT);
    acc_0_0 = subgroupMatrixMultiplyAccumulate(a1_0, b1_0, acc_0_0);
    acc_0_1 = subgroupMatrixMultiplyAccumulate(a1_0, b1_1, acc_0_1);
    acc_0_2 = subgroupMatrixMultiplyAccumulate(a1_0, b1_2, acc_0_2);
    acc_0_3 = subgroupMatrixMultiplyAccumulate(a1_0, b1_3, acc_0_3);
    acc_1_0 = subgroupMatrixMultiplyAccumulate(a1_1, b1_0, acc_1_0);
    acc_1_1 = subgroupMatrixMultiplyAccumulate(a1_1, b1_1, acc_1_1);
    acc_1_2 = subgroupMatrixMultiplyAccumulate(a1_1, b1_2, acc_1_2);
    acc_1_3 = subgroupMatrixMultiplyAccumulate(a1_1, b1_3, acc_1_3);
    acc_2_0 = subgroupMatrixMultiplyAccumulate(a1_2, b1_0, acc_2_0);
    acc_2_1 = subgroupMatrixMultiplyAccumulate(a1_2, b1_1, acc_2_1);
    acc_2_2 = subgroupMatrixMultiplyAccumulate(a1_2, b1_2, acc_2_2);
    acc_2_3 = subgroupMatrixMultiplyAccumulate(a1_2, b1_3, acc_2_3);
    acc_3_0 = subgroupMatrixMultiplyAccumulate(a1_3, b1_0, acc_3_0);
    acc_3_1 = subgroupMatrixMultiplyAccumulate(a1_3, b1_1, acc_3_1);
    acc_3_2 = subgroupMatrixMultiplyAccumulate(a1_3, b1_2, acc_3_2);
    acc_3_3 = subgroupMatrixMultiplyAccumulate(a1_3, b1_3, acc_3_3);
    workgroupBarrier();
  }
  subgroupMatrixStore(&c_tile, 0u, acc_0_0, false, NT);
  subgroupMatrixStore(&c_tile, 16u, acc_0_1, false, NT);
  subgroupMatrixStore(&c_tile, 32u, acc_0_2, false, NT);
  subgroupMatrixStore(&c_tile, 48u, acc_0_3, false, NT);
  subgroupMatrixStore(&c_tile, 1024u, acc_1_0, false, NT);
  subgroupMatrixStore(&c_tile, 1040u, acc_1_1, false, NT);
  subgroupMatrixStore(&c_tile, 1056u, acc_1_2, false, NT);
  subgroupMatrixStore(&c_tile, 1072u, acc_1_3, false, NT);
  subgroupMatrixStore(&c_tile, 2048u, acc_2_0, false, NT);
  subgroupMatrixStore(&c_tile, 2064u, acc_2_1, false, NT);
  subgroupMatrixStore(&c_tile, 2080u, acc_2_2, false, NT);
  subgroupMatrixStore(&c_tile, 2096u, acc_2_3, false, NT);
  subgroupMatrixStore(&c_tile, 3072u, acc_3_0, false, NT);
  subgroupMatrixStore(&c_tile, 3088u, acc_3_1, false, NT);
  subgroupMatrixStore(&c_tile, 3104u, acc_3_2, false, NT);
  subgroupMatrixStore(&c_tile, 3120u, acc_3_3, false, NT);
  workgroupBarrier();
  let cols = params.ci * 9u + 1u;
  for (var idx = lid; idx < MT * NT; idx += SG) {
    let r = idx / NT;
    let c = idx % NT;
    let co = m0 + r;
    let j = n0 + c;
    if (co < params.co && j < cols) {
      partial[(wid.z * params.co + co) * cols + j] = c_tile[r * NT + c];
    }
  }
}
