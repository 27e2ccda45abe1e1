// Parameters as a PyTorch state_dict in safetensors: tensor names and shapes exactly as
// SimpleCNN's `state_dict()` (conv1.weight ... fc2.bias), F32, so `torch.load_state_dict(
// safetensors.torch.load_file(f))` takes them; and back, with every name, shape and value checked.
import type { ModelSpec } from '../nn/spec.ts';
import { getF32, SafetensorsError, serializeSafetensors, parseSafetensors, type TensorInput } from './safetensors.ts';

/** A safetensors file of the flat parameters under PyTorch names, with string metadata. */
export function saveStateDict(
  spec: ModelSpec,
  params: Float32Array,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  if (params.length !== spec.total) throw new RangeError(`expected ${spec.total} parameters, got ${params.length}`);
  const tensors: Record<string, TensorInput> = {};
  for (const p of spec.params)
    tensors[p.name] = { dtype: 'F32', shape: p.shape, data: params.slice(p.offset, p.offset + p.size) };
  return serializeSafetensors(tensors, { format: 'pt', producer: 'webddp', width: String(spec.width), ...metadata });
}

/** The flat parameters from a state_dict file; names, shapes, dtype and finiteness are checked. */
export function loadStateDict(bytes: Uint8Array, spec: ModelSpec, source: string): Float32Array {
  const st = parseSafetensors(bytes, source);
  const extra = [...st.tensors.keys()].filter((k) => !spec.params.some((p) => p.name === k));
  if (extra.length > 0)
    throw new SafetensorsError(source, `unexpected tensors for SimpleCNN (width ${spec.width}): ${extra.join(', ')}`);
  const flat = new Float32Array(spec.total);
  for (const p of spec.params) {
    const t = getF32(st, p.name, p.shape, source);
    const bad = t.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0)
      throw new SafetensorsError(source, `tensor '${p.name}' holds a non-finite value (${t[bad]}) at index ${bad}`);
    flat.set(t, p.offset);
  }
  return flat;
}
