// Node only: the CLI's device, from Dawn on the machine's GPU, SwiftShader or lavapipe (--adapter), with a
// line on stderr saying which adapter is in use.
import { acquireDevice, halfMatrixShapes, type Gpu } from '../gpu/device.ts';
import { GPU_TUNING } from '../gpu/tuning.ts';
import {
  ADAPTER_CHOICES,
  HALF_FEATURES,
  isAdapterChoice,
  nodeGpu,
  wantHalfFeatures,
  type AdapterChoice,
} from '../gpu/device-node.ts';
import { UsageError, type CliIO } from './command.ts';

export function parseAdapter(v: string | undefined): AdapterChoice {
  if (v === undefined) return 'auto';
  if (isAdapterChoice(v)) return v;
  throw new UsageError(`--adapter must be ${ADAPTER_CHOICES.join(', ')} (got '${v}')`);
}

/**
 * The log line of a device's half-precision arithmetic: which features it has, whether Dawn toggles
 * gave them, and so what an fp16 run computes in (docs/half-precision-kernels.md).
 */
export function halfArithmeticLine(
  features: ReadonlySet<string>,
  halfMatrix: boolean,
  toggles: readonly string[],
): string {
  const has = HALF_FEATURES.filter((f) => features.has(f));
  const via = toggles.length > 0 ? ` (through the Dawn toggles ${toggles.join(', ')})` : '';
  const list = has.length > 0 ? `${has.join(', ')}${via}` : 'no shader-f16, no subgroup matrices';
  const how = halfMatrix
    ? `fp16 runs: f16 subgroup matrices (tensor cores, float32 accumulation) for the products the tuning's ` +
      `halfMatrix names (${GPU_TUNING.halfMatrix.join(', ') || 'none'} unless --tuning says otherwise), float32 ` +
      `arithmetic on the unpacked halves elsewhere`
    : 'fp16 runs: halves stored, arithmetic in float32';
  return `half arithmetic: ${list}; ${how}\n`;
}

/** `half`: the run computes in fp16: ask for the half-precision features (and say what it got). */
export async function cliDevice(choice: AdapterChoice, io: CliIO, label = 'webddp', half = false): Promise<Gpu> {
  if (half) wantHalfFeatures();
  const { gpu, toggles } = await nodeGpu(choice);
  const g = await acquireDevice(gpu, { label });
  const a = g.adapter;
  io.err(`adapter: ${a.description || a.device || a.architecture} (${a.vendor}${a.fallback ? ', software' : ''})\n`);
  if (half) io.err(halfArithmeticLine(g.device.features, g.halfMatrix, toggles));
  return g;
}

/**
 * Settles the adapter for worker threads in this process: worker threads see a copy of
 * process.env that native code does not read, so a software driver (VK_ICD_FILENAMES) must
 * be set here, in the main thread, before the workers start. Returns the adapter the workers get.
 * `half`: an fp16 run: the workers ask for the half-precision features (wantHalfFeatures).
 */
export async function settleWorkerAdapter(
  choice: AdapterChoice,
  device?: string,
  half = false,
  io?: CliIO,
): Promise<AdapterChoice> {
  if (half) wantHalfFeatures();
  const { gpu, toggles, workers } = await nodeGpu(choice, device);
  if (half && io) {
    const a = await gpu.requestAdapter();
    if (a) {
      const fixed = a.info.subgroupMinSize === 32 && a.info.subgroupMaxSize === 32;
      const matrix =
        a.features.has('shader-f16') &&
        a.features.has('chromium-experimental-subgroup-matrix') &&
        halfMatrixShapes(a.info).includes('16x16x16') &&
        a.features.has('subgroups') &&
        fixed;
      io.err(halfArithmeticLine(a.features, matrix, toggles));
    }
  }
  return workers;
}
