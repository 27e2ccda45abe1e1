// The safetensors reader against the reference reader (huggingface safetensors 0.7, Rust): each
// row is a file and the verdict the reference gives on it (recorded by running the v0.7.0 reader
// on these exact bytes; see docs/safetensors.md). A rejection must also say what is wrong.
import { describe, expect, it } from 'vitest';
import { parseSafetensors, SafetensorsError } from '../../src/checkpoint/safetensors.ts';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';

const T = (d = 'F32', s = '[2]', o = '[0,8]') => `{"dtype":"${d}","shape":${s},"data_offsets":${o}}`;

/** 8-byte length + header + `data` zero bytes (`len` overrides the length field). */
function file(header: string | Uint8Array, data: number, len?: bigint): Uint8Array {
  const head = typeof header === 'string' ? new TextEncoder().encode(header) : header;
  const out = new Uint8Array(8 + head.byteLength + data);
  new DataView(out.buffer).setBigUint64(0, len ?? BigInt(head.byteLength), true);
  out.set(head, 8);
  return out;
}

type Row = readonly [name: string, header: string | Uint8Array, data: number, verdict: string[] | RegExp];
/** verdict: the tensor names the reference reads, or a pattern of our error message. */
const ROWS: readonly Row[] = [
  ['valid', `{"a":${T()}}`, 8, ['a']],
  ['shape dim written as a float 2.0', `{"a":${T('F32', '[2.0]')}}`, 8, /shape\[0\] is number 2\.0/],
  ['shape dim with an exponent 2E0', `{"a":${T('F32', '[2E0]')}}`, 8, /shape\[0\] is number 2E0/],
  ['shape dim -0', `{"a":${T('F32', '[-0]', '[0,0]')}}`, 0, /shape\[0\] is number -0/],
  ['shape dim -1', `{"a":${T('F32', '[-1]', '[0,0]')}}`, 0, /not a non-negative integer/],
  ['shape dim true', `{"a":${T('F32', '[true]')}}`, 8, /shape\[0\] is boolean/],
  ['shape dim "2"', `{"a":${T('F32', '["2"]')}}`, 8, /shape\[0\] is string/],
  ['shape null', `{"a":${T('F32', 'null')}}`, 8, /shape is null/],
  ['data_offsets end 8.0', `{"a":${T('F32', '[2]', '[0,8.0]')}}`, 8, /data_offsets\[1\] is number 8\.0/],
  ['data_offsets as an object', `{"a":{"dtype":"F32","shape":[2],"data_offsets":{"0":0,"1":8}}}`, 8, /not an array/],
  ['duplicate __metadata__', `{"__metadata__":{},"__metadata__":{},"a":${T()}}`, 8, /__metadata__ appears twice/],
  ['duplicate __metadata__, first null', `{"__metadata__":null,"__metadata__":{},"a":${T()}}`, 8, /twice/],
  ['"__metadata__": null', `{"__metadata__":null,"a":${T()}}`, 8, ['a']],
  ['escaped "__meta\\u0064ata__": null', `{"__meta\\u0064ata__":null,"a":${T()}}`, 8, ['a']],
  ['__metadata__ key repeated inside (last counts)', `{"__metadata__":{"k":"a","k":"b"},"a":${T()}}`, 8, ['a']],
  ['__metadata__ value 1', `{"__metadata__":{"k":1},"a":${T()}}`, 8, /__metadata__\.k is integer 1/],
  ['__metadata__ an array', `{"__metadata__":[],"a":${T()}}`, 8, /__metadata__ is array/],
  ['UTF-8 BOM before the header', `\ufeff{"a":${T()}}`, 8, /not valid JSON: unexpected character/],
  ['spaces before the header', `  {"a":${T()}}`, 8, ['a']],
  ['space/newline/tab padding after', `{"a":${T()}} \n\t\r`, 8, ['a']],
  ['NUL padding after', `{"a":${T()}}\u0000`, 8, /trailing characters/],
  ['form feed after', `{"a":${T()}}\f`, 8, /trailing characters/],
  ['F8_E4M3', `{"a":${T('F8_E4M3', '[2]', '[0,2]')}}`, 2, ['a']],
  ['F8_E5M2', `{"a":${T('F8_E5M2', '[2]', '[0,2]')}}`, 2, ['a']],
  ['F8_E8M0', `{"a":${T('F8_E8M0', '[1]', '[0,1]')}}`, 1, ['a']],
  ['C64', `{"a":${T('C64', '[1]', '[0,8]')}}`, 8, ['a']],
  ['F4 x2 in one byte', `{"a":${T('F4', '[2]', '[0,1]')}}`, 1, ['a']],
  ['F4 x3: not on a byte boundary', `{"a":${T('F4', '[3]', '[0,1]')}}`, 1, /byte boundary/],
  ['F6_E2M3 x4 in 3 bytes', `{"a":${T('F6_E2M3', '[4]', '[0,3]')}}`, 3, ['a']],
  ['F6_E3M2 x4 in 3 bytes', `{"a":${T('F6_E3M2', '[4]', '[0,3]')}}`, 3, ['a']],
  ['dtype "toString"', `{"a":${T('toString')}}`, 8, /unknown dtype "toString"/],
  ['dtype "__proto__"', `{"a":${T('__proto__')}}`, 8, /unknown dtype "__proto__"/],
  ['dtype "f32" (case)', `{"a":${T('f32')}}`, 8, /unknown dtype "f32"/],
  ['dtype in serde enum form {"F32": null}', `{"a":{"dtype":{"F32":null},"shape":[2],"data_offsets":[0,8]}}`, 8, ['a']],
  ['zero-size tensor at the offset of a non-empty one', `{"a":${T()},"z":${T('F32', '[0]', '[0,0]')}}`, 8, ['a', 'z']],
  [
    'zero-size tensor inside a non-empty one',
    `{"a":${T()},"z":${T('F32', '[0]', '[4,4]')}}`,
    8,
    /'z' starts at 4, expected 8/,
  ],
  ['overlapping tensors', `{"a":${T()},"b":${T('F32', '[1]', '[4,8]')}}`, 8, /overlapping/],
  ['hole between tensors', `{"a":${T('F32', '[1]', '[0,4]')},"b":${T('F32', '[1]', '[8,12]')}}`, 12, /hole/],
  ['bytes after the last tensor', `{"a":${T()}}`, 12, /4 bytes after the last tensor/],
  ['data section too short', `{"a":${T()}}`, 4, /need 8 bytes of data but the file holds 4/],
  ['end before begin', `{"a":${T('F32', '[0]', '[8,0]')}}`, 8, /starts at 8|end before/],
  ['three data_offsets', `{"a":${T('F32', '[2]', '[0,8,8]')}}`, 8, /3 entries/],
  ['tensor name repeated, same data (last counts)', `{"a":${T()},"a":${T()}}`, 8, ['a']],
  [
    'tensor name repeated, different data',
    `{"a":${T('F32', '[1]', '[0,4]')},"a":${T('F32', '[1]', '[4,8]')}}`,
    8,
    /starts at 4, expected 0/,
  ],
  [
    'field repeated inside a tensor',
    `{"a":{"dtype":"F32","dtype":"F32","shape":[2],"data_offsets":[0,8]}}`,
    8,
    /'dtype' twice/,
  ],
  [
    'unknown field inside a tensor (ignored)',
    `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":[1,{"y":2}]}}`,
    8,
    ['a'],
  ],
  ['tensor as [dtype, shape, offsets]', `{"a":["F32",[2],[0,8]]}`, 8, ['a']],
  ['tensor as an array of 4', `{"a":["F32",[2],[0,8],1]}`, 8, /array of 4/],
  ['tensor null', `{"a":null}`, 0, /tensor 'a' is null/],
  ['tensor without dtype', `{"a":{"shape":[2],"data_offsets":[0,8]}}`, 8, /lacks dtype/],
  ['escaped name "\\u0061"', `{"\\u0061":${T()}}`, 8, ['a']],
  ['lone surrogate escape in a name', `{"\\ud800":${T()}}`, 8, /lone surrogate/],
  ['empty name', `{"":${T()}}`, 8, ['']],
  [
    'element count overflows u64 before a 0',
    `{"a":${T('F32', '[4294967296,4294967296,0]', '[0,0]')}}`,
    0,
    /overflows 64 bits/,
  ],
  ['huge dims after a 0', `{"a":${T('F32', '[0,4294967296,4294967296]', '[0,0]')}}`, 0, ['a']],
  ['dim u64::MAX after a 0', `{"a":${T('F32', '[0,18446744073709551615]', '[0,0]')}}`, 0, ['a']],
  ['dim u64::MAX + 1', `{"a":${T('F32', '[0,18446744073709551616]', '[0,0]')}}`, 0, /is number 18446744073709551616/],
  ['bit count overflows u64', `{"a":${T('F32', '[4611686018427387904]', '[0,0]')}}`, 0, /overflows 64 bits/],
  [
    'nesting 127 deep',
    `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":${'['.repeat(125)}${']'.repeat(125)}}}`,
    8,
    ['a'],
  ],
  [
    'nesting 128 deep',
    `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":${'['.repeat(126)}${']'.repeat(126)}}}`,
    8,
    /nesting deeper/,
  ],
  [
    'number overflowing f64 in an ignored field',
    `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1e400}}`,
    8,
    /out of range/,
  ],
  ['leading zero', `{"a":${T('F32', '[02]')}}`, 8, /leading zero/],
  ['header a JSON array', `[]`, 0, /not a JSON object/],
  ['empty header', ``, 0, /unexpected end/],
  ['empty object, no data', `{}`, 0, []],
  ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 0, /not valid UTF-8/],
  ['scalar (shape [])', `{"a":${T('F32', '[]', '[0,4]')}}`, 4, ['a']],
];

