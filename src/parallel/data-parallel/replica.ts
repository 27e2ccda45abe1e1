// A DataParallel replica (cuda:1.. of torch.nn.DataParallel): no optimizer and no data of its own.
// Each step it receives the parameters and its chunk from device 0, runs the forward, sends its
// outputs, receives their gradient, runs the backward and sends its parameter gradients back.
// fp16: the parameters arrive as packed halves and the gradients (loss-scaled, from device 0's
// scaled output gradients) leave as packed halves: half the bytes both ways.
import { numel } from '../../nn/layer.ts';
import type { ModeContext, ModeRunner, StepStats } from '../mode.ts';
import { ReplicaIO } from '../../train/replica-io.ts';
import { decodeBatch, HEADER, pairRecv, pairSend } from './wire.ts';

export class DataParallelReplica implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    /** The device side: the forward's outputs to the host, the host's output gradients to parameter gradients. */
    private readonly device: ReplicaIO,
    /** fp16: parameters arrive and gradients leave as packed halves. */
    private readonly half: boolean,
  ) {}

  static async create(ctx: ModeContext): Promise<DataParallelReplica> {
    return new DataParallelReplica(ctx, await ReplicaIO.create(ctx.trainer, ctx.config.fp16), ctx.config.fp16);
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
    const { trainer, rank } = this.ctx;
    const pg = this.root;
    const K = trainer.spec.classes;
    const n = header[0] ?? 0;
    if (n === 0) return 0;
    // 1. the parameters and the data, from device 0
    await this.recvParams();
    const body = await this.ctx.comm(() => pairRecv(pg, n + n * numel(trainer.spec.input), false, rank), 'recv chunk');
    const batch = decodeBatch(header, body);
    // 2. forward: the outputs go to device 0, which computes the loss over the whole batch
    const { logits } = await this.device.forward(batch);
    await this.ctx.comm(() => logits.then((l) => pairSend(pg, l, false, rank)), 'send logits');
    // 3. backward from device 0's output gradients; the parameter gradients go back to it
    const dl = await this.ctx.comm(() => pairRecv(pg, n * K, false, rank), 'wait for dlogits');
    const g = await this.device.backward(dl);
    await this.ctx.comm(() => pairSend(pg, g, false, rank), 'send grads');
    return n;
  }

  dispose(): void {
    this.device.destroy();
  }
}
