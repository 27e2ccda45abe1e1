// Generated hostile documents against every place JSON and numbers-as-text enter (src/input/):
// keys that name JavaScript's object machinery inserted into any object of a valid DeepSpeed
// config, trainer.json, baseline or tuning; nesting far past the limit; values past the shared
// bounds in every scheduler parameter that is a learning rate; every field of a valid trainer.json
// replaced by a hostile value; optimizer.safetensors' step metadata written every careless way,
// negative second moments and impossible fp16 scaler states. Seeded: a failure names its seed.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/deepspeed/json-text.ts';
import { parseDeepSpeedConfig } from '../../src/deepspeed/config.ts';
import { FORBIDDEN_KEYS, MAX_JSON_DEPTH, parseJson } from '../../src/input/json.ts';
import { decimalInt, decimalNumber } from '../../src/input/decimal.ts';
import { BOUNDS } from '../../src/input/bounds.ts';
import { SCHEDULE_PARAMS, parseSchedule } from '../../src/schedule/params.ts';
import { validateFields, DEFAULT_CONFIG } from '../../src/config.ts';
import { parseBaseline } from '../../src/check/baseline.ts';
import { parseTuning, SOFTWARE_TUNING } from '../../src/gpu/tuning.ts';
import {
  CheckpointError,
  decodeCheckpoint,
  encodeCheckpoint,
  readTrainerJson,
  sha256Hex,
  type CheckpointBytes,
  type Snapshot,
} from '../../src/checkpoint/checkpoint.ts';
import { getF32, parseSafetensors, serializeSafetensors, type TensorInput } from '../../src/checkpoint/safetensors.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import {
  hostileValue,
  jsonObjects,
  jsonPaths,
  nested,
  numberText,
  Prng,
  setPath,
  withMember,
} from '../helpers/mutate.ts';

const DS = {
  train_batch_size: 64,
  optimizer: { type: 'AdamW', params: { lr: 2e-5, betas: [0.9, 0.999], eps: 1e-8, weight_decay: 0.01 } },
  fp16: { enabled: true, loss_scale: 0 },
  zero_optimization: { stage: 2, reduce_bucket_size: 2e8 },
  scheduler: { type: 'WarmupLR', params: { warmup_min_lr: 0, warmup_max_lr: 2e-5, warmup_num_steps: 100 } },
};
const BASELINE = { webddp: '0', created: 'x', adapter: { vendor: 'v' }, imagesPerSec: { a: 1 } };
const TUNING = { kernels: { conv2d_forward: { WG_X: 64 } }, targetThreads: 65536 };

const spec = simpleCnnSpec(0.125);
const ramp = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k));
const snapshot: Snapshot = {
  config: { ...DEFAULT_CONFIG, width: 0.125, optimizer: 'adam', lr: 1e-3, epochs: 3 },
  position: { epoch: 1, step: 2, globalStep: 7, stepsPerEpoch: 5 },
  params: ramp(spec.total, 0.1),
  optimizer: { step: 7, buffers: { exp_avg: ramp(spec.total, 0.2), exp_avg_sq: ramp(spec.total, 0.3).map(Math.abs) } },
};
const dataset = { kind: 'tensors', train: 16, test: 4 } as const;
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const bytes = (s: string) => new TextEncoder().encode(s);

