// fp16 activation storage (src/gpu/half-acts.ts): the rewrite of a kernel's activation bindings,
// and the whole fp16 model (parameters and activations as packed halves) against the CPU reference
// with the parameters rounded to half and the activations rounded where they are stored, under this
// device's tuning (SwiftShader: the wide kernels) and the real-GPU one (conv1 on the register
// kernels, conv2 on the tiled ones), so every kernel variant that touches an activation runs in its
// fp16 form; the activations category holds half the bytes of what it halves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gpu } from '../../src/gpu/device.ts';
import { halfActSource } from '../../src/gpu/half-acts.ts';
import { shaderSource } from '../../src/gpu/shader-sources.ts';
import { initSimpleCnn } from '../../src/nn/init.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { f16Round } from '../../src/numeric/f16.ts';
import { simpleCnnStep } from '../../src/reference/simplecnn.ts';
import { Trainer } from '../../src/train/trainer.ts';
import { fittedGpuTuning } from '../../src/check/cases/fit-tiles.ts';
import { expectClose } from '../helpers/gradcheck.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('half-acts');
});
afterAll(() => gpu?.destroy());

describe('fp16 activations', () => {
  it('rewrites loads and the store function, and refuses what it cannot rewrite', () => {
    const code = halfActSource('conv2d_forward', shaderSource('conv2d_forward'), ['x', 'y']);
    expect(code).toContain('var<storage, read> x: array<u32>;');
    expect(code).toContain('var<storage, read_write> y: array<u32>;');
    expect(code.match(/(?<![A-Za-z0-9_])x\[/g)).toHaveLength(1); // only inside x_at
    expect(code.match(/(?<![A-Za-z0-9_])y\[/g)).toHaveLength(1); // only inside the whole-word y_store2
    expect(code.match(/fn y_store2/g)).toHaveLength(1);
    expect(() => halfActSource('linear_forward', shaderSource('linear_forward'), ['y'])).toThrow(
      /linear_forward has no 'fn y_store2'/,
    );
    expect(() => halfActSource('linear_forward', shaderSource('linear_forward'), ['theta'])).toThrow(
      /no activation binding 'theta'/,
    );
    // a store of one half outside the pair function would race with the invocation writing the other half
    const single = shaderSource('maxpool2d_forward').replace('if (i >= count) { return; }', 'y[i] = 0.0;');
    expect(() => halfActSource('maxpool2d_forward', single, ['y'])).toThrow(/accesses 'y' outside y_store2/);
  });

  const spec = simpleCnnSpec(0.5);
  for (const kind of ['own', 'gpu'] as const) {
    it(`the fp16 model = the CPU reference on half parameters and half activations (${kind} tuning)`, async () => {
      const tuning = kind === 'gpu' ? fittedGpuTuning(gpu.device.limits.maxComputeInvocationsPerWorkgroup) : undefined;
      const batch = 2;
      const t = await Trainer.create(gpu, {
        spec,
        maxBatch: batch,
        optimizer: null,
        fp16: true,
        ...(tuning ? { tuning } : {}),
      });
      try {
        const params = initSimpleCnn(spec, 7);
        t.setParams(params);
        const images = Uint8Array.from({ length: batch * 3072 }, (_, i) => (i * 131 + 7) % 256);
        const labels = Int32Array.of(4, 9);
        const r = await t.step({ images, labels }, { update: false });
        const mean = [0.4914, 0.4822, 0.4465];
        const std = [0.2023, 0.1994, 0.201];
        const x = Float32Array.from(images, (b, i) => {
          const c = Math.floor(i / 1024) % 3;
          return (b / 255 - (mean[c] ?? 0)) / (std[c] ?? 1);
        });
        const ref = simpleCnnStep(spec, params.map(f16Round), x, labels, undefined, true);
        expectClose('loss', [r.loss], [ref.loss], { rtol: 1e-4, atol: 1e-5 });
        expectClose('logits', await t.readLogits(batch), ref.logits, { rtol: 1e-4, atol: 1e-5 });
        expectClose('grads', await t.readGrads(), ref.grad, { rtol: 1e-4, atol: 1e-5 });
        // and it is not the float32-activation result: the rounding is really there
        const full = simpleCnnStep(spec, params.map(f16Round), x, labels);
        expect(Math.abs(full.loss - ref.loss)).toBeGreaterThan(0);
      } finally {
        t.destroy();
      }
    });
  }

  it('the activations category holds the halved tensors in half the bytes', async () => {
    const batch = 2;
    const make = (fp16: boolean) => Trainer.create(gpu, { spec, maxBatch: batch, optimizer: null, fp16 });
    const sizes: number[] = [];
    for (const fp16 of [false, true]) {
      const before = gpu.memory.snapshot().byCategory.activations.allocated;
      const t = await make(fp16);
      sizes.push(gpu.memory.snapshot().byCategory.activations.allocated - before);
      t.destroy();
    }
    // input, conv1, pool1, conv2, pool2 per sample, in floats
    const halved = 3072 + spec.c1 * (1024 + 256) + spec.c2 * (256 + 64);
    expect((sizes[0] ?? 0) - (sizes[1] ?? 0)).toBe(batch * halved * 2);
  });
});
