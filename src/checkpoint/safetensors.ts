// safetensors read/write (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}, __metadata__: {str: str}},
// then the raw little-endian data. Reading validates everything and names what is wrong.

export type DType =
  'F64' | 'F32' | 'F16' | 'BF16' | 'I64' | 'I32' | 'I16' | 'I8' | 'U64' | 'U32' | 'U16' | 'U8' | 'BOOL';
const DTYPE_BYTES: Record<DType, number> = {
  F64: 8,
  F32: 4,
  F16: 2,
  BF16: 2,
  I64: 8,
  I32: 4,
  I16: 2,
  I8: 1,
  U64: 8,
  U32: 4,
  U16: 2,
  U8: 1,
  BOOL: 1,
};
/** Largest header this reader accepts (the reference implementation's limit is 100 MB). */
const MAX_HEADER = 100_000_000;

export class SafetensorsError extends Error {
  constructor(source: string, detail: string) {
    super(`${source}: not a valid safetensors file: ${detail}`);
    this.name = 'SafetensorsError';
  }
}

export interface TensorEntry {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: Uint8Array;
}
export interface SafeTensors {
  readonly tensors: ReadonlyMap<string, TensorEntry>;
  readonly metadata: Readonly<Record<string, string>>;
}

export type TensorData = Float32Array | Int32Array | Uint8Array | Float64Array | BigInt64Array;
export interface TensorInput {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: TensorData;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses and validates a safetensors file; tensors view `bytes` (no copy). */
export function parseSafetensors(bytes: Uint8Array, source = 'safetensors'): SafeTensors {
  if (bytes.byteLength < 8)
    throw new SafetensorsError(source, `file is ${bytes.byteLength} bytes, shorter than the 8-byte header length`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getBigUint64(0, true);
  if (n > BigInt(Math.min(MAX_HEADER, bytes.byteLength - 8))) {
    throw new SafetensorsError(
      source,
      `header length ${n} exceeds the file (${bytes.byteLength} bytes) or the ${MAX_HEADER}-byte limit`,
    );
  }
  const headerLen = Number(n);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLen)));
  } catch (e) {
    throw new SafetensorsError(source, `header is not UTF-8 JSON (${(e as Error).message})`);
  }
  if (!isRecord(header)) throw new SafetensorsError(source, 'header is not a JSON object');
  const body = bytes.subarray(8 + headerLen);
  const metadata: Record<string, string> = {};
  const tensors = new Map<string, TensorEntry>();
  const spans: [number, number, string][] = [];
  for (const [name, v] of Object.entries(header)) {
    if (name === '__metadata__') {
      if (!isRecord(v)) throw new SafetensorsError(source, '__metadata__ is not an object');
      for (const [k, s] of Object.entries(v)) {
        if (typeof s !== 'string') throw new SafetensorsError(source, `__metadata__.${k} is not a string`);
        metadata[k] = s;
      }
      continue;
    }
    if (!isRecord(v)) throw new SafetensorsError(source, `tensor '${name}' is not an object`);
    const { dtype, shape, data_offsets: off } = v;
    if (typeof dtype !== 'string' || !(dtype in DTYPE_BYTES))
      throw new SafetensorsError(source, `tensor '${name}' has unknown dtype ${JSON.stringify(dtype)}`);
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
      throw new SafetensorsError(source, `tensor '${name}' has an invalid shape ${JSON.stringify(shape)}`);
    }
    if (!Array.isArray(off) || off.length !== 2 || !off.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
      throw new SafetensorsError(source, `tensor '${name}' has invalid data_offsets ${JSON.stringify(off)}`);
    }
    const [begin, end] = off as [number, number];
    const dims = shape as number[];
    const want = dims.reduce((a, b) => a * b, 1) * DTYPE_BYTES[dtype as DType];
    if (end < begin || end > body.byteLength) {
      throw new SafetensorsError(
        source,
        `tensor '${name}' data [${begin}, ${end}) lies outside the ${body.byteLength}-byte data section (file truncated?)`,
      );
    }
    if (end - begin !== want)
      throw new SafetensorsError(
        source,
        `tensor '${name}' holds ${end - begin} bytes but ${dtype}${JSON.stringify(dims)} needs ${want}`,
      );
    spans.push([begin, end, name]);
    tensors.set(name, { dtype: dtype as DType, shape: dims, data: body.subarray(begin, end) });
  }
  spans.sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [begin, end, name] of spans) {
    if (begin !== at)
      throw new SafetensorsError(
        source,
        `tensor '${name}' starts at ${begin}, expected ${at} (${begin < at ? 'overlapping' : 'a hole in the'} data)`,
      );
    at = end;
  }
  if (at !== body.byteLength)
    throw new SafetensorsError(
      source,
      `${body.byteLength - at} bytes after the last tensor are not described by the header`,
    );
  return { tensors, metadata };
}

