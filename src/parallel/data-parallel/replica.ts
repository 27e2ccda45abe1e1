// A DataParallel replica (cuda:1.. of torch.nn.DataParallel): no optimizer and no data of its own.
// Each step it receives the parameters and its chunk from device 0, runs the forward, sends its
// outputs, receives their gradient, runs the backward and sends its parameter gradients back.
// fp16: the parameters arrive as packed halves and the gradients (loss-scaled, from device 0's
// scaled output gradients) leave as packed halves: half the bytes both ways.
import { Readback } from '../../gpu/readback.ts';
import { Recorder } from '../../gpu/recorder.ts';
import { numel } from '../../nn/layer.ts';
import type { ModeContext, ModeRunner, StepStats } from '../mode.ts';
import { HalfGradients } from '../../train/half-grads.ts';
import { decodeBatch, HEADER, pairRecv, pairSend } from './wire.ts';

export class DataParallelReplica implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly logits: Readback,
    private readonly grads: Readback,
    /** fp16: the gradients packed into halves before they leave. */
    private readonly half: HalfGradients | null,
  ) {}

  static async create(ctx: ModeContext): Promise<DataParallelReplica> {
    const { gpu, trainer } = ctx;
    const P = trainer.spec.total;
    const half = ctx.config.fp16 ? await HalfGradients.create(gpu, trainer.grads, [{ offset: 0, count: P }]) : null;
    return new DataParallelReplica(
      ctx,
      new Readback(gpu, 'dp.logits.readback', trainer.model.maxBatch * trainer.spec.classes),
      new Readback(gpu, 'dp.grads.readback', half ? Math.ceil(P / 2) : P),
      half,
    );
  }

  /** Receives device 0's parameters (fp16: packed halves) and sets them. */
  private async recvParams(): Promise<void> {
    const { trainer, rank } = this.ctx;
    const P = trainer.spec.total;
    const p = await this.ctx.comm(
      () => pairRecv(this.root, this.half ? Math.ceil(P / 2) : P, false, rank),
      'recv params',
    );
    if (this.half) trainer.setHalves(new Uint32Array(p.buffer, p.byteOffset, p.length));
    else trainer.setParams(p);
  }

  private get root() {
    const pg = this.ctx.pairs.get(0);
    if (!pg) throw new Error(`DataParallel replica ${this.ctx.rank} has no link to device 0`);
    return pg;
  }

  async syncInitial(): Promise<void> {
    /* parameters arrive with every step */
  }

  async syncParams(): Promise<void> {
    await this.recvParams();
  }

  /** Every micro-batch device 0 sends for this step (more than one under gradient accumulation). */
  async step(): Promise<StepStats> {
    let samples = 0;
    for (let more = true; more;) {
      const header = await this.ctx.comm(() => pairRecv(this.root, HEADER, false, this.ctx.rank), 'wait for device 0');
      more = header[2] === 1;
      samples += await this.micro(header);
    }
    return { loss: NaN, correct: 0, samples };
  }

  private async micro(header: Float32Array): Promise<number> {
    const { trainer, gpu, rank } = this.ctx;
    const pg = this.root;
    const K = trainer.spec.classes;
    const n = header[0] ?? 0;
    if (n === 0) return 0;
    await this.recvParams();
    const body = await this.ctx.comm(() => pairRecv(pg, n + n * numel(trainer.spec.input), false, rank), 'recv chunk');
    const batch = decodeBatch(header, body);
    const plan = await trainer.upload(batch);
    let rec = new Recorder(gpu, 'dp.replica.forward');
    trainer.recordForward(rec, plan, 'images' in batch);
    this.logits.record(rec, trainer.model.logits, 0, n * K);
    rec.submit();
    await this.ctx.comm(() => this.logits.read(n * K).then((l) => pairSend(pg, l, false, rank)), 'send logits');
    const dl = await this.ctx.comm(() => pairRecv(pg, n * K, false, rank), 'wait for dlogits');
    gpu.uploads.write(trainer.model.dlogits, 0, dl, 'communication', 'dp.replica.dlogits');
    rec = new Recorder(gpu, 'dp.replica.backward');
    trainer.recordBackward(rec, plan, undefined, false);
    const out = this.half ? this.half.wordCount(0) : trainer.spec.total;
    if (this.half) this.half.recordPack(rec, 0);
    this.grads.record(rec, this.half?.words ?? trainer.grads, 0, out);
    rec.clear(trainer.grads);
    rec.submit();
    const g = await this.ctx.tracer.span('readback grads', 'step', () => this.grads.read(out));
    await this.ctx.comm(() => pairSend(pg, g, false, rank), 'send grads');
    return n;
  }

  dispose(): void {
    this.logits.destroy();
    this.grads.destroy();
    this.half?.destroy();
  }
}
