// The replica check (--check-every) of a pipelined run is taken inside the step: each rank copies
// its parameters as soon as the step's work is submitted, before the next step's (already asked
// for) is, and hashes them while the next steps run. Its checksums must be those of the parameters
// after exactly that step: the same run saving a checkpoint there (which pauses the pipeline)
// holds parameters with the same SHA-256, for one worker and for ranks sharing a device.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-replica-check-'));
const spec = simpleCnnSpec(0.125);
const base = ['--store', join(dir, 'store'), '--width', '0.125', '--test-limit', '8'];

describe('the replica check of a pipelined run', () => {
  for (const [name, flags] of [
    ['one worker', ['--workers', '1', '--batch-size', '32', '--train-limit', '192']],
    ['two ranks sharing a device', ['--workers', '2', '--batch-size', '32', '--train-limit', '384', '--colocate']],
  ] as const) {
    it(`${name}: each check's checksums are the parameters after its step`, async () => {
      const checked = await webddp('train', ...base, ...flags, '--epochs', '1', '--check-every', '2', '--json');
      expect(checked.code, checked.err).toBe(0);
      const ckpt = join(dir, name.replace(/ /g, '-'));
      const saved = await webddp(
        'train',
        ...base,
        ...flags,
        ...['--epochs', '1', '--check-every', '0', '--checkpoint-dir', ckpt, '--checkpoint-every', '2', '--keep', '10'],
      );
      expect(saved.code, saved.err).toBe(0);
      // checks after steps 2 and 4 of the epoch's 6; 6 is the epoch's end, checked again after
      // evaluating
      const checks = jsonLines(checked.out, 'check').filter((c) => (c.step as number) < 5);
      expect(checks.map((c) => c.step)).toEqual([1, 3]);
      const world = flags[1] === '2' ? 2 : 1;
      for (const c of checks) {
        const sums = c.checksums as string[];
        expect(sums).toHaveLength(world);
        const model = readFileSync(join(ckpt, `step-${(c.step as number) + 1}`, 'model.safetensors'));
        const params = loadStateDict(new Uint8Array(model), spec, `step ${String(c.step)}`);
        const want = createHash('sha256').update(new Uint8Array(params.buffer)).digest('hex');
        for (const s of sums) expect(s).toBe(want);
      }
    });
  }
});
