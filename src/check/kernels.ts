// The kernel checks: every case of every kernel (src/check/cases) on the device, with the kernel
// cache holding the adapter's tuning, so each kernel runs with the override constants (workgroup
// sizes, tiles) this adapter gets. A case that needs a feature the device lacks is a skip, said so.
import type { Gpu } from '../gpu/device.ts';
import type { KernelName } from '../gpu/kernels.ts';
import type { Tuning } from '../gpu/tuning.ts';
import { KERNEL_CASES } from './cases/index.ts';
import { timed, type CheckRow } from './result.ts';

/** Which of the model's kernels a tuning selects on this device (the others are still checked). */
export function selectedKernels(tuning: Tuning, subgroupSize: number, halfMatrix = false): ReadonlySet<KernelName> {
  const conv = (k: Tuning['convForward'], base: 'conv2d_forward' | 'conv2d_backward_input'): KernelName[] =>
    k === 'wide' ? [`${base}_wide`] : k === 'tiled' ? [base, `${base}_tiled`] : [base];
  const weight: KernelName[] =
    tuning.convWeight === 'wide'
      ? ['conv2d_backward_weight_wide']
      : tuning.convWeight === 'tiled'
        ? ['conv2d_backward_weight', 'conv2d_backward_weight_tiled']
        : ['conv2d_backward_weight'];
  const reduce: KernelName[] = ['conv2d_backward_weight_reduce'];
  if (tuning.convReduce !== 'lanes' && subgroupSize > 0) reduce.push('conv2d_backward_weight_reduce_subgroup');
  // fc2 (128 inputs) keeps the register kernels when fc1 takes the tiled ones
  const linear = (k: Tuning['linearForward'], base: 'linear_forward' | 'linear_backward_weight'): KernelName[] =>
    k === 'tiled'
      ? [base, `${base}_tiled`, ...(base === 'linear_forward' ? ['linear_forward_reduce' as const] : [])]
      : [base];
  const all = Object.keys(KERNEL_CASES) as KernelName[];
  const chosen = (k: KernelName) => k.startsWith('conv2d_') || /^linear_(forward|backward_weight)/.test(k);
  // The subgroup-matrix kernels: fp16 runs on a device with them (Gpu.halfMatrix), this tuning willing.
  const sgmat: Record<Tuning['halfMatrix'][number], KernelName[]> = {
    'conv-forward': ['conv2d_forward_sgmat'],
    'conv-input': ['conv2d_backward_input_sgmat'],
    'conv-weight': ['conv2d_backward_weight_sgmat'],
    'linear-forward': ['linear_forward_sgmat', 'linear_forward_reduce'],
    'linear-weight': ['linear_backward_weight_sgmat'],
  };
  const matrix = halfMatrix ? tuning.halfMatrix.flatMap((u) => sgmat[u]) : [];
  return new Set([
    ...all.filter((k) => !chosen(k)),
    ...matrix,
    ...linear(tuning.linearForward, 'linear_forward'),
    ...linear(tuning.linearWeight, 'linear_backward_weight'),
    ...conv(tuning.convForward, 'conv2d_forward'),
    ...conv(tuning.convInput, 'conv2d_backward_input'),
    ...weight,
    ...reduce,
  ]);
}

export interface KernelCheckOptions {
  /** Only kernels whose name contains one of these (all when empty). */
  readonly only?: readonly string[];
  readonly onRow?: (row: CheckRow) => void;
}

export async function checkKernels(gpu: Gpu, tuning: Tuning, o: KernelCheckOptions = {}): Promise<CheckRow[]> {
  gpu.kernels.tuning = tuning.kernels;
  const selected = selectedKernels(tuning, gpu.subgroupSize, gpu.halfMatrix);
  const rows: CheckRow[] = [];
  for (const [kernel, cases] of Object.entries(KERNEL_CASES) as [KernelName, (typeof KERNEL_CASES)[KernelName]][]) {
    if (o.only && o.only.length > 0 && !o.only.some((s) => kernel.includes(s))) continue;
    const tag = selected.has(kernel) ? '' : ' [not selected by this tuning]';
    for (const c of cases) {
      const name = `${kernel}${tag}: ${c.name}`;
      const lacks =
        c.requires === 'subgroups' && gpu.subgroupSize === 0
          ? 'no fixed-size subgroups'
          : c.requires === 'subgroup-matrix' && !gpu.halfMatrix
            ? 'no shader-f16 with f16 x f16 -> f32 16x16x16 subgroup matrices'
            : null;
      const row = lacks
        ? {
            group: 'kernels' as const,
            name,
            status: 'skip' as const,
            ms: 0,
            detail: `${gpu.label} has ${lacks}`,
          }
        : await timed('kernels', name, async () => {
            await c.run(gpu);
            return 'within tolerance of the CPU reference';
          });
      rows.push(row);
      o.onRow?.(row);
    }
  }
  return rows;
}
