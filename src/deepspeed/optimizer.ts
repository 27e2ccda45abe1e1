// The ds_config `optimizer` block mapped the way DeepSpeedEngine._configure_basic_optimizer does:
//  - `Adam` / `AdamW` (any case: DeepSpeed lower-cases its own optimizer names) build FusedAdam with
//    adam_w_mode = (type is AdamW) or params.adam_w_mode (default true). So DeepSpeed's plain "Adam"
//    is AdamW (decoupled weight decay) unless adam_w_mode is false. FusedAdam's defaults: lr 1e-3,
//    betas (0.9, 0.999), eps 1e-8, weight_decay 0. Its update is torch.optim.AdamW's (adam_w_mode)
//    or torch.optim.Adam's with L2 decay (adam_w_mode false): webddp's 'adamw' and 'adam'.
//  - torch_adam: true builds torch.optim.AdamW / Adam themselves: the same updates, but AdamW's
//    weight_decay default is then torch's 0.01.
//  - any other type is looked up in torch.optim by its exact name: `SGD` is torch.optim.SGD (lr
//    default 1e-3 as in torch 2.x, momentum 0, weight_decay 0); `sgd` does not exist there.
//  - params.max_grad_norm is refused with DeepSpeed's message (gradient_clipping is meant).
import type { TrainConfig } from '../config.ts';
import { bool, bounded, num, only, onlyKeys, section, type Issues, type Obj } from './schema.ts';
import { BOUNDS } from '../input/bounds.ts';

const ADAM_PARAMS = ['lr', 'betas', 'eps', 'weight_decay', 'bias_correction', 'amsgrad', 'adam_w_mode', 'torch_adam'];
const SGD_PARAMS = ['lr', 'momentum', 'weight_decay', 'dampening', 'nesterov', 'maximize'];
const MAX_GRAD_NORM =
  "is not supported as an optimizer parameter, please switch to using the deepspeed parameter 'gradient_clipping'";

export type OptimizerFields = Partial<
  Pick<TrainConfig, 'optimizer' | 'lr' | 'momentum' | 'weightDecay' | 'adamBetas' | 'adamEps'>
>;

function betas(v: unknown, path: string, issues: Issues): readonly [number, number] | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v) && v.length === 2) {
    const b = v.map((x, i) => num(x, `${path}[${i}]`, issues, 0, 1)) as [number | undefined, number | undefined];
    if (b[0] !== undefined && b[1] !== undefined) {
      if (b[0] < 1 && b[1] < 1) return [b[0], b[1]];
      issues.push(`${path} must be two numbers in [0, 1) (got ${JSON.stringify(v)})`);
    }
    return undefined;
  }
  issues.push(`${path} must be [beta1, beta2] (got ${JSON.stringify(v)})`);
  return undefined;
}

/** The optimizer fields, plus a line saying which torch optimizer DeepSpeed would build. */
export function readOptimizer(v: unknown, issues: Issues, notes: string[]): OptimizerFields {
  const o = section(v, 'optimizer', issues);
  if (!o) return {};
  onlyKeys(o, 'optimizer', ['type', 'params'], issues);
  if (typeof o.type !== 'string') {
    issues.push(`optimizer.type must be a string naming the optimizer (got ${JSON.stringify(o.type)})`);
    return {};
  }
  const params: Obj = o.params === undefined ? {} : (section(o.params, 'optimizer.params', issues) ?? {});
  if ('max_grad_norm' in params) issues.push(`optimizer.params.max_grad_norm ${MAX_GRAD_NORM}`);
  const p = (k: string) => `optimizer.params.${k}`;
  const name = o.type.toLowerCase();
  if (name === 'adam' || name === 'adamw') {
    onlyKeys(params, 'optimizer.params', [...ADAM_PARAMS, 'max_grad_norm'], issues);
    only(params.bias_correction, p('bias_correction'), issues, true, 'webddp always corrects the moments');
    only(params.amsgrad, p('amsgrad'), issues, false, 'FusedAdam has no AMSGrad either');
    const adamW = name === 'adamw' || (bool(params.adam_w_mode, p('adam_w_mode'), issues) ?? true);
    const torchAdam = bool(params.torch_adam, p('torch_adam'), issues) ?? false;
    const weightDecay =
      bounded(params.weight_decay, p('weight_decay'), issues, BOUNDS.weightDecay) ?? (torchAdam && adamW ? 0.01 : 0);
    notes.push(
      `optimizer ${o.type}: ${torchAdam ? 'torch.optim' : 'DeepSpeed FusedAdam, the update of torch.optim'}.` +
        `${adamW ? 'AdamW (decoupled weight decay)' : 'Adam (L2 weight decay)'}, weight_decay ${weightDecay}`,
    );
    return {
      optimizer: adamW ? 'adamw' : 'adam',
      lr: bounded(params.lr, p('lr'), issues, BOUNDS.lr) ?? 1e-3,
      adamBetas: betas(params.betas, p('betas'), issues) ?? [0.9, 0.999],
      adamEps: bounded(params.eps, p('eps'), issues, BOUNDS.adamEps) ?? 1e-8,
      weightDecay,
    };
  }
  if (o.type === 'SGD') {
    onlyKeys(params, 'optimizer.params', [...SGD_PARAMS, 'max_grad_norm'], issues);
    only(params.dampening, p('dampening'), issues, 0, 'webddp has no SGD dampening setting');
    only(params.nesterov, p('nesterov'), issues, false, 'webddp has no Nesterov setting');
    only(params.maximize, p('maximize'), issues, false, 'webddp minimises');
    notes.push('optimizer SGD: torch.optim.SGD');
    return {
      optimizer: 'sgd',
      lr: bounded(params.lr, p('lr'), issues, BOUNDS.lr) ?? 1e-3,
      momentum: bounded(params.momentum, p('momentum'), issues, BOUNDS.momentum) ?? 0,
      weightDecay: bounded(params.weight_decay, p('weight_decay'), issues, BOUNDS.weightDecay) ?? 0,
    };
  }
  const hint = name === 'sgd' ? " (torch.optim's name is SGD; DeepSpeed looks it up as written)" : '';
  issues.push(
    `optimizer.type ${JSON.stringify(o.type)} is not supported${hint}: webddp has Adam, AdamW (DeepSpeed's, any case) and SGD`,
  );
  return {};
}
