// Full checkpoints without a GPU: the three files round-trip; the optimizer file holds torch.optim's
// names and shapes; a flipped byte, a truncated file or a foreign trainer.json is refused naming
// the file; the directory store writes step-N atomically, keeps the newest K, and a failed write
// leaves the earlier checkpoints and no temporary directory.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError, decodeCheckpoint, encodeCheckpoint, type Snapshot } from '../../src/checkpoint/checkpoint.ts';
import { readCheckpointDir, resolveCheckpointDir, writeCheckpointDir } from '../../src/checkpoint/dir-node.ts';
import { parseSafetensors } from '../../src/checkpoint/safetensors.ts';
import { DEFAULT_CONFIG } from '../../src/config.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';

const spec = simpleCnnSpec(0.125);
const ramp = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k));
const snapshot: Snapshot = {
  config: { ...DEFAULT_CONFIG, width: 0.125, optimizer: 'adam', lr: 1e-3 },
  position: { epoch: 1, step: 2, globalStep: 7, stepsPerEpoch: 5 },
  params: ramp(spec.total, 0.1),
  optimizer: { step: 7, buffers: { exp_avg: ramp(spec.total, 0.2), exp_avg_sq: ramp(spec.total, 0.3).map(Math.abs) } },
};

describe('full checkpoints', () => {
  it('round-trip exactly, under torch.optim names', async () => {
    const files = await encodeCheckpoint(snapshot, spec);
    const back = await decodeCheckpoint(files, spec, 'ck');
    expect(back.position).toEqual(snapshot.position);
    expect(back.config).toEqual(snapshot.config);
    expect(back.params).toEqual(snapshot.params);
    expect(back.optimizer).toEqual(snapshot.optimizer);
    const opt = parseSafetensors(files['optimizer.safetensors']);
    const p0 = spec.params[0]!;
    expect(opt.tensors.get('state.0.exp_avg')?.shape).toEqual(p0.shape);
    expect(opt.tensors.get(`state.${spec.params.length - 1}.step`)?.shape).toEqual([]);
    expect(JSON.parse(opt.metadata.param_groups ?? '[]')).toMatchObject([{ lr: 1e-3, amsgrad: false }]);
  });

  it('refuses a corrupted or truncated file, naming it', async () => {
    const files = await encodeCheckpoint(snapshot, spec);
    const flipped = files['model.safetensors'].slice();
    flipped[flipped.length - 3] = (flipped[flipped.length - 3] ?? 0) ^ 1;
    await expect(decodeCheckpoint({ ...files, 'model.safetensors': flipped }, spec, 'ck')).rejects.toThrow(
      /ck\/model\.safetensors: SHA-256 .* \(corrupted\)/,
    );
    const cut = files['optimizer.safetensors'].subarray(0, 100);
    await expect(decodeCheckpoint({ ...files, 'optimizer.safetensors': cut }, spec, 'ck')).rejects.toThrow(
      /ck\/optimizer\.safetensors: 100 bytes, trainer.json says/,
    );
    const foreign = new TextEncoder().encode('{"epoch": 1}');
    await expect(decodeCheckpoint({ ...files, 'trainer.json': foreign }, spec, 'ck')).rejects.toThrow(CheckpointError);
  });

  it("keeps an fp16 run's loss scaler and skipped steps, and refuses an fp16 checkpoint without them", async () => {
    const fp16 = {
      scaler: { scale: 16384, iter: 9, lastOverflowIter: 6, hysteresis: 1 },
      skippedSteps: 2,
    };
    const half: Snapshot = { ...snapshot, config: { ...snapshot.config, fp16: true }, fp16 };
    const files = await encodeCheckpoint(half, spec);
    expect((await decodeCheckpoint(files, spec, 'ck')).fp16).toEqual(fp16);
    const json = JSON.parse(new TextDecoder().decode(files['trainer.json'])) as Record<string, unknown>;
    const rewrite = (j: Record<string, unknown>) => ({
      ...files,
      'trainer.json': new TextEncoder().encode(JSON.stringify(j)),
    });
    const { fp16: _, ...without } = json;
    await expect(decodeCheckpoint(rewrite(without), spec, 'ck')).rejects.toThrow(
      /ck\/trainer\.json: fp16: an fp16 run's checkpoint needs its loss scaler state/,
    );
    const bad = { ...json, fp16: { ...(json.fp16 as object), skippedSteps: -1 } };
    await expect(decodeCheckpoint(rewrite(bad), spec, 'ck')).rejects.toThrow(
      /fp16\.skippedSteps must be an integer >= 0, got -1/,
    );
    // an fp32 run's checkpoint has no fp16 section
    expect(
      JSON.parse(new TextDecoder().decode((await encodeCheckpoint(snapshot, spec))['trainer.json'])),
    ).not.toHaveProperty('fp16');
  });

  it('writes step-N directories atomically and keeps the newest K', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webddp-ck-'));
    const files = await encodeCheckpoint(snapshot, spec);
    for (const n of [2, 4, 6]) await writeCheckpointDir(root, n, files, 2);
    expect(readdirSync(root).sort()).toEqual(['step-4', 'step-6']);
    expect(await resolveCheckpointDir(root)).toBe(join(root, 'step-6'));
    // a failed write (the root is a file's name below it): the error names the path, nothing is lost
    writeFileSync(join(root, 'blocker'), 'x');
    await expect(writeCheckpointDir(join(root, 'blocker'), 8, files, 2)).rejects.toThrow(
      /cannot write checkpoint .*step-8/,
    );
    expect(readdirSync(root).sort()).toEqual(['blocker', 'step-4', 'step-6']);
    const back = await decodeCheckpoint(await readCheckpointDir(join(root, 'step-6')), spec, 'step-6');
    expect(back.params).toEqual(snapshot.params);
  });
});
