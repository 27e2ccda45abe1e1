// allreduce_sum: the all-reduce of ranks that share one device (webddp train --colocate): the sum
// over W ranks of their gradients, gathered rank after rank,
//   out[i] = sum_r gathered[r * count + i]   (r = 0, 1, ..., W-1, in that order)
// Each rank has already divided its gradients by W (DDP's pre-division); the sum is copied back into
// every rank's gradients. For W = 2 it is the ring's sum bit for bit (a + b = b + a); for more
// ranks the ring adds the same values in another order.
//
// bindings (group 0):
//   0 params    uniform     Params
//   1 gathered  read        [W, count]
//   2 out       read_write  [count]
// dispatch: 1-D over count, folded into (x, y): i = gid.x + gid.y * num_workgroups.x * WG

struct Params { count: u32, world: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> gathered: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

override WG: u32 = 64;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * WG;
  if (i >= params.count) { return; }
  var v = gathered[i];
  for (var r = 1u; r < params.world; r++) {
    v += gathered[r * params.count + i];
  }
  out[i] = v;
}
