// linear_backward_weight_tiled (stage 1 of 2, for real GPUs): the split-K partial sums of
// linear_backward_weight,
//   partial[s, o, i] = sum_{n in slice s} dy[n, o] * x[n, i]     (i < I)
//   partial[s, o, I] = sum_{n in slice s} dy[n, o]                (the bias)
// the layout conv2d_backward_weight_reduce.wgsl sums into the gradients (with co = O, k = I).
// A workgroup owns TO outputs x TI inputs: for each TK-sample step of its slice it loads a TK x TO
// tile of dy and a TK x TI tile of x (both rows of a sample: consecutive invocations read
// consecutive features, coalesced, and store them to consecutive words), then every invocation (4
// outputs x 4 inputs, 16 accumulators and 4 bias sums) walks the TK samples. Slice s (dispatch z)
// sums the samples [s*N/S, (s+1)*N/S); workgroups of the first input tile write the bias sums.
// Loads use clamped addresses and select(), not branches.
//
// bindings (group 0):
//   0 params   uniform     Params
//   1 dy       read        [N, O] gradient of the pre-activation
//   2 x        read        [N, I] the forward input
//   3 partial  read_write  [S, O, I + 1]
// dispatch: (ceil(I/TI), ceil(O/TO), S); workgroup size (TI/4) * (TO/4)

struct Params { n: u32, i: u32, o: u32, splits: u32 }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

override TO: u32 = 64; // outputs per workgroup (a multiple of 4)
override TI: u32 = 64; // inputs per workgroup (a multiple of 4)
override TK: u32 = 16; // samples staged per step
override WG: u32 = TI / 4u * (TO / 4u);

// sample-major tiles, rows padded by 4 floats: ds[k * (TO + 4) + output], xs[k * (TI + 4) + input]
var<workgroup> ds: array<f32, TK * (TO + 4u)>;
var<workgroup> xs: array<f32, TK * (TI + 4u)>;

fn put(s: u32, o: u32, i0: u32, acc: vec4f, bias: f32, with_bias: bool) {
  if (o >= params.o) { return; }
  let row = (s * params.o + o) * (params.i + 1u);
  for (var l = 0u; l < 4u; l++) {
    if (i0 + l < params.i) { partial[row + i0 + l] = acc[l]; }
  }
  if (with_bias) { partial[row + params.i] = bias; }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) t: u32) {
  let tx = t % (TI / 4u); // this invocation's inputs: i0 + 4tx ..
  let ty = t / (TI / 4u); // and outputs: o0 + 4ty ..
  let i0 = wid.x * TI;
  let o0 = wid.y * TO;
  let s = wid.z;
  let n_begin = s * params.n / params.splits;
  let n_end = (s + 1u) * params.n / params.splits;
  let nl = params.n - 1u;
  let ol = params.o - 1u;
  let il = params.i - 1u;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  var bias = vec4f(0.0);
  for (var nt = n_begin; nt < n_end; nt += TK) {
    for (var e = t; e < TK * TO; e += WG) {
      let c = e / TO;
      let r = e % TO;
      let ok = nt + c < n_end && o0 + r < params.o;
      let v = dy[min(nt + c, nl) * params.o + min(o0 + r, ol)];
      ds[c * (TO + 4u) + r] = select(0.0, v, ok);
    }
    for (var e = t; e < TK * TI; e += WG) {
      let c = e / TI;
      let r = e % TI;
      let ok = nt + c < n_end && i0 + r < params.i;
      let v = x[min(nt + c, nl) * params.i + min(i0 + r, il)];
      xs[c * (TI + 4u) + r] = select(0.0, v, ok);
    }
    workgroupBarrier();
    for (var c = 0u; c < TK; c++) {
      let db = c * (TO + 4u) + ty * 4u;
      let xb = c * (TI + 4u) + tx * 4u;
      let xv = vec4f(xs[xb], xs[xb + 1u], xs[xb + 2u], xs[xb + 3u]);
      let dv = vec4f(ds[db], ds[db + 1u], ds[db + 2u], ds[db + 3u]);
      acc0 += dv.x * xv;
      acc1 += dv.y * xv;
      acc2 += dv.z * xv;
      acc3 += dv.w * xv;
      bias += dv;
    }
    workgroupBarrier();
  }
  let o = o0 + ty * 4u;
  let i = i0 + tx * 4u;
  let with_bias = wid.x == 0u && tx == 0u;
  put(s, o, i, acc0, bias.x, with_bias);
  put(s, o + 1u, i, acc1, bias.y, with_bias);
  put(s, o + 2u, i, acc2, bias.z, with_bias);
  put(s, o + 3u, i, acc3, bias.w, with_bias);
}
