// softmax_xent_forward: mean cross-entropy of logits against integer labels (F.cross_entropy,
// reduction='mean'), and the number of correct argmax predictions:
//   loss_n = logsumexp(z[n,:]) - z[n, y[n]];  stats = [sum_n loss_n / N, #{argmax z[n,:] == y[n]}, sum_n loss_n]
// over the n rows from row0 (ranks sharing a device: a rank's rows of the logits of every rank).
// One workgroup strides over the samples, then reduces in workgroup memory.
//
// bindings (group 0):
//   0 params  uniform     Params
//   1 logits  read        [row0 + N, C]
//   2 labels  read        [row0 + N] i32, each in 0..C-1 (checked on the CPU)
//   3 stats   read_write  [3] at out_off: mean loss, correct count, loss sum
// dispatch: (1, 1, 1)

struct Params { n: u32, c: u32, out_off: u32, row0: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> labels: array<i32>;
@group(0) @binding(3) var<storage, read_write> stats: array<f32>;

override WG: u32 = 64;
var<workgroup> loss_sum: array<f32, WG>;
var<workgroup> hits: array<f32, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  var l = 0.0;
  var h = 0.0;
  for (var n = lid; n < params.n; n += WG) {
    let row = (params.row0 + n) * params.c;
    var m = logits[row];
    var arg = 0u;
    for (var c = 1u; c < params.c; c++) {
      if (logits[row + c] > m) { m = logits[row + c]; arg = c; }
    }
    var s = 0.0;
    for (var c = 0u; c < params.c; c++) { s += exp(logits[row + c] - m); }
    let y = u32(labels[params.row0 + n]);
    l += log(s) + m - logits[row + y];
    if (arg == y) { h += 1.0; }
  }
  loss_sum[lid] = l;
  hits[lid] = h;
  workgroupBarrier();
  for (var stride = WG / 2u; stride > 0u; stride /= 2u) {
    if (lid < stride) {
      loss_sum[lid] += loss_sum[lid + stride];
      hits[lid] += hits[lid + stride];
    }
    workgroupBarrier();
  }
  if (lid == 0u) {
    stats[params.out_off] = loss_sum[0] / f32(params.n);
    stats[params.out_off + 1u] = hits[0];
    stats[params.out_off + 2u] = loss_sum[0];
  }
}
