// The element types a safetensors file may declare: exactly the reference reader's list
// (safetensors 0.7 `Dtype`), with each type's width in bits. Looked up in a Map, so a name such as
// "toString" or "__proto__" is an unknown dtype, not an inherited property.

export type DType =
  | 'BOOL'
  | 'F4'
  | 'F6_E2M3'
  | 'F6_E3M2'
  | 'U8'
  | 'I8'
  | 'F8_E5M2'
  | 'F8_E4M3'
  | 'F8_E8M0'
  | 'I16'
  | 'U16'
  | 'F16'
  | 'BF16'
  | 'I32'
  | 'U32'
  | 'F32'
  | 'C64'
  | 'F64'
  | 'I64'
  | 'U64';

const BITS = new Map<string, number>([
  ['BOOL', 8],
  ['F4', 4],
  ['F6_E2M3', 6],
  ['F6_E3M2', 6],
  ['U8', 8],
  ['I8', 8],
  ['F8_E5M2', 8],
  ['F8_E4M3', 8],
  ['F8_E8M0', 8],
  ['I16', 16],
  ['U16', 16],
  ['F16', 16],
  ['BF16', 16],
  ['I32', 32],
  ['U32', 32],
  ['F32', 32],
  ['C64', 64],
  ['F64', 64],
  ['I64', 64],
  ['U64', 64],
]);

/** True for the names the format knows. */
export function isDType(name: string): name is DType {
  return BITS.has(name);
}

/** Width of one element in bits. */
export function dtypeBits(dtype: DType): number {
  return BITS.get(dtype) ?? 0;
}