describe('parseSafetensors agrees with the reference reader (safetensors 0.7)', () => {
  for (const [name, header, data, verdict] of ROWS) {
    it(`${Array.isArray(verdict) ? 'accepts' : 'rejects'}: ${name}`, () => {
      const bytes = file(header, data);
      if (Array.isArray(verdict)) {
        expect([...parseSafetensors(bytes, 'case.safetensors').tensors.keys()].sort()).toEqual(verdict);
      } else {
        expect(() => parseSafetensors(bytes, 'case.safetensors')).toThrow(SafetensorsError);
        expect(() => parseSafetensors(bytes, 'case.safetensors')).toThrow(verdict);
      }
    });
  }

  it('rejects a header length past the file, over the 100 MB limit, and a file under 8 bytes', () => {
    const h = `{"a":${T()}}`;
    expect(() => parseSafetensors(file(h, 8, 10_000n), 'f')).toThrow(/header length 10000 exceeds the file/);
    expect(() => parseSafetensors(file(h, 8, 100_000_001n), 'f')).toThrow(/100000000-byte limit/);
    expect(() => parseSafetensors(file(h, 8, 2n ** 64n - 1n), 'f')).toThrow(/100000000-byte limit/);
    expect(() => parseSafetensors(new Uint8Array(7), 'f')).toThrow(/shorter than the 8-byte header length/);
  });

  it('keeps metadata keys such as __proto__ as plain data', () => {
    const st = parseSafetensors(file(`{"__metadata__":{"__proto__":"x","toString":"y"},"a":${T()}}`, 8), 'f');
    expect(Object.entries(st.metadata)).toEqual([
      ['__proto__', 'x'],
      ['toString', 'y'],
    ]);
  });

  it('the model loader refuses a dtype the parser accepts, by name', () => {
    const spec = simpleCnnSpec(0.25);
    const p = spec.params[0];
    if (!p) throw new Error('no params');
    const header = JSON.stringify({ [p.name]: { dtype: 'F8_E4M3', shape: p.shape, data_offsets: [0, p.size] } });
    expect(() => loadStateDict(file(header, p.size), spec, 'm.safetensors')).toThrow(
      /m\.safetensors: .*is F8_E4M3, expected F32/,
    );
  });
});
