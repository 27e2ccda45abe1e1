// conv2d_forward_sgmat: y[n,co,oh,ow] = act(b[co] + sum_{ci,kh,kw} w[co,ci,kh,kw] * x[n,ci,oh+kh-1,ow+kw-1])
// (3x3, stride 1, zero padding 1, NCHW; act = ReLU when params.relu == 1) as an implicit GEMM:
// rows m = the output pixels (n, oh, ow), columns = the output channels, depth k = ci*9 + kh*3 + kw;
// A[m, k] = x at the pixel's window (zero outside the image), B[k, co] = w[co, k].
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
// y is written only through y_store2, two pixels of a row at a time (H*W must be even).
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [N, CI, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off, bias [CO] at b_off
//   3 y       read_write  [N, CO, H, W]
// dispatch: (ceil(N*H*W / 64), ceil(CO / 64), 1); workgroup size 128 (four subgroups of 32)

enable f16;
enable chromium_experimental_subgroup_matrix;
// Subgroup s (lid / SG) loads its own rows of A: offsets differ between subgroups, which the
// uniformity analysis would refuse; within a subgroup they are uniform, as the builtins need.
diagnostic(off, chromium.subgroup_matrix_uniformity);

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32, b_off: u32, relu: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

const MT: u32 = 64u; // rows of C per workgroup: 16 per subgroup
const NT: u32 = 64u; // columns of C per workgroup (4 matrices of 16)
const KT: u32 = 32u; // depth staged per step (2 matrices of 16)
override SG: u32 = 32; // the subgroup size
const WG: u32 = 128u; // 4 subgroups of 32: SG must be 32

// A: MT x KT, column-major (r, kk) at kk*MT + r
var<workgroup> a_tile: array<f16, 2048>;
// B: KT x NT, column-major (kk, c) at c*KT + kk
var<workgroup> b_tile: array<f16, 2048>;
// C: MT x NT float32, column-major (r, c) at c*MT + r
var<workgroup> c_tile: array<f32, 4096>;

// Stores the first n (1 or 2) of v at y[i], y[i + 1]: the only write of y, so that fp16 activations
// (src/gpu/half-acts.ts) can replace it with one whole-word store of two halves.
fn y_store2(i: u32, v: vec2f, n: u32) {
  y[i] = v.x;
  if (n > 1u) { y[i + 1u] = v.y; }
}

// A[m, k]: the input under output pixel (oh, ow) of image offset img at k = ci*9 + kh*3 + kw (0
// outside the image, past the pixels (ok false) or past the depth).
fn a_value(k: u32, oh: i32, ow: i32, img: u32, ok: bool) -> f32 {
  let kk = params.ci * 9u;
  let kc = min(k, kk - 1u);
  let ih = oh + i32(kc % 9u / 3u) - 1;
  let iw = ow + i32(kc % 3u) - 1;
  let inside = ok && k < kk && ih >= 0 && ih < i32(params.h) && iw >= 0 && iw < i32(params.w);
  let row = u32(clamp(ih, 0, i32(params.h) - 1));
  let col = u32(clamp(iw, 0, i32(params.w) - 1));
  return select(0.0, x[img + (kc / 9u * params.h + row) * params.w + col], inside);
}

// B[k, co] = w[co, k].
fn b_value(k: u32, c: u32, ke: u32) -> f32 {
  let kk = params.ci * 9u;
  return select(0.0, theta[params.w_off + min(c, params.co - 1u) * kk + min(k, kk - 1u)], k < ke && c < params.co);
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) lid: u32) {
  let m0 = wid.x * MT;
  let n0 = wid.y * NT;
  // This invocation's subgroup (invocations are numbered subgroup by subgroup) and its rows of C.
  let sg = lid / SG;
  let kb = 0u;
  let ke = params.ci * 9u;
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
  let img = mm / hw * params.ci * hw;
  var acc0 = subgroup_matrix_result<f32, 16, 16>();
  var acc1 = subgroup_matrix_result<f32, 16, 16>();
  var acc2 = subgroup_matrix_result<f32, 16, 16>();
  var acc3 = subgroup_matrix_result<f32, 16, 16>();
  for (var k0 = kb; k0 < ke; k0 += KT) {
    for (var t = 0u; t < 16u; t++) {
      let a_slow = lid / 64u + 2u * t;
      a_tile[a_slow * 64u + a_fast] = f16(a_value(k0 + a_slow, ph, pw, img, m_ok));
    }
    for (var t = 0u; t < 16u; t++) {
      let b_slow = lid / 32u + 4u * t;
      b_tile[b_slow * 32u + b_fast] = f16(b_value(k0 + b_fast, n0 + b_slow, ke));
    }
    workgroupBarrier();
    let a0 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a_tile, 0u + sg * 16u, MT);
    acc0 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 0u, KT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 512u, KT), acc1);
    acc2 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1024u, KT), acc2);
    acc3 = subgroupMatrixMultiplyAccumulate(a0, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1536u, KT), acc3);
    let a1 = subgroupMatrixLoad<subgroup_matrix_left<f16, 16, 16>, col_major>(&a_tile, 1024u + sg * 16u, MT);
    acc0 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 16u, KT), acc0);
    acc1 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 528u, KT), acc1);
    acc2 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1040u, KT), acc2);
    acc3 = subgroupMatrixMultiplyAccumulate(a1, subgroupMatrixLoad<subgroup_matrix_right<f16, 16, 16>, col_major>(&b_tile, 1552u, KT), acc3);
    workgroupBarrier();
  }
  subgroupMatrixStore<col_major>(&c_tile, 0u + sg * 16u, acc0, MT);
  subgroupMatrixStore<col_major>(&c_tile, 1024u + sg * 16u, acc1, MT);
  subgroupMatrixStore<col_major>(&c_tile, 2048u + sg * 16u, acc2, MT);
  subgroupMatrixStore<col_major>(&c_tile, 3072u + sg * 16u, acc3, MT);
  workgroupBarrier();
  for (var idx = lid; idx < MT * NT / 2u; idx += WG) {
    let c = idx / (MT / 2u);
    let r = idx % (MT / 2u) * 2u;
    let m = m0 + r;
    let co = n0 + c;
    if (m < params.n * hw && co < params.co) {
      var v = vec2f(c_tile[c * MT + r], c_tile[c * MT + r + 1u]) + theta[params.b_off + co];
      if (params.relu == 1u) { v = max(v, vec2f(0.0)); }
      y_store2((m / hw * params.co + co) * hw + m % hw, v, 2u);
    }
  }
}
