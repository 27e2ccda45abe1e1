// fp16 and bf16 on one DDP worker run pipelined (fp16's loss scaler on the GPU: shaders/
// loss_scaler.wgsl, train/gpu-scaler.ts), and end bit for bit where the steps that wait for their
// flag end: the same run with an lr schedule that keeps the rate constant (StepLR, gamma 1) is not
// pipelined (ParallelMode.pipelines), so it takes the waiting path. Compared: every step's loss,
// loss scale, skipped flag and DeepSpeed's log lines, the saved parameters, a mid-epoch and a final
// checkpoint (fp32 master, optimizer state, the loss scaler's state); the pipelined run resumed
// from its mid-epoch checkpoint ends the same. The scale starts at 2^20 so that steps overflow and
// hysteresis is used before the scale halves. bf16 (no flag, nothing skipped) is compared with
// ZeRO-2 on one worker, whose steps wait for their loss. A traced fp16 run shows the overlap.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChromeTrace } from '../../src/trace/chrome.ts';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-fp16-pipelined-'));
const file = (...p: string[]) => readFileSync(join(dir, ...p));
const config = (name: string, json: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(json));
  return p;
};
const base = ['--store', join(dir, 'store'), '--train-limit', '24', '--test-limit', '2', '--workers', '1'];
const run = ['--epochs', '2', '--json', '--log-every', '1', '--checkpoint-every', '5', '--keep', '0'];
const CONSTANT = ['--schedule', 'StepLR:step_size=1000000,gamma=1'];

/** A run's step lines (what a step reports), its fp16 log lines by step, its saved files. */
async function train(name: string, extra: readonly string[]) {
  const r = await webddp(
    'train',
    ...base,
    ...run,
    ...extra,
    ...['--checkpoint-dir', join(dir, name), '--save', join(dir, `${name}.safetensors`)],
  );
  expect(r.code, r.err).toBe(0);
  const steps = jsonLines(r.out, 'step').map((s) => ({
    step: s.step,
    loss: s.loss,
    lr: s.lr,
    lossScale: s.loss_scale,
    skipped: s.skipped,
  }));
  const notes = jsonLines(r.out, 'fp16').map((l) => ({ step: l.step, messages: l.messages }));
  return { steps, notes };
}

/** A safetensors file's tensors (header and bytes) without its metadata (which holds the run's config). */
function tensors(bytes: Buffer) {
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString()) as Record<string, unknown>;
  delete header.__metadata__;
  return { header, data: bytes.subarray(8 + n) };
}

function expectSameTensors(a: Buffer, b: Buffer, what: string) {
  const [x, y] = [tensors(a), tensors(b)];
  expect(x.header, what).toEqual(y.header);
  expect(x.data.equals(y.data), what).toBe(true);
}

function expectSameFiles(a: string, b: string, checkpoints: readonly string[]) {
  expectSameTensors(file(`${a}.safetensors`), file(`${b}.safetensors`), 'saved parameters');
  for (const ck of checkpoints) {
    for (const f of ['model.safetensors', 'optimizer.safetensors'])
      expectSameTensors(file(a, ck, f), file(b, ck, f), `${ck}/${f}`);
    const fp16Of = (d: string) => (JSON.parse(file(d, ck, 'trainer.json').toString()) as { fp16?: unknown }).fp16;
    expect(fp16Of(a), `${ck}: the loss scaler's state`).toEqual(fp16Of(b));
  }
}

