// linear_backward_weight_sgmat (stage 1 of 2): the split-K partial sums of linear_backward_weight,
//   partial[s, o, i] = sum_{n in slice s} dy[n, o] * x[n, i]     (i < I)
//   partial[s, o, I] = sum_{n in slice s} dy[n, o]                (the bias)
// as a GEMM: rows = the outputs, columns = the inputs and the bias (a column of ones), depth = the
// samples of slice s: [s*N/S, (s+1)*N/S); A[o, n] = dy[n, o], B[n, i] = x[n, i].
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
// conv2d_backward_weight_reduce.wgsl sums the slices (with co = O, k = I), as for linear_backward_weight_tiled.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, O] gradient of the pre-activation
//   2 x        read        [N, I] the forward input
//   3 partial  read_write  [S, O, I + 1]
// dispatch: (ceil(O / 64), ceil((I + 1) / 64), S); workgroup size 128 (four subgroups of 32)

enable f16;
enable chromium_experimental_subgroup_matrix;
// Subgroup s (lid / SG) loads its own rows of A: offsets differ between subgroups, which the
// uniformity analysis would refuse; within a subgroup they are uniform, as the builtins need.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Params { n: u32, i: u32, o: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

const MT: u32 = 64u; // rows of C per workgroup: 16 per subgroup
const NT: u32 = 64u; // columns of C per workgroup (4 matrices of 16)
const KT: u32 = 32u; // depth staged per step (2 matrices of 16)
override SG: u32 = 32; // the subgroup size
const WG: u32 = 128u; // 4 subgroups of 32: SG must be 32

// A: MT x KT, column-major (r, kk) at kk*MT + r
var<workgroup> a_tile: array<f16, 2048>;
// B: KT x NT, row-major (kk, c) at kk*NT + c
var<workgroup> b_tile: array<f16, 2048>;
// C: MT x NT float32, row-major (r, c) at r*NT + c
var<workgroup> c_tile: array<f32, 4096>;

// A[o, n] = dy[n, o] (0 past the outputs or the slice).
fn a_value(o: u32, n: u32, ke: u32) -> f32 {
  return select(0.0, dy[min(n, ke - 1u) * params.o + min(o, params.o - 1u)], n < ke && o < params.o);
}

// B[n, i] = x[n, i], 1 at i = I (the bias), 0 past it.
fn b_value(n: u32, i: u32, ke: u32) -> f32 {
  let v = select(0.0, x[min(n, ke - 1u) * params.i + min(i, params.i - 1u)], n < ke && i < params.i);
  return select(v, 1.0, n < ke && i == params.i);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  // This invocation's subgroup (invocations are numbered subgroup by subgroup) and its rows of C.
  let sg = lid / SG;
  let kb = wid.z * params.n / params.splits;
  let ke = (wid.z + 1u) * params.n / params.splits;
  // Staging: A's row index is fixed per invocation (lid % 64), B's column index too (lid % 64).
  let a_fast = lid % 64u;
  let b_fast = lid % 64u;
  var acc0 = subgroup_matrix_result<f32, 16, 16>();
  var acc1 = subgroup_matrix_result<f32, 16, 16>();
  var acc2 = subgroup_matrix_result<f32, 16, 16>();
  var acc3 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    for (var t = 0u; t < 16u; t++) {
      let a_slow = lid / 64u + 2u * t;
      a_tile[a_slow * 64u + a_fast] = f16(a_value(m0 + a_fast, k0 + a_slow, ke));
    }
    for (var t = 0u; t < 16u; t++) {
      let b_slow = lid / 64u + 2u * t;
      b_tile[b_slow * 64u + b_fast] = f16(b_value(k0 + b_slow, n0 + b_fast, ke));
    }
    workgroupBarrier();
    let a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a_tile, 0u + sg * 16u, MT);
    acc0 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 0u, NT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 16u, NT), acc1);
    acc2 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 32u, NT), acc2);
    acc3 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 48u, NT), acc3);
    let a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a_tile, 1024u + sg * 16u, MT);
    acc0 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 1024u, NT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 1040u, NT), acc1);
    acc2 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 1056u, NT), acc2);
    acc3 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, row_major>(&b_tile, 1072u, NT), acc3);
    workgroupBarrier();
  }
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 0u, acc0, NT);
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 16u, acc1, NT);
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 32u, acc2, NT);
  subgroupMatrixStore<row_major>(&c_tile, sg * 1024u + 48u, acc3, NT);
  workgroupBarrier();
  let cols = params.i + 1u;
  for (var idx = lid; idx < MT * NT; idx += WG) {
    let r = idx / NT;
    let c = idx % NT;
    let o = m0 + r;
    let i = n0 + c;
    if (o < params.o && i < cols) {
      partial[(wid.z * params.o + o) * cols + i] = c_tile[r * NT + c];
    }
  }
}
