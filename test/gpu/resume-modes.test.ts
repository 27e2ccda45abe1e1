// Exact resume in the modes test/gpu/lifecycle.test.ts leaves out: DataParallel,
// BalancedDataParallel, ZeRO-1 and ZeRO-2, each with its own optimizer and schedule. One run that
// never stops writes checkpoints (every 3 steps and at each epoch's end); a run resumed from the
// mid-epoch one (global step 3 = epoch 1, step 1) must end with the same bytes. A lost device
// before any checkpoint: --max-restarts starts again from the initial state, to the same bytes.
// A different worker count (2 -> 1): mid-epoch, the checkpoint's sample ledger deals the epoch's
// remaining records to the new rank (each once; a checkpoint without a ledger is refused), and
// from an epoch's end the new shards start the new epoch. Tiny synthetic
// runs: 8 records, batch 2 on 2 workers, 2 epochs of 2 steps.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-resume-'));
const base = ['--store', join(dir, 'store'), '--train-limit', '8', '--test-limit', '2', '--batch-size', '2'];
const run = ['--workers', '2', '--epochs', '2', '--json', '--log-every', '0'];

const table: readonly { mode: string; flags: readonly string[] }[] = [
  {
    mode: 'dp',
    flags: ['--optimizer', 'sgd', '--momentum', '0.9', '--clip-grad-norm', '0.5', '--schedule', 'StepLR:step_size=1'],
  },
  { mode: 'balanced-dp', flags: ['--gpu0-bsz', '1', '--optimizer', 'adamw', '--schedule', 'OneCycleLR:max_lr=0.05'] },
  { mode: 'zero1', flags: ['--optimizer', 'adam', '--schedule', 'WarmupDecayLR:warmup_num_steps=2'] },
  { mode: 'zero2', flags: ['--optimizer', 'sgd', '--momentum', '0.9', '--schedule', 'WarmupCosineLR'] },
];

async function train(name: string, ...args: string[]): Promise<{ file: string; out: string }> {
  const file = join(dir, `${name}.safetensors`);
  const r = await webddp('train', ...base, ...run, ...args, '--save', file);
  expect(r.code, r.err + r.out).toBe(0);
  return { file, out: r.out };
}

describe('exact resume in every mode (Node workers, Dawn)', () => {
  it.each(table)('$mode: resumed mid-epoch = uninterrupted, byte for byte', async ({ mode, flags }) => {
    const ck = join(dir, `${mode}-ck`);
    const full = await train(
      `${mode}-full`,
      '--mode',
      mode,
      ...flags,
      '--checkpoint-dir',
      ck,
      '--checkpoint-every',
      '3',
      '--keep',
      '0',
    );
    expect(jsonLines(full.out, 'checkpoint').map((c) => c.global_step)).toEqual([2, 3, 4]);
    const resumed = await train(`${mode}-resumed`, '--mode', mode, ...flags, '--resume-from', join(ck, 'step-3'));
    expect(readFileSync(resumed.file).equals(readFileSync(full.file)), `${mode} resumed differs`).toBe(true);
  });

  it('zero2: rank 1 loses its device at step 2 before any checkpoint: restarted from the initial state, same bytes', async () => {
    const flags = table.find((t) => t.mode === 'zero2')?.flags ?? [];
    const r = await train(
      'zero2-lost',
      '--mode',
      'zero2',
      ...flags,
      '--inject-fault',
      '1:2:device-lost',
      '--max-restarts',
      '1',
    );
    expect(jsonLines(r.out, 'restart')).toMatchObject([{ attempt: 1, rank: 1, kind: 'device-lost', from_step: 0 }]);
    expect(readFileSync(r.file).equals(readFileSync(join(dir, 'zero2-full.safetensors'))), 'restarted differs').toBe(
      true,
    );
  });

  it('a different worker count (2 -> 1): mid-epoch the ledger deals the rest, each once (refused without a ledger); from an epoch end the new shards train on', async () => {
    const ck = join(dir, 'zero1-ck'); // written by the zero1 row above
    // epoch 1 stopped after 1 of its 2 steps on 2 ranks (4 records): one worker trains the other 4
    const mid = await webddp(
      'train',
      ...base,
      '--workers',
      '1',
      '--json',
      '--log-every',
      '1',
      '--resume-from',
      join(ck, 'step-3'),
    );
    expect(mid.code, mid.err + mid.out).toBe(0);
    expect(jsonLines(mid.out, 'ledger')).toMatchObject([
      {
        epoch: 1,
        once: 8,
        before: 4,
        after: 4,
        text: 'epoch 1: 8 samples, each once; 4 before the checkpoint on 2 ranks, 4 after on 1',
      },
    ]);
    expect(jsonLines(mid.out, 'step').map((s) => s.step)).toEqual([1, 2]);
    // a mid-epoch checkpoint without a ledger (an older webddp's) still resumes only on its own ranks
    const old = join(dir, 'zero1-no-ledger');
    cpSync(join(ck, 'step-3'), old, { recursive: true });
    const t = JSON.parse(readFileSync(join(old, 'trainer.json'), 'utf8')) as Record<string, unknown>;
    delete t.ledger;
    writeFileSync(join(old, 'trainer.json'), JSON.stringify(t));
    const refused = await webddp('train', ...base, '--workers', '1', '--resume-from', old);
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain(old);
    expect(refused.err).toMatch(/with 2 workers and no sample ledger/);
    // one worker now: it takes all 8 records of epoch 1, 4 steps of batch 2
    const r = await webddp('train', ...base, '--workers', '1', '--json', '--resume-from', join(ck, 'step-2'));
    expect(r.code, r.err + r.out).toBe(0);
    const epochs = jsonLines(r.out, 'epoch');
    expect(epochs.map((e) => e.epoch)).toEqual([1]);
    expect(epochs[0]?.workers).toHaveLength(1);
  });
});
