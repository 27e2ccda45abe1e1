// The kernel registry's entries (kernels.ts) for the 16-bit storage kernels: the casts between
// float32 and fp16 / bfloat16 pairs, fp16's overflow check, one worker's round trips through 16
// bits, and fp16's loss scaler on the GPU.
import { F32 as f, PARAMS as P, U32 as u, WG64, type KernelSpec } from './kernel-spec.ts';

export const HALF_KERNELS = {
  cast_f32_to_f16: {
    bindings: [P, ['src', 'read'], ['dst', 'read_write']],
    params: { count: u, s_off: u, d_off: u, scale: f, run: u },
    overrides: WG64,
  },
  cast_f16_to_f32: {
    bindings: [P, ['src', 'read'], ['dst', 'read_write']],
    params: { count: u, s_off: u, d_off: u, scale: f },
    overrides: WG64,
  },
  cast_f32_to_bf16: {
    bindings: [P, ['src', 'read'], ['dst', 'read_write']],
    params: { count: u, s_off: u, d_off: u, scale: f, run: u },
    overrides: WG64,
  },
  cast_bf16_to_f32: {
    bindings: [P, ['src', 'read'], ['dst', 'read_write']],
    params: { count: u, s_off: u, d_off: u, scale: f },
    overrides: WG64,
  },
  f16_overflow: {
    bindings: [P, ['data', 'read'], ['flag', 'read_write']],
    params: { count: u, offset: u },
    overrides: WG64,
  },
  bf16_round_trip: {
    bindings: [P, ['data', 'read_write']],
    params: { count: u, offset: u },
    overrides: WG64,
  },
  f16_round_trip: {
    bindings: [P, ['data', 'read_write'], ['flag', 'read_write']],
    params: { count: u, offset: u, scale: f },
    overrides: WG64,
  },
  loss_scaler: {
    bindings: [P, ['flag', 'read'], ['state', 'read_write'], ['candidates', 'read'], ['selected', 'read_write']],
    params: {
      mode: u,
      dynamic: u,
      hysteresis: u,
      consecutive: u,
      scale_window: u,
      min_exp: 'i32',
      block_words: u,
      window_lo: u,
      window_len: u,
      inv_count: f,
    },
    overrides: {},
  },
} as const satisfies Record<string, KernelSpec>;
