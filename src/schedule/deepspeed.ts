// DeepSpeed's warmup schedules (deepspeed/runtime/lr_schedules.py, read at deepspeedai/DeepSpeed
// edaa722, Aug 2026): closed forms of last_batch_iteration (lbi), which starts at -1 and is
// incremented by every scheduler.step(). So schedule step k (see LrSchedule) is lbi = k - 1, and
// the first optimizer step runs at lbi -1: warmup_min_lr for WarmupLR/WarmupDecayLR, and lr 0 for
// WarmupCosineLR (its get_lr returns 0.0 before the first step).
//   warmup (lbi < N, N = max(2, warmup_num_steps)): gamma = log(lbi + 1) / log(N) ('log'), lbi / N ('linear')
//   WarmupLR:       min + (max - min) * gamma, gamma = 1 after warmup
//   WarmupDecayLR:  after warmup gamma = max(0, (T - lbi) / max(1, T - N))
//   WarmupCosineLR: ratio = wmin + gamma (1 - wmin) in warmup; then with p = min(1, (lbi - N + 1) / max(1, T - N)),
//                   ratio = max(0, cmin + (1 - cmin)(1 + cos(pi p)) / 2); lr = optimizer lr * ratio
// (The min(1, ...) clamp is recent: older DeepSpeed let the cosine climb back after total_num_steps.)
import { checkStep } from './torch-chainable.ts';
import type {
  Libm,
  LrSchedule,
  WarmupCosineLRConfig,
  WarmupDecayLRConfig,
  WarmupLRConfig,
  WarmupType,
} from './types.ts';

/** `total_num_steps` from the config, else the run's optimizer steps. */
function deepSpeedTotal(config: WarmupDecayLRConfig | WarmupCosineLRConfig, runSteps?: number): number {
  const total = config.params.total_num_steps ?? runSteps;
  if (total === undefined || !Number.isInteger(total) || total <= 0)
    throw new RangeError(`${config.type} needs total_num_steps, a positive integer (got ${String(total)})`);
  return total;
}

/** _get_gamma's warmup part for lbi in [0, N); `inverseLog` is DeepSpeed's precomputed 1.0 / log(N). */
function warmupGamma(libm: Libm, type: WarmupType, lbi: number, n: number, inverseLog: number): number {
  return type === 'log' ? inverseLog * libm.log(lbi + 1) : lbi / n;
}

function closedForm(config: LrSchedule['config'], f: (lbi: number) => number): LrSchedule {
  return {
    config,
    lastStep: Infinity,
    momentum: () => undefined,
    lr: (step) => {
      checkStep(step);
      return f(step - 1);
    },
  };
}

export function warmupLR(
  config: WarmupLRConfig | WarmupDecayLRConfig,
  baseLr: number,
  runSteps: number | undefined,
  libm: Libm,
): LrSchedule {
  const p = config.params;
  const min = p.warmup_min_lr;
  const delta = (p.warmup_max_lr ?? baseLr) - min;
  const n = Math.max(2, p.warmup_num_steps);
  const inverseLog = 1.0 / libm.log(n);
  const total = config.type === 'WarmupDecayLR' ? deepSpeedTotal(config, runSteps) : 0;
  const gamma = (lbi: number): number => {
    if (lbi < n) return warmupGamma(libm, p.warmup_type, lbi, n, inverseLog);
    if (config.type === 'WarmupLR') return 1.0;
    return Math.max(0.0, (total - lbi) / Math.max(1.0, total - n));
  };
  // get_lr before the first step (lbi -1) returns min_lrs as they are.
  return closedForm(config, (lbi) => (lbi < 0 ? min : min + delta * gamma(lbi)));
}

export function warmupCosineLR(
  config: WarmupCosineLRConfig,
  baseLr: number,
  runSteps: number | undefined,
  libm: Libm,
): LrSchedule {
  const p = config.params;
  const total = deepSpeedTotal(config, runSteps);
  const n = Math.max(2, p.warmup_num_steps);
  const inverseLog = 1.0 / libm.log(n);
  const ratio = (lbi: number): number => {
    if (lbi < n) {
      const r = warmupGamma(libm, p.warmup_type, lbi, n, inverseLog);
      return p.warmup_min_ratio + r * (1 - p.warmup_min_ratio);
    }
    const progress = Math.min(1.0, (lbi - n + 1) / Math.max(1, total - n));
    const cos = (1 + libm.cos(Math.PI * progress)) / 2;
    return Math.max(0.0, p.cos_min_ratio + (1 - p.cos_min_ratio) * cos);
  };
  return closedForm(config, (lbi) => (lbi < 0 ? 0.0 : baseLr * ratio(lbi)));
}