describe('JSON entering anywhere', () => {
  it('a key naming object machinery, in any object of any document, is refused by its path', async () => {
    const trainer = JSON.parse(text((await encodeCheckpoint(snapshot, spec, dataset))['trainer.json'])) as unknown;
    const readers: [string, unknown, (t: string) => unknown][] = [
      ['ds_config', DS, (t) => parseConfigText(t)],
      ['trainer.json', trainer, (t) => readTrainerJson(bytes(t), 'ck/trainer.json')],
      ['baseline', BASELINE, (t) => parseBaseline(t, 'b.json')],
      ['tuning', TUNING, (t) => parseTuning(t, SOFTWARE_TUNING)],
    ];
    for (let seed = 1; seed <= 200; seed++) {
      const r = new Prng(seed);
      const [what, doc, read] = r.pick(readers);
      const at = r.pick(jsonObjects(doc));
      const key = r.pick(FORBIDDEN_KEYS);
      const value = r.pick([{ optimizer: { type: 'SGD' } }, { polluted: true }, 1, 'x', null, [1]]);
      const t = withMember(r, doc, at, key, value);
      const got = (() => {
        try {
          return read(t);
        } catch (e) {
          return e as Error;
        }
      })();
      const message = got instanceof Error ? got.message : JSON.stringify(got);
      expect(message, `seed ${seed}: ${what} ${t}`).toMatch(/is not allowed/);
      expect(message).toContain(`'${[...at, key].join('.')}'`.replace(/\.(\d+)/g, '[$1]').replace("'.", "'"));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });

  it('objects come back without a prototype, so no key can reach Object.prototype', () => {
    const r = parseJson('{"a": {"b": [{"c": 1}]}}');
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const v = r.value as { a: { b: { c: number }[] } };
    for (const o of [v, v.a, v.a.b[0]]) expect(Object.getPrototypeOf(o)).toBeNull();
  });

  it('nesting past the limit is refused at once, naming the depth (never a stack overflow)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = new Prng(seed);
      const depth = MAX_JSON_DEPTH + 1 + r.int(r.next() < 0.5 ? 100 : 200_000);
      const t = nested(r, depth);
      const t0 = performance.now();
      const res = parseConfigText(t);
      expect(res.ok, `seed ${seed}`).toBe(false);
      if (!res.ok) expect(res.issue).toMatch(new RegExp(`nested ${depth} levels deep \\(at most ${MAX_JSON_DEPTH}\\)`));
      expect(() => readTrainerJson(bytes(t), 'ck/trainer.json')).toThrow(/ck\/trainer\.json: not valid JSON \(nested/);
      expect(performance.now() - t0).toBeLessThan(1000);
      // at the limit it parses
      expect(parseJson(nested(r, MAX_JSON_DEPTH)).ok).toBe(true);
    }
  });
});

describe('the same bounds wherever a value enters', () => {
  it('every scheduler learning rate past the optimizer lr bound is refused, as --lr refuses it', () => {
    const lrParams = Object.entries(SCHEDULE_PARAMS).flatMap(([type, params]) =>
      Object.entries(params as Record<string, { kind: string; max?: number }>)
        .filter(([, p]) => p.kind === 'num' && p.max === BOUNDS.scheduleLr.max)
        .map(([name]) => [type, name] as const),
    );
    expect(lrParams.length).toBeGreaterThanOrEqual(6);
    for (let seed = 1; seed <= 100; seed++) {
      const r = new Prng(seed);
      const [type, name] = r.pick(lrParams);
      const v = BOUNDS.lr.max * (1 + r.next()) * 10 ** r.int(300);
      const params: Record<string, unknown> = { [name]: v };
      if (type === 'StepLR') params.step_size = 1;
      if (type === 'CosineAnnealingLR') params.T_max = 1;
      if (type === 'OneCycleLR') params.max_lr = name === 'max_lr' ? v : 0.1;
      const res = parseSchedule({ type, params }, 'scheduler', false);
      expect(res.ok, `seed ${seed}: ${type}.${name} = ${v}`).toBe(false);
      if (!res.ok) expect(res.issues.join()).toContain(`scheduler.params.${name} must be a number`);
      expect(validateFields({ lr: v }).ok).toBe(false);
      const ds = parseDeepSpeedConfig({ ...DS, scheduler: { type, params: { ...params, total_num_steps: 10 } } }, 2);
      expect(ds.ok, `seed ${seed}: ds_config ${type}.${name} = ${v}`).toBe(false);
    }
  });
});

describe('numbers written as text', () => {
  it('decimal only: every other spelling of a number is refused', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = new Prng(seed);
      const n = r.int(1 << 20);
      const t = numberText(r, n);
      const plain = /^-?(0|[1-9]\d*)$/.test(t) && t !== '-0' && Number.isSafeInteger(Number(t));
      expect(decimalInt(t), `seed ${seed}: ${JSON.stringify(t)}`).toBe(plain ? Number(t) : undefined);
      const num = decimalNumber(t);
      if (/^(0x|0b|0o|\+| )|^$| $|\n$|^Infinity$|^NaN$/.test(t)) expect(num, JSON.stringify(t)).toBeUndefined();
    }
  });

  it("typed (a command-line flag): spaces, '+', leading zeros, '.5' and '5.' too, still decimal only", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = new Prng(seed);
      const t = numberText(r, r.int(1 << 20));
      const s = t.trim();
      const int = /^[+-]?\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) + 0 : undefined;
      expect(decimalInt(t, 'typed'), `seed ${seed}: ${JSON.stringify(t)}`).toBe(int);
      const num = decimalNumber(t, 'typed');
      if (/^[+-]?(0x|0b|0o)|^\s*$|Infinity|NaN|_/.test(s)) expect(num, JSON.stringify(t)).toBeUndefined();
      else if (int !== undefined) expect(num === undefined ? num : num + 0, JSON.stringify(t)).toBe(int); // -0 as 0
    }
    for (const [t, n] of [
      [' +007 ', 7],
      ['.5', 0.5],
      ['5.', 5],
      ['2.5E+4', 25000],
    ] as const)
      expect(decimalNumber(t, 'typed'), t).toBe(n);
    for (const t of ['0x10', '1_000', '', ' ', 'Infinity', '1e400', '.', '+', '1e', '--1'])
      expect(decimalNumber(t, 'typed'), JSON.stringify(t)).toBeUndefined();
    expect(decimalInt('-0', 'typed')).toBe(0);
    expect(decimalInt('3.0', 'typed')).toBeUndefined();
  });
});

