// The fp16, bf16 and zero_optimization sections of a ds_config.json, with DeepSpeed's defaults
// (DeepSpeedFP16Config, DeepSpeedBF16Config, DeepSpeedZeroConfig; pydantic models that refuse
// unknown keys in DeepSpeed too). Keys are in three groups: mapped onto TrainConfig; accepted at
// the value that matches what webddp does (`only`); accepted with no effect, each with its reason.
import { MODES, type Mode, type TrainConfig } from '../config.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import { bool, bounded, int, only, onlyKeys, section, type Issues } from './schema.ts';
import { BOUNDS } from '../input/bounds.ts';

export type Fp16Fields = Partial<
  Pick<
    TrainConfig,
    | 'fp16'
    | 'fp16LossScale'
    | 'fp16InitialScalePower'
    | 'fp16LossScaleWindow'
    | 'fp16Hysteresis'
    | 'fp16ConsecutiveHysteresis'
    | 'fp16MinLossScale'
  >
>;

const FP16_KEYS = [
  'enabled',
  'auto_cast',
  'loss_scale',
  'initial_scale_power',
  'loss_scale_window',
  'hysteresis',
  'consecutive_hysteresis',
  'min_loss_scale',
  'fp16_master_weights_and_grads',
];

export function readFp16(v: unknown, issues: Issues): Fp16Fields {
  const s = section(v, 'fp16', issues);
  if (!s) return {};
  onlyKeys(s, 'fp16', FP16_KEYS, issues);
  only(s.auto_cast, 'fp16.auto_cast', issues, false, 'webddp has no input autocast');
  only(s.fp16_master_weights_and_grads, 'fp16.fp16_master_weights_and_grads', issues, false, 'master weights are fp32');
  const f = {
    fp16: bool(s.enabled, 'fp16.enabled', issues) ?? false,
    fp16LossScale: bounded(s.loss_scale, 'fp16.loss_scale', issues, BOUNDS.fp16LossScale) ?? 0,
    fp16InitialScalePower: int(s.initial_scale_power, 'fp16.initial_scale_power', issues, 0, 64) ?? 16,
    fp16LossScaleWindow: int(s.loss_scale_window, 'fp16.loss_scale_window', issues, 1) ?? 1000,
    // hysteresis 0 would never lower the scale (update_scale only halves at cur_hysteresis 1).
    fp16Hysteresis: int(s.hysteresis, 'fp16.hysteresis', issues, 1) ?? 2,
    fp16ConsecutiveHysteresis: bool(s.consecutive_hysteresis, 'fp16.consecutive_hysteresis', issues) ?? false,
    fp16MinLossScale: int(s.min_loss_scale, 'fp16.min_loss_scale', issues, 1) ?? 1,
  };
  return f;
}

/** bf16 (or its old name bfloat16): only `enabled` is mapped; the rest must keep DeepSpeed's defaults. */
export function readBf16(v: unknown, path: string, issues: Issues): boolean | undefined {
  const s = section(v, path, issues);
  if (!s) return undefined;
  onlyKeys(
    s,
    path,
    [
      'enabled',
      'immediate_grad_update',
      'check_grad_overflow',
      'bf16_master_weights_and_grads',
      'bf16_optimizer_states',
    ],
    issues,
  );
  only(s.immediate_grad_update, `${path}.immediate_grad_update`, issues, false, 'webddp updates once per step');
  only(s.check_grad_overflow, `${path}.check_grad_overflow`, issues, true, 'overflowing steps are always skipped');
  only(
    s.bf16_master_weights_and_grads,
    `${path}.bf16_master_weights_and_grads`,
    issues,
    false,
    'master weights are fp32',
  );
  only(s.bf16_optimizer_states, `${path}.bf16_optimizer_states`, issues, false, 'optimizer state is fp32');
  return bool(s.enabled, `${path}.enabled`, issues) ?? false;
}

/** zero_optimization.stage 0-3 as webddp's mode: the ring mode whose entry in the mode table is that stage. */
function stageMode(stage: number): Mode {
  return MODES.find((m) => PARALLEL_MODES[m].zeroStage === stage) ?? 'ddp';
}

export interface ZeroFields {
  readonly mode?: Mode | 'zero3';
  readonly reduceBucketSize?: number;
}

const ZERO_KEYS = [
  'stage',
  'reduce_bucket_size',
  'reduce_scatter',
  'allgather_partitions',
  'round_robin_gradients',
  // Accepted, no effect in webddp:
  'allgather_bucket_size', // its ZeRO all-gathers the updated partitions in one collective, not in buckets
  'contiguous_gradients', // its gradients always live in one contiguous arena
  'overlap_comm', // its ZeRO reduces after the backward; overlapping is its DDP's bucket path
  'load_from_fp32_weights', // its checkpoints (safetensors) hold fp32 parameters only
  'ignore_unused_parameters', // SimpleCNN uses every parameter
];

export function readZero(v: unknown, issues: Issues): ZeroFields {
  // DeepSpeed still reads a bare `"zero_optimization": true` (deprecated, stage 1); webddp does not.
  const s = section(v, 'zero_optimization', issues);
  if (!s) return v === undefined ? { mode: 'ddp' } : {};
  onlyKeys(s, 'zero_optimization', ZERO_KEYS, issues);
  const p = (k: string) => `zero_optimization.${k}`;
  only(s.reduce_scatter, p('reduce_scatter'), issues, true, 'webddp always reduce-scatters the gradients');
  only(s.allgather_partitions, p('allgather_partitions'), issues, true, 'webddp always all-gathers the partitions');
  only(s.round_robin_gradients, p('round_robin_gradients'), issues, false, 'it is for CPU offload, which webddp lacks');
  int(s.allgather_bucket_size, p('allgather_bucket_size'), issues, 0);
  for (const k of ['contiguous_gradients', 'overlap_comm', 'load_from_fp32_weights', 'ignore_unused_parameters'])
    bool(s[k], p(k), issues);
  const stage = int(s.stage, p('stage'), issues, 0, 3) ?? 0;
  const reduceBucketSize = int(s.reduce_bucket_size, p('reduce_bucket_size'), issues, 1);
  return { mode: stageMode(stage), ...(reduceBucketSize === undefined ? {} : { reduceBucketSize }) };
}
