// A DataParallel replica (cuda:1.. of torch.nn.DataParallel): no optimizer and no data of its own.
// Each step it receives the parameters and its chunk from device 0, runs the forward, sends its
// outputs, receives their gradient, runs the backward and sends its parameter gradients back.
import { Recorder } from '../../gpu/recorder.ts';
import { decodeBatch, pairRecv, pairSend } from './wire.ts';
import { readStaging, type ModeContext, type ModeRunner, type StepStats } from '../mode.ts';

export class DataParallelReplica implements ModeRunner {
  private constructor(
    private readonly ctx: ModeContext,
    private readonly logitsStaging: GPUBuffer,
    private readonly gradStaging: GPUBuffer,
  ) {}

  static create(ctx: ModeContext): DataParallelReplica {
    const { gpu, trainer } = ctx;
    const usage = GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
    const logits = gpu.memory.createBuffer(gpu.device, {
      label: 'dp.logits.readback',
      size: trainer.model.maxBatch * 40,
      category: 'communication',
      usage,
    });
    const grads = gpu.memory.createBuffer(gpu.device, {
      label: 'dp.grads.readback',
      size: trainer.spec.total * 4,
      category: 'communication',
      usage,
    });
    return new DataParallelReplica(ctx, logits, grads);
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
    this.ctx.trainer.setParams(
      await this.ctx.comm(() => pairRecv(this.root, this.ctx.trainer.spec.total, false, this.ctx.rank)),
    );
  }

  async step(): Promise<StepStats> {
    const { trainer, gpu } = this.ctx;
    const pg = this.root;
    const header = await this.ctx.comm(() => pairRecv(pg, 2, false, this.ctx.rank));
    const n = header[0] ?? 0;
    if (n === 0) return { loss: NaN, correct: 0, samples: 0 };
    trainer.setParams(await this.ctx.comm(() => pairRecv(pg, trainer.spec.total, false, this.ctx.rank)));
    const batch = decodeBatch(header, await this.ctx.comm(() => pairRecv(pg, n + n * 3072, false, this.ctx.rank)));
    const plan = await trainer.upload(batch);
    let rec = new Recorder(gpu, 'dp.replica.forward');
    trainer.recordForward(rec, plan, 'images' in batch);
    rec.copy(trainer.model.logits, 0, this.logitsStaging, 0, n * 40);
    rec.submit();
    await this.ctx.comm(() =>
      readStaging(this.logitsStaging, n * 10).then((l) => pairSend(pg, l, false, this.ctx.rank)),
    );
    const dl = await this.ctx.comm(() => pairRecv(pg, n * 10, false, this.ctx.rank));
    gpu.uploads.write(trainer.model.dlogits, 0, dl, 'communication', 'dp.replica.dlogits');
    rec = new Recorder(gpu, 'dp.replica.backward');
    trainer.recordBackward(rec, plan, undefined, false);
    rec.copy(trainer.grads, 0, this.gradStaging, 0, trainer.spec.total * 4);
    rec.clear(trainer.grads);
    rec.submit();
    const g = await readStaging(this.gradStaging, trainer.spec.total);
    await this.ctx.comm(() => pairSend(pg, g, false, this.ctx.rank));
    return { loss: NaN, correct: 0, samples: n };
  }

  dispose(): void {
    this.ctx.gpu.memory.destroy(this.logitsStaging);
    this.ctx.gpu.memory.destroy(this.gradStaging);
  }
}
