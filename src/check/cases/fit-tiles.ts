// The real-GPU tuning's conv tiles made to fit a smaller device (SwiftShader: 256 invocations per
// workgroup): ROWS halved until the workgroup fits, so the tiled kernels still run in the tests.
import { GPU_TUNING, type Tuning } from '../../gpu/tuning.ts';

type TiledConv = 'conv2d_forward_tiled' | 'conv2d_backward_input_tiled';

/** The tiles GPU_TUNING gives `kernel`, with ROWS halved until (out/8) * ROWS * (TW/4) <= maxInvocations. */
export function fitTiles(kernel: TiledConv, maxInvocations: number): Record<string, number> {
  const t = { ...GPU_TUNING.kernels[kernel] };
  const out = kernel === 'conv2d_forward_tiled' ? (t.TCO ?? 32) : (t.TCI ?? 32);
  let rows = t.ROWS ?? 4;
  while (rows > 1 && (out / 8) * rows * ((t.TW ?? 16) / 4) > maxInvocations) rows = Math.ceil(rows / 2);
  return { ...t, ROWS: rows };
}

/** GPU_TUNING (with `over`) whose tiled conv kernels fit a device of `maxInvocations` per workgroup. */
export function fittedGpuTuning(maxInvocations: number, over: Partial<Tuning> = {}): Tuning {
  return {
    ...GPU_TUNING,
    ...over,
    kernels: {
      ...GPU_TUNING.kernels,
      conv2d_forward_tiled: fitTiles('conv2d_forward_tiled', maxInvocations),
      conv2d_backward_input_tiled: fitTiles('conv2d_backward_input_tiled', maxInvocations),
    },
  };
}
