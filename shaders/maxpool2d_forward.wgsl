// maxpool2d_forward: y[n,c,oh,ow] = max_{i,j in 0..1} x[n,c,2oh+i,2ow+j]
// MaxPool2d(2) with stride 2 and floor mode (an odd last row or column is dropped), NCHW.
// The backward recomputes the argmax from x (first maximum in row-major order, as PyTorch's
// `val > maxval` scan), so no index tensor is stored.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [NC, H, W] (NC = N * C planes)
//   2 y       read_write  [NC, H/2, W/2]
// dispatch: 1-D over NC * (H/2) * (W/2) outputs, folded into (x, y) workgroups:
//   i = gid.x + gid.y * num_workgroups.x * WG

struct Params { nc: u32, h: u32, w: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let oh_n = params.h / 2u;
  let ow_n = params.w / 2u;
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.nc * oh_n * ow_n) { return; }
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
  y[i] = m;
}
