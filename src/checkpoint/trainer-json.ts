// trainer.json, the checkpoint's description of where the run is: its fields and their reading.
// Every field is checked for its type and range and against the others and the config they were
// written from, so that a checkpoint that cannot be this run's is refused before a worker starts.
import { validateFields, type TrainConfig } from '../config.ts';
import { isJsonObject, MAX_JSON_BYTES, readJson } from '../input/json.ts';
import { simpleCnnSpec, type ModelSpec } from '../nn/spec.ts';
import { learningRates } from '../schedule/index.ts';
import { CheckpointError } from './checkpoint-error.ts';
import { readDatasetJson, type DatasetRecord } from './dataset-record.ts';
import { readFp16Json, type Fp16Json, type Fp16Snapshot } from './fp16-state.ts';
import { readLedgerJson, type SampleLedger } from './ledger-record.ts';

/** Where a run is: the next step to run is `step` of `epoch`; `globalStep` optimizer steps are done. */
export interface TrainPosition {
  readonly epoch: number;
  readonly step: number;
  readonly globalStep: number;
  /** Optimizer steps per epoch of the run that wrote it (its sampler's shard, batch and accumulation). */
  readonly stepsPerEpoch: number;
  /** Mid-epoch: which samples of the epoch each rank has consumed (ledger-record.ts). */
  readonly ledger?: SampleLedger;
}

