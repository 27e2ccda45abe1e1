// Node only: the CLI's device, from Dawn on the machine's GPU or SwiftShader (--adapter), with a
// line on stderr saying which adapter is in use.
import { acquireDevice, type Gpu } from '../gpu/device.ts';
import { nodeGpu, type AdapterChoice } from '../gpu/device-node.ts';
import { UsageError, type CliIO } from './command.ts';

export function parseAdapter(v: string | undefined): AdapterChoice {
  if (v === undefined) return 'auto';
  if (v === 'auto' || v === 'gpu' || v === 'swiftshader') return v;
  throw new UsageError(`--adapter must be auto, gpu or swiftshader (got '${v}')`);
}

export async function cliDevice(choice: AdapterChoice, io: CliIO, label = 'webddp'): Promise<Gpu> {
  const { gpu } = await nodeGpu(choice);
  const g = await acquireDevice(gpu, { label });
  const a = g.adapter;
  io.err(`adapter: ${a.description || a.device || a.architecture} (${a.vendor}${a.fallback ? ', software' : ''})\n`);
  return g;
}

/**
 * Settles the adapter for worker threads in this process: worker threads see a copy of
 * process.env that native code does not read, so the SwiftShader fallback (VK_ICD_FILENAMES) must
 * be set here, in the main thread, before the workers start. Returns the adapter the workers get.
 */
export async function settleWorkerAdapter(choice: AdapterChoice, device?: string): Promise<AdapterChoice> {
  const { software } = await nodeGpu(choice, device);
  return software ? 'swiftshader' : 'gpu';
}
