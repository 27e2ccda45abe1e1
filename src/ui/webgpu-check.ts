// Before the page builds anything: is WebGPU here, and which adapter does it give? When it is not,
// renderNoWebGpu replaces the page with what is missing and how to get it, instead of a blank page.
import { describe } from '../data/errors.ts';
import { code, docLink, h, p } from './dom.ts';
import './webgpu-check.css';

/** What the page shows about the adapter (GPUAdapterInfo plus whether it is a fallback adapter). */
export interface AdapterSummary {
  readonly description: string;
  readonly vendor: string;
  readonly architecture: string;
  readonly fallback: boolean;
}

/** What the page is given when WebGPU works (same as AdapterSummary). */
export type WebGpuInfo = AdapterSummary;

export type WebGpuCheck =
  | {
      readonly ok: true;
      readonly adapter: AdapterSummary;
      readonly crossOriginIsolated: boolean;
      readonly notes: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

/** The adapter-info fields isSoftwareAdapter looks at (GPUAdapterInfo and AdapterSummary both fit). */
export interface AdapterInfoLike {
  readonly description?: string;
  readonly vendor?: string;
  readonly architecture?: string;
  readonly device?: string;
  readonly fallback?: boolean;
  readonly isFallbackAdapter?: boolean;
}

const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|software|microsoft basic render|\bwarp\b/i;

/** True for a CPU-rendered adapter (SwiftShader, llvmpipe, WARP, or one the browser marks as fallback). */
export function isSoftwareAdapter(info: AdapterInfoLike): boolean {
  if (info.fallback === true || info.isFallbackAdapter === true) return true;
  return [info.description, info.vendor, info.architecture, info.device].some(
    (s) => s !== undefined && SOFTWARE.test(s),
  );
}

/**
 * Checks for WebGPU: a secure context, navigator.gpu, and an adapter from requestAdapter().
 * Cross-origin isolation is not required (the ring always sends transferred ArrayBuffers over
 * MessagePorts); without it timings are coarser (performance.now() at 100 us), which the result notes.
 */
export async function checkWebGpu(): Promise<WebGpuCheck> {
  const gpu = typeof navigator === 'undefined' ? undefined : (navigator as Partial<Navigator>).gpu;
  if (!globalThis.isSecureContext) {
    return {
      ok: false,
      reason: `This page was opened from ${location.origin}, which is not a secure context, and browsers only offer WebGPU to secure contexts (https:// or http://localhost).`,
    };
  }
  if (gpu === undefined) {
    return {
      ok: false,
      reason:
        'This browser does not offer WebGPU here (navigator.gpu is undefined): it is too old, WebGPU is switched off, or not yet enabled on this operating system.',
    };
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return { ok: false, reason: `The browser has WebGPU, but asking it for a GPU failed: ${describe(e)}` };
  }
  if (adapter === null) {
    return {
      ok: false,
      reason:
        'The browser has WebGPU, but it found no usable GPU (requestAdapter() returned null): the GPU or its driver may be blocklisted, or hardware acceleration is switched off.',
    };
  }
  const info = adapter.info as Partial<GPUAdapterInfo> | undefined;
  const legacy = (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  const summary: AdapterSummary = {
    description: info?.description ?? '',
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    fallback: info?.isFallbackAdapter ?? legacy ?? false,
  };
  const coi = globalThis.crossOriginIsolated;
  const notes: string[] = [];
  if (!coi)
    notes.push(
      'The page is not cross-origin isolated, so step and communication times are measured at 0.1 ms resolution only.',
    );
  if (isSoftwareAdapter({ ...summary, device: info?.device }))
    notes.push('WebGPU runs on a software (CPU) adapter here: training works, but slowly.');
  return { ok: true, adapter: summary, crossOriginIsolated: coi, notes };
}

interface BrowserRow {
  readonly browser: string;
  readonly steps: (Node | string)[];
}

function flag(text: string): HTMLElement {
  return h('code', { class: 'nogpu-copy', title: 'Copy this into the address bar' }, text);
}

const BROWSERS: () => BrowserRow[] = () => [
  {
    browser: 'Chrome, Edge 113+',
    steps: [
      'On by default on Windows, macOS and ChromeOS (Android: 121+). Check that hardware acceleration is on (Settings → System) and look at ',
      flag('chrome://gpu'),
      '.',
    ],
  },
  {
    browser: 'Chrome on Linux',
    steps: [
      'Enable ',
      flag('chrome://flags/#enable-unsafe-webgpu'),
      ' and ',
      flag('chrome://flags/#enable-vulkan'),
      ', then restart; or launch it with ',
      code('--enable-unsafe-webgpu'),
      '.',
    ],
  },
  {
    browser: 'Firefox',
    steps: [
      '141+ on Windows. Elsewhere use Firefox Nightly and set ',
      code('dom.webgpu.enabled'),
      ' to true in ',
      flag('about:config'),
      '.',
    ],
  },
  {
    browser: 'Safari',
    steps: [
      'Safari 26+ (macOS, iOS and iPadOS 26). Before that: Safari Technology Preview, with WebGPU on under Develop → Feature Flags.',
    ],
  },
];

/** Replaces `root`'s content with an explanation of why the page cannot run and how to fix it. */
export function renderNoWebGpu(root: HTMLElement, reason: string): void {
  const rows = BROWSERS().map((r) => h('tr', {}, h('th', { scope: 'row' }, r.browser), h('td', {}, ...r.steps)));
  const retry = h('button', { type: 'button', class: 'primary' }, 'Try again');
  retry.addEventListener('click', () => location.reload());
  const page = h(
    'div',
    { class: 'nogpu' },
    h(
      'div',
      { class: 'nogpu-card', role: 'region', 'aria-labelledby': 'nogpu-title' },
      h('p', { class: 'nogpu-kicker' }, 'webddp · data-parallel training you can see'),
      h('h1', { id: 'nogpu-title' }, 'This page needs WebGPU'),
      h('div', { class: 'nogpu-reason', role: 'alert' }, h('strong', {}, 'What is missing: '), reason),
      p(
        'webddp trains a small CNN on your GPU: every Web Worker owns its own WebGPU device and runs hand-written WGSL compute ',
        'shaders, and the workers average their gradients with a ring all-reduce. Without WebGPU there is nothing to train on, so ',
        'instead of an empty page, here is how to get it.',
      ),
      h('h2', {}, 'Use a browser with WebGPU'),
      h('table', { class: 'nogpu-table' }, h('tbody', {}, ...rows)),
      h('h2', {}, 'Open the page from a secure context'),
      p(
        'Browsers only offer WebGPU to pages served over ',
        code('https://'),
        ' or from ',
        code('http://localhost'),
        '. ',
        code('npm start'),
        ' serves ',
        code('http://localhost:5173'),
        '; opening it through a LAN address such as ',
        code('http://192.168.1.20:5173'),
        ' or from a ',
        code('file://'),
        ' URL does not count as secure.',
      ),
      h('h2', {}, 'Or train from the command line'),
      p(
        'The same engine runs in Node through Dawn, with one worker thread and one device per rank (falling back to the ',
        'SwiftShader CPU adapter when there is no GPU):',
      ),
      h('pre', { class: 'nogpu-cli' }, h('code', {}, 'npm run webddp -- train --workers 2 --mode ddp')),
      h(
        'div',
        { class: 'nogpu-foot' },
        retry,
        h(
          'p',
          { class: 'links' },
          'More: ',
          docLink('https://caniuse.com/webgpu', 'Can I use WebGPU'),
          ' · ',
          docLink('https://developer.chrome.com/docs/web-platform/webgpu', 'WebGPU on Chrome for Developers'),
        ),
      ),
    ),
  );
  root.replaceChildren(page);
  document.title = 'webddp: WebGPU is not available';
}
