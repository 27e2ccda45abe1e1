// Continuing on a cluster: a checkpoint exported with `webddp export-torchrun` and run
// with PyTorch (Debian's python3-torch, CPU, gloo, 2 processes under torchrun) ends with the
// parameters webddp reaches continuing the same run for the same steps: DDP with SGD (momentum,
// weight decay), augmentation, accumulation, clipping and CosineAnnealingLR from a mid-epoch
// checkpoint, within the fixtures' strict tolerance; ZeRO-2 with AdamW and DeepSpeed's
// WarmupDecayLR within the Adam tolerance, with its ds_config.json read back by webddp's reader.
// Broken checkpoints are refused naming the file. Tiny runs: width 0.25, 16 records, batch 2.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadStateDict } from '../../src/checkpoint/state-dict.ts';
import { parseDeepSpeedConfig } from '../../src/deepspeed/config.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { checkTensor, type RuleName } from '../../src/parity/tolerance.ts';
import { webddp } from '../helpers/cli.ts';
import { freePort, torchPython } from '../helpers/torch-python.ts';

/** A file's bytes as a plain Uint8Array (getF32 copies with slice(), which on a Node Buffer is a view). */
const bytesOf = (f: string) => new Uint8Array(readFileSync(f));

const dir = mkdtempSync(join(tmpdir(), 'webddp-export-'));
const spec = simpleCnnSpec(0.25);
// 16 records, batch 2 on 2 workers: 4 micro-batches per rank and epoch, 2 epochs.
const base = ['--store', join(dir, 'store'), '--train-limit', '16', '--test-limit', '2', '--batch-size', '2'];
const common = [...base, '--workers', '2', '--epochs', '2', '--width', '0.25', '--json', '--log-every', '0'];

/** webddp trains the whole run, saving every step's checkpoint and the final parameters. */
async function trainRun(name: string, args: string[]): Promise<{ ck: string; final: string }> {
  const ck = join(dir, `${name}-ck`);
  const final = join(dir, `${name}-final.safetensors`);
  const r = await webddp(
    'train',
    ...common,
    ...args,
    '--checkpoint-dir',
    ck,
    '--checkpoint-every',
    '1',
    '--keep',
    '0',
    '--save',
    final,
  );
  expect(r.code, r.err + r.out).toBe(0);
  return { ck, final };
}

/** torchrun (Debian's torch 1.13 on Python 3.11 needs --redirects/--tee other than 0) over the exported train.py. */
async function torchrun(project: string, out: string, nproc = 2): Promise<string> {
  const py = torchPython();
  const port = await freePort();
  const args = ['-m', 'torch.distributed.run', '--nnodes', '1', '--nproc_per_node', String(nproc)];
  args.push('--master_addr', '127.0.0.1');
  args.push('--master_port', String(port), '--redirects', '2', '--tee', '2', 'train.py', '--save', out);
  const r = await promisify(execFile)(py, args, {
    cwd: project,
    env: { ...process.env, OMP_NUM_THREADS: '1' },
    timeout: 120_000,
  });
  return r.stdout + r.stderr;
}

function compare(actualFile: string, expectedFile: string, rule: RuleName): void {
  const actual = loadStateDict(bytesOf(actualFile), spec, actualFile);
  const expected = loadStateDict(bytesOf(expectedFile), spec, expectedFile);
  for (const p of spec.params) {
    const row = checkTensor(
      p.name,
      rule,
      actual.subarray(p.offset, p.offset + p.size),
      expected.subarray(p.offset, p.offset + p.size),
    );
    expect(
      row.ok,
      `${p.name}: max abs ${row.main.maxAbs}, ${row.main.mismatches}/${row.main.count} out of tolerance`,
    ).toBe(true);
  }
}

