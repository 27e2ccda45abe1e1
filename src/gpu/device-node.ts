// Node only: the GPU object of Dawn (the `webgpu` npm package). With a real GPU, Dawn uses its
// Vulkan/Metal/D3D12 driver. On a machine without one, Dawn runs on the SwiftShader Vulkan driver
// that Debian's chromium package ships, or, asked for by name, on Mesa's lavapipe (Mesa 24 or later:
// Dawn finds no adapter on older ones; `npm run setup` puts Mesa 25's in the checkout's .lavapipe/).
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isMainThread } from 'node:worker_threads';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** Where lavapipe is looked for when WEBDDP_LAVAPIPE_ICD is not set, in order. */
export const LAVAPIPE_ICDS = ['.lavapipe/lvp_icd.json', '/usr/share/vulkan/icd.d/lvp_icd.json'] as const;

/**
 * 'gpu': the system's drivers only; 'swiftshader' and 'lavapipe': that software driver only;
 * 'auto': the system's, else SwiftShader.
 */
export const ADAPTER_CHOICES = ['auto', 'gpu', 'swiftshader', 'lavapipe'] as const;
export type AdapterChoice = (typeof ADAPTER_CHOICES)[number];
/** The software drivers --adapter names (software: the workers get the same one). */
type SoftwareDriver = 'swiftshader' | 'lavapipe';

export const isAdapterChoice = (v: string): v is AdapterChoice => (ADAPTER_CHOICES as readonly string[]).includes(v);

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
 * The Dawn toggles that expose half-precision arithmetic where the driver supports it but Dawn
 * hides it: `vulkan_enable_f16_on_nvidia` (Dawn turns `shader-f16` off on NVIDIA's Vulkan driver
 * before 615.71, a guard against old drivers) and `allow_unsafe_apis` (the experimental
 * `chromium-experimental-subgroup-matrix`: the tensor cores). Chromium takes the same as
 * `--enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia`.
 */
export const HALF_TOGGLES = ['vulkan_enable_f16_on_nvidia', 'allow_unsafe_apis'] as const;

/** The device features of half-precision arithmetic (f16 in WGSL; f16 x f16 -> f32 subgroup matrices). */
export const HALF_FEATURES = ['shader-f16', 'chromium-experimental-subgroup-matrix'] as const;

/**
 * Dawn's own flags from WEBDDP_DAWN_FLAGS, space-separated, e.g.
 * `disable-dawn-features=timestamp_quantization` for profiles finer than Dawn's default 65.5 us;
 * `toggles` are added to its `enable-dawn-features` list (one flag: Dawn keeps the last of a kind).
 */
export function dawnFlags(toggles: readonly string[] = []): string[] {
  const flags = (process.env.WEBDDP_DAWN_FLAGS ?? '').split(/\s+/).filter((f) => f !== '');
  if (toggles.length === 0) return flags;
  const key = 'enable-dawn-features=';
  const given = flags.filter((f) => f.startsWith(key)).flatMap((f) => f.slice(key.length).split(','));
  const merged = [...new Set([...given, ...toggles])].filter((t) => t !== '');
  return [...flags.filter((f) => !f.startsWith(key)), `${key}${merged.join(',')}`];
}

function createInstance(create: DawnModule['create'], device?: string, toggles: readonly string[] = []): GPU {
  // Dawn's node binding picks the first adapter whose device name contains `adapter=`.
  const gpu = create([...(device ? [`adapter=${device}`] : []), ...dawnFlags(toggles)]);
  instances.push(gpu);
  return gpu;
}

/**
 * Where the Vulkan loader looks for installed drivers on Linux (its ICD manifests). With none there
 * (and no VK_ICD_FILENAMES / VK_DRIVER_FILES), probing the system's Vulkan only prints the loader's
 * "Found no drivers" warnings before the SwiftShader fallback, so it is skipped.
 */
