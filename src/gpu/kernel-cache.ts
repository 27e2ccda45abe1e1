// Per-device pipeline cache: compiles each kernel once per set of override constants, with an
// explicit bind-group layout built from the registry (never layout: 'auto'), labels on every
// object, and compile errors that quote the file, line, column and source line.
import { ShaderCompileError, withErrorScopes } from './errors.ts';
import type { PendingGpuWork } from './pending.ts';
import { KERNELS, type KernelName, type KernelSpec } from './kernels.ts';
import { halfActSource } from './half-acts.ts';
import { halfThetaSource, type ParamStorage } from './half-params.ts';
import { shaderSource } from './shader-sources.ts';

export interface Kernel<K extends KernelName = KernelName> {
  readonly name: K;
  readonly pipeline: GPUComputePipeline;
  readonly layout: GPUBindGroupLayout;
  /** The override constants the pipeline was built with (defaults merged with tuning). */
  readonly overrides: Readonly<Record<string, number>>;
}

/** Per-kernel override values, e.g. { conv2d_forward: { WG_X: 32 } }. */
export type KernelTuning = Partial<Record<KernelName, Record<string, number>>>;

/** A kernel's storage form: how it reads its parameters, and which activation bindings hold halves. */
interface Form {
  readonly params: ParamStorage;
  readonly halves: readonly string[];
}

const BUFFER_TYPE = { uniform: 'uniform', read: 'read-only-storage', read_write: 'storage' } as const;

export function formatCompileMessages(name: string, code: string, messages: readonly GPUCompilationMessage[]): string {
  const lines = code.split('\n');
  return messages
    .map((m) => {
      const src = lines[m.lineNum - 1] ?? '';
      const caret = m.linePos > 0 ? `${' '.repeat(m.linePos - 1)}^` : '';
      return `shaders/${name}.wgsl:${m.lineNum}:${m.linePos}: ${m.type}: ${m.message}\n  ${src}\n  ${caret}`;
    })
    .join('\n');
}

export class KernelCache {
  private readonly pipelines = new Map<string, Promise<Kernel>>();
  private readonly layouts = new Map<KernelName, GPUBindGroupLayout>();
  private readonly modules = new Map<string, Promise<GPUShaderModule>>();
  tuning: KernelTuning = {};
  /**
   * WGSL that replaces a kernel's bundled source on this device (`webddp check --shaders DIR`:
   * checking a modified kernel against the reference). Set before the kernel is first used.
   */
  sources: Partial<Record<KernelName, string>> = {};

  constructor(
    private readonly device: GPUDevice,
    private readonly deviceLabel: string,
    private readonly pending: PendingGpuWork,
  ) {}

  /**
   * The compiled kernel for `name` with its overrides (registry defaults < tuning < `overrides`);
   * `params` 'f16' reads its `theta` binding as packed halves (half-params.ts), and the activation
   * bindings named in `halves` hold packed halves too (half-acts.ts).
   */
  get<K extends KernelName>(
    name: K,
    overrides: Record<string, number> = {},
    params: ParamStorage = 'f32',
    halves: readonly string[] = [],
  ): Promise<Kernel<K>> {
    const spec: KernelSpec = KERNELS[name];
    if (spec.requires && !this.device.features.has(spec.requires))
      throw new Error(`kernel ${name} needs the '${spec.requires}' feature, which ${this.deviceLabel} lacks`);
    const merged = { ...KERNELS[name].overrides, ...this.tuning[name], ...overrides };
    for (const k of Object.keys(merged)) {
      if (!(k in KERNELS[name].overrides)) throw new Error(`kernel ${name} has no override constant '${k}'`);
    }
    const form = { params, halves: [...halves].sort() };
    const key = `${name}|${params}|${form.halves.join(',')}|${JSON.stringify(merged)}`;
    let p = this.pipelines.get(key);
    if (!p) {
      p = this.build(name, merged, form);
      this.pipelines.set(key, p);
      p.catch(() => this.pipelines.delete(key));
    }
    return p as Promise<Kernel<K>>;
  }

  layout(name: KernelName): GPUBindGroupLayout {
    let l = this.layouts.get(name);
    if (!l) {
      l = this.device.createBindGroupLayout({
        label: `${name}.bind_group_layout`,
        entries: KERNELS[name].bindings.map(([, kind], binding) => ({
          binding,
          visibility: GPUShaderStage.COMPUTE,
          buffer: { type: BUFFER_TYPE[kind] },
        })),
      });
      this.layouts.set(name, l);
    }
    return l;
  }

  private module(name: KernelName, form: Form): Promise<GPUShaderModule> {
    const key = `${name}|${form.params}|${form.halves.join(',')}`;
    let m = this.modules.get(key);
    if (!m) {
      m = (async () => {
        const base = this.sources[name] ?? shaderSource(name);
        const theta = form.params === 'f32' ? base : halfThetaSource(name, base, form.params);
        const code = form.halves.length > 0 ? halfActSource(name, theta, form.halves) : theta;
        const module = this.device.createShaderModule({ label: `${name}.wgsl`, code });
        const info = await this.pending.track(module.getCompilationInfo());
        const errors = info.messages.filter((x) => x.type === 'error');
        if (errors.length > 0)
          throw new ShaderCompileError(name, this.deviceLabel, formatCompileMessages(name, code, errors));
        return module;
      })();
      this.modules.set(key, m);
    }
    return m;
  }

  private async build<K extends KernelName>(
    name: K,
    overrides: Record<string, number>,
    form: Form,
  ): Promise<Kernel<K>> {
    const module = await this.module(name, form);
    const layout = this.layout(name);
    const pipeline = await withErrorScopes(this.device, this.deviceLabel, `creating pipeline ${name}`, () =>
      this.pending.track(
        this.device.createComputePipelineAsync({
          label: `${name}.pipeline`,
          layout: this.device.createPipelineLayout({ label: `${name}.pipeline_layout`, bindGroupLayouts: [layout] }),
          compute: { module, entryPoint: 'main', constants: overrides },
        }),
      ),
    );
    return { name, pipeline, layout, overrides };
  }
}