export interface TrainerJson {
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

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const TOP_KEYS: readonly string[] = [
  'format',
  'version',
  'epoch',
  'stepInEpoch',
  'globalStep',
  'stepsPerEpoch',
  'mode',
  'workers',
  'sampler',
  'augmentation',
  'schedule',
  'config',
  'dataset',
  'fp16',
  'ledger',
  'files',
];

/** The most bytes a checkpoint's tensor file of a model of `total` parameters may have (its header at most 1 MiB). */
export function maxTensorFileBytes(spec: ModelSpec, file: 'model.safetensors' | 'optimizer.safetensors'): number {
  const header = 1 << 20;
  // the optimizer file: at most two float32 buffers per parameter and a float32 step per tensor
  return file === 'model.safetensors' ? spec.total * 4 + header : spec.total * 8 + spec.params.length * 4 + header;
}

/**
 * Reads trainer.json: the position, config and dataset (dataset null: not recorded). Every field is
 * checked for its type and range and against the rest (the position within the epoch, the global
 * step against the epochs before it, the mode, workers, sampler, augmentation and schedule against
 * the config they were written from), so a checkpoint that cannot be this run's is refused here,
 * before any worker starts, naming trainer.json and the field.
 */
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
  const fail = (detail: string) => new CheckpointError(source, detail);
  if (bytes.byteLength > MAX_JSON_BYTES) throw fail(`${bytes.byteLength} bytes, more than a trainer.json has`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw fail(`not valid UTF-8 (${(e as Error).message})`);
  }
  const root = readJson(text, (issue) => fail(`not valid JSON (${issue})`));
  if (!isJsonObject(root) || root.format !== 'webddp-checkpoint')
    throw fail('not a webddp checkpoint (no "format": "webddp-checkpoint")');
  const j = root as Partial<Record<keyof TrainerJson, unknown>>;
  if (j.version !== 1) throw fail(`version ${JSON.stringify(j.version)} is not one this webddp reads (1)`);
  const extra = Object.keys(j).filter((k) => !TOP_KEYS.includes(k));
  if (extra.length > 0) throw fail(`unknown field '${extra[0]}'`);
  for (const k of ['epoch', 'stepInEpoch', 'globalStep', 'stepsPerEpoch'] as const)
    if (!isCount(j[k])) throw fail(`${k} must be a count, got ${JSON.stringify(j[k])}`);
  const v = validateFields(j.config);
  if (!v.ok) throw fail(`config: ${v.issues.map((i) => i.message).join('; ')}`);
  const c = v.config;
  const epoch = j.epoch as number;
  const step = j.stepInEpoch as number;
  const globalStep = j.globalStep as number;
  const stepsPerEpoch = j.stepsPerEpoch as number;
  if (stepsPerEpoch < 1) throw fail('stepsPerEpoch must be at least 1');
  if (step >= stepsPerEpoch)
    throw fail(`stepInEpoch ${step} is not a step of an epoch of stepsPerEpoch ${stepsPerEpoch} steps`);
  if (epoch > c.epochs) throw fail(`epoch ${epoch} is past the run's ${c.epochs} epochs (config.epochs)`);
  // Every epoch before this one ran at least one step; the first ran exactly stepsPerEpoch (the
  // worker count, which sets it, may change only at an epoch's end).
  if (epoch === 0 ? globalStep !== step : globalStep < epoch + step)
    throw fail(
      `globalStep ${globalStep} does not agree with epoch ${epoch}, stepInEpoch ${step} ` +
        `(${epoch === 0 ? `it must be ${step} in the first epoch` : `at least ${epoch + step}`})`,
    );
  const agree = (field: string, got: unknown, want: unknown, what: string) => {
    if (!same(got, want))
      throw fail(`${field} ${JSON.stringify(got)} does not agree with ${what} ${JSON.stringify(want)}`);
  };
  agree('mode', j.mode, c.mode, 'config.mode');
  agree('workers', j.workers, c.workers, 'config.workers');
  agree(
    'sampler',
    j.sampler,
    { seed: c.seed, shuffle: c.shuffle, dropLast: c.dropLast, epoch },
    'the config and epoch (seed, shuffle, dropLast, epoch)',
  );
  agree(
    'augmentation',
    j.augmentation,
    { enabled: c.augment, seed: c.seed, epoch, stepsDrawn: step },
    'the config and position (augment, seed, epoch, stepInEpoch)',
  );
  const total = c.epochs * stepsPerEpoch;
  const schedule = {
    config: c.schedule,
    position: globalStep,
    totalSteps: total,
    nextLr: learningRates(c.schedule, c.lr, Math.max(total, 1))(globalStep),
  };
  agree('schedule', j.schedule, schedule, 'the config and position');
  const fp16 = readFp16Json(j.fp16, c);
  if (!fp16.ok) throw fail(fp16.issue);
  if (fp16.value && fp16.value.skippedSteps > globalStep)
    throw fail(`fp16.skippedSteps ${fp16.value.skippedSteps} is more than globalStep ${globalStep}`);
  const dataset = readDatasetJson(j.dataset);
  if (!dataset.ok) throw fail(dataset.issue);
  const at = { epoch, step, globalStep, stepsPerEpoch };
  const ledger = readLedgerJson(j.ledger, c, at);
  if (!ledger.ok) throw fail(ledger.issue);
  const files = j.files;
  if (!isJsonObject(files)) throw fail('files must be an object');
  const spec = simpleCnnSpec(c.width);
  for (const f of ['model.safetensors', 'optimizer.safetensors'] as const) {
    const e = files[f];
    if (!isJsonObject(e) || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256) || !isCount(e.bytes))
      throw fail(`files.${f} needs a sha256 and a byte count`);
    if (e.bytes > maxTensorFileBytes(spec, f))
      throw fail(`files.${f}.bytes ${e.bytes} is more than a width-${c.width} model's ${f} can have`);
  }
  const unknownFile = Object.keys(files).find((k) => k !== 'model.safetensors' && k !== 'optimizer.safetensors');
  if (unknownFile !== undefined) throw fail(`files.${unknownFile} is not a checkpoint file`);
  return {
    config: c,
    position: ledger.value ? { ...at, ledger: ledger.value } : at,
    files: files as TrainerJson['files'],
    dataset: dataset.value,
    ...(fp16.value ? { fp16: fp16.value } : {}),
  };
}