function linuxVulkanDrivers(): boolean {
  if (process.platform !== 'linux' || process.env.VK_ICD_FILENAMES || process.env.VK_DRIVER_FILES) return true;
  const data = (process.env.XDG_DATA_DIRS ?? '/usr/local/share:/usr/share').split(':');
  const dirs = [
    '/etc/vulkan/icd.d',
    join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'vulkan', 'icd.d'),
    join(process.env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'vulkan', 'icd.d'),
    ...data.map((d) => join(d, 'vulkan', 'icd.d')),
    '/usr/share/vulkan/icd.d',
  ];
  return dirs.some((d) => {
    try {
      return readdirSync(d).some((f) => f.endsWith('.json'));
    } catch {
      return false;
    }
  });
}

/**
 * Dawn's display probing asks for a Wayland/X11 runtime directory and prints "XDG_RUNTIME_DIR is
 * invalid or not set" once per probe when there is none (a server, a container, a CI job). webddp
 * draws nothing, so without a usable one the process gets a private empty one (mode 0700, removed
 * at exit) before Dawn loads. Worker threads inherit it (native code reads the process's
 * environment, set here in the main thread).
 */
function quietDisplayProbe(): void {
  if (process.platform !== 'linux' || !isMainThread) return;
  const given = process.env.XDG_RUNTIME_DIR;
  try {
    if (given && statSync(given).isDirectory()) return;
  } catch {
    // missing: replaced below
  }
  const dir = mkdtempSync(join(tmpdir(), 'webddp-runtime-'));
  process.env.XDG_RUNTIME_DIR = dir;
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
}

/**
 * Asks every later nodeGpu() of this process, and of the worker threads it starts afterwards (they
 * copy process.env), for the half-precision features: a run in fp16 calls it before it acquires
 * devices. Where the adapter lacks them, nodeGpu tries the HALF_TOGGLES. The environment variable
 * WEBDDP_HALF_FEATURES=0 turns this off.
 */
export function wantHalfFeatures(): void {
  // WEBDDP_HALF_FEATURES=0 keeps Dawn's defaults (no toggles) for every run of the process.
  if (process.env.WEBDDP_HALF_FEATURES !== '0') process.env.WEBDDP_HALF_FEATURES = '1';
}

function halfWanted(): boolean {
  return process.env.WEBDDP_HALF_FEATURES === '1';
}

const halfCount = (a: GPUAdapter) => HALF_FEATURES.filter((f) => a.features.has(f)).length;

async function loadDawn(): Promise<DawnModule> {
  if (!dawn) {
    quietDisplayProbe();
    dawn = (await import('webgpu')) as unknown as DawnModule;
    // GPUBufferUsage, GPUShaderStage, GPUMapMode... as in a browser.
    Object.assign(globalThis, dawn.globals);
  }
  return dawn;
}

/**
 * The adapter choice to hand to rank workers spawned from this thread. A worker thread's
 * process.env is its own copy, which the Vulkan loader (native code) never reads; so where 'auto'
 * would end on SwiftShader (Linux without an installed Vulkan driver, no WEBDDP_ADAPTER), the choice
 * is made here, in the spawning thread, whose environment the workers inherit.
 */
export function workerAdapterChoice(given: AdapterChoice): AdapterChoice {
  const choice = chosenAdapter(given);
  if (choice === 'swiftshader' || choice === 'lavapipe') {
    if (isMainThread) useSoftware(choice);
    return choice;
  }
  if (choice !== 'auto' || !isMainThread || linuxVulkanDrivers()) return choice;
  useSoftware('swiftshader');
  return 'swiftshader';
}

/** WEBDDP_ADAPTER where it is set (it overrides `choice`), else `choice`. */
function chosenAdapter(choice: AdapterChoice): AdapterChoice {
  const env = process.env.WEBDDP_ADAPTER;
  if (env === undefined || env === '') return choice;
  if (!isAdapterChoice(env)) throw new Error(`WEBDDP_ADAPTER must be ${ADAPTER_CHOICES.join(', ')} (got '${env}')`);
  return env;
}

