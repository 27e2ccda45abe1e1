// An fp16 run resumes exactly: the checkpoint holds
// the float32 master weights (model.safetensors), the optimizer state, the loss scaler's state and
// the skipped steps. DDP on 2 workers, 4 steps an epoch, 2 epochs; the loss scale starts at 2^20 so
// that steps overflow and are skipped before the mid-epoch checkpoint (step 3) and after it. The
// run resumed from it ends with the uninterrupted run's bytes: the saved parameters, the final
// checkpoint's master and optimizer, and its scaler state. (ZeRO-1, ZeRO-3 and DataParallel were
// checked the same way by hand, see README.)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonLines, webddp } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-resume-fp16-'));
const ds = join(dir, 'ds_config.json');
writeFileSync(
  ds,
  JSON.stringify({
    train_micro_batch_size_per_gpu: 2,
    fp16: { enabled: true, initial_scale_power: 20, loss_scale_window: 2, hysteresis: 2 },
  }),
);
const base = ['--store', join(dir, 'store'), '--train-limit', '16', '--test-limit', '2', '--workers', '2'];
const run = ['--epochs', '2', '--json', '--log-every', '1'];
const file = (...p: string[]) => readFileSync(join(dir, ...p));
const fp16Of = (ck: string) => (JSON.parse(file(ck, 'trainer.json').toString()) as { fp16?: unknown }).fp16;

describe('fp16 checkpoints (Node workers, Dawn)', () => {
  it('DDP fp16 resumed mid-epoch = uninterrupted, byte for byte, through skipped steps', async () => {
    const full = await webddp(
      'train',
      ...base,
      ...run,
      ...['--deepspeed-config', ds, '--optimizer', 'adam', '--checkpoint-dir', join(dir, 'full')],
      ...['--checkpoint-every', '3', '--keep', '0', '--save', join(dir, 'full.safetensors')],
    );
    expect(full.code, full.err).toBe(0);
    const skipped = jsonLines(full.out, 'step').map((s) => s.skipped);
    expect(skipped.slice(0, 3)).toContain(true); // overflow before the checkpoint ...
    expect(skipped.slice(3)).toContain(true); // ... and after it
    expect(skipped).toContain(false);
    expect(fp16Of('full/step-3')).toMatchObject({ skippedSteps: skipped.slice(0, 3).filter(Boolean).length });

    const resumed = await webddp(
      'train',
      ...base,
      ...run,
      ...['--resume-from', join(dir, 'full', 'step-3'), '--checkpoint-dir', join(dir, 'resumed')],
      ...['--save', join(dir, 'resumed.safetensors')],
    );
    expect(resumed.code, resumed.err).toBe(0);
    expect(jsonLines(resumed.out, 'step').map((s) => s.skipped)).toEqual(skipped.slice(3));
    expect(file('resumed.safetensors').equals(file('full.safetensors')), 'saved parameters').toBe(true);
    for (const f of ['model.safetensors', 'optimizer.safetensors'])
      expect(file('resumed', 'step-8', f).equals(file('full', 'step-8', f)), f).toBe(true);
    expect(fp16Of('resumed/step-8')).toEqual(fp16Of('full/step-8'));
  });
});
