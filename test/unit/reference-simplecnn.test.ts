// The whole-model reference against PyTorch (fixtures/simplecnn_grad.safetensors): logits,
// loss and every gradient; two optimizer steps of SGD, Adam and AdamW (each step recomputes the
// gradient on the same batch, as gen_fixtures.py does); clip_grad_norm_; and central finite
// differences of the whole model in float64 at a small width.
import { describe, expect, it } from 'vitest';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import type { AdamOptions } from '../../src/numeric/adam-scalars.ts';
import { adamInit, adamStep } from '../../src/reference/adam.ts';
import { clipGradNorm } from '../../src/reference/clip.ts';
import { compareTensors, formatComparison, type Comparison } from '../../src/reference/compare.ts';
import { sgdInit, sgdStep } from '../../src/reference/sgd.ts';
import { paramView, simpleCnnStep } from '../../src/reference/simplecnn.ts';
import { softmaxXentForward } from '../../src/reference/softmax-xent.ts';
import { loadGradFixture } from '../helpers/fixture.ts';
import { expectClose, numericGrad, uniform } from '../helpers/gradcheck.ts';

const fx = loadGradFixture();
const TOL = { rtol: 1e-4, atol: 1e-5 }; // test/fixtures/README.md: logits, loss, grads, clipped grads, SGD
const f64 = (n: number) => new Float64Array(n);

/** Compares two flat arenas tensor by tensor; returns the report lines and whether all passed. */
function perTensor(
  label: string,
  actual: Float32Array,
  expected: Float32Array,
  tol = TOL,
): { lines: string[]; ok: boolean; all: Comparison } {
  const lines = fx.spec.params.map((p) =>
    formatComparison(`${label}.${p.name}`, compareTensors(paramView(actual, p), paramView(expected, p), tol)),
  );
  return { lines, ok: lines.every((l) => l.startsWith('PASS')), all: compareTensors(actual, expected, tol) };
}

function bitExact(a: Float32Array, b: Float32Array): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (Object.is(a[i], b[i])) n++;
  return n / a.length;
}

describe('SimpleCNN reference vs PyTorch 2.11 (simplecnn_grad fixture)', () => {
  const r = simpleCnnStep(fx.spec, fx.params, fx.x, fx.y);

  it('the fixture states the hyper-parameters this test uses', () => {
    expect(fx.metadata.torch).toMatch(/^2\.11/);
    expect(fx.hyper).toMatchObject({
      sgd: { lr: 0.01, momentum: 0.9 },
      adam: { lr: 1e-3, weight_decay: 0 },
      adamw: { lr: 1e-3, weight_decay: 0.01 },
      clipMaxNorm: 0.5,
    });
    expect(fx.n).toBe(8);
  });

  it('logits, mean loss and correct count', () => {
    expectClose('out.logits', r.logits, fx.logits, TOL);
    expectClose('out.loss', [r.loss], [fx.loss], TOL);
    expect(r.correct).toBe(softmaxXentForward(fx.logits, fx.y, { n: fx.n, c: 10 }).correct);
    console.log(formatComparison('out.logits', compareTensors(r.logits, fx.logits, TOL)));
    console.log(formatComparison('out.loss', compareTensors([r.loss], [fx.loss], TOL)));
  });

  it('every parameter gradient', () => {
    const { lines, ok } = perTensor('grad', r.grad, fx.grads);
    console.log(lines.join('\n'));
    expect(ok, lines.join('\n')).toBe(true);
  });

  it('two SGD(momentum 0.9) steps', () => {
    const p = fx.params.slice();
    const s = sgdInit();
    const o = { lr: fx.hyper.sgd.lr, momentum: fx.hyper.sgd.momentum };
    for (let k = 0; k < 2; k++) sgdStep(p, simpleCnnStep(fx.spec, p, fx.x, fx.y).grad, s, o);
    const { lines, ok } = perTensor('after2.sgd', p, fx.after2('sgd'));
    console.log(lines.join('\n'), `\nafter2.sgd bit-exact: ${(100 * bitExact(p, fx.after2('sgd'))).toFixed(3)}%`);
    expect(ok, lines.join('\n')).toBe(true);
  });

  it.each(['adam', 'adamw'] as const)(
    'two %s steps, by the README rule (every parameter within 5e-3, at least 99.9 percent within 1e-4 + 1e-3 |e|)',
    (name) => {
      const h = fx.hyper[name];
      const o: AdamOptions = {
        lr: h.lr,
        beta1: h.betas[0],
        beta2: h.betas[1],
        eps: h.eps,
        weightDecay: h.weight_decay,
        decoupled: name === 'adamw',
      };
      const p = fx.params.slice();
      const s = adamInit(p.length);
      for (let k = 0; k < 2; k++) adamStep(p, simpleCnnStep(fx.spec, p, fx.x, fx.y).grad, s, o);
      const want = fx.after2(name);
      const every = compareTensors(p, want, { rtol: 0, atol: 5e-3 });
      const most = compareTensors(p, want, { rtol: 1e-3, atol: 1e-4 });
      console.log(
        formatComparison(`after2.${name} (5e-3)`, every),
        `\n${formatComparison(`after2.${name}`, most)}`,
        `\nafter2.${name} bit-exact: ${(100 * bitExact(p, want)).toFixed(3)}%`,
      );
      expect(every.ok).toBe(true);
      expect(most.mismatches / most.count).toBeLessThanOrEqual(1e-3);
    },
  );

  it('clip_grad_norm_(max_norm 0.5) of the fixture gradients and of the reference gradients', () => {
    for (const [label, grads] of [
      ['fixture grads', fx.grads],
      ['reference grads', r.grad],
    ] as const) {
      const g = grads.slice();
      const res = clipGradNorm(
        fx.spec.params.map((p) => paramView(g, p)),
        fx.hyper.clipMaxNorm,
      );
      expectClose(`clip.total_norm (${label})`, [res.totalNorm], [fx.clipTotalNorm], TOL);
      expect(res.clipCoef).toBeLessThan(1);
      const { lines, ok } = perTensor(`clip.grad (${label})`, g, fx.clipGrads);
      if (label === 'fixture grads') {
        console.log(
          lines.join('\n'),
          `\nclip.total_norm ${res.totalNorm} vs ${fx.clipTotalNorm}; clip.grad bit-exact: ${(100 * bitExact(g, fx.clipGrads)).toFixed(3)}%`,
        );
      }
      expect(ok, lines.join('\n')).toBe(true);
    }
  });
});

