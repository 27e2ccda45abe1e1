// The whole model on the GPU: against PyTorch's fixture (logits, loss, every gradient, two steps of
// SGD / Adam / AdamW, clip_grad_norm_) through the same code path as `webddp parity`, and against
// the CPU reference at other widths and batch sizes, as uint8 batches normalised on the GPU.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initSimpleCnn } from '../../src/nn/init.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import type { Gpu } from '../../src/gpu/device.ts';
import type { Tuning } from '../../src/gpu/tuning.ts';
import { readFixture } from '../../src/parity/fixture.ts';
import { runGradFixture } from '../../src/parity/grad.ts';
import { checkTensor } from '../../src/parity/tolerance.ts';
import { simpleCnnStep } from '../../src/reference/simplecnn.ts';
import { Trainer } from '../../src/train/trainer.ts';
import { expectClose } from '../helpers/gradcheck.ts';
import { fittedGpuTuning } from '../../src/check/cases/fit-tiles.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('model');
});
afterAll(() => gpu?.destroy());

describe('SimpleCNN against PyTorch (simplecnn_grad.safetensors)', () => {
  it('logits, loss, gradients, optimizer steps and clipping are within the fixture tolerances', async () => {
    const path = 'fixtures/simplecnn_grad.safetensors';
    const f = readFixture(new Uint8Array(readFileSync(path)), path);
    const outputs = await runGradFixture(gpu, f);
    const rows = outputs.map((o) => {
      const t = f.st.tensors.get(o.name);
      if (!t) throw new Error(`fixture lacks ${o.name}`);
      return checkTensor(o.name, o.rule, o.data, new Float32Array(t.data.slice().buffer));
    });
    // Everything the fixture holds (but its inputs and parameters) is compared.
    const expected = [...f.st.tensors.keys()].filter((k) => !k.startsWith('param.') && !k.startsWith('input.')).sort();
    expect(rows.map((r) => r.name).sort()).toEqual(expected);
    expect(
      rows.filter((r) => !r.ok).map((r) => `${r.name}: maxAbs ${r.main.maxAbs} mismatches ${r.main.mismatches}`),
    ).toEqual([]);
  });
});

describe('SimpleCNN against the CPU reference', () => {
  // This device's own tuning, and the one real GPUs get (tiled convolutions, split-K fc1; its tiles
  // made to fit this device's workgroup size), also with the subgroup reduce for every layer where
  // the device has subgroups: every kernel path runs here, whatever the adapter.
  const gpuTuning = (over: Partial<Tuning> = {}) =>
    fittedGpuTuning(gpu.device.limits.maxComputeInvocationsPerWorkgroup, over);
  for (const [width, batch, kind, name] of [
    [0.5, 3, 'own', ''],
    [1.5, 2, 'own', ''],
    [1, 3, 'gpu', ', real-GPU tuning'],
    [1, 2, 'subgroup', ', real-GPU tuning with the subgroup reduce'],
  ] as const) {
    it(`width ${width}, batch ${batch}, uint8 input normalised on the GPU${name}`, async (ctx) => {
      if (kind === 'subgroup' && gpu.subgroupSize === 0) ctx.skip(`${gpu.label} has no fixed-size subgroups`);
      const tuning = kind === 'own' ? undefined : gpuTuning(kind === 'subgroup' ? { convReduce: 'subgroup' } : {});
      const spec = simpleCnnSpec(width);
      const t = await Trainer.create(gpu, {
        spec,
        maxBatch: 4,
        optimizer: { name: 'sgd', lr: 0 },
        ...(tuning ? { tuning } : {}),
      });
      try {
        const params = initSimpleCnn(spec, 5);
        t.setParams(params);
        const images = Uint8Array.from({ length: batch * 3072 }, (_, i) => (i * 131 + 7) % 256);
        const labels = Int32Array.from({ length: batch }, (_, i) => (i * 3) % 10);
        const r = await t.step({ images, labels }, { update: false });
        const mean = [0.4914, 0.4822, 0.4465],
          std = [0.2023, 0.1994, 0.201];
        const x = Float32Array.from(images, (b, i) => {
          const c = Math.floor(i / 1024) % 3;
          return (b / 255 - (mean[c] ?? 0)) / (std[c] ?? 1);
        });
        const ref = simpleCnnStep(spec, params, x, labels);
        expectClose('loss', [r.loss], [ref.loss], { rtol: 1e-4, atol: 1e-5 });
        expectClose('logits', await t.readLogits(batch), ref.logits, { rtol: 1e-4, atol: 1e-5 });
        expectClose('grads', await t.readGrads(), ref.grad, { rtol: 1e-4, atol: 1e-5 });
      } finally {
        t.destroy();
      }
    });
  }
});
