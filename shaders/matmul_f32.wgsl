// matmul_f32: C = A B for square n x n float32 matrices (row-major), n a multiple of 64. The float32
// ceiling `webddp bench --profile` measures its kernels against (src/throughput/matmul-ceiling.ts):
// a plain WGSL matmul on the CUDA cores, in the form of the layers' tiled kernels. Each workgroup of
// 16 x 16 invocations owns a 64 x 64 tile of C, 4 x 4 outputs per invocation; 16-deep slices of A's
// rows and B's columns are staged in workgroup memory, then each invocation adds 4 x 4 products per
// depth step into vec4f accumulators.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 a       read        [n, n]
//   2 b       read        [n, n]
//   3 c       read_write  [n, n]
// dispatch: (n / 64, n / 64, 1); workgroup size 16 x 16

struct Params { n: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

// A's slice, depth-major: (k, row) at k * 64 + row
var<workgroup> a_tile: array<f32, 1024>;
// B's slice, depth-major: (k, column) at k * 64 + column
var<workgroup> b_tile: array<f32, 1024>;

@compute @workgroup_size(16, 16)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
  @builtin(local_invocation_index) li: u32,
) {
  let n = params.n;
  let r0 = wid.y * 64u;
  let c0 = wid.x * 64u;
  var acc: array<vec4f, 4>;
  for (var k0 = 0u; k0 < n; k0 += 16u) {
    for (var t = li; t < 1024u; t += 256u) {
      let kk = t % 16u;
      let r = t / 16u;
      a_tile[kk * 64u + r] = a[(r0 + r) * n + k0 + kk];
      let cc = t % 64u;
      let k2 = t / 64u;
      b_tile[k2 * 64u + cc] = b[(k0 + k2) * n + c0 + cc];
    }
    workgroupBarrier();
    for (var kk = 0u; kk < 16u; kk++) {
      let j = kk * 64u + lid.x * 4u;
      let bv = vec4f(b_tile[j], b_tile[j + 1u], b_tile[j + 2u], b_tile[j + 3u]);
      for (var i = 0u; i < 4u; i++) {
        acc[i] += a_tile[kk * 64u + lid.y * 4u + i] * bv;
      }
    }
    workgroupBarrier();
  }
  for (var i = 0u; i < 4u; i++) {
    let row = r0 + lid.y * 4u + i;
    for (var j = 0u; j < 4u; j++) {
      c[row * n + c0 + lid.x * 4u + j] = acc[i][j];
    }
  }
}
