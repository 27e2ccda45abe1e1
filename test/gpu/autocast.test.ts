// webddp's fp16 step against PyTorch's CUDA autocast fp16 (fixtures/simplecnn_autocast_fp16.safetensors,
// scripts/make-fixture.py autocast on an H200): the `webddp check --only precision` rows, every judged
// one within its bound from fp16 rounding (the convolutions' are shown, not judged: docs/precision.md),
// and the bound on the updated weights tight enough to tell an fp32 master from weights kept as halves.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTOCAST_FIXTURE, checkAutocast } from '../../src/check/pytorch.ts';
import type { Gpu } from '../../src/gpu/device.ts';
import { parseTuning, tuningFor, type Tuning } from '../../src/gpu/tuning.ts';
import { f16Round } from '../../src/numeric/f16.ts';
import { runAutocastFixture } from '../../src/parity/autocast.ts';
import { decodeFloats } from '../../src/parity/expected.ts';
import { readFixture } from '../../src/parity/fixture.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
// the project's test tuning (vitest.config.ts: the register convolutions, quicker to compile here)
let tuning: Tuning;
beforeAll(async () => {
  gpu = await testGpu('autocast');
  tuning = parseTuning(process.env.WEBDDP_TUNING ?? '{}', tuningFor(gpu.adapter));
});
afterAll(() => gpu?.destroy());

const read = (name: string) => Promise.resolve(new Uint8Array(readFileSync(`fixtures/${name}`)));

describe('fp16 step against PyTorch autocast fp16', () => {
  it('logits, loss, unscaled gradients and the fp32 master after SGD are within their fp16 bounds', async () => {
    const rows = await checkAutocast(gpu, tuning, read);
    const f = readFixture(await read(AUTOCAST_FIXTURE), AUTOCAST_FIXTURE);
    const expected = [...f.st.tensors.keys()].filter((k) => !k.startsWith('param.') && !k.startsWith('input.'));
    expect(rows.map((r) => r.name).sort()).toEqual(expected.map((k) => `${AUTOCAST_FIXTURE}: ${k}`).sort());
    // the convolutions' gradients and updated weights are shown, not judged (max-pool's choices among fp16 ties)
    const conv = (name: string) => /: (grad|after1\.sgd)\.conv/.test(name);
    expect(rows.filter((r) => conv(r.name)).map((r) => r.status)).toEqual(Array(8).fill('skip'));
    for (const r of rows.filter((r) => conv(r.name))) expect(r.detail).toMatch(/not judged: max-pool's choices/);
    expect(rows.filter((r) => !conv(r.name) && r.status !== 'pass').map((r) => `${r.name}: ${r.detail}`)).toEqual([]);
  });

  it("the updated weights' bound fails weights rounded to halves (the master must stay float32)", async () => {
    const f = readFixture(await read(AUTOCAST_FIXTURE), AUTOCAST_FIXTURE);
    const outputs = await runAutocastFixture(gpu, f, undefined, tuning);
    let caught = 0;
    const judged = outputs.filter(
      (o) => o.rule === 'f16' && o.name.startsWith('after1.') && o.name.endsWith('.weight'),
    );
    expect(judged.map((o) => o.name)).toEqual(['after1.sgd.fc1.weight', 'after1.sgd.fc2.weight']);
    for (const o of judged) {
      const t = f.st.tensors.get(o.name);
      if (!t) throw new Error(`fixture lacks ${o.name}`);
      const want = decodeFloats(t, o.name, f.source);
      let worst = 0;
      for (const v of want) worst = Math.max(worst, Math.abs(f16Round(v) - v));
      if (worst > (o.bound ?? 0)) caught++;
    }
    expect(caught).toBe(2);
  });
});
