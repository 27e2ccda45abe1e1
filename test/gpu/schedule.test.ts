// The lr schedule reaches every rank's optimizer: DDP on 2 workers with --lr 0.02 and
// LinearLR(start_factor=0.5) takes its first step at lr 0.01, so one step ends bit for bit where
// the same run at a constant --lr 0.01 ends; later steps follow the schedule (the --json step events).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-schedule-'));
const common = ['--store', join(dir, 'store'), '--workers', '2', '--batch-size', '2', '--test-limit', '4'];
const common2 = [...common, '--json', '--log-every', '1', '--check-every', '0'];

async function run(name: string, trainLimit: number, ...args: string[]) {
  const file = join(dir, `${name}.safetensors`);
  const r = await webddp('train', ...common2, '--train-limit', String(trainLimit), ...args, '--save', file);
  expect(r.code, r.err).toBe(0);
  const params = loadStateDict(new Uint8Array(readFileSync(file)), simpleCnnSpec(1), file);
  return { params, lrs: jsonLines(r.out, 'step').map((s) => s.lr) };
}

it('the first step of LinearLR(start_factor=0.5) at --lr 0.02 equals a step at lr 0.01, bit for bit', async () => {
  const constant = await run('constant', 4, '--lr', '0.01');
  const scheduled = await run('scheduled', 4, '--lr', '0.02', '--schedule', 'LinearLR:start_factor=0.5,total_iters=4');
  expect(constant.lrs).toEqual([0.01]);
  expect(scheduled.lrs).toEqual([0.01]);
  // (the files' metadata differ: it records each run's config)
  expect(Buffer.from(scheduled.params.buffer).equals(Buffer.from(constant.params.buffer))).toBe(true);
});

it('StepLR halves the lr every 2 steps over the run', async () => {
  const r = await run('steplr', 16, '--lr', '0.04', '--schedule', 'StepLR:step_size=2,gamma=0.5');
  expect(r.lrs).toEqual([0.04, 0.04, 0.02, 0.02]);
});
