// The loss scaler kernel (shaders/loss_scaler.wgsl) against the host's DeepSpeed scaler
// (src/optim/loss-scaler.ts) over sequences of overflow flags: after every step the same scale,
// counters and hysteresis; the loss gradient's factor and the unscale's 1/scale bit for bit what the
// host uploads (past float32's range too: infinities, subnormals); the gated dispatches' run word;
// the optimizer Params picked for the step taken; the error at min_loss_scale where DeepSpeed raises.
import { bufferFrom, readFloats, storageBuffer } from '../../gpu/buffers.ts';
import type { Gpu } from '../../gpu/device.ts';
import { makeOp } from '../../gpu/op.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { DynamicLossScaler, StaticLossScaler, type LossScaler } from '../../optim/loss-scaler.ts';
import { expectTrue } from './close.ts';
import type { OpCase } from './case.ts';

interface Sequence {
  readonly name: string;
  /** null: a static scale of 2^initialScalePower. */
  readonly dynamic: { hysteresis: number; consecutive: boolean; window: number; minExp: number } | null;
  readonly initialExp: number;
  readonly count: number;
  readonly flags: readonly number[];
}

const SEQUENCES: readonly Sequence[] = [
  {
    name: 'hysteresis 2, window 2: halvings, a hysteresis restored by a window, doublings',
    dynamic: { hysteresis: 2, consecutive: false, window: 2, minExp: 0 },
    initialExp: 10,
    count: 4,
    flags: [1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0],
  },
  {
    name: 'consecutive hysteresis 3, window 3, min 2^2 reached (DeepSpeed raises there)',
    dynamic: { hysteresis: 3, consecutive: true, window: 3, minExp: 2 },
    initialExp: 5,
    count: 7,
    flags: [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1],
  },
  {
    name: 'hysteresis 1, window 1 from 2^120: past float32 (infinite factor, subnormal and zero 1/scale)',
    dynamic: { hysteresis: 1, consecutive: false, window: 1, minExp: 0 },
    initialExp: 120,
    count: 100,
    flags: [...Array.from({ length: 34 }, () => 0), 1, 1, 0, 1],
  },
  {
    name: 'a static scale: only skips',
    dynamic: null,
    initialExp: 7,
    count: 3,
    flags: [1, 0, 0, 1, 1, 0],
  },
];

const f32Bits = (x: number) => new Uint32Array(Float32Array.of(x).buffer)[0] ?? 0;
const BLOCK = 4;

