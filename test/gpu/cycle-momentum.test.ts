// OneCycleLR's cycle_momentum applied to the optimizers: the momentum (SGD) and beta1 (Adam) the
// schedule gives at each step (its values are PyTorch's: test/unit/lr-schedules.test.ts against
// torch's fixture) reach the GPU optimizer step by step, which then ends where the CPU reference
// (PyTorch's update formulas) ends with the same per-step lr and momentum; and optimizerOf starts
// them at max_momentum, as PyTorch's OneCycleLR constructor does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.ts';
import { bufferFrom, readFloats } from '../../src/gpu/buffers.ts';
import type { Gpu } from '../../src/gpu/device.ts';
import { Recorder } from '../../src/gpu/recorder.ts';
import { createOptimizer } from '../../src/optim/create-optimizer.ts';
import { optimizerOf } from '../../src/parallel/mode.ts';
import { adamInit, adamStep } from '../../src/reference/adam.ts';
import { sgdInit, sgdStep } from '../../src/reference/sgd.ts';
import { parseSchedule } from '../../src/schedule/params.ts';
import { stepSchedule } from '../../src/schedule/index.ts';
import type { LrScheduleConfig } from '../../src/schedule/types.ts';
import { expectClose } from '../helpers/gradcheck.ts';
import { randn } from '../../src/check/cases/run-op.ts';
import { testGpu } from '../helpers/gpu.ts';

let gpu: Gpu;
beforeAll(async () => {
  gpu = await testGpu('cycle-momentum');
});
afterAll(() => gpu?.destroy());

const N = 301;
const STEPS = 6;
const parsed = parseSchedule(
  { type: 'OneCycleLR', params: { max_lr: 0.1, total_steps: STEPS, base_momentum: 0.8, max_momentum: 0.9 } },
  'schedule',
  false,
);
if (!parsed.ok) throw new Error(parsed.issues.join('; '));
const schedule: LrScheduleConfig = parsed.config;

describe('OneCycleLR cycle_momentum', () => {
  it('starts SGD momentum and Adam beta1 at max_momentum (PyTorch sets them in the constructor)', () => {
    expect(optimizerOf({ ...DEFAULT_CONFIG, momentum: 0, schedule }).momentum).toBe(0.9);
    expect(optimizerOf({ ...DEFAULT_CONFIG, optimizer: 'adam', schedule }).betas).toEqual([0.9, 0.999]);
    expect(optimizerOf({ ...DEFAULT_CONFIG, momentum: 0.5 }).momentum).toBe(0.5);
  });

  for (const name of ['sgd', 'adam'] as const) {
    it(`${name}: the GPU steps with the schedule's lr and ${name === 'sgd' ? 'momentum' : 'beta1'} as the reference does`, async () => {
      const s = stepSchedule(schedule, 0.01, STEPS);
      const moms = Array.from({ length: STEPS }, (_, k) => s.momentum?.(k) ?? NaN);
      expect(new Set(moms).size).toBeGreaterThan(2); // it does cycle
      const p0 = randn(N, 7);
      const grads = Array.from({ length: STEPS }, (_, k) => randn(N, 100 + k));
      const params = bufferFrom(gpu, 'test.params', p0, 'other');
      const g = bufferFrom(gpu, 'test.grads', grads[0]!, 'other');
      const config = optimizerOf({ ...DEFAULT_CONFIG, optimizer: name, schedule });
      const opt = await createOptimizer(gpu, config, { params, grads: g, paramOffset: 0, gradOffset: 0, count: N });
      const ref = p0.slice();
      const sgd = sgdInit();
      const adam = adamInit(N);
      try {
        for (let k = 0; k < STEPS; k++) {
          const lr = s.lr(k);
          const m = moms[k]!;
          gpu.device.queue.writeBuffer(g, 0, grads[k]!);
          opt.setMomentum(m);
          const rec = new Recorder(gpu, 'test.step');
          opt.record(rec, lr);
          rec.submit();
          if (name === 'sgd') sgdStep(ref, grads[k]!, sgd, { lr, momentum: m });
          else adamStep(ref, grads[k]!, adam, { lr, beta1: m, beta2: 0.999, eps: 1e-8, weightDecay: 0 });
        }
        expectClose('params', await readFloats(gpu, params), ref, { rtol: 1e-5, atol: 1e-6 });
      } finally {
        opt.destroy();
        gpu.memory.destroy(params);
        gpu.memory.destroy(g);
      }
    });
  }
});
