// What a kernel's binding takes: a whole buffer, or a byte range of one (ranks sharing a device bind
// their rows of the buffers their batched step shares: train/rank-batch.ts).

/** A byte range of a buffer bound as one operand (its offset a multiple of minStorageBufferOffsetAlignment). */
export interface BufferSlice {
  readonly buffer: GPUBuffer;
  readonly offset: number;
  readonly size: number;
}

/** What a binding takes: a whole buffer or a slice of one. */
export type Operand = GPUBuffer | BufferSlice;

/** The buffer an operand is in. */
export function bufferOf(o: Operand): GPUBuffer {
  return 'buffer' in o ? o.buffer : o;
}

/** The operand as a whole buffer: what copies take (a slice is refused, naming `what`). */
export function wholeBuffer(o: Operand, what: string): GPUBuffer {
  if ('buffer' in o) throw new Error(`${what}: a slice of ${o.buffer.label} where a whole buffer is needed`);
  return o;
}

/** `size` bytes of an operand from byte `offset` on (of the slice, where it is one). */
export function sliceOf(o: Operand, offset: number, size: number): BufferSlice {
  return 'buffer' in o ? { buffer: o.buffer, offset: o.offset + offset, size } : { buffer: o, offset, size };
}
