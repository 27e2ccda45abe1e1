// linear_forward_sgmat (stage 1 of 2): the split-K partial sums of linear_forward,
//   partial[s, n, o] = sum_{i in slice s} x[n, i] * w[o, i]   (w is [O, I] row-major)
// as a GEMM: rows = the samples, columns = the features, depth = the inputs of slice s:
// [s*I/S, (s+1)*I/S). linear_forward_reduce.wgsl adds the slices, the bias and the ReLU.
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
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 x        read        [N, I]
//   2 theta    read        flat parameters: weight [O, I] at w_off
//   3 partial  read_write  [S, N, O]
// dispatch: (ceil(N / 64), ceil(O / 64), S); workgroup size SG (one subgroup)

enable f16;
enable chromium_experimental_subgroup_matrix;

struct Params { n: u32, i: u32, o: u32, w_off: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
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

// A[n, i] = x[n, i] (0 past the batch or the slice).
fn a_value(n: u32, i: u32, ke: u32) -> f32 {
  return select(0.0, x[min(n, params.n - 1u) * params.i + min(i, ke - 1u)], n < params.n && i < ke);
}

// B[i, o] = w[o, i].
fn b_value(i: u32, o: u32, ke: u32) -> f32 {
  return select(0.0, theta[params.w_off + min(o, params.o - 1u) * params.i + min(i, ke - 1u)], i < ke && o < params.o);
}

@compute @workgroup_size(SG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  let kb = wid.z * params.i / params.splits;
  let ke = (wid.z + 1u) * params.i / params.splits;
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
  for (var idx = lid; idx < MT * NT; idx += SG) {
    let r = idx / NT;
    let c = idx % NT;
    let n = m0 + r;
    let o = n0 + c;
    if (n < params.n && o < params.o) {
      partial[(wid.z * params.n + n) * params.o + o] = c_tile[r * NT + c];
    }
  }
}
