// Optimizer, norm/clip and elementwise kernels against the CPU reference (multi-step where state
// matters), on lengths that are not multiples of the workgroup size.
import { grid1d } from '../../gpu/op.ts';
import { adamParams } from '../../optim/adam.ts';
import { adamInit, adamStep } from '../../reference/adam.ts';
import { clipGradNorm } from '../../reference/clip.ts';
import { sgdInit, sgdStep, type SgdOptions } from '../../reference/sgd.ts';
import { expectClose, expectTrue } from './close.ts';
import { randn, runOp } from './run-op.ts';
import { KERNEL_TOL, type OpCase } from './case.ts';

const N = 1003;
const SGD: SgdOptions[] = [
  { lr: 0.1, momentum: 0.9 },
  { lr: 0.05, momentum: 0.9, weightDecay: 0.01, nesterov: true },
  { lr: 0.05, momentum: 0.5, dampening: 0.1, weightDecay: 0.02 },
  { lr: 0.1 },
];

export const optimCases = {
  sgd_step: SGD.map((o, k): OpCase => ({
    name: `[${N}] ${JSON.stringify(o)} x3 steps`,
    async run(gpu) {
      const p0 = randn(N + 4, 61 + k);
      let theta = p0.slice();
      let momentum = new Float32Array(N);
      const ref = p0.slice(2, 2 + N);
      const state = sgdInit();
      for (let t = 0; t < 3; t++) {
        const grad = randn(N + 1, 70 + t);
        const out = await runOp(
          gpu,
          'sgd_step',
          {
            count: N,
            p_off: 2,
            g_off: 1,
            first: t === 0 ? 1 : 0,
            lr: o.lr,
            momentum: o.momentum ?? 0,
            dampening: o.dampening ?? 0,
            weight_decay: o.weightDecay ?? 0,
            nesterov: o.nesterov ? 1 : 0,
          },
          { grad, theta, momentum },
          (ov) => grid1d(N, ov.WG ?? 64),
        );
        theta = out.theta!;
        momentum = out.momentum!;
        sgdStep(ref, grad.slice(1, 1 + N), state, o);
      }
      expectClose('theta', theta.subarray(2, 2 + N), ref, KERNEL_TOL);
      expectClose(
        'untouched',
        [theta[0] ?? 0, theta[1] ?? 0, theta[N + 2] ?? 0],
        [p0[0] ?? 0, p0[1] ?? 0, p0[N + 2] ?? 0],
        { rtol: 0, atol: 0 },
      );
    },
  })),
  adam_step: (['adam', 'adamw'] as const).map((name, k): OpCase => ({
    name: `[${N}] ${name} wd=0.1 x3 steps`,
    async run(gpu) {
      let theta = randn(N, 81 + k);
      const ref = theta.slice();
      let m = new Float32Array(N);
      let v = new Float32Array(N);
      const state = adamInit(N);
      const cfg = { name, lr: 0.01, weightDecay: 0.1 } as const;
      for (let t = 1; t <= 3; t++) {
        const grad = randn(N, 90 + t, 0.3);
        const out = await runOp(
          gpu,
          'adam_step',
          { count: N, p_off: 0, g_off: 0, ...adamParams(cfg, t, cfg.lr) },
          { grad, theta, m, v },
          (ov) => grid1d(N, ov.WG ?? 64),
        );
        theta = out.theta!;
        m = out.m!;
        v = out.v!;
        adamStep(ref, grad, state, { lr: cfg.lr, weightDecay: 0.1, decoupled: name === 'adamw' });
      }
      expectClose('theta', theta, ref, KERNEL_TOL);
    },
  })),
  grad_norm: [
    {
      name: `[${N}] offset 3, 8 workgroups, then clip_coef`,
      async run(gpu) {
        const g = randn(N + 3, 101);
        const { partial } = await runOp(gpu, 'grad_norm', { count: N, offset: 3 }, { grad: g, partial: 8 }, [8, 1, 1]);
        const { out } = await runOp(
          gpu,
          'clip_coef',
          { count: 8, max_norm: 0.5, extra_sq: 0 },
          { partial: partial!, out: 4 },
          [1, 1, 1],
        );
        const ref = clipGradNorm([g.slice(3)], 0.5);
        expectClose('total, coef', out!.subarray(0, 2), [ref.totalNorm, ref.clipCoef], KERNEL_TOL);
      },
    },
  ],
  clip_coef: [
    {
      name: 'no clipping below max_norm (coef 1), extra_sq from other ranks counted',
      async run(gpu) {
        const { out } = await runOp(
          gpu,
          'clip_coef',
          { count: 3, max_norm: 10, extra_sq: 7 },
          { partial: Float32Array.of(1, 2, 6), out: 4 },
          [1, 1, 1],
        );
        expectClose('total, coef, sq', out!.subarray(0, 3), [4, 1, 16], KERNEL_TOL);
      },
    },
  ],
  scale: [
    {
      name: `[${N}] by factor[1], offset 5`,
      async run(gpu) {
        const d = randn(N + 5, 111);
        const { data } = await runOp(
          gpu,
          'scale',
          { count: N, offset: 5, factor_index: 1 },
          { factor: Float32Array.of(9, 0.25), data: d },
          (o) => grid1d(N, o.WG ?? 64),
        );
        expectClose(
          'data',
          data!,
          d.map((v, i) => (i < 5 ? v : Math.fround(v * 0.25))),
          { rtol: 0, atol: 0 },
        );
      },
    },
  ],
  fill: [
    {
      name: `[${N}] slice [7, ${N - 7}) with 2.5`,
      async run(gpu) {
        const { data } = await runOp(
          gpu,
          'fill',
          { count: N - 14, offset: 7, value: 2.5 },
          { data: randn(N, 121) },
          (o) => grid1d(N, o.WG ?? 64),
        );
        expectTrue(
          data!.subarray(7, N - 7).every((v) => v === 2.5) && data![6] !== 2.5 && data![N - 7] !== 2.5,
          `data: the slice [7, ${N - 7}) must be 2.5 and the values around it unchanged`,
        );
      },
    },
  ],
  add_scaled: [
    {
      name: `[${N}] dst[2:] += -0.5 * src[1:]`,
      async run(gpu) {
        const src = randn(N + 1, 131);
        const dst = randn(N + 2, 132);
        const { dst: out } = await runOp(
          gpu,
          'add_scaled',
          { count: N, s_off: 1, d_off: 2, alpha: -0.5 },
          { src, dst },
          (o) => grid1d(N, o.WG ?? 64),
        );
        expectClose(
          'dst',
          out!,
          dst.map((v, i) => (i < 2 ? v : Math.fround(v - 0.5 * (src[i - 1] ?? 0)))),
          KERNEL_TOL,
        );
      },
    },
  ],
  normalize_input: [
    {
      name: '3 images [3,5,7] (a length that is not a multiple of 4) with CIFAR mean/std',
      async run(gpu) {
        const n = 3 * 3 * 35;
        const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff);
        const words = new Uint32Array(Math.ceil(n / 4));
        new Uint8Array(words.buffer).set(bytes);
        const mean = [0.4914, 0.4822, 0.4465],
          std = [0.2023, 0.1994, 0.201];
        const { x } = await runOp(
          gpu,
          'normalize_input',
          { count: n, c: 3, hw: 35, pad: 0, mean: [...mean, 0], stdev: [...std, 1] },
          { bytes: words, x: n },
          (o) => grid1d(Math.ceil(n / 4), o.WG ?? 64),
        );
        const c = (i: number) => Math.floor(i / 35) % 3;
        expectClose(
          'x',
          x!,
          Array.from(bytes, (b, i) => (b / 255 - (mean[c(i)] ?? 0)) / (std[c(i)] ?? 1)),
          { rtol: 1e-6, atol: 1e-6 },
        );
      },
    },
  ],
} satisfies Record<string, OpCase[]>;
