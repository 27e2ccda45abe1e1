// maxpool2d_backward: dx[n,c,ih,iw] = dy[n,c,ih/2,iw/2] if (ih,iw) is the first maximum of its
// 2x2 window (and, with relu_mask, that maximum is > 0), else 0.
// The input gradient of maxpool2d_forward. With relu_mask == 1 the pool's input is a ReLU output
// r = relu(z): then dz = dr * (r > 0), and this kernel writes dz directly (the ReLU backward,
// fused: it costs no extra pass). Elements of an odd last row or column get 0.
// One invocation per 2x2 window: it finds the argmax once and writes all four elements (one per
// element would read each window four times and branch on it; on SwiftShader that was 6x the
// forward's time). The windows of an odd last row or column only write their zeros.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [NC, H, W] the forward input
//   2 dy      read        [NC, H/2, W/2]
//   3 dx      read_write  [NC, H, W] (written, not accumulated)
// dispatch: 1-D over NC * ceil(H/2) * ceil(W/2) windows, folded into (x, y):
//   i = gid.x + gid.y * num_workgroups.x * WG

struct Params { nc: u32, h: u32, w: u32, relu_mask: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  let w = params.w;
  let oh_c = (params.h + 1u) / 2u;
  let ow_c = (w + 1u) / 2u;
  if (i >= params.nc * oh_c * ow_c) { return; }
  let plane = i / (oh_c * ow_c);
  let oh = (i / ow_c) % oh_c;
  let ow = i % ow_c;
  let oh_n = params.h / 2u;
  let ow_n = w / 2u;
  let base = plane * params.h * w + (2u * oh) * w + 2u * ow;
  if (oh >= oh_n || ow >= ow_n) {
    // A window cut by an odd last row or column: the elements that exist get 0.
    dx[base] = 0.0;
    if (2u * ow + 1u < w) { dx[base + 1u] = 0.0; }
    if (2u * oh + 1u < params.h) { dx[base + w] = 0.0; }
    return;
  }
  // First maximum in row-major order (offsets 0, 1, W, W+1), as the forward's scan.
  let a = x[base];
  let b = x[base + 1u];
  let c = x[base + w];
  let d = x[base + w + 1u];
  var m = a;
  var k = 0u;
  k = select(k, 1u, b > m);
  m = select(m, b, b > m);
  k = select(k, 2u, c > m);
  m = select(m, c, c > m);
  k = select(k, 3u, d > m);
  m = select(m, d, d > m);
  var g = 0.0;
  if (params.relu_mask == 0u || m > 0.0) { g = dy[(plane * oh_n + oh) * ow_n + ow]; }
  dx[base] = select(0.0, g, k == 0u);
  dx[base + 1u] = select(0.0, g, k == 1u);
  dx[base + w] = select(0.0, g, k == 2u);
  dx[base + w + 1u] = select(0.0, g, k == 3u);
}
