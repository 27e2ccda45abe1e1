// The device side of a replica that has no loss of its own (DataParallel's cuda:1..): its forward
// ends in outputs read back to the host, and its backward starts from output gradients the host
// writes, ending in its parameter gradients read back (fp16: packed into halves first, half the
// bytes) with the arena cleared for the next pass.
import { Readback } from '../gpu/readback.ts';
import { Recorder } from '../gpu/recorder.ts';
import type { Batch } from '../data/batch.ts';
import type { StepPlan } from '../nn/model.ts';
import { HalfGradients } from './half-grads.ts';
import type { Trainer } from './trainer.ts';

export class ReplicaIO {
  /** The plan of the batch between forward() and backward(). */
  private plan: StepPlan | null = null;

  private constructor(
    private readonly trainer: Trainer,
    private readonly logits: Readback,
    private readonly grads: Readback,
    /** fp16: the gradients packed into halves before they leave. */
    private readonly half: HalfGradients | null,
  ) {}

  static async create(trainer: Trainer, halves: boolean): Promise<ReplicaIO> {
    const { gpu } = trainer;
    const P = trainer.spec.total;
    const half = halves ? await HalfGradients.create(gpu, trainer.grads, [{ offset: 0, count: P }]) : null;
    return new ReplicaIO(
      trainer,
      new Readback(gpu, 'dp.logits.readback', trainer.model.maxBatch * trainer.spec.classes),
      new Readback(gpu, 'dp.grads.readback', half ? Math.ceil(P / 2) : P),
      half,
    );
  }

  /** Uploads `batch` and submits its forward; settles then, with the promise of its outputs (logits) read back. */
  async forward(batch: Batch): Promise<{ readonly logits: Promise<Float32Array> }> {
    const { trainer } = this;
    const plan = await trainer.upload(batch);
    this.plan = plan;
    const rec = new Recorder(trainer.gpu, 'dp.replica.forward');
    trainer.recordForward(rec, plan, 'images' in batch);
    const n = plan.batch * trainer.spec.classes;
    this.logits.record(rec, trainer.model.logits, 0, n);
    rec.submit();
    return { logits: this.logits.read(n) };
  }

  /** Runs the backward from the output gradients `dlogits`: the parameter gradients (fp16: packed halves), read back. */
  async backward(dlogits: Float32Array): Promise<Float32Array> {
    const { trainer, plan } = this;
    if (!plan) throw new Error('ReplicaIO.backward before forward');
    const { gpu } = trainer;
    gpu.uploads.write(trainer.model.dlogits, 0, dlogits, 'communication', 'dp.replica.dlogits');
    const rec = new Recorder(gpu, 'dp.replica.backward');
    trainer.recordBackward(rec, plan, undefined, false);
    const out = this.half ? this.half.wordCount(0) : trainer.spec.total;
    if (this.half) this.half.recordPack(rec, 0);
    this.grads.record(rec, this.half?.words ?? trainer.grads, 0, out);
    rec.clear(trainer.grads);
    rec.submit();
    this.plan = null;
    return gpu.tracer.span('readback grads', 'step', () => this.grads.read(out));
  }

  destroy(): void {
    this.logits.destroy();
    this.grads.destroy();
    this.half?.destroy();
  }
}