/** A tensor's data as a fresh Float32Array; throws unless it is F32 (and of `shape`, when given). */
export function getF32(st: SafeTensors, name: string, shape?: readonly number[], source = 'safetensors'): Float32Array {
  const t = st.tensors.get(name);
  if (!t) throw new SafetensorsError(source, `tensor '${name}' is missing`);
  if (t.dtype !== 'F32') throw new SafetensorsError(source, `tensor '${name}' is ${t.dtype}, expected F32`);
  if (shape && (shape.length !== t.shape.length || shape.some((d, i) => d !== t.shape[i]))) {
    throw new SafetensorsError(
      source,
      `tensor '${name}' has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`,
    );
  }
  return new Float32Array(t.data.slice().buffer);
}

/** A tensor's data as a fresh Int32Array (I32, or I64 within the int32 range). */
export function getI32(st: SafeTensors, name: string, source = 'safetensors'): Int32Array {
  const t = st.tensors.get(name);
  if (!t) throw new SafetensorsError(source, `tensor '${name}' is missing`);
  if (t.dtype === 'I32') return new Int32Array(t.data.slice().buffer);
  if (t.dtype === 'I64') {
    const big = new BigInt64Array(t.data.slice().buffer);
    return Int32Array.from(big, (v) => {
      if (v < -(2n ** 31n) || v >= 2n ** 31n)
        throw new SafetensorsError(source, `tensor '${name}' holds ${v}, outside int32`);
      return Number(v);
    });
  }
  throw new SafetensorsError(source, `tensor '${name}' is ${t.dtype}, expected I32 or I64`);
}

/** Serialises tensors (in the given order) and string metadata into a safetensors file. */
export function serializeSafetensors(
  tensors: Readonly<Record<string, TensorInput>>,
  metadata: Readonly<Record<string, string>> = {},
): Uint8Array {
  const header: Record<string, unknown> = {};
  if (Object.keys(metadata).length > 0) header.__metadata__ = metadata;
  let at = 0;
  const parts: Uint8Array[] = [];
  for (const [name, t] of Object.entries(tensors)) {
    const want = t.shape.reduce((a, b) => a * b, 1) * DTYPE_BYTES[t.dtype];
    if (t.data.byteLength !== want)
      throw new Error(
        `tensor '${name}': ${t.data.byteLength} bytes for ${t.dtype}[${t.shape.join(', ')}] (needs ${want})`,
      );
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [at, at + want] };
    parts.push(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    at += want;
  }
  const raw = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(Math.ceil(raw.byteLength / 8) * 8).fill(0x20); // space-padded: data starts 8-byte aligned
  head.set(raw);
  const out = new Uint8Array(8 + head.byteLength + at);
  new DataView(out.buffer).setBigUint64(0, BigInt(head.byteLength), true);
  out.set(head, 8);
  let o = 8 + head.byteLength;
  for (const p of parts) {
    out.set(p, o);
    o += p.byteLength;
  }
  return out;
}
