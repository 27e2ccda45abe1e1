// The exported torchrun project without a GPU: DataParallel, BalancedDataParallel, fp16 and
// finished runs are refused naming the checkpoint; ds_config.json reads back through webddp's own
// DeepSpeed reader to the run's fields; and the generated train.py's make_optimizer() and
// make_scheduler(), run by PyTorch (python3-torch) and stepped as train.py steps them, give every
// optimizer step the learning rate (and OneCycleLR's momentum / beta1) webddp's schedules give,
// to the last bit (or 1 ulp, where glibc's log/cos and webddp's correctly rounded ones differ).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHECKPOINT_FILES,
  CheckpointError,
  type CheckpointBytes,
  type Snapshot,
} from '../../src/checkpoint/checkpoint.ts';
import { validateFields, type TrainConfig } from '../../src/config.ts';
import { parseDeepSpeedConfig } from '../../src/deepspeed/config.ts';
import { torchrunProject } from '../../src/export/torchrun.ts';
import type { DatasetRecord } from '../../src/checkpoint/dataset-record.ts';
import { stepSchedule } from '../../src/schedule/index.ts';
import { parseScheduleFlag } from '../../src/schedule/flag.ts';
import { Augmenter } from '../../src/data/augment.ts';
import { generateRecords } from '../../src/data/synthetic.ts';
import { concatFiles, makeArchive, makeFiles, TRAIN_NAMES } from '../helpers/cifar-fixture.ts';
import { torchPython } from '../helpers/torch-python.ts';

const raw = Object.fromEntries(CHECKPOINT_FILES.map((f) => [f, new Uint8Array(1)])) as CheckpointBytes;
const position = { epoch: 0, step: 1, globalStep: 1, stepsPerEpoch: 6 };

function snapshot(fields: Record<string, unknown>, schedule?: string): Snapshot {
  const s = schedule ? parseScheduleFlag('--schedule', schedule) : null;
  if (s && !s.ok) throw new Error(s.issues.join('; '));
  const v = validateFields({ epochs: 2, ...fields, ...(s ? { schedule: s.config } : {}) });
  if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('; '));
  return { config: v.config, position, params: new Float32Array(0), optimizer: null };
}

const project = (s: Snapshot) => torchrunProject(s, raw, { source: 'ck/step-1', data: 'synthetic' });
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);

