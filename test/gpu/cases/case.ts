// One GPU-versus-reference test case: a name tinygrad/tfjs style (op and shapes) and its body.
import type { Gpu } from '../../../src/gpu/device.ts';

export interface OpCase {
  readonly name: string;
  /** Runs only where the device has this feature with one fixed size (skipped elsewhere, said so). */
  readonly requires?: 'subgroups';
  run(gpu: Gpu): Promise<void>;
}

/** Tolerance of a float32 kernel against the float64-accumulating CPU reference. */
export const KERNEL_TOL = { rtol: 1e-4, atol: 1e-5 } as const;