describe('fp16 and bf16 on one worker, pipelined', () => {
  it('fp16 (dynamic scale, Adam, clipping): the same bits as the steps that wait for their flag, through skipped steps', async () => {
    const ds = config('dynamic.json', {
      train_micro_batch_size_per_gpu: 4,
      gradient_clipping: 1.0,
      fp16: { enabled: true, initial_scale_power: 20, loss_scale_window: 2, hysteresis: 2 },
    });
    const flags = ['--deepspeed-config', ds, '--optimizer', 'adam'];
    const piped = await train('dyn-piped', flags);
    const waited = await train('dyn-waited', [...flags, ...CONSTANT]);
    expect(piped.steps).toHaveLength(12);
    expect(piped.steps).toEqual(waited.steps);
    expect(piped.notes).toEqual(waited.notes);
    const skipped = piped.steps.map((s) => s.skipped);
    expect(skipped.slice(0, 2)).toEqual([true, true]); // hysteresis, then the first halving
    expect(skipped).toContain(false);
    expect(new Set(piped.steps.map((s) => s.lossScale)).size).toBeGreaterThan(2); // halved, then doubled
    expectSameFiles('dyn-piped', 'dyn-waited', ['step-5', 'step-10', 'step-12']);

    // resumed mid-epoch (the GPU's scaler and step count loaded from the checkpoint): the same end
    const resumed = await webddp(
      'train',
      ...base,
      ...run,
      ...['--resume-from', join(dir, 'dyn-piped', 'step-5'), '--checkpoint-dir', join(dir, 'dyn-resumed')],
      ...['--save', join(dir, 'dyn-resumed.safetensors')],
    );
    expect(resumed.code, resumed.err).toBe(0);
    expect(jsonLines(resumed.out, 'step').map((s) => s.loss_scale)).toEqual(
      piped.steps.slice(5).map((s) => s.lossScale),
    );
    expectSameFiles('dyn-resumed', 'dyn-piped', ['step-10', 'step-12']);
  });

  it('fp16 with a static scale (SGD with momentum) and bf16: the same bits as the steps that wait', async () => {
    const ds = config('static.json', {
      train_micro_batch_size_per_gpu: 4,
      fp16: { enabled: true, loss_scale: 1024 },
    });
    const flags = ['--deepspeed-config', ds, '--optimizer', 'sgd', '--momentum', '0.9'];
    const piped = await train('static-piped', flags);
    const waited = await train('static-waited', [...flags, ...CONSTANT]);
    expect(piped.steps).toEqual(waited.steps);
    expectSameFiles('static-piped', 'static-waited', ['step-5', 'step-12']);

    // bf16 has no flag to wait for: its steps that wait for the loss are ZeRO-2's on one worker
    // (the same packing, widening and optimizer on the host's side of a one-rank ring)
    const bf16 = ['--bf16', '--batch-size', '4', '--optimizer', 'adamw'];
    const b1 = await train('bf16-piped', bf16);
    const b2 = await train('bf16-waited', ['--mode', 'zero2', ...bf16]);
    expect(b1.steps).toEqual(b2.steps);
    expectSameFiles('bf16-piped', 'bf16-waited', ['step-5', 'step-12']);
  });

  it('fp16 reads step k+1 while step k runs and allocates no GPU buffer per step once warm', async () => {
    const trace = join(dir, 'trace.json');
    const r = await webddp(
      'train',
      ...['--store', join(dir, 'store'), '--workers', '1', '--batch-size', '4', '--train-limit', '40', '--drop-last'],
      ...['--test-limit', '4', '--epochs', '1', '--json', '--log-every', '1', '--fp16', '--trace', trace],
    );
    expect(r.code, r.err).toBe(0);
    const steps = jsonLines(r.out, 'step');
    expect(steps).toHaveLength(10);
    const created = steps.map((s) => (s.workers as { buffers_created: number }[])[0]?.buffers_created ?? NaN);
    expect(created.slice(3), `buffers created after each step: ${created.join(', ')}`).toEqual(
      created.slice(3).map(() => created[3]),
    );
    const events = (JSON.parse(readFileSync(trace, 'utf8')) as ChromeTrace).traceEvents;
    const at = (name: string, step: number) => events.find((e) => e.name === name && e.args?.['step'] === step);
    for (let k = 1; k < 9; k++) {
      const stepK = at(`step ${k}`, k);
      const next = at('data', k + 1);
      expect(stepK && next, `step ${k} and the data of step ${k + 1} are traced`).toBeTruthy();
      expect(next?.ts ?? Infinity).toBeLessThan((stepK?.ts ?? 0) + (stepK?.dur ?? 0));
    }
  });
});
