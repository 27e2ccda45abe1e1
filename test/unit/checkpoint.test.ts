// Full checkpoints without a GPU: the three files round-trip; the optimizer file holds torch.optim's
// names and shapes; a flipped byte, a truncated file or a foreign trainer.json is refused naming
// the file; the directory store writes step-N atomically, keeps the newest K, and a failed write
// leaves the earlier checkpoints and no temporary directory. trainer.json's dataset section
// round-trips, is parsed strictly, may be absent (an older checkpoint), and the resume's check
// (checkDataset, used by the CLI and the page) refuses other data naming both.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CheckpointError,
  decodeCheckpoint,
  encodeCheckpoint,
  readTrainerJson,
  type Snapshot,
} from '../../src/checkpoint/checkpoint.ts';
import {
  checkDataset,
  DatasetMismatchError,
  storedDataset,
  tensorsDataset,
  type DatasetRecord,
} from '../../src/checkpoint/dataset-record.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { importSynthetic } from '../../src/data/synthetic.ts';
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
const dataset: DatasetRecord = {
  kind: 'stored',
  name: 'cifar10',
  source: { kind: 'archive', description: 'cifar-10-binary.tar.gz' },
  train: 50000,
  test: 10000,
  content: 'ab'.repeat(32),
};

describe('full checkpoints', () => {
  it('round-trip exactly, under torch.optim names', async () => {
    const files = await encodeCheckpoint(snapshot, spec, dataset);
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
    const files = await encodeCheckpoint(snapshot, spec, dataset);
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
    const files = await encodeCheckpoint(half, spec, dataset);
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
      JSON.parse(new TextDecoder().decode((await encodeCheckpoint(snapshot, spec, dataset))['trainer.json'])),
    ).not.toHaveProperty('fp16');
  });

  it('writes step-N directories atomically and keeps the newest K', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webddp-ck-'));
    const files = await encodeCheckpoint(snapshot, spec, dataset);
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

  describe('the dataset section', () => {
    const head = (files: Record<'trainer.json', Uint8Array>) =>
      readTrainerJson(files['trainer.json'], 'ck/trainer.json');
    const rewrite = async (change: (j: Record<string, unknown>) => Record<string, unknown>) => {
      const files = await encodeCheckpoint(snapshot, spec, dataset);
      const j = JSON.parse(new TextDecoder().decode(files['trainer.json'])) as Record<string, unknown>;
      return { ...files, 'trainer.json': new TextEncoder().encode(JSON.stringify(change(j))) };
    };

    it('round-trips a stored dataset and in-memory tensors', async () => {
      expect(head(await encodeCheckpoint(snapshot, spec, dataset)).dataset).toEqual(dataset);
      const tensors = tensorsDataset(new Int32Array(16), new Int32Array(4));
      expect(tensors).toEqual({ kind: 'tensors', train: 16, test: 4 });
      expect(head(await encodeCheckpoint(snapshot, spec, tensors)).dataset).toEqual(tensors);
    });

    it('is parsed strictly: a bad field is refused naming trainer.json and the field', async () => {
      const bad: [Record<string, unknown>, RegExp][] = [
        [{ ...dataset, kind: 'folder' }, /dataset: kind must be "stored" or "tensors", got "folder"/],
        [{ ...dataset, content: 'abc' }, /dataset: content must be a SHA-256 \(64 hex digits\), got "abc"/],
        [{ ...dataset, train: -1 }, /dataset: train must be a record count, got -1/],
        [{ ...dataset, test: 1.5 }, /dataset: test must be a record count, got 1.5/],
        [{ ...dataset, name: '' }, /dataset: name must be a dataset name, got ""/],
        [{ ...dataset, name: '../x' }, /dataset: name must be a dataset name, got "\.\.\/x"/],
        [{ ...dataset, source: { kind: 'disk', description: 'x' } }, /dataset: source must be \{kind: archive\|/],
        [{ ...dataset, source: 'cifar-10-binary.tar.gz' }, /dataset: source must be/],
        [{ ...dataset, extra: 1 }, /dataset: unknown field\(s\) extra/],
        [{ kind: 'tensors', train: 1, test: 1, content: 'ab'.repeat(32) }, /dataset: unknown field\(s\) content/],
      ];
      for (const [section, message] of bad) {
        const files = await rewrite((j) => ({ ...j, dataset: section }));
        expect(() => head(files), JSON.stringify(section)).toThrow(CheckpointError);
        expect(() => head(files)).toThrow(new RegExp(`^ck/trainer\\.json: ${message.source}`));
      }
      const notObject = await rewrite((j) => ({ ...j, dataset: null }));
      expect(() => head(notObject)).toThrow(/dataset: must be an object, got null/);
    });

    it('an older checkpoint without it still loads; the resume check then warns in one line', async () => {
      const old = await rewrite(({ dataset: _, ...j }) => j);
      expect(head(old).dataset).toBeNull();
      const back = await decodeCheckpoint(old, spec, 'ck');
      expect(back.params).toEqual(snapshot.params);
      const warning = checkDataset(head(old).dataset, dataset, 'ck');
      expect(warning).toMatch(
        /^ck records no dataset \(written before checkpoints recorded it\): cannot check that dataset 'cifar10' \(50000 train, 10000 test records, content abababababababab\.\.\.\) is the data it was trained on$/,
      );
      expect(warning).not.toContain('\n');
    });

    it('the resume check: real stored manifests; other data is refused naming both and the checkpoint', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'webddp-ck-data-'));
      try {
        const store = await FileDatasetStore.open(dir);
        const a = storedDataset((await importSynthetic(store, { train: 20, test: 10 })).manifest);
        expect(a).toMatchObject({ kind: 'stored', name: 'synthetic', train: 20, test: 10 });
        expect(a.kind === 'stored' && a.source).toEqual({
          kind: 'synthetic',
          description: 'synthetic shapes: seed 0, 20 train, 10 test, noise 16',
        });
        // the same content imported again: the same record; the same counts from another seed: other content
        expect(storedDataset((await importSynthetic(store, { train: 20, test: 10 })).manifest)).toEqual(a);
        const b = storedDataset((await importSynthetic(store, { train: 20, test: 10, seed: 1 })).manifest);
        expect(b.kind === 'stored' && a.kind === 'stored' && b.content !== a.content).toBe(true);

        expect(checkDataset(a, a, 'ck/step-3')).toBeNull();
        const refuse = (recorded: DatasetRecord, given: DatasetRecord) => {
          try {
            checkDataset(recorded, given, 'ck/step-3', 'give --data synthetic');
          } catch (e) {
            expect(e).toBeInstanceOf(DatasetMismatchError);
            return (e as Error).message;
          }
          throw new Error('not refused');
        };
        const content = (r: DatasetRecord) => (r.kind === 'stored' ? r.content.slice(0, 16) : '');
        expect(refuse(a, b)).toBe(
          `ck/step-3 was trained on dataset 'synthetic' (20 train, 10 test records, content ${content(a)}...); ` +
            `this run's data is dataset 'synthetic' (20 train, 10 test records, content ${content(b)}...). ` +
            'An exact resume continues on the data the checkpoint was trained on: give --data synthetic',
        );
        expect(refuse(a, dataset)).toMatch(
          /trained on dataset 'synthetic' \(20 train.*this run's data is dataset 'cifar10' \(50000 train, 10000 test/,
        );
        expect(refuse(dataset, { ...dataset, test: 9999 })).toMatch(
          /this run's data is dataset 'cifar10' \(50000 train, 9999 test/,
        );
        expect(refuse(tensorsDataset(new Int32Array(20), new Int32Array(10)), a)).toMatch(
          /trained on in-memory tensors \(20 train, 10 test records, content not recorded\)/,
        );
        // tensors: the counts are checked, their values cannot be
        const t = tensorsDataset(new Int32Array(3));
        expect(checkDataset(t, t, 'ck')).toMatch(
          /^ck was trained on in-memory tensors .*: cannot check that these are the same values$/,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
