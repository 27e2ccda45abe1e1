// DataParallel accumulates gradients like any module (only no_sync is DDP's): gradAccum whole
// DataParallel forward/backward passes, each loss scaled by 1/gradAccum, then one optimizer step,
// end where DDP with the same global batch and accumulation ends.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { compareTensors } from '../../src/reference/compare.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-dp-accum-'));
const flags = ['--store', join(dir, 'store'), '--train-limit', '32', '--test-limit', '8', '--epochs', '1'];
const common = [...flags, '--json', '--log-every', '1', '--workers', '2', '--batch-size', '4', '--grad-accum', '2'];
const spec = simpleCnnSpec(1);

async function train(name: string, ...args: string[]): Promise<{ params: Float32Array; steps: number }> {
  const file = join(dir, `${name}.safetensors`);
  const r = await webddp('train', ...common, '--optimizer', 'adam', ...args, '--save', file);
  expect(r.code, r.err).toBe(0);
  return {
    params: loadStateDict(new Uint8Array(readFileSync(file)), spec, file),
    steps: jsonLines(r.out, 'step').length,
  };
}

describe('DataParallel with gradient accumulation (Node worker threads, Dawn)', () => {
  it('DataParallel and BalancedDataParallel with --grad-accum 2 end where DDP with --grad-accum 2 ends', async () => {
    const ddp = await train('ddp');
    // 32 samples, 2 workers x 4 per micro-batch, 2 micro-batches per step: 2 optimizer steps.
    expect(ddp.steps).toBe(2);
    for (const mode of ['dp', 'balanced-dp']) {
      const other = await train(mode, '--mode', mode, '--gpu0-bsz', '2');
      expect(other.steps, mode).toBe(2);
      // The tolerance distributed.test.ts gives DataParallel against DDP (other summation order).
      const c = compareTensors(other.params, ddp.params, { rtol: 1e-3, atol: 1e-4 });
      expect(c.mismatches / c.count, `${mode}: max abs ${c.maxAbs}`).toBeLessThan(0.001);
      expect(compareTensors(other.params, ddp.params, { rtol: 0, atol: 5e-3 }).ok, mode).toBe(true);
    }
  });
});