describe('webddp export-torchrun (files)', () => {
  it('refuses DataParallel, BalancedDataParallel and fp16 runs, naming the checkpoint; warns on a finished run', () => {
    for (const mode of ['dp', 'balanced-dp'])
      expect(() => project(snapshot({ mode }))).toThrow(/^ck\/step-1: a (Balanced)?DataParallel run/);
    expect(() => project(snapshot({ fp16: true }))).toThrow(CheckpointError);
    const done = { ...snapshot({}), position: { ...position, epoch: 2, step: 0 } };
    // a finished run (the page's newest checkpoint after a run) exports; its README says how to go on
    const finished = project(done);
    expect(finished.warnings.join('\n')).toMatch(
      /finished all 2 epoch\(s\): train.py trains on only with --epochs greater than 2/,
    );
    expect(text(finished.files['README.md'])).toMatch(
      /## Read before running\n\n(\* .*\n)*\* the run finished all 2 epoch/,
    );
  });

  it("train.py's default --data is the dataset the checkpoint records; other --data or none recorded is warned about", () => {
    const cifar: DatasetRecord = {
      kind: 'stored',
      name: 'cifar10',
      source: { kind: 'archive', description: 'cifar-10-binary.tar.gz' },
      train: 50000,
      test: 10000,
      content: 'cd'.repeat(32),
    };
    const s = snapshot({});
    const own = torchrunProject(s, raw, { source: 'ck/step-1' }, cifar);
    expect(text(own.files['train.py'])).toContain('DATA = "cifar-10-binary.tar.gz"');
    expect(text(own.files['README.md'])).toContain(
      "the checkpoint records that the run read dataset 'cifar10' (50000 train, 10000 test records, content " +
        'cdcdcdcdcdcdcdcd...), imported from cifar-10-binary.tar.gz',
    );
    expect(own.warnings.join('\n')).not.toMatch(/data/);
    const other = torchrunProject(s, raw, { source: 'ck/step-1', data: 'synthetic' }, cifar);
    expect(text(other.files['train.py'])).toContain('DATA = "synthetic"');
    expect(other.warnings[0]).toBe(
      "--data synthetic is not the data the checkpoint records, dataset 'cifar10' (50000 train, 10000 test records, " +
        "content cdcdcdcdcdcdcdcd...) ('cifar-10-binary.tar.gz'): train.py would continue the run on other data",
    );
    expect(text(other.files['README.md'])).toContain(`* ${other.warnings[0]}`);
    const old = torchrunProject(s, raw, { source: 'ck/step-1', unrecorded: 'cifar-10-binary.tar.gz' }, null);
    expect(text(old.files['train.py'])).toContain('DATA = "cifar-10-binary.tar.gz"');
    expect(old.warnings[0]).toMatch(
      /^the checkpoint does not record its dataset \(written before checkpoints recorded it\)/,
    );
  });

  it('writes ds_config.json only for ZeRO runs, and webddp reads it back to the run', () => {
    expect(project(snapshot({ mode: 'ddp' })).files['ds_config.json']).toBeUndefined();
    const cases: [Record<string, unknown>, string | undefined][] = [
      [
        { mode: 'zero1', optimizer: 'adam', lr: 0.003, weightDecay: 0.01, adamBetas: [0.8, 0.99], adamEps: 1e-6 },
        undefined,
      ],
      [
        { mode: 'zero2', optimizer: 'sgd', momentum: 0.5, gradAccum: 3, clipGradNorm: 2, workers: 4 },
        'WarmupLR:warmup_num_steps=5',
      ],
      [
        { mode: 'zero3', optimizer: 'adamw', batchSize: 7, reduceBucketSize: 1000 },
        'WarmupCosineLR:warmup_num_steps=3',
      ],
    ];
    for (const [fields, schedule] of cases) {
      const s = snapshot(fields, schedule);
      const p = project(s);
      const back = parseDeepSpeedConfig(JSON.parse(text(p.files['ds_config.json'])), s.config.workers);
      if (!back.ok) throw new Error(back.issues.join('; '));
      const keys = [
        'mode',
        'optimizer',
        'lr',
        'momentum',
        'weightDecay',
        'adamBetas',
        'adamEps',
        'batchSize',
        'gradAccum',
        'clipGradNorm',
        'reduceBucketSize',
      ] as const;
      const pick = (c: Partial<TrainConfig>) => Object.fromEntries(keys.filter((k) => k in c).map((k) => [k, c[k]]));
      expect(pick(s.config)).toMatchObject(pick(back.settings.fields as Partial<TrainConfig>));
      expect(back.settings.fields.mode).toBe(s.config.mode);
      const total = s.config.epochs * position.stepsPerEpoch;
      if (schedule) {
        const sched = back.settings.fields.schedule;
        if (sched === undefined || sched === 'none') throw new Error('no scheduler read back');
        const a = stepSchedule(s.config.schedule, s.config.lr, total);
        const b = stepSchedule(sched, s.config.lr, total);
        for (let k = 0; k < total; k++) expect(b.lr(k)).toBe(a.lr(k));
      }
    }
    const torchSchedule = project(snapshot({ mode: 'zero2' }, 'StepLR:step_size=2'));
    expect(JSON.parse(text(torchSchedule.files['ds_config.json']))).not.toHaveProperty('scheduler');
    expect(torchSchedule.warnings.join('\n')).toMatch(/StepLR is PyTorch's, not one of DeepSpeed's/);
  });

  it("train.py's optimizer and schedule, run by PyTorch, give webddp's lr and momentum at every step", () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ optimizer: 'sgd', lr: 0.1 }, 'LinearLR:start_factor=0.25,total_iters=5'],
      [{ optimizer: 'adam', lr: 0.01 }, 'StepLR:step_size=3,gamma=0.5'],
      [{ optimizer: 'sgd', lr: 0.05 }, 'CosineAnnealingLR:T_max=7,eta_min=0.001'],
      [{ optimizer: 'sgd', momentum: 0.9 }, 'OneCycleLR:max_lr=0.1'],
      [{ optimizer: 'adam' }, 'OneCycleLR:max_lr=0.05,anneal_strategy=linear,three_phase=true'],
      [{ optimizer: 'adamw', lr: 0.002 }, 'WarmupLR:warmup_num_steps=4'],
      [{ optimizer: 'sgd', lr: 0.02 }, 'WarmupDecayLR:warmup_num_steps=3,warmup_max_lr=0.03'],
      [{ optimizer: 'adam', lr: 0.004 }, 'WarmupCosineLR:warmup_num_steps=3,warmup_type=linear'],
    ];
    const dir = mkdtempSync(join(tmpdir(), 'webddp-export-unit-'));
    const total = 2 * position.stepsPerEpoch;
    cases.forEach(([fields, schedule], i) => {
      mkdirSync(join(dir, `p${i}`));
      const p = project(snapshot(fields, schedule));
      for (const name of ['train.py', 'webddp_data.py', 'webddp_safetensors.py', 'webddp_schedules.py'])
        writeFileSync(join(dir, `p${i}`, name), p.files[name] ?? new Uint8Array());
    });
    // Each project's train.py imported as a module; its schedule stepped `total` times, as train.py does.
    const script = `
import importlib, json, sys, warnings, torch
warnings.simplefilter("ignore")
out = []
for d in sys.argv[2:]:
    sys.path.insert(0, d)
    for m in ("train", "webddp_data", "webddp_safetensors", "webddp_schedules"):
        sys.modules.pop(m, None)
    train = importlib.import_module("train")
    sys.path.pop(0)
    opt = train.make_optimizer(torch.nn.Linear(2, 2).parameters())
    sched = train.make_scheduler(opt)
    g = opt.param_groups[0]
    rows = []
    for k in range(int(sys.argv[1])):
        rows.append([g["lr"], g["betas"][0] if "betas" in g else g["momentum"]])
        sched.step()
    out.append(rows)
print(json.dumps(out))`;
    const dirs = cases.map((_, i) => join(dir, `p${i}`));
    const got = JSON.parse(
      execFileSync(torchPython(), ['-c', script, String(total - 1), ...dirs], { encoding: 'utf8' }),
    ) as number[][][];
    cases.forEach(([fields, schedule], i) => {
      const s = snapshot(fields, schedule);
      const want = stepSchedule(s.config.schedule, s.config.lr, total);
      const base = s.config.optimizer === 'sgd' ? s.config.momentum : s.config.adamBetas[0];
      got[i]?.forEach(([lr, momentum], k) => {
        expect(
          Math.abs((lr ?? NaN) - want.lr(k)) <= 2 ** -52 * Math.abs(want.lr(k)),
          `${schedule} lr at step ${k}: ${lr} vs ${want.lr(k)}`,
        ).toBe(true);
        expect(momentum, `${schedule} momentum at step ${k}`).toBe(want.momentum ? want.momentum(k) : base);
      });
      expect(got[i]).toHaveLength(total - 1);
    });
  }, 30_000); // starts Python and imports torch: 3-5 s alone, more on a loaded 2-core machine

  it("webddp_data.py: the synthetic set, CIFAR-10 (archive and directory) and augmentation byte for byte as webddp's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webddp-export-data-'));
    const files = makeFiles(12);
    writeFileSync(join(dir, 'cifar.tar.gz'), await makeArchive({ files }));
    mkdirSync(join(dir, 'bins'));
    for (const [name, bytes] of files) writeFileSync(join(dir, 'bins', name), bytes);
    writeFileSync(join(dir, 'webddp_data.py'), project(snapshot({})).files['webddp_data.py'] ?? new Uint8Array());
    const script = `
import hashlib, sys
sys.path.insert(0, sys.argv[1])
import webddp_data as d
def h(x, y):
    return hashlib.sha256(y.numpy().astype("uint8").tobytes() + x.numpy().tobytes()).hexdigest()
x, y = d.synthetic_train(limit=40)
print(h(x, y))
print(h(d.Augmenter(7, 1, 3)(x[:6]), y[:6]))
print(h(*d.cifar10_train(sys.argv[1] + "/cifar.tar.gz", limit=50)))
print(h(*d.cifar10_train(sys.argv[1] + "/bins")))`;
    const got = execFileSync(torchPython(), ['-c', script, dir], { encoding: 'utf8' }).trim().split('\n');
    // the same hashes from webddp's records: labels, then images (CHW bytes)
    const hash = (
      records: Uint8Array,
      n: number,
      image = (i: number) => records.subarray(i * 3073 + 1, (i + 1) * 3073),
    ) => {
      const labels = Uint8Array.from({ length: n }, (_, i) => records[i * 3073] ?? 0);
      const h = createHash('sha256').update(labels);
      for (let i = 0; i < n; i++) h.update(image(i));
      return h.digest('hex');
    };
    const synthetic = generateRecords(10000, 0, 16).subarray(0, 40 * 3073);
    const aug = new Augmenter({ seed: 7, rank: 1, epoch: 3 });
    const crops = Array.from({ length: 6 }, (_, i) => {
      const out = new Uint8Array(3072);
      aug.apply(synthetic.subarray(i * 3073 + 1, (i + 1) * 3073), out);
      return out;
    });
    const cifar = concatFiles(files, TRAIN_NAMES);
    expect(got).toEqual([
      hash(synthetic, 40),
      hash(synthetic, 6, (i) => crops[i] ?? new Uint8Array()),
      hash(cifar, 50),
      hash(cifar, 60),
    ]);
  }, 30_000); // starts Python with numpy and torch
});
