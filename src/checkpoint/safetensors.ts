// safetensors read/write (https://github.com/huggingface/safetensors): an 8-byte little-endian
// header length, a JSON header {name: {dtype, shape, data_offsets}, __metadata__: {str: str}},
// then the raw little-endian data. Reading applies the reference reader's rules (safetensors 0.7;
// safetensors-header.ts) and names what is wrong; getF32/getI32 add the expected dtype and shape.

import { dtypeBits, type DType } from './dtypes.ts';
import { readHeader } from './safetensors-header.ts';

export type { DType } from './dtypes.ts';
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

export type TensorData = Float32Array | Int32Array | Uint8Array | Uint16Array | Float64Array | BigInt64Array;
export interface TensorInput {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: TensorData;
}

/** Parses and validates a safetensors file (the reference reader's rules); tensors view `bytes` (no copy). */
export function parseSafetensors(bytes: Uint8Array, source = 'safetensors'): SafeTensors {
  const fail = (detail: string): never => {
    throw new SafetensorsError(source, detail);
  };
  if (bytes.byteLength < 8) fail(`file is ${bytes.byteLength} bytes, shorter than the 8-byte header length`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER)) fail(`header length ${n} is over the format's ${MAX_HEADER}-byte limit`);
  if (n > BigInt(bytes.byteLength - 8))
    fail(`header length ${n} exceeds the file (${bytes.byteLength} bytes; truncated?)`);
  const headerLen = Number(n);
  let text = '';
  try {
    // ignoreBOM keeps a byte-order mark in the text, where the JSON parser refuses it (as the reference does).
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes.subarray(8, 8 + headerLen));
  } catch {
    fail('header is not valid UTF-8');
  }
  const header = readHeader(text, fail);
  const body = bytes.subarray(8 + headerLen);
  if (header.dataBytes !== BigInt(body.byteLength))
    fail(
      header.dataBytes > BigInt(body.byteLength)
        ? `the tensors need ${header.dataBytes} bytes of data but the file holds ${body.byteLength} (truncated?)`
        : `${BigInt(body.byteLength) - header.dataBytes} bytes after the last tensor are not described by the header`,
    );
  const tensors = new Map<string, TensorEntry>();
  for (const t of header.tensors)
    tensors.set(t.name, {
      dtype: t.dtype,
      shape: t.shape.map(Number),
      data: body.subarray(Number(t.begin), Number(t.end)),
    });
  return { tensors, metadata: header.metadata };
}

/**
 * A copy of a tensor's bytes in an ArrayBuffer of their own. Uint8Array's slice, not the view's
 * own: a Node Buffer's slice() is a view into the whole file (or Node's shared pool).
 */
function copyBytes(d: Uint8Array): ArrayBuffer {
  return Uint8Array.prototype.slice.call(d).buffer;
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
  return new Float32Array(copyBytes(t.data));
}

/** A tensor's data as a fresh Int32Array (I32, or I64 within the int32 range). */
export function getI32(st: SafeTensors, name: string, source = 'safetensors'): Int32Array {
  const t = st.tensors.get(name);
  if (!t) throw new SafetensorsError(source, `tensor '${name}' is missing`);
  if (t.dtype === 'I32') return new Int32Array(copyBytes(t.data));
  if (t.dtype === 'I64') {
    const big = new BigInt64Array(copyBytes(t.data));
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
    const want = (t.shape.reduce((a, b) => a * b, 1) * dtypeBits(t.dtype)) / 8;
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
