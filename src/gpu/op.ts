// An Op is one prepared dispatch: a kernel, its uniform Params (in their own small buffer), a bind
// group and the workgroup counts. Layers build their Ops once per batch size; a training step only
// records them (no allocation, no bind-group creation on the hot path).
import type { Gpu } from './device.ts';
import type { Kernel } from './kernel-cache.ts';
import type { Operand } from './operand.ts';
import { KERNELS, type BindingName, type FieldType, type KernelName, type ParamValues } from './kernels.ts';

export type Workgroups = readonly [number, number, number];

/**
 * The Params an Op is made with (makeOp): every field, except that a gated kernel's `run` may be
 * left out (1: it runs; Recorder.gated sets it on the GPU, 0 on a step the loss scaler skips).
 */
export type OpParams<K extends KernelName> = Omit<ParamValues<K>, 'run'> &
  Partial<Pick<ParamValues<K>, 'run' & keyof ParamValues<K>>>;

export class Op<K extends KernelName = KernelName> {
  constructor(
    readonly label: string,
    readonly kernel: Kernel<K>,
    readonly bindGroup: GPUBindGroup,
    readonly workgroups: Workgroups,
    private readonly gpu: Gpu,
    private readonly uniform: GPUBuffer,
    private values: ParamValues<K>,
  ) {}

  /** Rewrites some Params fields (e.g. the learning rate); takes effect for work submitted later. */
  setParams(update: Partial<ParamValues<K>>): void {
    this.values = { ...this.values, ...update };
    this.gpu.device.queue.writeBuffer(this.uniform, 0, packParams(this.kernel.name, this.values));
  }

  /** The uniform buffer holding the Params (the GPU may copy a whole block of them in: GpuLossScaler). */
  get paramsBuffer(): GPUBuffer {
    return this.uniform;
  }

  /** The Params with `update` applied, packed as the uniform holds them (for a copy the GPU picks). */
  packedWith(update: Partial<ParamValues<K>>): ArrayBuffer {
    return packParams(this.kernel.name, { ...this.values, ...update });
  }

  /**
   * Where the GPU may write a Params field itself (a copy into the uniform, recorded before the
   * dispatch): the uniform buffer and the field's byte offset. A later setParams rewrites it.
   */
  paramSlot(field: keyof ParamValues<K> & string): { readonly buffer: GPUBuffer; readonly offset: number } {
    return { buffer: this.uniform, offset: paramOffset(this.kernel.name, field) };
  }

  destroy(): void {
    this.gpu.memory.destroy(this.uniform);
  }
}

interface ParamsLayout {
  /** The fields in declaration order, with their types and byte offsets. */
  readonly fields: readonly { readonly name: string; readonly type: FieldType; readonly at: number }[];
  /** The uniform's size in bytes (at least 16, a multiple of 16). */
  readonly bytes: number;
}

/** Each kernel's Params layout, worked out once (packParams runs on every step's setParams). */
const LAYOUTS = new Map<KernelName, ParamsLayout>();

/** The Params fields' byte offsets in the WGSL uniform layout (scalars 4-byte, vec4f 16-byte aligned). */
function layoutOf(name: KernelName): ParamsLayout {
  const known = LAYOUTS.get(name);
  if (known) return known;
  let size = 0;
  const fields = (Object.entries(KERNELS[name].params) as [string, FieldType][]).map(([field, type]) => {
    if (type === 'vec4f') size = Math.ceil(size / 16) * 16;
    const at = size;
    size += type === 'vec4f' ? 16 : 4;
    return { name: field, type, at };
  });
  const layout = { fields, bytes: Math.max(16, Math.ceil(size / 16) * 16) };
  LAYOUTS.set(name, layout);
  return layout;
}

/** The byte offset of Params field `field` of kernel `name`. */
export function paramOffset(name: KernelName, field: string): number {
  const f = layoutOf(name).fields.find((x) => x.name === field);
  if (!f) throw new Error(`${name} has no Params field '${field}'`);
  return f.at;
}

