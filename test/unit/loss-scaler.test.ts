// DeepSpeed's fp16 loss scaling on scripted overflow sequences. Each expectation is derived by
// hand from DynamicLossScaler.update_scale (deepspeed/runtime/fp16/loss_scaler.py): on overflow,
// if hysteresis (delayed_shift) is 1 or cur_hysteresis has run down to 1 the scale halves (not
// below min_scale; at min_scale it raises), else cur_hysteresis drops by one; without overflow,
// stable_interval = cur_iter - last_overflow_iter - 1, and when it is a positive multiple of
// scale_window the scale doubles and cur_hysteresis is refilled. cur_iter counts every update.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type TrainConfig } from '../../src/config.ts';
import { DYNAMIC_DEFAULTS, DynamicLossScaler, StaticLossScaler } from '../../src/optim/loss-scaler.ts';
import { ddp } from '../../src/parallel/ddp/index.ts';
import { halvesPipelined } from '../../src/parallel/fp16.ts';

const O = true; // overflow
const _ = false; // clean step

/** Runs the sequence; returns [scale after, hysteresis left after, messages] per step. */
function replay(s: DynamicLossScaler, seq: boolean[]): [number, number, string[]][] {
  return seq.map((overflow) => {
    const u = s.update(overflow);
    expect(u.skip).toBe(overflow);
    return [s.scale, s.hysteresisLeft, [...u.messages]];
  });
}

describe('DynamicLossScaler', () => {
  it('window 3, hysteresis 2, 2^4 start, min 2: grows, absorbs one overflow, halves, and stops at the floor', () => {
    const s = new DynamicLossScaler({
      initialScalePower: 4,
      scaleWindow: 3,
      minScale: 2,
      hysteresis: 2,
      consecutiveHysteresis: false,
    });
    expect(s.scale).toBe(16);
    const steps = replay(s, [_, _, _, _, O, O, _, _, O, _, _, _, _, O, _, O, O, O]);
    const hyst2 = (scale: number) =>
      `[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: ${scale}, but hysteresis is 2. Reducing hysteresis to 1`;
    const halve = (a: number, b: number) =>
      `[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: ${a}, reducing to ${b}`;
    expect(steps).toEqual([
      [16, 2, []], // iter 0: stable_interval 0 - (-1) - 1 = 0: no change
      [16, 2, []], // iter 1: stable 1
      [16, 2, []], // iter 2: stable 2
      [32, 2, []], // iter 3: stable 3 = window: doubles
      [32, 1, [hyst2(32)]], // iter 4: overflow, hysteresis 2 absorbs it
      [16, 1, [halve(32, 16)]], // iter 5: overflow with cur_hysteresis 1: halves
      [16, 1, []], // iter 6: stable 6 - 5 - 1 = 0
      [16, 1, []], // iter 7: stable 1
      [8, 1, [halve(16, 8)]], // iter 8: cur_hysteresis is still 1 (not refilled): halves at once
      [8, 1, []], // iter 9: stable 0
      [8, 1, []], // iter 10: stable 1
      [8, 1, []], // iter 11: stable 2
      [16, 2, []], // iter 12: stable 3: doubles and refills hysteresis
      [16, 1, [hyst2(16)]], // iter 13: absorbed
      [16, 1, []], // iter 14: stable 0
      [8, 1, [halve(16, 8)]], // iter 15
      [4, 1, [halve(8, 4)]], // iter 16
      [2, 1, [halve(4, 2)]], // iter 17: reaches min_scale 2
    ]);
    // iter 18: overflow at min_scale: DeepSpeed raises (raise_error_at_min_scale defaults to True).
    expect(() => s.update(true)).toThrow(
      'Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.',
    );
  });

  it('consecutive_hysteresis refills hysteresis after every clean step, and says so', () => {
    const s = new DynamicLossScaler({
      initialScalePower: 3,
      scaleWindow: 2,
      minScale: 1,
      hysteresis: 2,
      consecutiveHysteresis: true,
    });
    const refill = 'Consecutive hysteresis is enabled. Restoring hysteresis to 2';
    expect(replay(s, [O, _, O, O, _, _, _])).toEqual([
      [
        8,
        1,
        [
          '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8, but hysteresis is 2. Reducing hysteresis to 1',
        ],
      ],
      [8, 2, [refill]], // iter 1: refilled; stable 1 - 0 - 1 = 0
      [
        8,
        1,
        [
          '[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8, but hysteresis is 2. Reducing hysteresis to 1',
        ],
      ],
      [4, 1, ['[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8, reducing to 4']],
      [4, 2, [refill]], // iter 4: stable 0
      [4, 2, [refill]], // iter 5: stable 1
      [8, 2, [refill]], // iter 6: stable 2 = window: doubles
    ]);
  });

  it('hysteresis 1 halves on every overflow; min_loss_scale clamps a halving that would undershoot it', () => {
    const s = new DynamicLossScaler({
      initialScalePower: 3,
      scaleWindow: 1000,
      minScale: 3,
      hysteresis: 1,
      consecutiveHysteresis: false,
    });
    expect(replay(s, [O, O]).map(([scale, , m]) => [scale, m])).toEqual([
      [4, ['[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8, reducing to 4']],
      [3, ['[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 4, reducing to 3']], // max(2, 3)
    ]);
    expect(() => s.update(true)).toThrow(/already at minimum/);
  });

  it("DeepSpeed's defaults: 2^16, doubling on the 1001st clean update (stable_interval 1000)", () => {
    const s = new DynamicLossScaler(DYNAMIC_DEFAULTS);
    expect(s.scale).toBe(65536);
    for (let i = 0; i < 1000; i++) s.update(false);
    expect(s.scale).toBe(65536);
    s.update(false);
    expect(s.scale).toBe(131072);
  });

  it('refuses a window of 0 (DeepSpeed would divide by zero) and a non-positive floor', () => {
    expect(() => new DynamicLossScaler({ ...DYNAMIC_DEFAULTS, scaleWindow: 0 })).toThrow(/loss_scale_window/);
    expect(() => new DynamicLossScaler({ ...DYNAMIC_DEFAULTS, minScale: 0 })).toThrow(/min_loss_scale/);
  });
});

