// The kernels fp16's loss scaler gates (clipping, the optimizers, the master's casts: Recorder.gated)
// with their Params' `run` at 0, as on a step the scaler skips: every buffer they may write comes back
// bit for bit as it went in.
import { grid1d, type OpParams } from '../../gpu/op.ts';
import { KERNELS, type BindingName, type KernelName } from '../../gpu/kernels.ts';
import { expectTrue } from './close.ts';
import { randn, runOp, type OpInput } from './run-op.ts';
import type { OpCase } from './case.ts';

const N = 1003;

function gatedCase<K extends KernelName>(
  name: K,
  params: OpParams<K>,
  inputs: Readonly<Record<BindingName<K>, Float32Array | Uint32Array>>,
  groups?: readonly [number, number, number],
): OpCase {
  return {
    name: `run = 0 (a step the loss scaler skips) writes nothing`,
    async run(gpu) {
      const out = await runOp(
        gpu,
        name,
        { ...params, run: 0 },
        inputs as Readonly<Record<BindingName<K>, OpInput>>,
        (ov) => groups ?? grid1d(N, ov.WG ?? 64),
      );
      const given = inputs as Readonly<Record<string, Float32Array | Uint32Array>>;
      for (const [b, kind] of KERNELS[name].bindings) {
        if (kind !== 'read_write') continue;
        const want = given[b];
        const got = out[b];
        if (!want || !got) throw new Error(`${name}: no input or output for '${b}'`);
        const w = new Uint32Array(want.buffer, want.byteOffset, want.length);
        const g = new Uint32Array(got.buffer, got.byteOffset, w.length);
        const at = w.findIndex((v, i) => v !== g[i]);
        expectTrue(at < 0, `${name} with run = 0 changed ${b}[${at}]: ${w[at]} -> ${g[at]} (bits)`);
      }
    },
  };
}

const words = (n: number, seed: number) => new Uint32Array(randn(n, seed).buffer);

export const gatedCases: Partial<Record<KernelName, readonly OpCase[]>> = {
  sgd_step: [
    gatedCase(
      'sgd_step',
      { count: N, p_off: 0, g_off: 0, first: 0, lr: 0.1, momentum: 0.9, dampening: 0, weight_decay: 0.01, nesterov: 0 },
      { grad: randn(N, 1), theta: randn(N, 2), momentum: randn(N, 3) },
    ),
  ],
  adam_step: [
    gatedCase(
      'adam_step',
      {
        count: N,
        p_off: 0,
        g_off: 0,
        decoupled: 1,
        one_minus_beta1: 0.1,
        beta2: 0.999,
        one_minus_beta2: 0.001,
        eps: 1e-8,
        step_size: 0.001,
        bc2_sqrt: 1,
        weight_decay: 0.01,
        decay: 0.99999,
      },
      { grad: randn(N, 4), theta: randn(N, 5), m: randn(N, 6), v: randn(N, 7, 0.5).map(Math.abs) },
    ),
  ],
  grad_norm: [gatedCase('grad_norm', { count: N, offset: 0 }, { grad: randn(N, 8), partial: randn(8, 9) }, [8, 1, 1])],
  clip_coef: [
    gatedCase(
      'clip_coef',
      { count: 8, max_norm: 1, extra_sq: 0 },
      { partial: randn(8, 10), out: randn(4, 11) },
      [1, 1, 1],
    ),
  ],
  scale: [gatedCase('scale', { count: N, offset: 0, factor_index: 0 }, { factor: randn(4, 12), data: randn(N, 13) })],
  cast_f32_to_f16: [
    gatedCase('cast_f32_to_f16', { count: N, s_off: 0, d_off: 0, scale: 1 }, { src: randn(N, 14), dst: words(N, 15) }),
  ],
  cast_f32_to_bf16: [
    gatedCase('cast_f32_to_bf16', { count: N, s_off: 0, d_off: 0, scale: 1 }, { src: randn(N, 16), dst: words(N, 17) }),
  ],
};
