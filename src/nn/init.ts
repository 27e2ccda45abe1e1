// PyTorch-identical default initialisation of SimpleCNN: `torch.manual_seed(seed); SimpleCNN(w)`
// bit for bit. Every nn.Conv2d / nn.Linear runs reset_parameters() when constructed, in the
// order conv1, conv2, (pool has no parameters), fc1, fc2, all drawing from the global CPU
// generator: kaiming_uniform_(weight, a=sqrt(5)) then bias.uniform_(-1/sqrt(fan_in), ...).
// Sources: torch/nn/modules/linear.py and conv.py reset_parameters, torch/nn/init.py
// kaiming_uniform_ / calculate_gain (bounds computed in float64, as Python floats).

import { CpuGenerator } from '../random/generator.ts';
import { fillUniformF32 } from '../random/uniform.ts';
import type { ModelSpec } from './spec.ts';
import { paramByName } from './spec.ts';

/** The modules of SimpleCNN that own parameters, in construction (= random draw) order. */
const SIMPLE_CNN_MODULES = ['conv1', 'conv2', 'fc1', 'fc2'] as const;

/**
 * The bound of `kaiming_uniform_(w, a, mode='fan_in', nonlinearity='leaky_relu')`:
 * sqrt(3) * gain / sqrt(fan_in) with gain = sqrt(2 / (1 + a^2)), in float64 like Python.
 * With the default a = sqrt(5) this is about (but not always bit-equal to) 1 / sqrt(fan_in).
 */
export function kaimingUniformBound(fanIn: number, a = Math.sqrt(5)): number {
  if (!Number.isSafeInteger(fanIn) || fanIn < 1)
    throw new RangeError(`kaiming_uniform_: fan_in must be a positive integer (got ${fanIn})`);
  const gain = Math.sqrt(2.0 / (1 + a * a));
  const std = gain / Math.sqrt(fanIn);
  return Math.sqrt(3.0) * std;
}

/** The bias bound of Linear/Conv reset_parameters: 1 / sqrt(fan_in), or 0 when fan_in is 0. */
export function biasBound(fanIn: number): number {
  if (!Number.isSafeInteger(fanIn) || fanIn < 0)
    throw new RangeError(`bias init: fan_in must be a non-negative integer (got ${fanIn})`);
  return fanIn > 0 ? 1 / Math.sqrt(fanIn) : 0;
}

/**
 * `reset_parameters()` of nn.Linear / nn.Conv2d, drawing from `g`: fills `weight` (contiguous,
 * PyTorch layout) and then `bias` in place. An empty weight draws nothing (torch warns and skips).
 */
export function resetParameters(g: CpuGenerator, weight: Float32Array, bias: Float32Array | null, fanIn: number): void {
  if (weight.length > 0) {
    const b = kaimingUniformBound(fanIn);
    fillUniformF32(g, weight, -b, b);
  }
  if (bias) {
    const b = biasBound(fanIn);
    fillUniformF32(g, bias, -b, b);
  }
}

/**
 * The flat parameter arena (spec order, spec offsets) of `torch.manual_seed(seed); SimpleCNN(w)`
 * for `spec = simpleCnnSpec(w)`. `seed` is anything torch.manual_seed accepts: [-2^63, 2^64).
 */
export function initSimpleCnn(spec: ModelSpec, seed: number | bigint): Float32Array {
  if (typeof seed === 'number' && !Number.isSafeInteger(seed))
    throw new RangeError(`init: seed must be an integer (got ${seed})`);
  const g = new CpuGenerator(seed);
  const arena = new Float32Array(spec.total);
  const covered = new Set<string>();
  for (const m of SIMPLE_CNN_MODULES) {
    const w = paramByName(spec, `${m}.weight`);
    const b = paramByName(spec, `${m}.bias`);
    resetParameters(
      g,
      arena.subarray(w.offset, w.offset + w.size),
      arena.subarray(b.offset, b.offset + b.size),
      w.fanIn,
    );
    covered.add(w.name).add(b.name);
  }
  const missed = spec.params.filter((p) => !covered.has(p.name));
  if (missed.length > 0) throw new Error(`init: no init rule for parameter(s) ${missed.map((p) => p.name).join(', ')}`);
  return arena;
}
