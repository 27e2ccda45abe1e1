// Seeded mutations of valid files for the fuzz tests: bit flips, byte changes, truncations,
// insertions and deletions anywhere, plus format-aware edits (tar header fields, safetensors
// header JSON tokens). Deterministic from the seed, so a failing case is reproduced by its seed.

/** mulberry32: a small, fast, seeded PRNG (uniform in [0, 1)). */
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    const x = xs[this.int(xs.length)];
    if (x === undefined) throw new RangeError('pick from an empty list');
    return x;
  }
}

/** A mutation: what it did (for the failure message) and the bytes. */
export interface Mutant {
  readonly what: string;
  readonly bytes: Uint8Array;
}

function splice(b: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(b.byteLength - remove + insert.byteLength);
  out.set(b.subarray(0, at));
  out.set(insert, at);
  out.set(b.subarray(at + remove), at + insert.byteLength);
  return out;
}

/** A format-blind mutation of `b`; `hot` is a byte range mutated more often (headers). */
export function mutateBytes(r: Prng, b: Uint8Array, hot?: readonly [number, number]): Mutant {
  const inHot = hot !== undefined && r.next() < 0.6;
  const pos = (extra = 0) =>
    inHot ? hot[0] + r.int(Math.max(1, Math.min(hot[1], b.byteLength) - hot[0])) : r.int(b.byteLength + extra);
  const kind = r.int(6);
  if (kind === 0 || b.byteLength === 0) {
    const at = pos();
    const bit = r.int(8);
    const out = b.slice();
    out[at] = (out[at] ?? 0) ^ (1 << bit);
    return { what: `flip bit ${bit} of byte ${at}`, bytes: out };
  }
  if (kind === 1) {
    const at = pos();
    const v = r.pick([0, 0xff, 0x20, 0x30, 0x7f, 0x80, r.int(256)]);
    const out = b.slice();
    out[at] = v;
    return { what: `set byte ${at} to ${v}`, bytes: out };
  }
  if (kind === 2) {
    const at = r.next() < 0.5 ? pos() : r.int(b.byteLength);
    return { what: `truncate to ${at} bytes`, bytes: b.slice(0, at) };
  }
  if (kind === 3) {
    const at = pos(1);
    const n = r.pick([1, 2, 7, 512, 1 + r.int(64)]);
    const ins = new Uint8Array(n).map(() => (r.next() < 0.5 ? 0 : r.int(256)));
    return { what: `insert ${n} bytes at ${at}`, bytes: splice(b, at, 0, ins) };
  }
  if (kind === 4) {
    const at = pos();
    const n = Math.min(b.byteLength - at, r.pick([1, 2, 8, 512, 1 + r.int(64)]));
    return { what: `delete ${n} bytes at ${at}`, bytes: splice(b, at, n, new Uint8Array(0)) };
  }
  const at = pos();
  const n = Math.min(b.byteLength - at, 1 + r.int(16));
  const out = b.slice();
  for (let i = 0; i < n; i++) out[at + i] = r.int(256);
  return { what: `randomize ${n} bytes at ${at}`, bytes: out };
}

const TAR_FIELDS: readonly (readonly [string, number, number])[] = [
  ['name', 0, 100],
  ['mode', 100, 8],
  ['size', 124, 12],
  ['mtime', 136, 12],
  ['checksum', 148, 8],
  ['typeflag', 156, 1],
  ['linkname', 157, 100],
  ['magic', 257, 6],
  ['prefix', 345, 155],
];

/** Rewrites one field of one 512-byte tar header block (checksum fixed up unless it is the field). */
export function editTarHeader(r: Prng, tar: Uint8Array): Mutant {
  const headers: number[] = [];
  for (let at = 0; at + 512 <= tar.byteLength; at += 512)
    if (String.fromCharCode(...tar.subarray(at + 257, at + 262)) === 'ustar') headers.push(at);
  const h = r.pick(headers);
  const [field, off, len] = r.pick(TAR_FIELDS);
  const out = tar.slice();
  const values = [
    '',
    '7777777777777777',
    '-1',
    '99999999999',
    ' 1 ',
    '\u0080\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0001\u0000',
    'x'.repeat(len),
    r.pick(['0', '1', '2', '3', '5', '6', 'x', 'g', 'L', 'K']),
    String(r.int(1 << 20).toString(8)),
    'cifar-10-batches-bin/data_batch_1.bin',
    '../../etc/passwd',
  ];
  const text = r.pick(values);
  out.fill(0, h + off, h + off + len);
  for (let i = 0; i < Math.min(len, text.length); i++) out[h + off + i] = text.charCodeAt(i) & 0xff;
  if (field !== 'checksum') {
    out.fill(0x20, h + 148, h + 156);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += out[h + i] ?? 0;
    const s = `${sum.toString(8).padStart(6, '0')}\u0000 `;
    for (let i = 0; i < 8; i++) out[h + 148 + i] = s.charCodeAt(i);
  }
  return { what: `tar header at ${h}: ${field} = ${JSON.stringify(text)}`, bytes: out };
}

