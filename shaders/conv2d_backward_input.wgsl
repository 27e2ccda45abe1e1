// conv2d_backward_input: dx[n,ci,ih,iw] = sum_{co,kh,kw} dy[n,co,ih-kh+1,iw-kw+1] * w[co,ci,kh,kw]
// The input gradient of conv2d_forward (3x3, stride 1, padding 1, NCHW): a correlation of dy with
// the flipped kernel. dy is the gradient of the pre-activation (the ReLU mask was applied by the
// producer of dy, see maxpool2d_backward). One invocation computes 4 input channels x 4 adjacent
// pixels of one row; padding uses clamped addresses and 0/1 masks, not branches.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 dy      read        [N, CO, H, W]
//   2 theta   read        flat parameters: weight [CO, CI, 3, 3] at w_off
//   3 dx      read_write  [N, CI, H, W] (written, not accumulated)
// dispatch: (ceil(H * ceil(W/4) / WG_X), ceil(ceil(CI/4) / WG_Y), N)

struct Params { n: u32, ci: u32, co: u32, h: u32, w: u32, w_off: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> dx: array<f32>;

override WG_X: u32 = 64;
override WG_Y: u32 = 1;

fn store(n: u32, ci: u32, ih: u32, iw0: u32, acc: vec4f) {
  if (ci >= params.ci) { return; }
  let base = ((n * params.ci + ci) * params.h + ih) * params.w + iw0;
  dx[base] = acc.x;
  if (iw0 + 1u < params.w) { dx[base + 1u] = acc.y; }
  if (iw0 + 2u < params.w) { dx[base + 2u] = acc.z; }
  if (iw0 + 3u < params.w) { dx[base + 3u] = acc.w; }
}

@compute @workgroup_size(WG_X, WG_Y)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let h = params.h;
  let w = params.w;
  let groups_per_row = (w + 3u) / 4u;
  let ci0 = gid.y * 4u;
  if (gid.x >= h * groups_per_row || ci0 >= params.ci) { return; }
  let n = gid.z;
  let ih = gid.x / groups_per_row;
  let iw0 = (gid.x % groups_per_row) * 4u;
  let kk = params.ci * 9u;
  let last = params.ci - 1u;
  let o0 = ci0 * 9u;
  let o1 = min(ci0 + 1u, last) * 9u;
  let o2 = min(ci0 + 2u, last) * 9u;
  let o3 = min(ci0 + 3u, last) * 9u;
  // dy columns iw0-1 .. iw0+4, clamped, with 0/1 masks; kernel column kw reads iw0-kw+1 .. iw0-kw+4.
  let lw = w - 1u;
  let ca = vec4u(select(iw0 - 1u, 0u, iw0 == 0u), iw0, min(iw0 + 1u, lw), min(iw0 + 2u, lw));
  let cb = vec2u(min(iw0 + 3u, lw), min(iw0 + 4u, lw));
  let ma = vec4f(select(1.0, 0.0, iw0 == 0u), 1.0, select(0.0, 1.0, iw0 + 1u < w), select(0.0, 1.0, iw0 + 2u < w));
  let mb = vec2f(select(0.0, 1.0, iw0 + 3u < w), select(0.0, 1.0, iw0 + 4u < w));
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var co = 0u; co < params.co; co++) {
    let plane = (n * params.co + co) * h * w;
    let wbase = params.w_off + co * kk;
    for (var kh = 0u; kh < 3u; kh++) {
      // dy row ih-kh+1 (stored as r = ih-kh+2 to stay unsigned), clamped and masked.
      let r = ih + 2u - kh;
      let m = select(1.0, 0.0, r == 0u || r > h);
      let row = plane + (min(max(r, 1u), h) - 1u) * w;
      let da = vec4f(dy[row + ca.x], dy[row + ca.y], dy[row + ca.z], dy[row + ca.w]) * (ma * m);
      let db = vec2f(dy[row + cb.x], dy[row + cb.y]) * (mb * m);
      let d1 = vec4f(da.yzw, db.x);
      let d0 = vec4f(da.zw, db);
      let k = wbase + kh * 3u;
      acc0 += theta[k + o0] * d0 + theta[k + o0 + 1u] * d1 + theta[k + o0 + 2u] * da;
      acc1 += theta[k + o1] * d0 + theta[k + o1 + 1u] * d1 + theta[k + o1 + 2u] * da;
      acc2 += theta[k + o2] * d0 + theta[k + o2 + 1u] * d1 + theta[k + o2 + 2u] * da;
      acc3 += theta[k + o3] * d0 + theta[k + o3 + 1u] * d1 + theta[k + o3 + 2u] * da;
    }
  }
  store(n, ci0, ih, iw0, acc0);
  store(n, ci0 + 1u, ih, iw0, acc1);
  store(n, ci0 + 2u, ih, iw0, acc2);
  store(n, ci0 + 3u, ih, iw0, acc3);
}
