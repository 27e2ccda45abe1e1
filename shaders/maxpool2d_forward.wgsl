// maxpool2d_forward: y[n,c,oh,ow] = max_{i,j in 0..1} x[n,c,2oh+i,2ow+j]
// MaxPool2d(2) with stride 2 and floor mode (an odd last row or column is dropped), NCHW.
// The backward recomputes the argmax from x (first maximum in row-major order, as PyTorch's
// `val > maxval` scan), so no index tensor is stored.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [NC, H, W] (NC = N * C planes)
//   2 y       read_write  [NC, H/2, W/2]
// Each invocation computes two neighbouring outputs of the flat [NC, H/2, W/2] tensor, so that it
// writes whole words when y holds packed halves (src/gpu/half-acts.ts).
// dispatch: 1-D over ceil(NC * (H/2) * (W/2) / 2) output pairs, folded into (x, y) workgroups:
//   t = gid.x + gid.y * num_workgroups.x * WG; outputs 2t and 2t + 1

struct Params { nc: u32, h: u32, w: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

override WG: u32 = 64;

// Stores the first n (1 or 2) of v at y[i], y[i + 1]: the only write of y, so that fp16 activations
// (src/gpu/half-acts.ts) can replace it with one whole-word store of two halves.
fn y_store2(i: u32, v: vec2f, n: u32) {
  y[i] = v.x;
  if (n > 1u) { y[i + 1u] = v.y; }
}

// The maximum of output i's 2x2 window.
fn pool(i: u32) -> f32 {
  let oh_n = params.h / 2u;
  let ow_n = params.w / 2u;
  let plane = i / (oh_n * ow_n);
  let oh = (i / ow_n) % oh_n;
  let ow = i % ow_n;
  let base = plane * params.h * params.w + (2u * oh) * params.w + 2u * ow;
  var m = x[base];
  let b = x[base + 1u];
  if (b > m) { m = b; }
  let c = x[base + params.w];
  if (c > m) { m = c; }
  let d = x[base + params.w + 1u];
  if (d > m) { m = d; }
  return m;
}

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let count = params.nc * (params.h / 2u) * (params.w / 2u);
  let i = 2u * (gid.x + gid.y * nwg.x * WG);
  if (i >= count) { return; }
  // The second output of an odd count's last pair is the first one again, dropped by n = 1.
  y_store2(i, vec2f(pool(i), pool(min(i + 1u, count - 1u))), min(count - i, 2u));
}
