// linear_forward_sgmat (stage 1 of 2): the split-K partial sums of linear_forward,
//   partial[s, n, o] = sum_{i in slice s} x[n, i] * w[o, i]   (w is [O, I] row-major)
// as a GEMM: rows = the samples, columns = the features, depth = the inputs of slice s:
// [s*I/S, (s+1)*I/S). linear_forward_reduce.wgsl adds the slices, the bias and the ReLU.
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
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 x        read        [N, I]
//   2 theta    read        flat parameters: weight [O, I] at w_off
//   3 partial  read_write  [S, N, O]
// dispatch: (ceil(N / 64), ceil(O / 64), S); workgroup size 128 (four subgroups of 32)

enable f16;
enable chromium_experimental_subgroup_matrix;
// Subgroup s (lid / SG) loads its own rows of A: offsets differ between subgroups, which the
// uniformity analysis would refuse; within a subgroup they are uniform, as the builtins need.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Params { n: u32, i: u32, o: u32, w_off: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

const MT: u32 = 64u; // rows of C per workgroup: 16 per subgroup
const NT: u32 = 64u; // columns of C per workgroup (4 matrices of 16)
const KT: u32 = 32u; // depth staged per step (2 matrices of 16)
override SG: u32 = 32; // the subgroup size
const WG: u32 = 128u; // 4 subgroups of 32: SG must be 32

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

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  // This invocation's subgroup (invocations are numbered subgroup by subgroup) and its rows of C.
  let sg = lid / SG;
  let kb = wid.z * params.i / params.splits;
  let ke = (wid.z + 1u) * params.i / params.splits;
  // Staging: A's depth index is fixed per invocation (lid % 32), B's depth index too (lid % 32).
  let a_fast = lid % 32u;
  let b_fast = lid % 32u;
  var acc0 = subgroup_matrix_result<f32, 16, 16>();
  var acc1 = subgroup_matrix_result<f32, 16, 16>();
  var acc2 = subgroup_matrix_result<f32, 16, 16>();
  var acc3 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    for (var t = 0u; t < 16u; t++) {
      let a_slow = lid / 32u + 4u * t;
      a_tile[a_slow * 32u + a_fast] = f16(a_value(m0 + a_slow, k0 + a_fast, ke));
    }
    for (var t = 0u; t < 16u; t++) {
      let b_slow = lid / 32u + 4u * t;
      b_tile[b_slow * 32u + b_fast] = f16(b_value(k0 + b_fast, n0 + b_slow, ke));
    }
    workgroupBarrier();
    let a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a_tile, sg * 512u + 0u, KT);
    acc0 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 0u, KT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 512u, KT), acc1);
    acc2 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1024u, KT), acc2);
    acc3 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1536u, KT), acc3);
    let a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, row_major>(&a_tile, sg * 512u + 16u, KT);
    acc0 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 16u, KT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 528u, KT), acc1);
    acc2 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1040u, KT), acc2);
    acc3 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1552u, KT), acc3);
    workgroupBarrier();
  }
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 0u, acc0, NT);
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 16u, acc1, NT);
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 32u, acc2, NT);
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 48u, acc3, NT);
  workgroupBarrier();
  for (var idx = lid; idx < MT * NT; idx += WG) {
    let r = idx / NT;
    let c = idx % NT;
    let n = m0 + r;
    let o = n0 + c;
    if (n < params.n && o < params.o) {
      partial[(wid.z * params.n + n) * params.o + o] = c_tile[r * NT + c];
    }
  }
}
