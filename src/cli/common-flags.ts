// The flags several `webddp` commands share, declared once: where it runs (--runtime, --adapter,
// --browser, --browser-flags), the kernel tuning (--tuning) and the dataset store (--store).
import { ADAPTER_CHOICES } from '../gpu/device-node.ts';
import { UsageError, type FlagSpec } from './command.ts';
import { defaultStoreDir } from './train-data.ts';

export const RUNTIME_FLAG: FlagSpec = {
  flags: '--runtime <RUNTIME>',
  help:
    'node: Node with Dawn; chromium: a headless Chromium/Chrome (WebGPU in a page, ranks in module workers; ' +
    "the browser's own WebGPU stack is what runs)",
  choices: ['node', 'chromium'],
  default: 'node',
};

const NODE_ADAPTERS =
  'auto (the GPU, else SwiftShader), gpu (the high-performance GPU only), swiftshader or lavapipe (Mesa 24+; ' +
  "'npm run setup' fetches it, WEBDDP_LAVAPIPE_ICD names another)";

/** --adapter of a command that runs in Node only. */
export const ADAPTER_FLAG: FlagSpec = {
  flags: '--adapter <ADAPTER>',
  help: NODE_ADAPTERS,
  choices: [...ADAPTER_CHOICES],
  default: 'auto',
};

/** --adapter of a command that also runs in a browser (--runtime chromium). */
export const RUNTIME_ADAPTER_FLAG: FlagSpec = {
  ...ADAPTER_FLAG,
  help:
    `node: ${NODE_ADAPTERS}. chromium: auto and swiftshader allow Chromium's SwiftShader, gpu asks for the ` +
    'high-performance adapter and fails on a software one (lavapipe: node only)',
};

/** Refuses the adapters a browser cannot be pointed at (Chromium picks its own Vulkan driver). */
export function browserAdapter(v: string | undefined): void {
  if (v === 'lavapipe')
    throw new UsageError("--adapter lavapipe is for --runtime node (Chromium's WebGPU uses its own SwiftShader)");
}

export const BROWSER_FLAG: FlagSpec = {
  flags: '--browser <PATH>',
  help: 'chromium: the browser (default: WEBDDP_CHROMIUM, /usr/bin/chromium, google-chrome)',
};

export const BROWSER_FLAGS_FLAG: FlagSpec = {
  flags: '--browser-flags <FLAGS>',
  help:
    "chromium: extra browser flags, space-separated; write them with '=' since they begin with dashes, e.g. " +
    '--browser-flags="--use-angle=vulkan --enable-features=Vulkan --ignore-gpu-blocklist" for a GPU on Linux',
};

export const TUNING_FLAG: FlagSpec = {
  flags: '--tuning <JSON>',
  help:
    'kernel variants and override constants over the adapter\'s own, e.g. \'{"convForward":"registers"}\' or ' +
    '\'{"kernels":{"conv2d_forward":{"WG_X":128}}}\' (default: the WEBDDP_TUNING environment variable, else the ' +
    "adapter's tuning). Kernels sum in different orders, so results differ in the last bits",
};

export const storeFlag = (): FlagSpec => ({
  flags: '--store <DIR>',
  help: 'where imported datasets are kept',
  default: defaultStoreDir(),
});
