// loss_scaler: DeepSpeed's fp16 loss scaler (src/optim/loss-scaler.ts, the same semantics) kept on
// the GPU, so that a step's optimizer can be recorded before its overflow flag is known and the next
// step submitted behind it (one worker, pipelined). The scale is a power of two, kept as its
// exponent; every float it gives out is built from bits (exact).
//
// mode 0 (prepare, before the step's loss gradient): state[6] = the loss gradient's factor
//   f32(inv_count) * 2^exp, state[7] = f32(1 / 2^exp) (the unscale), both as float32 bits, as the
//   host would compute f32(scale / count) and f32(1 / scale); the caller copies them into the
//   Params of the loss gradient and of the unscale.
// mode 1 (update, after the step's overflow check): DeepSpeed's update_scale with the flag (dynamic
//   == 1; a static scale only skips); state[8] = whether the step is skipped; a step taken counts
//   one optimizer step t and copies the optimizer's Params for step t from the window (steps
//   window_lo ...) into `selected`; state[10] = whether the step is taken, which the recorder
//   copies into each gated dispatch's Params `run` before it (and state[11] = 1 back after it).
//
// state (u32 words): 0 exp (i32 bits), 1 iter (DeepSpeed's cur_iter), 2 last_overflow_iter + 1,
//   3 cur_hysteresis, 4 optimizer steps taken, 5 error bits (1: overflow at min_loss_scale, where
//   DeepSpeed raises; 2: a step outside the window), 6 loss factor, 7 inverse scale, 8 skipped,
//   9 the exp this step's loss gradient used, 10 taken (the gated dispatches' run), 11 one
//
// bindings (group 0):
//   0 params    uniform     Params
//   1 flag      read        [1] u32: the step's overflow flag (f16_overflow)
//   2 state     read_write  [16] u32: the scaler's state and outputs (above)
//   3 candidates read      [window_len * block_words] u32: optimizer Params of steps window_lo ...
//   4 selected  read_write  [block_words] u32: the optimizer Params of the step taken
// dispatch: one workgroup of one invocation

struct Params {
  mode: u32, dynamic: u32, hysteresis: u32, consecutive: u32,
  scale_window: u32, min_exp: i32, block_words: u32,
  window_lo: u32, window_len: u32, inv_count: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> flag: array<u32>;
@group(0) @binding(2) var<storage, read_write> state: array<u32>;
@group(0) @binding(3) var<storage, read> candidates: array<u32>;
@group(0) @binding(4) var<storage, read_write> selected: array<u32>;

const INF_BITS: u32 = 0x7f800000u;

// float32 bits of 2^k, rounded to nearest even as the host's Math.fround(2 ** k) is
fn pow2_bits(k: i32) -> u32 {
  if (k > 127) { return INF_BITS; }
  if (k >= -126) { return u32(k + 127) << 23u; }
  if (k >= -149) { return 1u << u32(k + 149); }
  return 0u; // 2^-150 is a tie, rounded to even (0); below it, 0
}

// float32 bits of x * 2^e for x a positive normal float32 (given as bits) and e >= 0: exact, or inf
fn times_pow2(x: u32, e: i32) -> u32 {
  let biased = i32(x >> 23u) + e;
  if (biased >= 255) { return INF_BITS; }
  return (u32(biased) << 23u) | (x & 0x7fffffu);
}

@compute @workgroup_size(1)
fn main() {
  let e0 = bitcast<i32>(state[0]);
  if (params.mode == 0u) {
    state[6] = times_pow2(bitcast<u32>(params.inv_count), e0);
    state[7] = pow2_bits(-e0);
    return;
  }
  let overflow = flag[0] != 0u;
  state[9] = state[0];
  if (params.dynamic == 1u) {
    var e = e0;
    let iter = state[1];
    var last1 = state[2];
    var hyst = state[3];
    if (overflow) {
      if (params.hysteresis == 1u || hyst == 1u) {
        if (e == params.min_exp) { state[5] = state[5] | 1u; } else { e = max(e - 1, params.min_exp); }
      } else {
        hyst = hyst - 1u;
      }
      last1 = iter + 1u;
    } else {
      if (params.consecutive == 1u) { hyst = params.hysteresis; }
      let stable = iter - last1;
      if (stable > 0u && stable % params.scale_window == 0u) {
        if (params.consecutive == 0u) { hyst = params.hysteresis; }
        e = e + 1;
      }
    }
    state[0] = bitcast<u32>(e);
    state[1] = iter + 1u;
    state[2] = last1;
    state[3] = hyst;
  }
  var taken = !overflow;
  if (taken) {
    let t = state[4] + 1u;
    let idx = t - params.window_lo;
    if (t < params.window_lo || idx >= params.window_len) {
      state[5] = state[5] | 2u;
      taken = false;
    } else {
      state[4] = t;
      for (var w = 0u; w < params.block_words; w++) {
        selected[w] = candidates[idx * params.block_words + w];
      }
    }
  }
  state[8] = select(1u, 0u, !overflow);
  state[10] = select(0u, 1u, taken);
  state[11] = 1u;
}
