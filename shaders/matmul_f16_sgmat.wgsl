// matmul_f16_sgmat: C = A B for square n x n matrices of halves (row-major, two per u32 word as
// pack2x16float packs them), float32 C, n a multiple of 64. The f16 subgroup-matrix ceiling
// `webddp bench --profile` measures the `*_sgmat` kernels against (src/throughput/matmul-ceiling.ts):
// f16 x f16 -> f32 16x16x16 subgroup matrices (chromium-experimental-subgroup-matrix: the tensor
// cores). One subgroup per workgroup owns a 64 x 64 tile of C as 4 x 4 accumulators of 16 x 16 and
// loads its operands straight from storage with subgroupMatrixLoad (no workgroup memory), 16 deep
// at a time. Products of halves are exact in float32; the sums are float32.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 a       read        [n, n] halves
//   2 b       read        [n, n] halves
//   3 c       read_write  [n, n]
// dispatch: (n / 64, n / 64, 1); workgroup size SG (one subgroup)

enable f16;
enable chromium_experimental_subgroup_matrix;

struct Params { n: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

override SG: u32 = 32; // the subgroup size: one subgroup per workgroup

@compute @workgroup_size(SG)
fn main(@builtin(workgroup_id) wid: vec3u) {
  let n = params.n;
  let r0 = wid.y * 64u;
  let c0 = wid.x * 64u;
  var acc00 = subgroup_matrix_result<f32, 16, 16>();
  var acc01 = subgroup_matrix_result<f32, 16, 16>();
  var acc02 = subgroup_matrix_result<f32, 16, 16>();
  var acc03 = subgroup_matrix_result<f32, 16, 16>();
  var acc10 = subgroup_matrix_result<f32, 16, 16>();
  var acc11 = subgroup_matrix_result<f32, 16, 16>();
  var acc12 = subgroup_matrix_result<f32, 16, 16>();
  var acc13 = subgroup_matrix_result<f32, 16, 16>();
  var acc20 = subgroup_matrix_result<f32, 16, 16>();
  var acc21 = subgroup_matrix_result<f32, 16, 16>();
  var acc22 = subgroup_matrix_result<f32, 16, 16>();
  var acc23 = subgroup_matrix_result<f32, 16, 16>();
  var acc30 = subgroup_matrix_result<f32, 16, 16>();
  var acc31 = subgroup_matrix_result<f32, 16, 16>();
  var acc32 = subgroup_matrix_result<f32, 16, 16>();
  var acc33 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = 0u; k0 < n; k0 += 16u) {
    let a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, (r0 + 0u) * n + k0, n);
    let a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, (r0 + 16u) * n + k0, n);
    let a2 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, (r0 + 32u) * n + k0, n);
    let a3 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a, (r0 + 48u) * n + k0, n);
    let b0 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, k0 * n + c0 + 0u, n);
    let b1 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, k0 * n + c0 + 16u, n);
    let b2 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, k0 * n + c0 + 32u, n);
    let b3 = subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b, k0 * n + c0 + 48u, n);
    acc00 = subgroupMatrixMultiplyAccumulate(a0, b0, acc00);
    acc01 = subgroupMatrixMultiplyAccumulate(a0, b1, acc01);
    acc02 = subgroupMatrixMultiplyAccumulate(a0, b2, acc02);
    acc03 = subgroupMatrixMultiplyAccumulate(a0, b3, acc03);
    acc10 = subgroupMatrixMultiplyAccumulate(a1, b0, acc10);
    acc11 = subgroupMatrixMultiplyAccumulate(a1, b1, acc11);
    acc12 = subgroupMatrixMultiplyAccumulate(a1, b2, acc12);
    acc13 = subgroupMatrixMultiplyAccumulate(a1, b3, acc13);
    acc20 = subgroupMatrixMultiplyAccumulate(a2, b0, acc20);
    acc21 = subgroupMatrixMultiplyAccumulate(a2, b1, acc21);
    acc22 = subgroupMatrixMultiplyAccumulate(a2, b2, acc22);
    acc23 = subgroupMatrixMultiplyAccumulate(a2, b3, acc23);
    acc30 = subgroupMatrixMultiplyAccumulate(a3, b0, acc30);
    acc31 = subgroupMatrixMultiplyAccumulate(a3, b1, acc31);
    acc32 = subgroupMatrixMultiplyAccumulate(a3, b2, acc32);
    acc33 = subgroupMatrixMultiplyAccumulate(a3, b3, acc33);
  }
  subgroupMatrixStore<row_major>(&c, (r0 + 0u) * n + c0 + 0u, acc00, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 0u) * n + c0 + 16u, acc01, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 0u) * n + c0 + 32u, acc02, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 0u) * n + c0 + 48u, acc03, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 16u) * n + c0 + 0u, acc10, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 16u) * n + c0 + 16u, acc11, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 16u) * n + c0 + 32u, acc12, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 16u) * n + c0 + 48u, acc13, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 32u) * n + c0 + 0u, acc20, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 32u) * n + c0 + 16u, acc21, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 32u) * n + c0 + 32u, acc22, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 32u) * n + c0 + 48u, acc23, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 48u) * n + c0 + 0u, acc30, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 48u) * n + c0 + 16u, acc31, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 48u) * n + c0 + 32u, acc32, n);
  subgroupMatrixStore<row_major>(&c, (r0 + 48u) * n + c0 + 48u, acc33, n);
}
