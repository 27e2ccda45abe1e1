// The rules a safetensors header must follow, as the reference reader (huggingface safetensors
// 0.7, Rust) applies them, checked on the strict JSON tree of header-json.ts:
//  * a JSON object; `__metadata__` at most once, null or an object of strings (a key repeated
//    inside it: the last one counts);
//  * every other member is a tensor: {dtype, shape, data_offsets} (each at most once, other fields
//    ignored) or the array [dtype, shape, data_offsets]; a tensor name given twice: the last counts;
//  * dtype one of the format's names; shape and data_offsets non-negative integers (no `32.0`),
//    data_offsets exactly [begin, end];
//  * sorted by (begin, end), the tensors tile the data section from 0 with no hole and no
//    overlap (zero-size tensors anywhere on the tiling), each as long as its dtype and shape say,
//    with no overflow in the element count (u64) and sub-byte dtypes ending on a byte boundary.
import { dtypeBits, isDType, type DType } from './dtypes.ts';
import { describeJson, parseHeaderJson, type JsonValue } from './header-json.ts';

export interface TensorInfo {
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly bigint[];
  readonly begin: bigint;
  readonly end: bigint;
}

export interface Header {
  readonly tensors: readonly TensorInfo[];
  readonly metadata: Readonly<Record<string, string>>;
  /** End of the last tensor: the data section must be exactly this long. */
  readonly dataBytes: bigint;
}

const U64_MAX = (1n << 64n) - 1n;

/** `fail` is called with a message (never returns). */
type Fail = (detail: string) => never;

function readDtype(v: JsonValue, what: string, fail: Fail): DType {
  let name: string | undefined;
  if (v.t === 'str') name = v.v;
  // serde's enum form {"F32": null} is accepted by the reference too.
  else if (v.t === 'obj' && v.v.length === 1 && v.v[0]?.[1].t === 'null') name = v.v[0][0];
  if (name !== undefined && isDType(name)) return name;
  return fail(
    `${what} has unknown dtype ${name !== undefined ? JSON.stringify(name.slice(0, 40)) : describeJson(v)} (known: BOOL, U8..U64, I8..I64, F4, F6_*, F8_*, F16, BF16, F32, F64, C64)`,
  );
}

function readInts(v: JsonValue, what: string, fail: Fail): bigint[] {
  if (v.t !== 'arr') return fail(`${what} is ${describeJson(v)}, not an array`);
  return v.v.map((d, i) =>
    d.t === 'int' ? d.v : fail(`${what}[${i}] is ${describeJson(d)}, not a non-negative integer`),
  );
}

function readTensor(name: string, v: JsonValue, fail: Fail): TensorInfo {
  const what = `tensor '${name.slice(0, 200)}'`;
  let fields: [JsonValue | undefined, JsonValue | undefined, JsonValue | undefined];
  if (v.t === 'arr') {
    if (v.v.length !== 3) fail(`${what} is an array of ${v.v.length}, not [dtype, shape, data_offsets]`);
    fields = [v.v[0], v.v[1], v.v[2]];
  } else if (v.t === 'obj') {
    fields = [undefined, undefined, undefined];
    for (const [k, x] of v.v) {
      const i = ['dtype', 'shape', 'data_offsets'].indexOf(k);
      if (i < 0) continue; // the reference ignores other fields
      if (fields[i] !== undefined) fail(`${what} has '${k}' twice`);
      fields[i] = x;
    }
  } else return fail(`${what} is ${describeJson(v)}, not an object {dtype, shape, data_offsets}`);
  const [dt, sh, off] = fields;
  if (dt === undefined || sh === undefined || off === undefined)
    fail(`${what} lacks ${['dtype', 'shape', 'data_offsets'].filter((_, i) => fields[i] === undefined).join(', ')}`);
  const dtype = readDtype(dt, what, fail);
  const shape = readInts(sh, `${what} shape`, fail);
  const offsets = readInts(off, `${what} data_offsets`, fail);
  if (offsets.length !== 2) fail(`${what} data_offsets has ${offsets.length} entries, not [begin, end]`);
  return { name, dtype, shape, begin: offsets[0] ?? 0n, end: offsets[1] ?? 0n };
}

function readMetadata(v: JsonValue, fail: Fail): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  if (v.t === 'null') return out;
  if (v.t !== 'obj') return fail(`__metadata__ is ${describeJson(v)}, not an object of strings or null`);
  for (const [k, s] of v.v) {
    if (s.t !== 'str') fail(`__metadata__.${k.slice(0, 80)} is ${describeJson(s)}, not a string`);
    out[k] = s.v;
  }
  return out;
}

/** Bytes a tensor of `dtype` and `shape` holds, as the reference computes it (u64 arithmetic). */
export function tensorBytes(t: Pick<TensorInfo, 'name' | 'dtype' | 'shape'>, fail: Fail): bigint {
  let n = 1n;
  for (const d of t.shape) {
    n *= d;
    if (n > U64_MAX) fail(`tensor '${t.name}' shape [${t.shape.join(', ')}] overflows 64 bits`);
  }
  const bits = n * BigInt(dtypeBits(t.dtype));
  if (bits > U64_MAX) fail(`tensor '${t.name}' shape [${t.shape.join(', ')}] overflows 64 bits`);
  if (bits % 8n !== 0n)
    fail(`tensor '${t.name}': ${n} elements of ${t.dtype} (${dtypeBits(t.dtype)} bits) do not end on a byte boundary`);
  return bits / 8n;
}

/** Parses and checks a header (already decoded from UTF-8); `fail` throws the caller's error. */
export function readHeader(text: string, fail: Fail): Header {
  let root: JsonValue;
  try {
    root = parseHeaderJson(text);
  } catch (e) {
    return fail(`header is not valid JSON: ${(e as Error).message}`);
  }
  if (root.t !== 'obj') return fail(`header is ${describeJson(root)}, not a JSON object`);
  let metadata: Record<string, string> | undefined;
  const byName = new Map<string, TensorInfo>();
  for (const [key, v] of root.v) {
    if (key === '__metadata__') {
      if (metadata !== undefined) fail('__metadata__ appears twice in the header');
      metadata = readMetadata(v, fail);
    } else {
      byName.delete(key); // a repeated name: the last one counts (as in the reference)
      byName.set(key, readTensor(key, v, fail));
    }
  }
  const tensors = [...byName.values()];
  const sorted = [...tensors].sort((a, b) =>
    a.begin !== b.begin ? (a.begin < b.begin ? -1 : 1) : a.end < b.end ? -1 : a.end > b.end ? 1 : 0,
  );
  let at = 0n;
  for (const t of sorted) {
    if (t.begin !== at || t.end < t.begin)
      fail(
        t.end < t.begin
          ? `tensor '${t.name}' data_offsets [${t.begin}, ${t.end}) end before they begin`
          : `tensor '${t.name}' starts at ${t.begin}, expected ${at} (${t.begin < at ? 'overlapping' : 'a hole in the'} data)`,
      );
    at = t.end;
    const want = tensorBytes(t, fail);
    if (t.end - t.begin !== want)
      fail(`tensor '${t.name}' holds ${t.end - t.begin} bytes but ${t.dtype}[${t.shape.join(', ')}] needs ${want}`);
  }
  return { tensors, metadata: { ...(metadata ?? {}) }, dataBytes: at };
}
