// One GPU-versus-reference kernel case, shared by `webddp check` and test/gpu/ops.test.ts: a name
// tinygrad/tfjs style (op and shapes) and its body, which throws (KernelMismatchError, close.ts)
// when the kernel's output is out of tolerance. A case runs with whatever tuning the device's kernel
// cache holds, so the same case checks the override constants each adapter's tuning selects.
import type { Gpu } from '../../gpu/device.ts';

export interface OpCase {
  readonly name: string;
  /**
   * Runs only where the device has this feature: 'subgroups' with one fixed size, 'subgroup-matrix'
   * the f16 subgroup matrices of the `*_sgmat` kernels (Gpu.halfMatrix); skipped elsewhere, said so.
   */
  readonly requires?: 'subgroups' | 'subgroup-matrix';
  run(gpu: Gpu): Promise<void>;
}

/** Tolerance of a float32 kernel against the float64-accumulating CPU reference. */
export const KERNEL_TOL = { rtol: 1e-4, atol: 1e-5 } as const;
