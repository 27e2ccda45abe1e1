// Node only: the GPU object of Dawn (the `webgpu` npm package). With a real GPU, Dawn uses its
// Vulkan/Metal/D3D12 driver. On a machine without one, Dawn runs on the SwiftShader Vulkan driver
// that Debian's chromium package ships (Mesa's lavapipe is rejected by Dawn).
import { existsSync } from 'node:fs';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** 'gpu': the system's drivers only; 'swiftshader': software only; 'auto': the system's, else software. */
export type AdapterChoice = 'auto' | 'gpu' | 'swiftshader';

interface DawnModule {
  create(this: void, flags: string[]): GPU;
  globals: Record<string, unknown>;
}

let dawn: DawnModule | null = null;
/**
 * Every Dawn instance created here stays referenced for the life of the process: when a GPU object
 * is garbage-collected, Dawn tears down its instance (and its worker threads) under devices that
 * are still in use, and the process aborts in the middle of a pipeline compile.
 */
const instances: GPU[] = [];

/**
 * Dawn's own flags from WEBDDP_DAWN_FLAGS, space-separated, e.g.
 * `disable-dawn-features=timestamp_quantization` for profiles finer than Dawn's default 65.5 us.
 */
function dawnFlags(): string[] {
  return (process.env.WEBDDP_DAWN_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
}

function createInstance(create: DawnModule['create'], device?: string): GPU {
  // Dawn's node binding picks the first adapter whose device name contains `adapter=`.
  const gpu = create([...(device ? [`adapter=${device}`] : []), ...dawnFlags()]);
  instances.push(gpu);
  return gpu;
}

async function loadDawn(): Promise<DawnModule> {
  if (!dawn) {
    dawn = (await import('webgpu')) as unknown as DawnModule;
    // GPUBufferUsage, GPUShaderStage, GPUMapMode... as in a browser.
    Object.assign(globalThis, dawn.globals);
  }
  return dawn;
}

function useSwiftShader(): void {
  if (!existsSync(SWIFTSHADER_ICD)) {
    throw new Error(
      `no GPU adapter found and no SwiftShader driver at ${SWIFTSHADER_ICD}: run 'npm run setup' (installs Debian's chromium, which ships it)`,
    );
  }
  process.env.VK_ICD_FILENAMES = SWIFTSHADER_ICD;
  delete process.env.VK_DRIVER_FILES;
}

/**
 * Returns Dawn's GPU object with an adapter behind it. Environment: WEBDDP_ADAPTER overrides
 * `choice`; VK_ICD_FILENAMES / VK_DRIVER_FILES, when set, are respected as given. `device`
 * narrows the adapter to one whose device name contains it (Dawn cannot tell identical GPUs apart).
 */
export async function nodeGpu(
  choice: AdapterChoice = 'auto',
  device?: string,
): Promise<{ gpu: GPU; software: boolean }> {
  const env = process.env.WEBDDP_ADAPTER;
  if (env === 'auto' || env === 'gpu' || env === 'swiftshader') choice = env;
  else if (env) throw new Error(`WEBDDP_ADAPTER must be auto, gpu or swiftshader (got '${env}')`);
  const { create } = await loadDawn();
  if (choice === 'swiftshader') {
    useSwiftShader();
    return { gpu: createInstance(create, device), software: true };
  }
  const gpu = createInstance(create, device);
  const adapter = await gpu.requestAdapter();
  if (adapter) return { gpu, software: adapter.info.isFallbackAdapter || adapter.info.architecture === 'swiftshader' };
  if (choice === 'gpu')
    throw new Error(
      'no GPU adapter found through Dawn (Vulkan/Metal/D3D12); check the GPU driver, or use --adapter swiftshader',
    );
  useSwiftShader();
  return { gpu: createInstance(create, device), software: true };
}
