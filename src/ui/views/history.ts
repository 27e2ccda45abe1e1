// What the run has reported so far, as plain arrays: the curves draw it, the page exposes it
// (window.webddpPage) so a test or a curious user reads the same numbers the charts show.
import type { TrainEvent } from '../../runtime/events.ts';

export interface EpochPoint {
  readonly epoch: number;
  /** Global step count at the end of the epoch. */
  readonly step: number;
  readonly trainLoss: number;
  readonly trainAccuracy: number;
  readonly testLoss: number;
  readonly testAccuracy: number;
  readonly imagesPerSec: number;
  readonly seconds: number;
}

export class History {
  /** Per optimizer step: global step index (x), rank 0's loss, its batch accuracy, images/s, step ms. */
  readonly x: number[] = [];
  readonly loss: number[] = [];
  readonly accuracy: number[] = [];
  readonly imagesPerSec: number[] = [];
  readonly stepMs: number[] = [];
  /** The learning rate each optimizer step used (the schedule's, or the configured one). */
  readonly lr: number[] = [];
  /** fp16: the loss scale each step used (NaN in an fp32 run), and the steps skipped on overflow. */
  readonly lossScale: number[] = [];
  skipped = 0;
  readonly epochs: EpochPoint[] = [];
  /** Smoothed loss (exponential moving average, like TensorBoard's smoothing 0.9). */
  readonly smoothLoss: number[] = [];
  readonly smoothAccuracy: number[] = [];
  stepsPerEpoch = 0;
  epoch = 0;
  step = 0;
  private lossEma = new Ema();
  private accEma = new Ema();

  handle(e: TrainEvent): boolean {
    if (e.type === 'epoch-start') {
      this.stepsPerEpoch = e.steps;
      this.epoch = e.epoch;
      return true;
    }
    if (e.type === 'step') {
      this.step = e.step;
      this.x.push(this.x.length + 1);
      this.loss.push(e.loss);
      this.accuracy.push(e.accuracy);
      this.imagesPerSec.push(e.imagesPerSec);
      this.stepMs.push(e.ms);
      this.lr.push(e.lr);
      this.lossScale.push(e.fp16?.lossScale ?? NaN);
      if (e.fp16?.skipped) this.skipped++;
      this.smoothLoss.push(this.lossEma.add(e.loss));
      this.smoothAccuracy.push(this.accEma.add(e.accuracy));
      return true;
    }
    if (e.type === 'epoch') {
      this.epochs.push({
        epoch: e.epoch,
        step: this.x.length,
        trainLoss: e.trainLoss,
        trainAccuracy: e.trainAccuracy,
        testLoss: e.testLoss,
        testAccuracy: e.testAccuracy,
        imagesPerSec: e.imagesPerSec,
        seconds: e.seconds,
      });
      return true;
    }
    return false;
  }

  reset(): void {
    for (const a of [
      this.x,
      this.loss,
      this.accuracy,
      this.imagesPerSec,
      this.stepMs,
      this.lr,
      this.lossScale,
      this.smoothLoss,
      this.smoothAccuracy,
    ])
      a.length = 0;
    this.skipped = 0;
    this.epochs.length = 0;
    this.stepsPerEpoch = 0;
    this.epoch = 0;
    this.step = 0;
    this.lossEma = new Ema();
    this.accEma = new Ema();
  }
}

/** Debiased exponential moving average (as Adam debiases its moments), so early values are not pulled to 0. */
class Ema {
  private m = 0;
  private n = 0;
  constructor(private readonly beta = 0.9) {}
  add(v: number): number {
    this.n++;
    this.m = this.beta * this.m + (1 - this.beta) * v;
    return this.m / (1 - this.beta ** this.n);
  }
}