const JSON_EDITS: readonly (readonly [RegExp, readonly string[]])[] = [
  [/\d+/g, ['32.0', '3e1', '-1', '-0', '18446744073709551616', '9007199254740993', '0', '1', '01', '4.0']],
  [/"[A-Z][A-Z0-9_]*"/g, ['"F8_E4M3"', '"F8_E5M2"', '"F4"', '"C64"', '"toString"', '"__proto__"', '"f32"', 'null']],
  [/"__metadata__"/g, ['"__metadata__"', '"x"']],
  [/\{/g, ['\ufeff{', ' {', '{"__metadata__":null,', '{"__metadata__":{},', '{"a":1,', '[']],
  [/\}/g, ['}}', ',}', '} ', '}\u0000', ']']],
  [/,/g, [', ', ',,', ':', '']],
  [/\[/g, ['[[', '[0,', '{']],
];

/** A safetensors file with one token of its header JSON rewritten (header length fixed up, or not). */
export function editSafetensorsHeader(r: Prng, file: Uint8Array): Mutant {
  const n = Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  const text = new TextDecoder().decode(file.subarray(8, 8 + n));
  const [re, subs] = r.pick(JSON_EDITS);
  const hits = [...text.matchAll(re)];
  if (hits.length === 0) return mutateBytes(r, file, [0, 8 + n]);
  const hit = r.pick(hits);
  const sub = r.pick(subs);
  const edited = text.slice(0, hit.index) + sub + text.slice(hit.index + hit[0].length);
  const head = new TextEncoder().encode(edited);
  const fix = r.next() < 0.85;
  const out = new Uint8Array(8 + head.byteLength + file.byteLength - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(fix ? head.byteLength : n), true);
  out.set(head, 8);
  out.set(file.subarray(8 + n), 8 + head.byteLength);
  return {
    what: `header: ${JSON.stringify(hit[0])} at ${hit.index} -> ${JSON.stringify(sub)}${fix ? '' : ' (length not fixed)'}`,
    bytes: out,
  };
}

/** A number written the way a careless or hostile writer might: hex, binary, padded, signed, fractional, empty, huge. */
export function numberText(r: Prng, n: number): string {
  const s = String(n);
  return r.pick([
    s,
    `${s}.0`,
    ` ${s}`,
    `${s} `,
    `+${s}`,
    `0${s}`,
    `0x${n.toString(16)}`,
    `0b${n.toString(2)}`,
    `0o${n.toString(8)}`,
    `${s}e0`,
    '',
    '-0',
    `-${s}`,
    `${s}\n`,
    '1e300',
    'Infinity',
    'NaN',
    `${n}${'0'.repeat(1 + r.int(20))}`,
    String(r.int(1000)),
  ]);
}

/** A JSON value of a hostile kind: out of range, of the wrong type, fractional, huge, empty. */
export function hostileValue(r: Prng): unknown {
  return r.pick([
    1e300,
    -1e300,
    -1,
    0,
    0.5,
    1.5,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    '',
    '3',
    null,
    true,
    [],
    {},
    [1, 2],
    { a: 1 },
    r.int(1 << 20),
    -r.int(100) - 1,
  ]);
}

/** Every path to a leaf (or an empty container) of a JSON value, as key lists. */
export function jsonPaths(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v) && v.length > 0) return v.flatMap((x, i) => jsonPaths(x, [...at, i]));
  if (typeof v === 'object' && v !== null && Object.keys(v).length > 0)
    return Object.entries(v).flatMap(([k, x]) => jsonPaths(x, [...at, k]));
  return [at];
}

/** Every object inside a JSON value (the root included), with its path. */
export function jsonObjects(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => jsonObjects(x, [...at, i]));
  if (typeof v !== 'object' || v === null) return [];
  return [at, ...Object.entries(v).flatMap(([k, x]) => jsonObjects(x, [...at, k]))];
}

/** A deep copy of `v` with the value at `path` replaced by `x`. */
export function setPath(v: unknown, path: readonly (string | number)[], x: unknown): unknown {
  if (path.length === 0) return x;
  const [k, ...rest] = path;
  const copy = (Array.isArray(v) ? [...(v as unknown[])] : { ...(v as object) }) as Record<string | number, unknown>;
  copy[k as string] = setPath(copy[k as string], rest, x);
  return copy;
}

/** `v` as JSON text with a member `"key": value` added to the object at `path` (first or last). */
export function withMember(
  r: Prng,
  v: unknown,
  path: readonly (string | number)[],
  key: string,
  value: unknown,
): string {
  const marker = `"\u0000marker${r.int(1e9)}"`;
  const text = JSON.stringify(setPath(v, path, marker.slice(1, -1)));
  const target = JSON.stringify(path.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k as string], v));
  const inner = target.slice(1, -1);
  const member = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
  const body = inner.length === 0 ? member : r.next() < 0.5 ? `${member},${inner}` : `${inner},${member}`;
  return text.replace(JSON.stringify(marker.slice(1, -1)), `{${body}}`);
}

/** JSON text nested `depth` deep with arrays or objects (or both), around `core`. */
export function nested(r: Prng, depth: number, core = '1'): string {
  const kinds = Array.from({ length: depth }, () => (r.next() < 0.5 ? 'a' : 'o'));
  const open = kinds.map((k) => (k === 'a' ? '[' : '{"k":')).join('');
  const close = kinds
    .reverse()
    .map((k) => (k === 'a' ? ']' : '}'))
    .join('');
  return open + core + close;
}
