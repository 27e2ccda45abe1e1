// A full training checkpoint, as three files: model.safetensors (the parameters under PyTorch's
// state_dict names), optimizer.safetensors (torch.optim's state_dict tensors: state.<i>.exp_avg,
// state.<i>.exp_avg_sq, state.<i>.momentum_buffer, state.<i>.step; param_groups in the metadata)
// and trainer.json (where the run is: epoch, step in the epoch, global step; the sampler's seed,
// the augmentation stream, the schedule's position, the mode and the whole config, and the
// SHA-256 of the two tensor files, and the dataset the run read: dataset-record.ts). Environment-free: the Node directory store and the page's
// IndexedDB store write and read these bytes. Loading checks every file and names what is wrong.
import { validateFields, type TrainConfig } from '../config.ts';
import { simpleCnnSpec, type ModelSpec } from '../nn/spec.ts';
import { learningRates } from '../schedule/index.ts';
import { readDatasetJson, type DatasetRecord } from './dataset-record.ts';
import { readLedgerJson, type SampleLedger } from './ledger-record.ts';
import type { OptimizerState } from '../optim/optimizer.ts';
import type { Snapshot, TrainPosition } from './snapshot.ts';
import { fp16Json, readFp16Json, type Fp16Json, type Fp16Snapshot } from './fp16-state.ts';
import { getF32, parseSafetensors, serializeSafetensors, type TensorInput } from './safetensors.ts';
import { loadStateDict, saveStateDict } from './state-dict.ts';

export const CHECKPOINT_FILES = ['model.safetensors', 'optimizer.safetensors', 'trainer.json'] as const;
export type CheckpointFile = (typeof CHECKPOINT_FILES)[number];
export type CheckpointBytes = Readonly<Record<CheckpointFile, Uint8Array>>;

export type { Snapshot, TrainPosition } from './snapshot.ts';

/** A checkpoint that cannot be used: names the file and what is wrong with it. */
export class CheckpointError extends Error {
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`${source}: ${detail}`);
    this.name = 'CheckpointError';
  }
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

const STATE_NAMES = ['momentum_buffer', 'exp_avg', 'exp_avg_sq'] as const;

/** torch.optim's param_groups entry for the config (the names its state_dict() uses). */
function paramGroup(c: TrainConfig, spec: ModelSpec): Record<string, unknown> {
  const params = spec.params.map((_, i) => i);
  if (c.optimizer === 'sgd')
    return { lr: c.lr, momentum: c.momentum, dampening: 0, weight_decay: c.weightDecay, nesterov: false, params };
  return { lr: c.lr, betas: c.adamBetas, eps: c.adamEps, weight_decay: c.weightDecay, amsgrad: false, params };
}

/** The optimizer's state_dict tensors in safetensors. */
function encodeOptimizer(s: Snapshot, spec: ModelSpec): Uint8Array {
  const tensors: Record<string, TensorInput> = {};
  const o = s.optimizer;
  if (o && o.step > 0)
    spec.params.forEach((p, i) => {
      for (const name of STATE_NAMES) {
        const b = o.buffers[name];
        if (b)
          tensors[`state.${i}.${name}`] = { dtype: 'F32', shape: p.shape, data: b.slice(p.offset, p.offset + p.size) };
      }
      // torch.optim.Adam keeps step as a float32 tensor; SGD keeps none.
      if (s.config.optimizer !== 'sgd')
        tensors[`state.${i}.step`] = { dtype: 'F32', shape: [], data: Float32Array.of(o.step) };
    });
  return serializeSafetensors(tensors, {
    format: 'pt',
    producer: 'webddp',
    optimizer: s.config.optimizer,
    step: String(o?.step ?? 0),
    param_groups: JSON.stringify([paramGroup(s.config, spec)]),
  });
}

