// maxpool2d_backward: dx[n,c,ih,iw] = dy[n,c,ih/2,iw/2] if (ih,iw) is the first maximum of its
// 2x2 window (and, with relu_mask, that maximum is > 0), else 0.
// The input gradient of maxpool2d_forward. With relu_mask == 1 the pool's input is a ReLU output
// r = relu(z): then dz = dr * (r > 0), and this kernel writes dz directly (the ReLU backward,
// fused: it costs no extra pass). Elements of an odd last row or column get 0.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 x       read        [NC, H, W] the forward input
//   2 dy      read        [NC, H/2, W/2]
//   3 dx      read_write  [NC, H, W] (written, not accumulated)
// dispatch: 1-D over NC * H * W inputs, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { nc: u32, h: u32, w: u32, relu_mask: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  let hw = params.h * params.w;
  if (i >= params.nc * hw) { return; }
  let plane = i / hw;
  let ih = (i / params.w) % params.h;
  let iw = i % params.w;
  let oh_n = params.h / 2u;
  let ow_n = params.w / 2u;
  let oh = ih / 2u;
  let ow = iw / 2u;
  if (oh >= oh_n || ow >= ow_n) { dx[i] = 0.0; return; }
  let base = plane * hw + (2u * oh) * params.w + 2u * ow;
  // First maximum in row-major order: offsets 0, 1, W, W+1.
  var m = x[base];
  var arg = base;
  if (x[base + 1u] > m) { m = x[base + 1u]; arg = base + 1u; }
  if (x[base + params.w] > m) { m = x[base + params.w]; arg = base + params.w; }
  if (x[base + params.w + 1u] > m) { m = x[base + params.w + 1u]; arg = base + params.w + 1u; }
  var g = 0.0;
  if (arg == i && (params.relu_mask == 0u || m > 0.0)) { g = dy[(plane * oh_n + oh) * ow_n + ow]; }
  dx[i] = g;
}