/** A checkpoint whose optimizer file is `opt` (trainer.json's checksum and size follow it). */
async function withOptimizer(files: CheckpointBytes, opt: Uint8Array): Promise<CheckpointBytes> {
  const j = JSON.parse(text(files['trainer.json'])) as { files: Record<string, unknown> };
  j.files['optimizer.safetensors'] = { sha256: await sha256Hex(opt), bytes: opt.byteLength };
  return { ...files, 'optimizer.safetensors': opt, 'trainer.json': bytes(JSON.stringify(j)) };
}

function rewriteOptimizer(
  opt: Uint8Array,
  change: (name: string, data: Float32Array) => Float32Array,
  metadata: (m: Record<string, string>) => Record<string, string>,
): Uint8Array {
  const st = parseSafetensors(opt);
  const tensors: Record<string, TensorInput> = {};
  for (const [name, t] of st.tensors)
    tensors[name] = { dtype: 'F32', shape: t.shape, data: change(name, getF32(st, name).slice()) };
  return serializeSafetensors(tensors, metadata({ ...st.metadata }));
}

describe('checkpoints', () => {
  it('every field of trainer.json replaced by a hostile value: refused naming the file, or meaning the same', async () => {
    const files = await encodeCheckpoint(snapshot, spec, dataset);
    const doc = JSON.parse(text(files['trainer.json'])) as unknown;
    const paths = jsonPaths(doc);
    // config fields no other field of trainer.json restates: a valid new value may be taken
    // (and the dataset's record counts: the data given on resume is checked against them)
    const free =
      /^dataset\.(train|test)$|^config\.(batchSize|gpu0Bsz|momentum|weightDecay|bucketCapMB|gradAccum|clipGradNorm|trainLimit|testLimit|checkEvery|stepTimeoutMs|adamBetas|adamEps|fp16[A-Z]\w*|stepsPerPrint|reduceBucketSize)/;
    for (let seed = 1; seed <= 300; seed++) {
      const r = new Prng(seed);
      const path = r.pick(paths);
      const v = hostileValue(r);
      const t = JSON.stringify(setPath(doc, path, v));
      const name = path.join('.');
      let accepted: ReturnType<typeof readTrainerJson> | undefined;
      try {
        accepted = readTrainerJson(bytes(t), 'ck/trainer.json');
      } catch (e) {
        expect(e, `seed ${seed}: ${name} = ${JSON.stringify(v)}`).toBeInstanceOf(CheckpointError);
        expect((e as Error).message).toMatch(/^ck\/trainer\.json: /);
        continue;
      }
      const same =
        JSON.stringify(path.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], doc)) === JSON.stringify(v);
      if (name.startsWith('files.') && !same) {
        // trainer.json alone cannot tell a wrong checksum or size: the files it describes refuse it
        const all = { ...files, 'trainer.json': bytes(t) };
        await expect(decodeCheckpoint(all, spec, 'ck'), `seed ${seed}: ${name}`).rejects.toThrow(CheckpointError);
        continue;
      }
      expect(same || free.test(name), `seed ${seed}: ${name} = ${JSON.stringify(v)} was accepted`).toBe(true);
      expect(accepted.position).toEqual(snapshot.position);
    }
  });

  it('a position past its epoch, a global step that cannot be, a mode the config does not have: refused by field', async () => {
    const files = await encodeCheckpoint(snapshot, spec, dataset);
    const doc = JSON.parse(text(files['trainer.json'])) as Record<string, unknown>;
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ stepInEpoch: 5 }, /stepInEpoch 5 is not a step of an epoch of stepsPerEpoch 5/],
      [{ globalStep: 1e300 }, /globalStep must be a count, got 1e\+300/],
      [{ globalStep: 2 }, /globalStep 2 does not agree with epoch 1, stepInEpoch 2/],
      [{ mode: 'zero3' }, /mode "zero3" does not agree with config\.mode "ddp"/],
      [{ workers: 4 }, /workers 4 does not agree with config\.workers 2/],
      [{ epoch: 9 }, /epoch 9 is past the run's 3 epochs/],
      [{ extra: 1 }, /unknown field 'extra'/],
    ];
    for (const [change, message] of cases)
      expect(() => readTrainerJson(bytes(JSON.stringify({ ...doc, ...change })), 'ck/trainer.json')).toThrow(message);
  });

  it("optimizer.safetensors' step written every careless way: only the exact decimal is taken", async () => {
    const files = await encodeCheckpoint(snapshot, spec, dataset);
    for (let seed = 1; seed <= 60; seed++) {
      const r = new Prng(seed);
      const t = r.next() < 0.2 ? r.pick(['', '0', '6', '8']) : numberText(r, 7);
      const opt = rewriteOptimizer(
        files['optimizer.safetensors'],
        (_, d) => d,
        (m) => ({ ...m, step: t }),
      );
      const run = decodeCheckpoint(await withOptimizer(files, opt), spec, 'ck');
      if (t === '7') await expect(run).resolves.toBeDefined();
      else
        await expect(run, `seed ${seed}: ${JSON.stringify(t)}`).rejects.toThrow(
          /ck\/optimizer\.safetensors: metadata step/,
        );
    }
  });

  it('a negative second moment anywhere is refused naming the tensor', async () => {
    const files = await encodeCheckpoint(snapshot, spec, dataset);
    for (let seed = 1; seed <= 10; seed++) {
      const r = new Prng(seed);
      const i = r.int(spec.params.length);
      const opt = rewriteOptimizer(
        files['optimizer.safetensors'],
        (name, d) => {
          if (name !== `state.${i}.exp_avg_sq`) return d;
          const out = d.slice();
          out[r.int(out.length)] = -(r.next() + 1e-30);
          return out;
        },
        (m) => m,
      );
      await expect(decodeCheckpoint(await withOptimizer(files, opt), spec, 'ck')).rejects.toThrow(
        new RegExp(`state\\.${i}\\.exp_avg_sq holds a negative value`),
      );
    }
  });

  it('an fp16 scaler state the run cannot have is refused when trainer.json is read, naming the field', async () => {
    const half: Snapshot = {
      ...snapshot,
      config: { ...snapshot.config, fp16: true },
      fp16: { scaler: { scale: 16384, iter: 9, lastOverflowIter: 6, hysteresis: 1 }, skippedSteps: 2 },
    };
    const files = await encodeCheckpoint(half, spec, dataset);
    const doc = JSON.parse(text(files['trainer.json'])) as { fp16: Record<string, unknown> };
    for (let seed = 1; seed <= 60; seed++) {
      const r = new Prng(seed);
      const key = r.pick(['lossScale', 'scalerIter', 'lastOverflowIter', 'hysteresisLeft']);
      const v = r.pick([0.5, -1, 1e300, 3, 99, 10, 0, 2 ** 70, 1.5]);
      const j = { ...doc, fp16: { ...doc.fp16, [key]: v } };
      const scaler = {
        scale: j.fp16.lossScale as number,
        iter: j.fp16.scalerIter as number,
        last: j.fp16.lastOverflowIter as number,
        hyst: j.fp16.hysteresisLeft as number,
      };
      const valid =
        Number.isFinite(scaler.scale) &&
        scaler.scale >= 1 &&
        Number.isSafeInteger(scaler.iter) &&
        Number.isInteger(scaler.last) &&
        scaler.last >= -1 &&
        scaler.last < scaler.iter &&
        Number.isInteger(scaler.hyst) &&
        scaler.hyst >= 1 &&
        scaler.hyst <= 2;
      const read = () => readTrainerJson(bytes(JSON.stringify(j)), 'ck/trainer.json');
      if (valid) expect(read().fp16?.scaler.scale, `seed ${seed}`).toBe(scaler.scale);
      else expect(read, `seed ${seed}: fp16.${key} = ${v}`).toThrow(/^ck\/trainer\.json: fp16/);
    }
  });
});