function decodeOptimizer(bytes: Uint8Array, spec: ModelSpec, c: TrainConfig, source: string): OptimizerState | null {
  const st = parseSafetensors(bytes, source);
  if (st.metadata.optimizer !== c.optimizer)
    throw new CheckpointError(
      source,
      `holds ${st.metadata.optimizer ?? 'no'} optimizer state, the run uses ${c.optimizer}`,
    );
  const step = Number(st.metadata.step);
  if (!Number.isInteger(step) || step < 0)
    throw new CheckpointError(source, `metadata step '${st.metadata.step}' is not a step count`);
  if (step === 0) return null;
  const names = c.optimizer === 'sgd' ? (c.momentum !== 0 ? ['momentum_buffer'] : []) : ['exp_avg', 'exp_avg_sq'];
  const expected = new Set(
    spec.params.flatMap((_, i) => [
      ...names.map((n) => `state.${i}.${n}`),
      ...(c.optimizer === 'sgd' ? [] : [`state.${i}.step`]),
    ]),
  );
  const extra = [...st.tensors.keys()].filter((k) => !expected.has(k));
  if (extra.length > 0) throw new CheckpointError(source, `unexpected tensors: ${extra.slice(0, 5).join(', ')}`);
  const buffers: Record<string, Float32Array> = {};
  for (const n of names) {
    const flat = new Float32Array(spec.total);
    spec.params.forEach((p, i) => {
      const t = getF32(st, `state.${i}.${n}`, p.shape, source);
      const bad = t.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) throw new CheckpointError(source, `state.${i}.${n} holds a non-finite value at index ${bad}`);
      flat.set(t, p.offset);
    });
    buffers[n] = flat;
  }
  if (c.optimizer !== 'sgd')
    spec.params.forEach((_, i) => {
      const [t] = getF32(st, `state.${i}.step`, [], source);
      if (t !== step) throw new CheckpointError(source, `state.${i}.step is ${t}, the metadata says ${step}`);
    });
  return { step, buffers };
}

interface TrainerJson {
  readonly format: 'webddp-checkpoint';
  readonly version: 1;
  readonly epoch: number;
  readonly stepInEpoch: number;
  readonly globalStep: number;
  readonly stepsPerEpoch: number;
  readonly mode: TrainConfig['mode'];
  readonly workers: number;
  readonly sampler: {
    readonly seed: number;
    readonly shuffle: boolean;
    readonly dropLast: boolean;
    readonly epoch: number;
  };
  /** The augmentation stream: torch's generator seeded from (seed, rank, epoch), advanced past the epoch's first `stepInEpoch` steps' images. */
  readonly augmentation: {
    readonly enabled: boolean;
    readonly seed: number;
    readonly epoch: number;
    readonly stepsDrawn: number;
  };
  /** The schedule (stepped once per optimizer step): its position and the next step's learning rate. */
  readonly schedule: {
    readonly config: TrainConfig['schedule'];
    readonly position: number;
    readonly totalSteps: number;
    readonly nextLr: number;
  };
  readonly config: TrainConfig;
  /** The data the run read (absent in checkpoints written before it was recorded). */
  readonly dataset?: DatasetRecord;
  /** fp16 runs: the loss scaler's state and the skipped steps. */
  readonly fp16?: Fp16Json;
  /** Written mid-epoch: the epoch's sample ledger. */
  readonly ledger?: SampleLedger;
  readonly files: Readonly<
    Record<'model.safetensors' | 'optimizer.safetensors', { readonly sha256: string; readonly bytes: number }>
  >;
}