/** The lavapipe ICD manifest: WEBDDP_LAVAPIPE_ICD, else the first of LAVAPIPE_ICDS that exists. */
export function lavapipeIcd(): string {
  const given = process.env.WEBDDP_LAVAPIPE_ICD;
  if (given) {
    if (!existsSync(given)) throw new Error(`WEBDDP_LAVAPIPE_ICD names ${given}, which does not exist`);
    return given;
  }
  const found = LAVAPIPE_ICDS.map((p) => resolve(p)).find((p) => existsSync(p));
  if (!found)
    throw new Error(
      `no lavapipe driver (looked for ${LAVAPIPE_ICDS.join(', ')}): run 'npm run setup' in the checkout ` +
        "(it fetches Mesa 25's lavapipe into .lavapipe/), or set WEBDDP_LAVAPIPE_ICD to a Mesa 24+ lvp_icd.json",
    );
  return found;
}

/** Points the Vulkan loader of this process (the main thread's environment) at one software driver. */
function useSoftware(driver: SoftwareDriver): void {
  let icd = SWIFTSHADER_ICD;
  if (driver === 'lavapipe') icd = lavapipeIcd();
  else if (!existsSync(SWIFTSHADER_ICD)) {
    throw new Error(
      `no GPU adapter found and no SwiftShader driver at ${SWIFTSHADER_ICD}: run 'npm run setup' (installs Debian's chromium, which ships it)`,
    );
  }
  process.env.VK_ICD_FILENAMES = icd;
  delete process.env.VK_DRIVER_FILES;
}

/** Dawn's GPU object on the system's drivers created with the HALF_TOGGLES (`webddp devices` shows what they add). */
export async function toggledGpu(): Promise<GPU> {
  const { create } = await loadDawn();
  return createInstance(create, undefined, HALF_TOGGLES);
}

/**
 * Returns Dawn's GPU object with an adapter behind it. Environment: WEBDDP_ADAPTER overrides
 * `choice`; VK_ICD_FILENAMES / VK_DRIVER_FILES, when set, are respected as given. `device`
 * narrows the adapter to one whose device name contains it (Dawn cannot tell identical GPUs apart).
 * After wantHalfFeatures(), a hardware adapter without shader-f16 or subgroup matrices is asked
 * again through an instance with the HALF_TOGGLES, taken where it offers more of them; `toggles`
 * says which were used.
 */
export async function nodeGpu(
  choice: AdapterChoice = 'auto',
  device?: string,
): Promise<{ gpu: GPU; software: boolean; toggles: readonly string[]; workers: Exclude<AdapterChoice, 'auto'> }> {
  choice = chosenAdapter(choice);
  const { create } = await loadDawn();
  if (choice === 'swiftshader' || choice === 'lavapipe') {
    useSoftware(choice);
    const gpu = createInstance(create, device);
    if (choice === 'lavapipe' && !(await gpu.requestAdapter()))
      throw new Error(
        `Dawn finds no adapter on lavapipe (${process.env.VK_ICD_FILENAMES}): Mesa before 24 lacks the ` +
          "shaderUniform*ArrayDynamicIndexing features Dawn requires; 'npm run setup' fetches Mesa 25's",
      );
    return { gpu, software: true, toggles: [], workers: choice };
  }
  const gpu = linuxVulkanDrivers() ? createInstance(create, device) : null;
  const adapter = gpu ? await gpu.requestAdapter() : null;
  if (gpu && adapter) {
    const software = adapter.info.isFallbackAdapter || adapter.info.architecture === 'swiftshader';
    // A run in fp16 on a hardware adapter that hides half arithmetic: the toggles, where they add it.
    if (!software && halfWanted() && halfCount(adapter) < HALF_FEATURES.length) {
      const toggled = createInstance(create, device, HALF_TOGGLES);
      const a = await toggled.requestAdapter();
      if (a && halfCount(a) > halfCount(adapter))
        return { gpu: toggled, software, toggles: HALF_TOGGLES, workers: 'gpu' };
    }
    // a software driver installed as the system's (a system Mesa): the workers find it the same way
    return { gpu, software, toggles: [], workers: 'gpu' };
  }
  if (choice === 'gpu')
    throw new Error(
      `no GPU adapter found through Dawn (Vulkan/Metal/D3D12${linuxVulkanDrivers() ? '' : '; no Vulkan driver is installed'}); ` +
        'check the GPU driver, or use --adapter swiftshader',
    );
  useSoftware('swiftshader');
  return { gpu: createInstance(create, device), software: true, toggles: [], workers: 'swiftshader' };
}
