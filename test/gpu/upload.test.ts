// UploadPool (src/gpu/upload.ts) on a real device: what it writes lands where writeBuffer would put
// it, in the same queue order; staging buffers are reused once their copy has run, counted by the
// memory tracker under the caller's category, and freed by destroy(); bad sizes and a destroyed
// device are refused with the buffer's name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBuffer, readFloats, storageBuffer } from '../../src/gpu/buffers.ts';
import type { Gpu } from '../../src/gpu/device.ts';
import { UploadPool } from '../../src/gpu/upload.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('upload');
});
afterAll(() => gpu?.destroy());

const floats = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => ((i * 7 + seed) % 101) - 50.5);

describe('UploadPool', () => {
  it('writes floats and bytes at an offset, leaving the rest of the buffer alone', async () => {
    const pool = new UploadPool(gpu);
    const dst = storageBuffer(gpu, 'dst', 64 * 4, 'other');
    try {
      pool.write(dst, 0, floats(64, 1), 'other');
      pool.write(dst, 16 * 4, floats(8, 2), 'other');
      const got = await readFloats(gpu, dst);
      const want = floats(64, 1);
      want.set(floats(8, 2), 16);
      expect([...got]).toEqual([...want]);
      const bytes = Uint8Array.from({ length: 12 }, (_, i) => 200 + i);
      pool.write(dst, 4, bytes, 'other');
      expect([...new Uint8Array(await readBuffer(gpu, dst, 4, 12))]).toEqual([...bytes]);
    } finally {
      pool.destroy();
      gpu.memory.destroy(dst);
    }
  });

  it('is ordered on the queue as writeBuffer is: work submitted between two writes sees the first', async () => {
    const pool = new UploadPool(gpu);
    const dst = storageBuffer(gpu, 'dst', 256, 'other');
    const seen = [0, 1, 2].map((i) => storageBuffer(gpu, `seen${i}`, 256, 'other'));
    try {
      for (const [i, out] of seen.entries()) {
        pool.write(dst, 0, floats(64, 10 + i), 'other');
        const enc = gpu.device.createCommandEncoder({ label: 'snapshot' });
        enc.copyBufferToBuffer(dst, 0, out, 0, 256);
        gpu.device.queue.submit([enc.finish()]);
      }
      for (const [i, out] of seen.entries()) expect([...(await readFloats(gpu, out))]).toEqual([...floats(64, 10 + i)]);
      // The three writes were in flight together: three staging buffers of that size.
      expect(pool.size).toBe(3);
    } finally {
      pool.destroy();
      for (const b of [dst, ...seen]) gpu.memory.destroy(b);
    }
  });

  it('reuses a staging buffer once its copy has run, counts it under the category, frees it on destroy', async () => {
    const pool = new UploadPool(gpu);
    const dst = storageBuffer(gpu, 'dst', 4096, 'activations');
    const before = gpu.memory.memoryAllocated('communication');
    try {
      for (let i = 0; i < 6; i++) {
        pool.write(dst, 0, floats(1024, i), 'communication');
        await gpu.device.queue.onSubmittedWorkDone();
        await new Promise((r) => setTimeout(r, 0)); // let the mapAsync callback return it to the pool
      }
      expect([...(await readFloats(gpu, dst))]).toEqual([...floats(1024, 5)]);
      expect(pool.size).toBeLessThanOrEqual(2);
      expect(gpu.memory.memoryAllocated('communication') - before).toBe(pool.size * 4096);
      pool.destroy();
      expect(pool.size).toBe(0);
      expect(gpu.memory.memoryAllocated('communication')).toBe(before);
    } finally {
      pool.destroy();
      gpu.memory.destroy(dst);
    }
  });

  it('stages parts end to end for copies the caller records, recycled once that recording is submitted', async () => {
    const pool = new UploadPool(gpu);
    const a = storageBuffer(gpu, 'a', 40 * 4, 'other');
    const b = storageBuffer(gpu, 'b', 8 * 4, 'other');
    try {
      for (let step = 0; step < 4; step++) {
        const parts = [floats(16, step), floats(24, step + 1), Int32Array.of(step, 1, 2, 3, 4, 5, 6, 7)];
        const staged = pool.stage(parts, 'other', 'rows');
        expect(staged.bytes).toBe((16 + 24 + 8) * 4);
        const enc = gpu.device.createCommandEncoder({ label: 'step' });
        enc.copyBufferToBuffer(staged.buffer, 0, a, 0, 40 * 4);
        enc.copyBufferToBuffer(staged.buffer, 40 * 4, b, 0, 8 * 4);
        gpu.device.queue.submit([enc.finish()]);
        staged.submitted();
        const want = new Float32Array(40);
        want.set(floats(16, step));
        want.set(floats(24, step + 1), 16);
        expect([...(await readFloats(gpu, a))]).toEqual([...want]);
        expect([...new Int32Array(await readBuffer(gpu, b, 0, 32))]).toEqual([step, 1, 2, 3, 4, 5, 6, 7]);
        await new Promise((r) => setTimeout(r, 0)); // let the mapAsync callback return it to the pool
      }
      expect(pool.size).toBeLessThanOrEqual(2);
      expect(() => pool.stage([new Uint8Array(6)], 'other', 'rows')).toThrow(/upload to rows: a part of 6 bytes/);
      expect(() => pool.stage([], 'other', 'rows')).toThrow(/upload to rows: nothing to stage/);
    } finally {
      pool.destroy();
      for (const x of [a, b]) gpu.memory.destroy(x);
    }
  });

  it('refuses sizes and offsets copyBufferToBuffer cannot take, naming the destination', () => {
    const pool = new UploadPool(gpu);
    const dst = storageBuffer(gpu, 'input.bytes', 64, 'other');
    try {
      expect(() => pool.write(dst, 0, new Uint8Array(6), 'other')).toThrow(
        /upload to input\.bytes: 6 bytes at offset 0; both must be multiples of 4/,
      );
      expect(() => pool.write(dst, 2, new Uint8Array(8), 'other')).toThrow(/8 bytes at offset 2/);
      expect(pool.size).toBe(0);
    } finally {
      pool.destroy();
      gpu.memory.destroy(dst);
    }
  });

  it('throws the device-lost error once the device is gone', async () => {
    const g = await testGpu('upload-destroyed');
    const dst = storageBuffer(g, 'dst', 64, 'other');
    g.destroy();
    expect(() => g.uploads.write(dst, 0, new Float32Array(4), 'other')).toThrow(/upload-destroyed.*destroyed/);
  });
});
