// The kernel registry: every WGSL kernel in shaders/, with its bind-group layout and the fields of
// its uniform Params struct, in binding and field order. The .wgsl header states the same table
// for readers; test/gpu/kernels.test.ts checks that both agree with the WGSL declarations. The
// 16-bit storage kernels' entries are in kernels-half.ts.
import { F32 as f, PARAMS as P, SGMAT, U32 as u, WG64, type KernelSpec } from './kernel-spec.ts';
import { HALF_KERNELS } from './kernels-half.ts';

export type { BindingKind, FieldType, KernelSpec } from './kernel-spec.ts';

export const KERNELS = {
  conv2d_forward: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['y', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u, b_off: u, relu: u },
    overrides: { WG_X: 64, WG_Y: 1 },
  },
  conv2d_forward_tiled: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['y', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u, b_off: u, relu: u },
    overrides: { TCO: 32, TCI: 8, ROWS: 4, TW: 16 },
  },
  conv2d_forward_sgmat: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['y', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u, b_off: u, relu: u },
    overrides: { SG: 32 },
    requires: SGMAT,
  },
  conv2d_backward_input_sgmat: {
    bindings: [P, ['dy', 'read'], ['theta', 'read'], ['dx', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u },
    overrides: { SG: 32 },
    requires: SGMAT,
  },
  conv2d_backward_weight_sgmat: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['partial', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, splits: u },
    overrides: { SG: 32 },
    requires: SGMAT,
  },
  linear_forward_sgmat: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['partial', 'read_write']],
    params: { n: u, i: u, o: u, w_off: u, splits: u },
    overrides: { SG: 32 },
    requires: SGMAT,
  },
  linear_backward_weight_sgmat: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['partial', 'read_write']],
    params: { n: u, i: u, o: u, splits: u },
    overrides: { SG: 32 },
    requires: SGMAT,
  },
  matmul_f32: {
    bindings: [P, ['a', 'read'], ['b', 'read'], ['c', 'read_write']],
    params: { n: u },
    overrides: {},
  },
  matmul_f16_sgmat: {
    bindings: [P, ['a', 'read'], ['b', 'read'], ['c', 'read_write']],
    params: { n: u },
    overrides: { SG: 32 },
    requires: SGMAT,
  },
  conv2d_backward_input: {
    bindings: [P, ['dy', 'read'], ['theta', 'read'], ['dx', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u },
    overrides: { WG_X: 64, WG_Y: 1 },
  },
  conv2d_backward_input_tiled: {
    bindings: [P, ['dy', 'read'], ['theta', 'read'], ['dx', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u },
    overrides: { TCI: 32, TCO: 8, ROWS: 4, TW: 16 },
  },
  conv2d_forward_wide: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['y', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u, b_off: u, relu: u },
    overrides: { WG_X: 16, WG_Y: 1 },
  },
  conv2d_backward_input_wide: {
    bindings: [P, ['dy', 'read'], ['theta', 'read'], ['dx', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, w_off: u },
    overrides: { WG_X: 16, WG_Y: 1 },
  },
  conv2d_backward_weight: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['partial', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, splits: u },
    overrides: { WG_X: 64 },
  },
  conv2d_backward_weight_wide: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['partial', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, splits: u },
    overrides: { WG_X: 16 },
  },
  conv2d_backward_weight_tiled: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['partial', 'read_write']],
    params: { n: u, ci: u, co: u, h: u, w: u, splits: u },
    overrides: { TCO: 64, TCI: 16, ROWS: 2, TW: 16 },
  },
  conv2d_backward_weight_reduce: {
    bindings: [P, ['partial', 'read'], ['grad', 'read_write']],
    params: { co: u, k: u, splits: u, w_off: u, b_off: u, rank_grad: u },
    overrides: { OUTS: 64, LANES: 1 },
  },
  conv2d_backward_weight_reduce_subgroup: {
    bindings: [P, ['partial', 'read'], ['grad', 'read_write']],
    params: { co: u, k: u, splits: u, w_off: u, b_off: u, rank_grad: u },
    overrides: { OUTS: 4, SG: 32 },
    requires: 'subgroups',
  },
  maxpool2d_forward: {
    bindings: [P, ['x', 'read'], ['y', 'read_write']],
    params: { nc: u, h: u, w: u },
    overrides: WG64,
  },
  maxpool2d_backward: {
    bindings: [P, ['x', 'read'], ['dy', 'read'], ['dx', 'read_write']],
    params: { nc: u, h: u, w: u, relu_mask: u },
    overrides: WG64,
  },
  linear_forward: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['y', 'read_write']],
    params: { n: u, i: u, o: u, w_off: u, b_off: u, relu: u },
    overrides: { WG_X: 16, WG_Y: 4, KSPLIT: 1 },
  },
  linear_forward_tiled: {
    bindings: [P, ['x', 'read'], ['theta', 'read'], ['partial', 'read_write']],
    params: { n: u, i: u, o: u, w_off: u, splits: u },
    overrides: { TN: 64, TO: 64, TK: 16 },
  },
  linear_forward_reduce: {
    bindings: [P, ['partial', 'read'], ['theta', 'read'], ['y', 'read_write']],
    params: { n: u, o: u, b_off: u, relu: u, splits: u },
    overrides: WG64,
  },
  linear_backward_input: {
    bindings: [P, ['dy', 'read'], ['theta', 'read'], ['x', 'read'], ['dx', 'read_write']],
    params: { n: u, i: u, o: u, w_off: u, relu_mask: u },
    overrides: { WG_X: 16, WG_Y: 4 },
  },
  linear_backward_weight: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['grad', 'read_write']],
    params: { n: u, i: u, o: u, w_off: u, b_off: u },
    overrides: { WG_X: 16, WG_Y: 4, NSPLIT: 1 },
  },
  linear_backward_weight_tiled: {
    bindings: [P, ['dy', 'read'], ['x', 'read'], ['partial', 'read_write']],
    params: { n: u, i: u, o: u, splits: u },
    overrides: { TO: 64, TI: 64, TK: 16 },
  },
  softmax_xent_forward: {
    bindings: [P, ['logits', 'read'], ['labels', 'read'], ['stats', 'read_write']],
    params: { n: u, c: u, out_off: u, row0: u },
    overrides: WG64,
  },
  softmax_xent_backward: {
    bindings: [P, ['logits', 'read'], ['labels', 'read'], ['dz', 'read_write']],
    params: { n: u, c: u, scale: f },
    overrides: WG64,
  },
  sgd_step: {
    bindings: [P, ['grad', 'read'], ['theta', 'read_write'], ['momentum', 'read_write']],
    params: {
      count: u,
      p_off: u,
      g_off: u,
      first: u,
      lr: f,
      momentum: f,
      dampening: f,
      weight_decay: f,
      nesterov: u,
      run: u,
    },
    overrides: WG64,
  },
  adam_step: {
    bindings: [P, ['grad', 'read'], ['theta', 'read_write'], ['m', 'read_write'], ['v', 'read_write']],
    params: {
      count: u,
      p_off: u,
      g_off: u,
      decoupled: u,
      one_minus_beta1: f,
      beta2: f,
      one_minus_beta2: f,
      eps: f,
      step_size: f,
      bc2_sqrt: f,
      weight_decay: f,
      decay: f,
      run: u,
    },
    overrides: WG64,
  },
  grad_norm: {
    bindings: [P, ['grad', 'read'], ['partial', 'read_write']],
    params: { count: u, offset: u, run: u },
    overrides: WG64,
  },
  clip_coef: {
    bindings: [P, ['partial', 'read'], ['out', 'read_write']],
    params: { count: u, max_norm: f, extra_sq: f, run: u },
    overrides: WG64,
  },
  allreduce_sum: {
    bindings: [P, ['gathered', 'read'], ['out', 'read_write']],
    params: { count: u, world: u },
    overrides: WG64,
  },
  scale: {
    bindings: [P, ['factor', 'read'], ['data', 'read_write']],
    params: { count: u, offset: u, factor_index: u, run: u },
    overrides: WG64,
  },
  fill: {
    bindings: [P, ['data', 'read_write']],
    params: { count: u, offset: u, value: f },
    overrides: WG64,
  },
  add_scaled: {
    bindings: [P, ['src', 'read'], ['dst', 'read_write']],
    params: { count: u, s_off: u, d_off: u, alpha: f },
    overrides: WG64,
  },
  ...HALF_KERNELS,
  normalize_input: {
    bindings: [P, ['bytes', 'read'], ['x', 'read_write']],
    params: { count: u, c: u, hw: u, pad: u, mean: 'vec4f', stdev: 'vec4f' },
    overrides: WG64,
  },
} as const satisfies Record<string, KernelSpec>;

export type KernelName = keyof typeof KERNELS;
export const KERNEL_NAMES = Object.keys(KERNELS) as KernelName[];

/** The names of a kernel's bindings, e.g. 'x' | 'theta' | 'y' (without 'params'). */
export type BindingName<K extends KernelName> = Exclude<(typeof KERNELS)[K]['bindings'][number][0], 'params'>;
/** The values of a kernel's Params fields: numbers, or 4-tuples for vec4f fields. */
export type ParamValues<K extends KernelName> = {
  readonly [F in keyof (typeof KERNELS)[K]['params']]: (typeof KERNELS)[K]['params'][F] extends 'vec4f'
    ? readonly number[]
    : number;
};
