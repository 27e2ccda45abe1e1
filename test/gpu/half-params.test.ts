// fp16 parameter storage (src/gpu/half-params.ts): the layers reading packed halves compute, bit
// for bit, what the float32 kernels compute on the half-rounded parameters (logits, loss and every
// gradient), under this device's tuning and the real-GPU one (tiled and register kernels), so every
// kernel that reads parameters runs in its f16 form; the float32 master starts from the halves.
// The activations stay float32 here (halfActivations: false), so that only the parameters differ;
// test/gpu/half-acts.test.ts checks them with the activations halved too.
// bfloat16 parameter storage likewise, on bfloat16-rounded parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gpu } from '../../src/gpu/device.ts';
import { halfThetaSource } from '../../src/gpu/half-params.ts';
import { shaderSource } from '../../src/gpu/shader-sources.ts';
import { initSimpleCnn } from '../../src/nn/init.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { f16Round } from '../../src/numeric/f16.ts';
import { bf16Round } from '../../src/numeric/bf16.ts';
import { DEFAULT_CONFIG } from '../../src/config.ts';
import { optimizerOf } from '../../src/parallel/mode.ts';
import { Trainer } from '../../src/train/trainer.ts';
import { fittedGpuTuning } from '../../src/check/cases/fit-tiles.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('half-params');
});
afterAll(() => gpu?.destroy());

describe('fp16 parameters', () => {
  it('rewrites every theta load and refuses a kernel that has none', () => {
    const code = halfThetaSource('linear_forward', shaderSource('linear_forward'));
    expect(code).toContain('var<storage, read> theta: array<u32>;');
    expect(code.match(/theta\[/g)).toHaveLength(1); // only inside theta_at
    expect(() => halfThetaSource('sgd_step', shaderSource('sgd_step'))).toThrow(/no read-only 'theta/);
  });

  for (const [format, round] of [
    ['fp16', f16Round],
    ['bf16', bf16Round],
  ] as const)
    for (const kind of ['own', 'gpu'] as const) {
      it(`layers on packed ${format} = float32 layers on ${format}-rounded parameters (${kind} tuning)`, async () => {
        const tuning =
          kind === 'gpu' ? fittedGpuTuning(gpu.device.limits.maxComputeInvocationsPerWorkgroup) : undefined;
        const spec = simpleCnnSpec(0.5);
        const optimizer = optimizerOf(DEFAULT_CONFIG); // a master exists only where an optimizer steps
        const make = (half: boolean) =>
          Trainer.create(gpu, {
            spec,
            maxBatch: 2,
            optimizer,
            ...(half ? { [format]: true } : {}),
            halfActivations: false,
            ...(tuning ? { tuning } : {}),
          });
        const [half, full] = await Promise.all([make(true), make(false)]);
        try {
          const params = initSimpleCnn(spec, 3);
          half.setParams(params);
          full.setParams(params.map(round));
          expect(half.params.size).toBe(Math.ceil(spec.total / 2) * 4);
          const images = Uint8Array.from({ length: 2 * 3072 }, (_, i) => (i * 37 + 11) % 256);
          const labels = Int32Array.of(3, 8);
          const [a, b] = [
            await half.step({ images, labels }, { update: false }),
            await full.step({ images, labels }, { update: false }),
          ];
          expect(a.loss).toBe(b.loss);
          expect(await half.readLogits(2)).toEqual(await full.readLogits(2));
          expect(await half.readGrads()).toEqual(await full.readGrads());
          expect(await half.readParams()).toEqual(params.map(round));
          expect(await half.master?.read()).toEqual(params.map(round)); // DeepSpeed's master starts from the halves
        } finally {
          half.destroy();
          full.destroy();
        }
      });
    }
});
