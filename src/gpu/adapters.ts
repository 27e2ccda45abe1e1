// What a WebGPU implementation offers, for `webddp devices`: every distinct adapter it returns for
// the high-performance, low-power and fallback requests, with its identity, the features that
// matter here (shader-f16, subgroup matrices and their f16 shapes, subgroups, timestamp-query; all
// are listed) and the limits the engine raises. Works on navigator.gpu and on Dawn's GPU object alike.
import { halfMatrixShapes } from './device.ts';

export interface AdapterReport {
  /** The request(s) that returned this adapter. */
  readonly requests: readonly string[];
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  readonly fallback: boolean;
  readonly features: readonly string[];
  readonly limits: Readonly<Record<string, number>>;
  readonly subgroupMinSize: number;
  readonly subgroupMaxSize: number;
  /** f16 x f16 -> f32 subgroup-matrix shapes ('MxNxK'), where it offers chromium-experimental-subgroup-matrix. */
  readonly halfMatrixShapes: readonly string[];
  /** The Dawn toggles (enable-dawn-features) of the instance that returned it; empty: none. */
  readonly toggles: readonly string[];
}

export const KEY_LIMITS = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
] as const;

const REQUESTS: readonly [string, GPURequestAdapterOptions][] = [
  ['high-performance', { powerPreference: 'high-performance' }],
  ['low-power', { powerPreference: 'low-power' }],
  ['fallback', { forceFallbackAdapter: true }],
];

function describe(adapter: GPUAdapter, request: string, toggles: readonly string[]): AdapterReport {
  const info = adapter.info;
  const limits: Record<string, number> = {};
  for (const k of KEY_LIMITS) limits[k] = adapter.limits[k];
  return {
    requests: [request],
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    fallback: info.isFallbackAdapter || info.architecture === 'swiftshader',
    features: [...adapter.features].sort(),
    limits,
    subgroupMinSize: info.subgroupMinSize ?? 0,
    subgroupMaxSize: info.subgroupMaxSize ?? 0,
    halfMatrixShapes: adapter.features.has('chromium-experimental-subgroup-matrix') ? halfMatrixShapes(info) : [],
    toggles,
  };
}

/**
 * The distinct adapters `gpu` returns for each kind of request (none: an empty list); `toggles`:
 * the Dawn toggles `gpu` was created with, recorded in each report.
 */
export async function listAdapters(gpu: GPU, toggles: readonly string[] = []): Promise<AdapterReport[]> {
  const out: AdapterReport[] = [];
  for (const [name, options] of REQUESTS) {
    const a = await gpu.requestAdapter(options).catch(() => null);
    if (!a) continue;
    const r = describe(a, name, toggles);
    const same = out.findIndex(
      (o) =>
        o.vendor === r.vendor &&
        o.architecture === r.architecture &&
        o.device === r.device &&
        o.description === r.description &&
        o.fallback === r.fallback &&
        o.toggles.join() === r.toggles.join(),
    );
    const prev = out[same];
    if (prev) out[same] = { ...prev, requests: [...prev.requests, name] };
    else out.push(r);
  }
  return out;
}

/** The adapters as a readable list (one block per adapter). */
export function formatAdapters(adapters: readonly AdapterReport[], runtime: string): string {
  if (adapters.length === 0) return `${runtime}: no WebGPU adapter`;
  return adapters
    .map((a) => {
      const has = (f: string) => (a.features.includes(f) ? 'yes' : 'no');
      const subgroups =
        a.features.includes('subgroups') && a.subgroupMinSize > 0
          ? ` (sizes ${a.subgroupMinSize}-${a.subgroupMaxSize})`
          : '';
      const matrix = a.halfMatrixShapes.length > 0 ? ` (f16 x f16 -> f32: ${a.halfMatrixShapes.join(', ')})` : '';
      return [
        `${runtime}: ${a.description || a.device || a.architecture || '(no description)'}${a.toggles.length > 0 ? `, with the Dawn toggles ${a.toggles.join(', ')}` : ''}`,
        `  vendor ${a.vendor || '?'}, architecture ${a.architecture || '?'}, device ${a.device || '?'}, ${a.fallback ? 'software (fallback)' : 'hardware'}`,
        `  returned for: ${a.requests.join(', ')}`,
        `  shader-f16 ${has('shader-f16')}, subgroup matrices ${has('chromium-experimental-subgroup-matrix')}${matrix}, subgroups ${has('subgroups')}${subgroups}, timestamp-query ${has('timestamp-query')}`,
        `  features: ${a.features.join(' ') || '(none)'}`,
        ...KEY_LIMITS.map((k) => `  ${k} ${a.limits[k]}`),
      ].join('\n');
    })
    .join('\n\n');
}
