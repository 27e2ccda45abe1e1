// Recorder (src/gpu/recorder.ts) on a real device: a gated dispatch runs only where the GPU's word
// says so (fp16's loss scaler on a skipped step writes 0), the op runs again outside the gate (its
// Params' `run` put back to 1 on the GPU), and a recording's afterSubmit callbacks run once it is
// submitted (the step's batch staging goes back to its pool then), for submit() and for a recording
// finished and submitted by its caller.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferFrom, readFloats } from '../../src/gpu/buffers.ts';
import type { Gpu } from '../../src/gpu/device.ts';
import { grid1d, makeOp } from '../../src/gpu/op.ts';
import { Recorder, type DispatchGate } from '../../src/gpu/recorder.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('recorder');
});
afterAll(() => gpu?.destroy());

const N = 37;

describe('Recorder', () => {
  it('a gated dispatch runs where the GPU word is 1, not where it is 0, and runs again outside the gate', async () => {
    const k = await gpu.kernels.get('scale');
    const factor = bufferFrom(gpu, 'test.factor', Float32Array.of(2), 'other');
    const data = bufferFrom(
      gpu,
      'test.data',
      Float32Array.from({ length: N }, (_, i) => i + 1),
      'other',
    );
    // words: [0] the gate's run, [1] the 1 put back after a gated dispatch
    const words = bufferFrom(gpu, 'test.gate', Uint32Array.of(0, 1), 'other');
    const gate: DispatchGate = { run: { buffer: words, offset: 0 }, one: { buffer: words, offset: 4 } };
    const op = makeOp(gpu, k, 'test.scale', { count: N, offset: 0, factor_index: 0 }, { factor, data }, grid1d(N, 64));
    const step = async (gated: boolean) => {
      const rec = new Recorder(gpu, 'test.gated');
      if (gated) rec.gated(gate, () => rec.dispatch(op));
      else rec.dispatch(op);
      rec.submit();
      return [...(await readFloats(gpu, data))];
    };
    try {
      const start = Array.from({ length: N }, (_, i) => i + 1);
      expect(await step(true), 'gate 0: nothing written').toEqual(start);
      expect(await step(false), 'outside the gate after a skipped step: it runs').toEqual(start.map((v) => v * 2));
      gpu.device.queue.writeBuffer(words, 0, Uint32Array.of(1));
      expect(await step(true), 'gate 1: it runs').toEqual(start.map((v) => v * 4));
    } finally {
      op.destroy();
      for (const b of [factor, data, words]) gpu.memory.destroy(b);
    }
  });

  it('runs afterSubmit callbacks once the recording is submitted, by submit() or by its caller', () => {
    const calls: string[] = [];
    const a = new Recorder(gpu, 'test.a');
    a.afterSubmit(() => calls.push('a'));
    expect(calls).toEqual([]);
    a.submit();
    expect(calls).toEqual(['a']);
    const b = new Recorder(gpu, 'test.b');
    b.afterSubmit(() => calls.push('b'));
    const cmd = b.finish();
    expect(calls, 'finished, not yet submitted').toEqual(['a']);
    gpu.device.queue.submit([cmd]);
    b.submitted();
    b.submitted();
    expect(calls, 'once').toEqual(['a', 'b']);
  });
});
