// linear_forward_reduce (stage 2 of 2): adds the S split-K slices of linear_forward_tiled, then the
// bias and (fused) the ReLU:
//   y[n, o] = act(sum_s partial[s, n, o] + b[o])   act = ReLU when params.relu == 1
// One invocation per output, the slices summed in order (a fixed order: the same sums every step).
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 partial  read        [S, N, O]
//   2 theta    read        flat parameters: bias [O] at b_off
//   3 y        read_write  [N, O]
// dispatch: (ceil(N*O / WG), 1, 1)

struct Params { n: u32, o: u32, b_off: u32, relu: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read> theta: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let count = params.n * params.o;
  let at = gid.x;
  if (at >= count) { return; }
  var v = 0.0;
  for (var s = 0u; s < params.splits; s++) {
    v += partial[s * count + at];
  }
  v += theta[params.b_off + at % params.o];
  if (params.relu == 1u) { v = max(v, 0.0); }
  y[at] = v;
}
