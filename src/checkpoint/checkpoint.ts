// A full training checkpoint, as three files: model.safetensors (the parameters under PyTorch's
// state_dict names), optimizer.safetensors (torch.optim's state_dict tensors: state.<i>.exp_avg,
// state.<i>.exp_avg_sq, state.<i>.momentum_buffer, state.<i>.step; param_groups in the metadata)
// and trainer.json (where the run is: epoch, step in the epoch, global step; the sampler's seed,
// the augmentation stream, the schedule's position, the mode and the whole config, and the
// SHA-256 of the two tensor files, and the dataset the run read: dataset-record.ts). Environment-free: the Node directory store and the page's
// IndexedDB store write and read these bytes. Loading checks every file and names what is wrong.
import type { TrainConfig } from '../config.ts';
import { decimalInt } from '../input/decimal.ts';
import { CheckpointError } from './checkpoint-error.ts';
import { readTrainerJson, type TrainerJson, type TrainPosition } from './trainer-json.ts';
import { simpleCnnSpec, type ModelSpec } from '../nn/spec.ts';
import { learningRates } from '../schedule/index.ts';
import type { DatasetRecord } from './dataset-record.ts';
import type { OptimizerState } from '../optim/optimizer.ts';
import { fp16Json, type Fp16Snapshot } from './fp16-state.ts';
import { getF32, parseSafetensors, serializeSafetensors, type TensorInput } from './safetensors.ts';
import { loadStateDict, saveStateDict } from './state-dict.ts';

export const CHECKPOINT_FILES = ['model.safetensors', 'optimizer.safetensors', 'trainer.json'] as const;
export type CheckpointFile = (typeof CHECKPOINT_FILES)[number];
export type CheckpointBytes = Readonly<Record<CheckpointFile, Uint8Array>>;
export { CheckpointError, readTrainerJson, type TrainPosition };

/** Everything a run needs to continue exactly where it was. */
export interface Snapshot {
  readonly config: TrainConfig;
  readonly position: TrainPosition;
  /** The whole model, flat in state_dict order (fp16: the float32 master weights). */
  readonly params: Float32Array;
  /** The whole model's optimizer state, flat in parameter order (gathered from ZeRO's shards). */
  readonly optimizer: OptimizerState | null;
  /** An fp16 run's loss scaler and skipped steps (fp16-state.ts). */
  readonly fp16?: Fp16Snapshot;
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

/**
 * The optimizer state in `bytes` for the run of `c` that took `taken` optimizer steps (a range: an
 * fp16 overflow skips the optimizer's step). The metadata step is read in strict decimal; a state that cannot be this run's
 * (no step with moments present, a step that disagrees with the position, a negative second
 * moment, a non-finite value) is refused naming the tensor.
 */
function decodeOptimizer(
  bytes: Uint8Array,
  spec: ModelSpec,
  c: TrainConfig,
  taken: readonly [number, number],
  source: string,
): OptimizerState | null {
  const fail = (detail: string) => new CheckpointError(source, detail);
  const st = parseSafetensors(bytes, source);
  if (st.metadata.optimizer !== c.optimizer)
    throw fail(`holds ${st.metadata.optimizer ?? 'no'} optimizer state, the run uses ${c.optimizer}`);
  const raw = st.metadata.step;
  const step = raw === undefined ? undefined : decimalInt(raw);
  if (step === undefined || step < 0)
    throw fail(`metadata step ${JSON.stringify(raw ?? null)} is not a step count (a decimal integer >= 0)`);
  const names = c.optimizer === 'sgd' ? (c.momentum !== 0 ? ['momentum_buffer'] : []) : ['exp_avg', 'exp_avg_sq'];
  // A run that keeps state has it from its first optimizer step on: its step count is the steps
  // taken, between the global step less the steps an fp16 overflow skipped and the global step.
  const [lo, hi] = taken;
  if (names.length > 0 && (step < lo || step > hi))
    throw fail(
      `metadata step ${step} does not agree with trainer.json (${lo === hi ? lo : `${lo} to ${hi}`} optimizer ` +
        `steps taken)${step === 0 ? `: the ${names.join(' and ')} state would be dropped` : ''}`,
    );
  if (step === 0) {
    if (st.tensors.size > 0) throw fail(`metadata step 0 with ${st.tensors.size} state tensors present`);
    return null;
  }
  const expected = new Set(
    spec.params.flatMap((_, i) => [
      ...names.map((n) => `state.${i}.${n}`),
      ...(c.optimizer === 'sgd' ? [] : [`state.${i}.step`]),
    ]),
  );
  const extra = [...st.tensors.keys()].filter((k) => !expected.has(k));
  if (extra.length > 0) throw fail(`unexpected tensors: ${extra.slice(0, 5).join(', ')}`);
  const buffers: Record<string, Float32Array> = {};
  for (const n of names) {
    const flat = new Float32Array(spec.total);
    spec.params.forEach((p, i) => {
      const t = getF32(st, `state.${i}.${n}`, p.shape, source);
      const bad = t.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) throw fail(`state.${i}.${n} holds a non-finite value at index ${bad}`);
      if (n === 'exp_avg_sq') {
        const neg = t.findIndex((v) => v < 0);
        if (neg >= 0) throw fail(`state.${i}.exp_avg_sq holds a negative value ${t[neg]} at index ${neg}`);
      }
      flat.set(t, p.offset);
    });
    buffers[n] = flat;
  }
  if (c.optimizer !== 'sgd')
    spec.params.forEach((_, i) => {
      const [t] = getF32(st, `state.${i}.step`, [], source);
      if (t !== step) throw fail(`state.${i}.step is ${t}, the metadata says ${step}`);
    });
  return { step, buffers };
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
  const optimizer = decodeOptimizer(
    files['optimizer.safetensors'],
    spec,
    t.config,
    [t.position.globalStep - (t.fp16?.skippedSteps ?? 0), t.position.globalStep],
    `${where}/optimizer.safetensors`,
  );
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
