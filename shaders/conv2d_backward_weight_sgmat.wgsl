// conv2d_backward_weight_sgmat (stage 1 of 2): the split-K partial sums of conv2d_backward_weight,
//   partial[s, co, j] = sum_{pixels m in slice s} dy[m, co] * x[m's window, j]   (j = ci*9 + kh*3 + kw)
//   partial[s, co, CI*9] = sum_{m in slice s} dy[m, co]                           (the bias)
// (3x3, stride 1, padding 1, NCHW) as a GEMM: rows = the output channels, columns j (the bias as a
// column of ones), depth = the pixels (n, oh, ow) of slice s: [s*P/S, (s+1)*P/S) of P = N*H*W;
// A[co, m] = dy, B[m, j] = x under pixel m's window (zero outside the image).
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
// conv2d_backward_weight_reduce.wgsl sums the slices, as for the other weight-gradient kernels.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, CO, H, W] gradient of the pre-activation
//   2 x        read        [N, CI, H, W] the layer's input
//   3 partial  read_write  [S, CO, CI*9 + 1]
// dispatch: (ceil(CO / 64), ceil((CI*9 + 1) / 64), S); workgroup size 128 (four subgroups of 32)

enable f16;
enable chromium_experimental_subgroup_matrix;
// Subgroup s (lid / SG) loads its own rows of A: offsets differ between subgroups, which the
// uniformity analysis would refuse; within a subgroup they are uniform, as the builtins need.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
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

// B[m, j]: x under pixel (oh, ow) of image offset img at j = ci*9 + kh*3 + kw, 1 at j = CI*9 (the
// bias), 0 past it or past the slice (ok false).
fn b_value(j: u32, oh: i32, ow: i32, img: u32, ok: bool) -> f32 {
  let kk = params.ci * 9u;
  let jc = min(j, kk - 1u);
  let ih = oh + i32(jc % 9u / 3u) - 1;
  let iw = ow + i32(jc % 3u) - 1;
  let inside = ok && j < kk && ih >= 0 && ih < i32(params.h) && iw >= 0 && iw < i32(params.w);
  let row = u32(clamp(ih, 0, i32(params.h) - 1));
  let col = u32(clamp(iw, 0, i32(params.w) - 1));
  let v = select(0.0, x[img + (jc / 9u * params.h + row) * params.w + col], inside);
  return select(v, 1.0, ok && j == kk);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  // This invocation's subgroup (invocations are numbered subgroup by subgroup) and its rows of C.
  let sg = lid / SG;
  let total = params.n * params.h * params.w;
  let kb = wid.z * total / params.splits;
  let ke = (wid.z + 1u) * total / params.splits;
  // Staging: A's depth index is fixed per invocation (lid % 32), B's depth index too (lid % 32).
  let a_fast = lid % 32u;
  let b_fast = lid % 32u;
  let hw = params.h * params.w;
  var acc0 = subgroup_matrix_result<f32, 16, 16>();
  var acc1 = subgroup_matrix_result<f32, 16, 16>();
  var acc2 = subgroup_matrix_result<f32, 16, 16>();
  var acc3 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    // the pixel this invocation stages for A and B (a_fast = b_fast)
    let m = k0 + a_fast;
    let m_ok = m < ke;
    let mm = min(m, ke - 1u);
    let p = mm % hw;
    let ph = i32(p / params.w);
    let pw = i32(p % params.w);
    let dy_at = mm / hw * params.co * hw + p;
    let img = mm / hw * params.ci * hw;
    for (var t = 0u; t < 16u; t++) {
      let a_slow = lid / 32u + 4u * t;
      a_tile[a_slow * 32u + a_fast] = f16(select(0.0, dy[dy_at + min(m0 + a_slow, params.co - 1u) * hw], m_ok && m0 + a_slow < params.co));
    }
    for (var t = 0u; t < 16u; t++) {
      let b_slow = lid / 32u + 4u * t;
      b_tile[b_slow * 32u + b_fast] = f16(b_value(n0 + b_slow, ph, pw, img, m_ok));
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
  let cols = params.ci * 9u + 1u;
  for (var idx = lid; idx < MT * NT; idx += WG) {
    let r = idx / NT;
    let c = idx % NT;
    let co = m0 + r;
    let j = n0 + c;
    if (co < params.co && j < cols) {
      partial[(wid.z * params.co + co) * cols + j] = c_tile[r * NT + c];
    }
  }
}
