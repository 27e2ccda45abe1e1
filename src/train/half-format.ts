// The two 16-bit storage formats of mixed precision, side by side: IEEE fp16 (DeepSpeed's fp16
// section: loss scaling, overflow checks) and bfloat16 (its bf16 section: float32's exponent
// range, so no loss scaling), each with its GPU pack / unpack kernels and its CPU codec.
import type { KernelName } from '../gpu/kernels.ts';
import { packBf16, unpackBf16 } from '../numeric/bf16.ts';
import { packHalves, unpackHalves } from '../numeric/f16.ts';

export type HalfFormat = 'f16' | 'bf16';

export interface HalfCodec {
  /** float32 -> packed pairs, and back (times a scale). */
  readonly packKernel: KernelName & ('cast_f32_to_f16' | 'cast_f32_to_bf16');
  readonly unpackKernel: KernelName & ('cast_f16_to_f32' | 'cast_bf16_to_f32');
  readonly pack: (src: ArrayLike<number>, off?: number, count?: number, scale?: number) => Uint32Array;
  readonly unpack: (words: Uint32Array, count?: number, scale?: number) => Float32Array;
  /** The name in labels and messages. */
  readonly name: 'fp16' | 'bf16';
}

export const HALF_CODECS: { readonly [F in HalfFormat]: HalfCodec } = {
  f16: {
    packKernel: 'cast_f32_to_f16',
    unpackKernel: 'cast_f16_to_f32',
    pack: packHalves,
    unpack: unpackHalves,
    name: 'fp16',
  },
  bf16: {
    packKernel: 'cast_f32_to_bf16',
    unpackKernel: 'cast_bf16_to_f32',
    pack: packBf16,
    unpack: unpackBf16,
    name: 'bf16',
  },
};