describe('webddp export-torchrun: PyTorch continues the run', () => {
  it('DDP, SGD + augmentation + accumulation + clipping + CosineAnnealingLR, from step 1 of epoch 0: PyTorch = webddp (strict)', async () => {
    const run = await trainRun('ddp', [
      '--optimizer',
      'sgd',
      '--momentum',
      '0.9',
      '--weight-decay',
      '0.01',
      '--augment',
      '--grad-accum',
      '2',
      '--clip-grad-norm',
      '0.5',
      '--schedule',
      'CosineAnnealingLR:T_max=4',
    ]);
    const project = join(dir, 'ddp-project');
    const ex = await webddp('export-torchrun', join(run.ck, 'step-1'), '--out', project);
    expect(ex.code, ex.err).toBe(0);
    expect(ex.err).toMatch(/--augment: train\.py draws/);
    const readme = readFileSync(join(project, 'README.md'), 'utf8');
    expect(readme).toContain('torchrun --standalone --nnodes 1 --nproc_per_node 2 train.py');
    expect(readme).toMatch(/--rdzv_backend c10d/);
    const out = join(dir, 'ddp-torch.safetensors');
    const log = await torchrun(project, out);
    // three optimizer steps after the checkpoint's one, across the epoch boundary
    // the batch index from 0, as webddp's own log prints it (Epoch 1 | Batch 1/2: the epoch's last)
    expect(log).toMatch(/Epoch 1 \| Batch 1\/2 \| Loss: [\d.]+ \| global step 4/);
    compare(out, run.final, 'strict');
    // and it moved: the checkpoint's parameters are not the end's
    const start = loadStateDict(bytesOf(join(run.ck, 'step-1', 'model.safetensors')), spec, 'step-1');
    const end = loadStateDict(bytesOf(out), spec, out);
    expect(checkTensor('all', 'strict', end, start).ok).toBe(false);
  });

  it('DDP mid-epoch on another world size (2 -> 1): train.py deals the sample ledger as webddp does (strict)', async () => {
    const run = await trainRun('ledger', ['--optimizer', 'sgd', '--momentum', '0.9']);
    // step 1 of epoch 0 on 2 ranks: 4 of the 16 records consumed; one rank takes the other 12
    const resumed = join(dir, 'ledger-webddp-1.safetensors');
    const w1 = await webddp(
      'train',
      ...base,
      ...['--workers', '1', '--log-every', '0', '--resume-from', join(run.ck, 'step-1'), '--save', resumed],
    );
    expect(w1.code, w1.err).toBe(0);
    expect(w1.err + w1.out).toContain(
      'epoch 0: 16 samples, each once; 4 before the checkpoint on 2 ranks, 12 after on 1',
    );
    const project = join(dir, 'ledger-project');
    const ex = await webddp('export-torchrun', join(run.ck, 'step-1'), '--out', project);
    expect(ex.code, ex.err).toBe(0);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toMatch(/carries the epoch's sample ledger/);
    const out = join(dir, 'ledger-torch.safetensors');
    const log = await torchrun(project, out, 1);
    // epoch 0: step 0 done, then 6 batches of 2 (batches 1..6 of 7); epoch 1: 8 batches (0..7) on one rank
    expect(log).toMatch(/Epoch 0 \| Batch 6\/7 \| Loss: [\d.]+ \| global step 7/);
    expect(log).toMatch(/Epoch 1 \| Batch 7\/8 \| Loss: [\d.]+ \| global step 15/);
    compare(out, resumed, 'strict');
  });

  it('ZeRO-2, AdamW + WarmupDecayLR, from the end of epoch 0: PyTorch = webddp (Adam tolerance); ds_config.json reads back', async () => {
    const run = await trainRun('zero2', [
      '--mode',
      'zero2',
      '--optimizer',
      'adamw',
      '--lr',
      '0.002',
      '--weight-decay',
      '0.05',
      '--schedule',
      'WarmupDecayLR:warmup_num_steps=3,warmup_max_lr=0.002',
    ]);
    const project = join(dir, 'zero2-project');
    const ex = await webddp('export-torchrun', join(run.ck, 'step-4'), '--out', project);
    expect(ex.code, ex.err).toBe(0);
    const ds = JSON.parse(readFileSync(join(project, 'ds_config.json'), 'utf8')) as Record<string, unknown>;
    const back = parseDeepSpeedConfig(ds, 2);
    expect(back.ok && back.settings.fields).toMatchObject({
      mode: 'zero2',
      optimizer: 'adamw',
      lr: 0.002,
      weightDecay: 0.05,
      batchSize: 2,
      gradAccum: 1,
      clipGradNorm: 0,
    });
    expect(ds.scheduler).toEqual({
      type: 'WarmupDecayLR',
      params: { warmup_num_steps: 3, warmup_max_lr: 0.002, warmup_min_lr: 0, warmup_type: 'log', total_num_steps: 8 },
    });
    const out = join(dir, 'zero2-torch.safetensors');
    await torchrun(project, out);
    compare(out, run.final, 'adam');
  });

  it('refuses a missing or corrupted checkpoint, naming the file, and writes nothing', async () => {
    const missing = join(dir, 'no-such-checkpoint');
    const a = await webddp('export-torchrun', missing, '--out', join(dir, 'out-a'));
    expect(a.code).toBe(1);
    expect(a.err).toContain(`${missing}: cannot read it`);
    const ck = join(dir, 'ddp-ck', 'step-2');
    const file = join(ck, 'model.safetensors');
    const bytes = readFileSync(file);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 0x55, bytes.length - 1);
    writeFileSync(file, bytes);
    const b = await webddp('export-torchrun', ck, '--out', join(dir, 'out-b'));
    expect(b.code).toBe(1);
    expect(b.err).toContain(`${file}: SHA-256`);
    expect(() => readFileSync(join(dir, 'out-b', 'train.py'))).toThrow(/ENOENT/);
  });
});