/** Packs Params fields into the WGSL uniform layout (scalars 4-byte, vec4f 16-byte aligned). */
export function packParams<K extends KernelName>(name: K, values: ParamValues<K>): ArrayBuffer {
  const { fields, bytes } = layoutOf(name);
  const buf = new ArrayBuffer(bytes);
  const dv = new DataView(buf);
  const vals = values as Readonly<Record<string, number | readonly number[]>>;
  for (const { name: field, type: t, at: off } of fields) {
    const v = vals[field];
    if (v === undefined) throw new Error(`${name}: Params field '${field}' has no value`);
    if (t === 'vec4f') {
      if (typeof v === 'number' || v.length > 4)
        throw new Error(`${name}: Params field '${field}' needs up to 4 numbers`);
      v.forEach((x, k) => dv.setFloat32(off + 4 * k, x, true));
    } else if (typeof v !== 'number') {
      throw new Error(`${name}: Params field '${field}' must be a number`);
    } else if (t === 'f32') {
      dv.setFloat32(off, v, true);
    } else {
      if (!Number.isInteger(v) || v < (t === 'i32' ? -(2 ** 31) : 0) || v >= 2 ** 32) {
        throw new Error(`${name}: Params field '${field}' = ${v} is not a valid ${t}`);
      }
      if (t === 'u32') dv.setUint32(off, v, true);
      else dv.setInt32(off, v, true);
    }
  }
  return buf;
}

/**
 * Prepares a dispatch of `kernel`: writes its Params into a fresh uniform buffer and binds
 * `buffers` by the names of the kernel's bindings.
 */
export function makeOp<K extends KernelName>(
  gpu: Gpu,
  kernel: Kernel<K>,
  label: string,
  opParams: OpParams<K>,
  buffers: Readonly<Record<BindingName<K>, Operand>>,
  workgroups: Workgroups,
): Op<K> {
  // a gated kernel runs unless Recorder.gated says otherwise
  const params = ('run' in KERNELS[kernel.name].params ? { run: 1, ...opParams } : opParams) as ParamValues<K>;
  const data = packParams(kernel.name, params);
  const uniform = gpu.memory.createBuffer(gpu.device, {
    label: `${label}.params`,
    size: data.byteLength,
    category: 'other',
    usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
  });
  gpu.device.queue.writeBuffer(uniform, 0, data);
  const named = buffers as Readonly<Record<string, Operand>>;
  const entries = KERNELS[kernel.name].bindings.map(([name], binding) => {
    if (name === 'params') return { binding, resource: { buffer: uniform } };
    const b = named[name];
    if (!b) throw new Error(`${label}: binding '${name}' of ${kernel.name} has no buffer`);
    return { binding, resource: 'buffer' in b ? { buffer: b.buffer, offset: b.offset, size: b.size } : { buffer: b } };
  });
  const bindGroup = gpu.device.createBindGroup({ label: `${label}.bind_group`, layout: kernel.layout, entries });
  for (const w of workgroups) {
    if (!Number.isInteger(w) || w < 0 || w > gpu.device.limits.maxComputeWorkgroupsPerDimension) {
      throw new Error(
        `${label}: workgroup count ${w} is outside 0..${gpu.device.limits.maxComputeWorkgroupsPerDimension}`,
      );
    }
  }
  return new Op(label, kernel, bindGroup, workgroups, gpu, uniform, params);
}

/** Workgroups for a 1-D kernel over `count` items, folded into (x, y) past the per-dimension limit. */
export function grid1d(count: number, wg: number, maxPerDim = 65535): Workgroups {
  const groups = Math.ceil(count / wg);
  if (groups <= maxPerDim) return [groups, 1, 1];
  return [maxPerDim, Math.ceil(groups / maxPerDim), 1];
}

/** ceil(a / b) for positive integers. */
export function cdiv(a: number, b: number): number {
  return Math.ceil(a / b);
}
