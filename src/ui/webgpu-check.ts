// Before the page builds anything: is WebGPU here, and which adapter does it give? When it is not,
// renderNoWebGpu replaces the page with what is missing and how to get it, instead of a blank page.
import { describe } from '../data/errors.ts';
import { docLink, h } from './dom.ts';
import { lang, para, rich, t } from './i18n/index.ts';
import './webgpu-check.css';

/** What the page shows about the adapter (GPUAdapterInfo plus whether it is a fallback adapter). */
export interface AdapterSummary {
  readonly description: string;
  readonly vendor: string;
  readonly architecture: string;
  readonly fallback: boolean;
  /**
   * What an fp16 run computes in on this adapter: 'matrix' (shader-f16 and f16 subgroup matrices of
   * 16x16x16: tensor cores for the products the tuning names), 'f16' (shader-f16 only) or 'f32'
   * (halves stored, float32 arithmetic). Absent: not asked.
   */
  readonly halfArithmetic?: 'matrix' | 'f16' | 'f32';
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

/** What an fp16 run computes in on `adapter` (AdapterSummary.halfArithmetic; src/gpu/device.ts decides alike). */
function halfArithmetic(adapter: GPUAdapter): 'matrix' | 'f16' | 'f32' {
  if (!adapter.features.has('shader-f16')) return 'f32';
  const info = adapter.info as GPUAdapterInfo & {
    subgroupMatrixConfigs?: readonly {
      componentType?: string;
      resultComponentType?: string;
      M?: number;
      N?: number;
      K?: number;
    }[];
  };
  const sixteen = (info.subgroupMatrixConfigs ?? []).some(
    (c) => c.componentType === 'f16' && c.resultComponentType === 'f32' && c.M === 16 && c.N === 16 && c.K === 16,
  );
  const matrix =
    adapter.features.has('chromium-experimental-subgroup-matrix') &&
    sixteen &&
    info.subgroupMinSize === 32 &&
    info.subgroupMaxSize === 32;
  return matrix ? 'matrix' : 'f16';
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
      reason: t().nogpu.insecure(location.origin),
    };
  }
  if (gpu === undefined) {
    return {
      ok: false,
      reason: t().nogpu.noGpu,
    };
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter();
  } catch (e) {
    return { ok: false, reason: t().nogpu.requestFailed(describe(e)) };
  }
  if (adapter === null) {
    return {
      ok: false,
      reason: t().nogpu.noAdapter,
    };
  }
  const info = adapter.info as Partial<GPUAdapterInfo> | undefined;
  const legacy = (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
  const summary: AdapterSummary = {
    description: info?.description ?? '',
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    fallback: info?.isFallbackAdapter ?? legacy ?? false,
    halfArithmetic: halfArithmetic(adapter),
  };
  const coi = globalThis.crossOriginIsolated;
  const notes: string[] = [];
  if (!coi) notes.push(t().page.notIsolated);
  if (isSoftwareAdapter({ ...summary, device: info?.device })) notes.push(t().page.softwareNote);
  return { ok: true, adapter: summary, crossOriginIsolated: coi, notes };
}

interface BrowserRow {
  readonly browser: string;
  readonly steps: (Node | string)[];
}

/** A table sentence with {address} marks as copyable flags and `code` marks as code. */
function steps(text: string): (Node | string)[] {
  return text
    .split(/\{([^}]+)\}/)
    .flatMap((part, i) =>
      i % 2 === 1 ? [h('code', { class: 'nogpu-copy', title: t().nogpu.copy }, part)] : rich(part),
    );
}

const BROWSERS: () => BrowserRow[] = () => {
  const w = t().nogpu;
  return [
    { browser: w.chrome, steps: steps(w.chromeSteps) },
    { browser: w.linux, steps: steps(w.linuxSteps) },
    { browser: w.firefox, steps: steps(w.firefoxSteps) },
    { browser: w.safari, steps: steps(w.safariSteps) },
  ];
};

/** Replaces `root`'s content with an explanation of why the page cannot run and how to fix it. */
export function renderNoWebGpu(root: HTMLElement, reason: string): void {
  const rows = BROWSERS().map((r) => h('tr', {}, h('th', { scope: 'row' }, r.browser), h('td', {}, ...r.steps)));
  const w = t().nogpu;
  const retry = h('button', { type: 'button', class: 'primary' }, w.retry);
  retry.addEventListener('click', () => location.reload());
  const page = h(
    'div',
    { class: 'nogpu' },
    h(
      'div',
      { class: 'nogpu-card', role: 'region', 'aria-labelledby': 'nogpu-title' },
      h('p', { class: 'nogpu-kicker' }, w.kicker),
      h('h1', { id: 'nogpu-title' }, w.heading),
      h('div', { class: 'nogpu-reason', role: 'alert' }, h('strong', {}, w.missing), reason),
      para(w.intro),
      h('h2', {}, w.browsers),
      h('table', { class: 'nogpu-table' }, h('tbody', {}, ...rows)),
      h('h2', {}, w.secure),
      para(w.secureText),
      h('h2', {}, w.cli),
      para(w.cliText),
      h('pre', { class: 'nogpu-cli' }, h('code', {}, 'npm run webddp -- train --workers 2 --mode ddp')),
      h(
        'div',
        { class: 'nogpu-foot' },
        retry,
        h(
          'p',
          { class: 'links' },
          w.more,
          docLink('https://caniuse.com/webgpu', w.caniuse),
          ' · ',
          docLink('https://developer.chrome.com/docs/web-platform/webgpu', w.chromeDocs),
        ),
      ),
    ),
  );
  root.replaceChildren(page);
  document.title = t().nogpu.title;
  document.documentElement.lang = lang() === 'zh' ? 'zh-CN' : 'en';
}
