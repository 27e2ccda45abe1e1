// A run survives: a run resumed from a mid-epoch checkpoint ends with the bytes of the
// run that never stopped (DDP with Adam, augmentation and a schedule; ZeRO-3 stopped by
// --max-steps); a worker killed mid-run recovers (--max-restarts) to the same bytes; a corrupted
// checkpoint is refused naming the file; a checkpoint records its dataset, a resume without --data
// takes it and one given other data is refused naming both (no run added: it reuses the DDP
// checkpoints). Tiny synthetic runs, 2 workers, 2 epochs of 4 steps.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeFiles } from '../helpers/cifar-fixture.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-life-'));
// 16 records, batch 2 on 2 workers: 4 steps per epoch, 2 epochs.
const base = [
  '--store',
  join(dir, 'store'),
  '--train-limit',
  '16',
  '--test-limit',
  '4',
  '--batch-size',
  '2',
  '--workers',
  '2',
  '--epochs',
  '2',
  '--json',
  '--log-every',
  '0',
];
const tensorBytes = (file: string) => {
  // the same tensors, byte for byte (the header's metadata holds the config, equal here too)
  return readFileSync(file);
};

async function train(name: string, ...args: string[]): Promise<{ file: string; out: string }> {
  const file = join(dir, `${name}.safetensors`);
  const r = await webddp('train', ...base, ...args, '--save', file);
  expect(r.code, r.err + r.out).toBe(0);
  return { file, out: r.out };
}

describe('checkpoints, exact resume and restarts (Node workers, Dawn)', () => {
  const ddp = ['--optimizer', 'adam', '--augment', '--schedule', 'StepLR:step_size=3,gamma=0.5'];
  const ddpCk = join(dir, 'ddp-ck');

  it('DDP (Adam, augmentation, StepLR): resumed mid-epoch = uninterrupted; a killed worker recovers to the same bytes', async () => {
    const full = await train('ddp-full', ...ddp, '--checkpoint-dir', ddpCk, '--checkpoint-every', '3', '--keep', '0');
    expect(jsonLines(full.out, 'checkpoint').map((c) => c.global_step)).toEqual([3, 4, 6, 8]);
    const trainer = JSON.parse(readFileSync(join(ddpCk, 'step-3', 'trainer.json'), 'utf8')) as Record<string, unknown>;
    expect([trainer.epoch, trainer.stepInEpoch, trainer.globalStep]).toEqual([0, 3, 3]);
    const [data] = jsonLines(full.out, 'data');
    expect(data).toMatchObject({ name: 'synthetic', train: 10000, test: 2000, from: '--data' });
    expect(trainer.dataset).toEqual({
      kind: 'stored',
      name: 'synthetic',
      source: { kind: 'synthetic', description: 'synthetic shapes: seed 0, 10000 train, 2000 test, noise 16' },
      train: 10000,
      test: 2000,
      content: data?.content,
    });
    // no --data: the resume reads the dataset the checkpoint records
    const resumed = await train('ddp-resumed', ...ddp, '--resume-from', join(ddpCk, 'step-3'));
    expect(jsonLines(resumed.out, 'data')).toEqual([{ ...data, from: 'checkpoint' }]);
    expect(tensorBytes(resumed.file).equals(tensorBytes(full.file)), 'resumed differs').toBe(true);

    // rank 1 exits at its 6th step (rank 0 is then inside the all-reduce): restart from step 4's checkpoint
    const restarted = await train(
      'ddp-restarted',
      ...ddp,
      '--checkpoint-dir',
      join(dir, 'ddp-restart-ck'),
      '--checkpoint-every',
      '2',
      '--inject-fault',
      '1:5:exit',
      '--max-restarts',
      '1',
    );
    const [restart] = jsonLines(restarted.out, 'restart');
    expect(restart).toMatchObject({ attempt: 1, rank: 1, kind: 'exit', from_step: 4 });
    expect(tensorBytes(restarted.file).equals(tensorBytes(full.file)), 'restarted differs').toBe(true);
  });

  it('ZeRO-3: stopped by --max-steps mid-epoch (optimizer shards and parameters gathered) and resumed = uninterrupted', async () => {
    const full = await train('zero3-full', '--mode', 'zero3');
    const ck = join(dir, 'zero3-ck');
    const stop = await webddp('train', ...base, '--mode', 'zero3', '--checkpoint-dir', ck, '--max-steps', '5');
    expect(stop.code, stop.err).toBe(0);
    expect(readdirSync(ck)).toEqual(['step-4', 'step-5']);
    const resumed = await train('zero3-resumed', '--mode', 'zero3', '--resume-from', ck);
    expect(tensorBytes(resumed.file).equals(tensorBytes(full.file)), 'resumed differs').toBe(true);
  });

  it('refuses to resume on other data than the checkpoint records, naming both, before any worker starts', async () => {
    const cifar = join(dir, 'cifar');
    mkdirSync(cifar);
    for (const [name, bytes] of makeFiles(4, 3)) writeFileSync(join(cifar, name), bytes);
    const ck = join(ddpCk, 'step-3');
    const content = (JSON.parse(readFileSync(join(ck, 'trainer.json'), 'utf8')) as { dataset: { content: string } })
      .dataset.content;
    const args = base.map((a) => (a === join(dir, 'store') ? join(dir, 'store-cifar') : a));
    const r = await webddp('train', ...args, ...ddp, '--resume-from', ck, '--data', cifar);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(
      `${ck} was trained on dataset 'synthetic' (10000 train, 2000 test records, content ${content.slice(0, 16)}...); ` +
        "this run's data is dataset 'cifar10' (20 train, 3 test records, content ",
    );
    expect(r.err).toContain('give --data synthetic (or no --data)');
    expect(jsonLines(r.out, 'start')).toEqual([]);
  });

  it('refuses a corrupted checkpoint, naming the file and what is wrong', async () => {
    const ck = join(ddpCk, 'step-4');
    const file = join(ck, 'optimizer.safetensors');
    const bytes = readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0x55, bytes.length - 1);
    writeFileSync(file, bytes);
    const r = await webddp('train', ...base, ...ddp, '--resume-from', ck);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(`${file}: SHA-256`);
    expect(r.err).toMatch(/corrupted/);
  });
});