async function runSequence(gpu: Gpu, q: Sequence): Promise<void> {
  const d = q.dynamic;
  const host: LossScaler = d
    ? new DynamicLossScaler({
        initialScalePower: q.initialExp,
        scaleWindow: d.window,
        minScale: 2 ** d.minExp,
        hysteresis: d.hysteresis,
        consecutiveHysteresis: d.consecutive,
      })
    : new StaticLossScaler(2 ** q.initialExp);
  const k = await gpu.kernels.get('loss_scaler');
  const init = new Uint32Array(16);
  init[0] = q.initialExp;
  init[3] = d?.hysteresis ?? 0;
  const flag = storageBuffer(gpu, 'test.loss_scaler.flag', 4, 'other');
  const state = bufferFrom(gpu, 'test.loss_scaler.state', init, 'other');
  const candidates = storageBuffer(gpu, 'test.loss_scaler.candidates', 3 * BLOCK * 4, 'other');
  const selected = storageBuffer(gpu, 'test.loss_scaler.selected', BLOCK * 4, 'other');
  const bound = { flag, state, candidates, selected };
  const params = {
    mode: 0,
    dynamic: d ? 1 : 0,
    hysteresis: d?.hysteresis ?? 0,
    consecutive: d?.consecutive ? 1 : 0,
    scale_window: d?.window ?? 1,
    min_exp: d?.minExp ?? 0,
    block_words: BLOCK,
    window_lo: 1,
    window_len: 3,
    inv_count: 1 / q.count,
  };
  const prepare = makeOp(gpu, k, 'test.loss_scaler.prepare', params, bound, [1, 1, 1]);
  const update = makeOp(gpu, k, 'test.loss_scaler.update', { ...params, mode: 1 }, bound, [1, 1, 1]);
  let steps = 0;
  try {
    for (const [i, f] of q.flags.entries()) {
      const at = `${q.name}, step ${i} (flag ${f})`;
      const used = host.scale;
      let raised = false;
      let skip = false;
      try {
        skip = host.update(f !== 0).skip;
      } catch {
        raised = true; // DeepSpeed's "already at minimum"
      }
      // the candidates: step numbers lo .. lo + 2 with the step taken at a varying place
      const lo = Math.max(1, steps + 1 - (i % 3));
      const blocks = Uint32Array.from({ length: 3 * BLOCK }, (_, w) => (lo + Math.floor(w / BLOCK)) * 16 + (w % BLOCK));
      gpu.device.queue.writeBuffer(flag, 0, Uint32Array.of(f));
      gpu.device.queue.writeBuffer(candidates, 0, blocks);
      update.setParams({ window_lo: lo });
      const rec = new Recorder(gpu, 'test.loss_scaler');
      rec.dispatch(prepare);
      rec.dispatch(update);
      rec.submit();
      const s = new Uint32Array((await readFloats(gpu, state)).buffer);
      const sel = new Uint32Array((await readFloats(gpu, selected)).buffer);
      const exp = new Int32Array(s.buffer);
      if (d) {
        expectTrue(s[6] === f32Bits(used / q.count), `${at}: loss factor ${s[6]} != f32(${used} / ${q.count})`);
        expectTrue(s[7] === f32Bits(1 / used), `${at}: inverse scale bits ${s[7]} != f32(1 / ${used})`);
        expectTrue(2 ** (exp[9] ?? NaN) === used, `${at}: scale used 2^${exp[9]} != ${used}`);
      }
      if (raised) {
        expectTrue(((s[5] ?? 0) & 1) === 1, `${at}: DeepSpeed raises at min_loss_scale; the kernel set no error`);
        return;
      }
      expectTrue(s[5] === 0, `${at}: error ${s[5]}`);
      expectTrue((s[8] === 1) === skip, `${at}: skipped ${s[8]}, host ${skip}`);
      if (d) {
        const h = host.state();
        expectTrue(2 ** (exp[0] ?? NaN) === h.scale, `${at}: scale 2^${exp[0]} != ${h.scale}`);
        expectTrue(s[1] === h.iter, `${at}: iter ${s[1]} != ${h.iter}`);
        expectTrue((s[2] ?? 0) - 1 === h.lastOverflowIter, `${at}: last overflow ${s[2]}-1 != ${h.lastOverflowIter}`);
        expectTrue(s[3] === h.hysteresis, `${at}: hysteresis ${s[3]} != ${h.hysteresis}`);
      }
      if (!skip) steps++;
      expectTrue(s[4] === steps, `${at}: optimizer steps ${s[4]} != ${steps}`);
      expectTrue(s[10] === (skip ? 0 : 1), `${at}: the gated dispatches' run word ${s[10]}, skipped ${skip}`);
      expectTrue(s[11] === 1, `${at}: the word put back into run after a gated dispatch is ${s[11]}, not 1`);
      if (!skip)
        expectTrue(
          [...sel].every((v, w) => v === steps * 16 + w),
          `${at}: Params picked ${[...sel].join()}, not step ${steps}'s`,
        );
    }
    expectTrue(!d || d.minExp !== 2, `${q.name}: the sequence was to reach min_loss_scale`);
  } finally {
    prepare.destroy();
    update.destroy();
    for (const b of Object.values(bound)) gpu.memory.destroy(b);
  }
}

export const lossScalerCases = {
  loss_scaler: SEQUENCES.map((q): OpCase => ({
    name: q.name,
    run: (gpu) => runSequence(gpu, q),
  })),
};