describe('StaticLossScaler', () => {
  it('keeps its scale and skips overflowing steps without a message', () => {
    const s = new StaticLossScaler(128);
    expect([s.update(true), s.update(false)]).toEqual([
      { skip: true, messages: [] },
      { skip: false, messages: [] },
    ]);
    expect(s.scale).toBe(128);
    expect(() => new StaticLossScaler(0)).toThrow(RangeError);
  });

  it('a scaler restored from a state mid-sequence continues exactly as the one it came from', () => {
    const o = { ...DYNAMIC_DEFAULTS, initialScalePower: 4, scaleWindow: 2, hysteresis: 2 };
    const seq = [O, _, O, O, _, _, _, O, _, _, _, _, O, O];
    for (let cut = 0; cut <= seq.length; cut++) {
      const whole = new DynamicLossScaler(o);
      const head = new DynamicLossScaler(o);
      replay(head, seq.slice(0, cut));
      const state = head.state();
      const cont = new DynamicLossScaler(o);
      cont.restore(JSON.parse(JSON.stringify(state)) as typeof state);
      expect(cont.state()).toEqual(state);
      const want = replay(whole, seq).slice(cut);
      expect(replay(cont, seq.slice(cut)), `cut at ${cut}`).toEqual(want);
    }
  });

  it('refuses a state the configured scaler cannot have, naming the field', () => {
    const s = new DynamicLossScaler({ ...DYNAMIC_DEFAULTS, hysteresis: 2, minScale: 1 });
    const ok = s.state();
    expect(() => s.restore({ ...ok, scale: 0.5 })).toThrow(/scale 0.5/);
    expect(() => s.restore({ ...ok, scale: Infinity })).toThrow(/scale Infinity/);
    expect(() => s.restore({ ...ok, iter: -1 })).toThrow(/iter -1/);
    expect(() => s.restore({ ...ok, iter: 3, lastOverflowIter: 3 })).toThrow(/lastOverflowIter 3/);
    expect(() => s.restore({ ...ok, hysteresis: 3 })).toThrow(/hysteresis 3/);
    expect(() => new StaticLossScaler(128).restore({ ...ok, scale: 64 })).toThrow(/static loss scale 128/);
    expect(s.state()).toEqual(ok);
  });
});

describe('which fp16 and bf16 DDP runs are pipelined (the loss scaler on the GPU)', () => {
  const c = (o: Partial<TrainConfig>): TrainConfig => ({ ...DEFAULT_CONFIG, workers: 1, fp16: true, ...o });
  const piped = (o: Partial<TrainConfig>) => ddp.pipelines?.(c(o), false) ?? false;
  it('one worker, no accumulation, constant lr, a static scale or a dynamic one over powers of two', () => {
    expect(piped({})).toBe(true);
    expect(piped({ fp16LossScale: 1000 })).toBe(true);
    expect(piped({ fp16MinLossScale: 4, fp16InitialScalePower: 30 })).toBe(true);
    expect(piped({ fp16: false, bf16: true })).toBe(true);
    expect(piped({ fp16: false, bf16: true, schedule: { type: 'StepLR', params: { step_size: 2, gamma: 0.5 } } })).toBe(
      true,
    );
  });
  it('not with an lr schedule, accumulation, more workers or a min_loss_scale off the powers of two', () => {
    expect(piped({ schedule: { type: 'StepLR', params: { step_size: 2, gamma: 0.5 } } })).toBe(false);
    expect(piped({ gradAccum: 2 })).toBe(false);
    expect(piped({ workers: 2 })).toBe(false);
    expect(piped({ fp16MinLossScale: 3 })).toBe(false);
    expect(ddp.pipelines?.(c({ workers: 2 }), true)).toBe(false);
    expect(halvesPipelined(c({ fp16: false }))).toBe(false);
  });
});