describe('SimpleCNN reference, any width', () => {
  it('central finite differences of the mean loss in float64 (width 0.125, batch 3)', () => {
    const spec = simpleCnnSpec(0.125);
    const n = 3;
    const params = uniform(spec.total, 1);
    for (const p of spec.params) {
      for (let i = p.offset; i < p.offset + p.size; i++) params[i] = (params[i]! * 2) / Math.sqrt(p.fanIn); // about PyTorch's init scale
    }
    const x = uniform(n * 3 * 32 * 32, 2);
    const y = Int32Array.of(3, 7, 0);
    const g = simpleCnnStep(spec, params, x, y, f64).grad;
    // Ten indices per tensor: first, last and eight spread between.
    const at = spec.params.flatMap((p) =>
      Array.from({ length: 10 }, (_, k) => p.offset + Math.round((k * (p.size - 1)) / 9)),
    );
    const fd = numericGrad(() => simpleCnnStep(spec, params, x, y, f64).loss, params, 1e-6, at);
    expectClose(
      'dL/dparams',
      at.map((i) => g[i]!),
      fd,
      { rtol: 1e-5, atol: 1e-9 },
    );
  });

  it('runs at other widths; the float32 result is the float64 one to float32 accuracy', () => {
    for (const w of [0.25, 0.5]) {
      const spec = simpleCnnSpec(w);
      const x = Float32Array.from(uniform(2 * 3 * 32 * 32, 5));
      const params = Float32Array.from(uniform(spec.total, 6), (v) => v * 0.05);
      const y = Int32Array.of(1, 9);
      const a = simpleCnnStep(spec, params, x, y);
      const b = simpleCnnStep(spec, params, x, y, f64);
      expect(a.grad.length).toBe(spec.total);
      expect(a.logits.length).toBe(20);
      expectClose(`logits w=${w}`, a.logits, b.logits, { rtol: 1e-5, atol: 1e-7 });
      expectClose(`grad w=${w}`, a.grad, b.grad, { rtol: 1e-3, atol: 1e-7 });
    }
  });

  it('rejects a parameter arena or batch of the wrong size', () => {
    expect(() => simpleCnnStep(fx.spec, fx.params.subarray(1), fx.x, fx.y)).toThrow(/arena has 545097 elements/);
    expect(() => simpleCnnStep(fx.spec, fx.params, fx.x.subarray(1), fx.y)).toThrow(/SimpleCNN x/);
  });
});