/** The three files of a checkpoint of a run that read `dataset`. */
export async function encodeCheckpoint(s: Snapshot, spec: ModelSpec, dataset: DatasetRecord): Promise<CheckpointBytes> {
  const c = s.config;
  const p = s.position;
  const model = saveStateDict(spec, s.params, { config: JSON.stringify(c) });
  const optimizer = encodeOptimizer(s, spec);
  const total = c.epochs * p.stepsPerEpoch;
  const trainer: TrainerJson = {
    format: 'webddp-checkpoint',
    version: 1,
    epoch: p.epoch,
    stepInEpoch: p.step,
    globalStep: p.globalStep,
    stepsPerEpoch: p.stepsPerEpoch,
    mode: c.mode,
    workers: c.workers,
    sampler: { seed: c.seed, shuffle: c.shuffle, dropLast: c.dropLast, epoch: p.epoch },
    augmentation: { enabled: c.augment, seed: c.seed, epoch: p.epoch, stepsDrawn: p.step },
    schedule: {
      config: c.schedule,
      position: p.globalStep,
      totalSteps: total,
      nextLr: learningRates(c.schedule, c.lr, Math.max(total, 1))(p.globalStep),
    },
    config: c,
    dataset,
    ...(s.fp16 ? { fp16: fp16Json(s.fp16) } : {}),
    ...(p.ledger ? { ledger: p.ledger } : {}),
    files: {
      'model.safetensors': { sha256: await sha256Hex(model), bytes: model.byteLength },
      'optimizer.safetensors': { sha256: await sha256Hex(optimizer), bytes: optimizer.byteLength },
    },
  };
  return {
    'model.safetensors': model,
    'optimizer.safetensors': optimizer,
    'trainer.json': new TextEncoder().encode(`${JSON.stringify(trainer, null, 2)}\n`),
  };
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Reads trainer.json: the position, config and dataset (every field checked; dataset null: not recorded). */
export function readTrainerJson(
  bytes: Uint8Array,
  source: string,
): {
  config: TrainConfig;
  position: TrainPosition;
  files: TrainerJson['files'];
  dataset: DatasetRecord | null;
  fp16?: Fp16Snapshot;
} {
  let j: Partial<TrainerJson>;
  try {
    j = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as Partial<TrainerJson>;
  } catch (e) {
    throw new CheckpointError(source, `not valid JSON (${(e as Error).message})`);
  }
  if (typeof j !== 'object' || j === null || j.format !== 'webddp-checkpoint')
    throw new CheckpointError(source, 'not a webddp checkpoint (no "format": "webddp-checkpoint")');
  if (j.version !== 1)
    throw new CheckpointError(source, `version ${String(j.version)} is not one this webddp reads (1)`);
  for (const k of ['epoch', 'stepInEpoch', 'globalStep', 'stepsPerEpoch'] as const)
    if (!isCount(j[k])) throw new CheckpointError(source, `${k} must be a count, got ${JSON.stringify(j[k])}`);
  const v = validateFields(j.config);
  if (!v.ok) throw new CheckpointError(source, `config: ${v.issues.map((i) => i.message).join('; ')}`);
  const fp16 = readFp16Json(j.fp16, v.config);
  if (!fp16.ok) throw new CheckpointError(source, fp16.issue);
  const dataset = readDatasetJson(j.dataset);
  if (!dataset.ok) throw new CheckpointError(source, dataset.issue);
  const at = { epoch: j.epoch!, step: j.stepInEpoch!, globalStep: j.globalStep!, stepsPerEpoch: j.stepsPerEpoch! };
  const ledger = readLedgerJson(j.ledger, v.config, at);
  if (!ledger.ok) throw new CheckpointError(source, ledger.issue);
  const files = j.files;
  for (const f of ['model.safetensors', 'optimizer.safetensors'] as const) {
    const e = files?.[f];
    if (!e || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256) || !isCount(e.bytes))
      throw new CheckpointError(source, `files.${f} needs a sha256 and a byte count`);
  }
  return {
    config: v.config,
    position: ledger.value ? { ...at, ledger: ledger.value } : at,
    files: files!,
    dataset: dataset.value,
    ...(fp16.value ? { fp16: fp16.value } : {}),
  };
}

/** A checkpoint from its files: checksums, names, shapes and values checked; `where` names it in errors. */
export async function decodeCheckpoint(files: CheckpointBytes, spec: ModelSpec, where: string): Promise<Snapshot> {
  const t = readTrainerJson(files['trainer.json'], `${where}/trainer.json`);
  for (const f of ['model.safetensors', 'optimizer.safetensors'] as const) {
    const b = files[f];
    const want = t.files[f];
    if (b.byteLength !== want.bytes)
      throw new CheckpointError(
        `${where}/${f}`,
        `${b.byteLength} bytes, trainer.json says ${want.bytes} (truncated or replaced?)`,
      );
    const got = await sha256Hex(b);
    if (got !== want.sha256)
      throw new CheckpointError(
        `${where}/${f}`,
        `SHA-256 ${got} does not match trainer.json's ${want.sha256} (corrupted)`,
      );
  }
  if (t.config.width !== spec.width)
    throw new CheckpointError(`${where}/trainer.json`, `width ${t.config.width}, this model has width ${spec.width}`);
  const params = loadStateDict(files['model.safetensors'], spec, `${where}/model.safetensors`);
  const optimizer = decodeOptimizer(files['optimizer.safetensors'], spec, t.config, `${where}/optimizer.safetensors`);
  return { config: t.config, position: t.position, params, optimizer, ...(t.fp16 ? { fp16: t.fp16 } : {}) };
}

/** A SimpleCNN checkpoint at the width its trainer.json names, and the dataset it records (null: none). */
export async function readCheckpoint(
  files: CheckpointBytes,
  where: string,
): Promise<{ snapshot: Snapshot; dataset: DatasetRecord | null }> {
  const head = readTrainerJson(files['trainer.json'], `${where}/trainer.json`);
  return { snapshot: await decodeCheckpoint(files, simpleCnnSpec(head.config.width), where), dataset: head.dataset };
}
