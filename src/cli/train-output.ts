// What `webddp train` prints: rank 0's log in the style of PyTorch's DDP tutorial (`Epoch 0 |
// Batch 50/98 | Loss: ...`) and a progress bar per epoch on stderr, each epoch's summary on stdout;
// or JSON lines on stdout (--json).
import type { RecorderState } from '../comm/flight-recorder.ts';
import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import type { TrainEvent, WorkerStat } from '../runtime/events.ts';
import type { RankInfo } from '../runtime/protocol.ts';
import { formatBytes } from '../gpu/memory.ts';
import type { DatasetManifest } from '../data/store.ts';
import type { CliIO } from './command.ts';

const workersJson = (ws: readonly WorkerStat[]) =>
  ws.map((w) => ({
    rank: w.rank,
    memory_allocated: w.memory.allocated,
    max_memory_allocated: w.memory.peak,
    buffers_created: w.memory.created,
    by_category: Object.fromEntries(
      Object.entries(w.memory.byCategory).map(([k, v]) => [k, { allocated: v.allocated, peak: v.peak }]),
    ),
  }));

export class TrainOutput {
  private bars: MultiBar | null = null;
  private bar: SingleBar | null = null;
  /** The epoch's first step this run took, and its step count (a resumed epoch starts mid-way). */
  private firstStep: number | null = null;
  private lastStep = 0;
  private steps = 0;

  constructor(
    private readonly io: CliIO,
    private readonly json: boolean,
    private readonly logEvery: number,
  ) {}

  event(e: TrainEvent): void {
    if (this.json) {
      this.jsonLine(e);
      return;
    }
    switch (e.type) {
      case 'start':
        this.io.err(
          `training ${e.config.mode} on ${e.ranks.length} worker(s): ${e.ranks.map((r) => `rank ${r.rank} ${r.adapter.description || r.adapter.architecture}`).join('; ')}\n`,
        );
        if (e.ranks.length > 1) this.io.err(`${transportLine(e.ranks)}\n`);
        break;
      case 'epoch-start':
        this.bars = new MultiBar(
          {
            format: `epoch ${e.epoch} {bar} {value}/{total} | loss {loss} | {ips} img/s`,
            hideCursor: true,
            stream: process.stderr,
            clearOnComplete: true,
          },
          Presets.shades_classic,
        );
        this.bar = this.bars.create(e.steps, 0, { loss: '-', ips: '-' });
        this.firstStep = null;
        this.steps = e.steps;
        break;
      case 'step':
        this.firstStep ??= e.step;
        this.lastStep = e.step;
        this.bar?.update(e.step + 1, { loss: e.loss.toFixed(4), ips: e.imagesPerSec.toFixed(0) });
        // DeepSpeed logs every overflow, whatever steps_per_print says
        for (const m of e.fp16?.messages ?? []) this.log(`${m}\n`);
        if (this.logEvery > 0 && (e.step % this.logEvery === 0 || e.step === e.steps - 1)) {
          const scale = e.fp16 ? ` | loss scale ${e.fp16.lossScale}` : '';
          this.log(
            `Epoch ${e.epoch} | Batch ${e.step}/${e.steps} | Loss: ${e.loss.toFixed(4)} | lr ${Number(e.lr.toPrecision(4))}${scale}\n`,
          );
        }
        break;
      case 'epoch':
        this.bars?.stop();
        this.bars = null;
        this.io.out(
          `epoch ${e.epoch}: train loss ${e.trainLoss.toFixed(4)} acc ${(100 * e.trainAccuracy).toFixed(1)}%${this.partial()} | test loss ${e.testLoss.toFixed(4)} acc ${(100 * e.testAccuracy).toFixed(1)}% (${e.testSamples}) | ${e.imagesPerSec.toFixed(1)} img/s | ${e.seconds.toFixed(1)} s\n`,
        );
        for (const w of e.workers)
          this.io.out(
            `  rank ${w.rank}: memory ${formatBytes(w.memory.allocated)} now, ${formatBytes(w.memory.peak)} peak\n`,
          );
        break;
      case 'ledger':
        this.log(`ledger: ${e.text}\n`);
        break;
      case 'check':
        break;
      case 'checkpoint':
        this.log(`checkpoint ${e.where} (epoch ${e.epoch}, step ${e.step}, global step ${e.globalStep})\n`);
        break;
      case 'restart':
        this.log(
          `rank ${e.rank} failed (${e.kind}): ${e.message}; restart ${e.attempt}/${e.maxRestarts}: ` +
            `fresh workers from global step ${e.fromStep}\n`,
        );
        break;
      case 'done':
        this.bars?.stop();
        if (e.stopped) this.io.err('stopped\n');
        break;
    }
  }

  /** ' (batches k-n of N)' when this run trained only part of the epoch (it resumed mid-epoch). */
  private partial(): string {
    const first = this.firstStep;
    return first !== null && first > 0
      ? ` (batches ${first}-${this.lastStep} of ${this.steps}: resumed mid-epoch)`
      : '';
  }

  /** The dataset the run reads: under --json a `data` line (name, record counts, content id, from --data or the checkpoint). */
  data(m: DatasetManifest, fromCheckpoint: boolean): void {
    const [train, test] = [m.splits.train.records, m.splits.test.records];
    const from = fromCheckpoint ? 'checkpoint' : '--data';
    if (this.json)
      this.io.out(`${JSON.stringify({ type: 'data', name: m.name, train, test, content: m.version, from })}\n`);
  }

  /** A log line above the progress bar (which draws only on a terminal; elsewhere straight to stderr). */
  private log(text: string): void {
    if (this.bars && process.stderr.isTTY) this.bars.log(text);
    else this.io.err(text);
  }

  /**
   * A run that failed: under --json, an `error` line (kind, rank, message and, when the ranks had
   * entered collectives, every rank's flight recorders: `collectives[r]`, null for a rank that did
   * not answer) before the non-zero exit.
   */
  error(
    kind: string,
    rank: number | null,
    message: string,
    collectives?: readonly (readonly RecorderState[] | null)[],
  ): void {
    this.bars?.stop();
    this.bars = null;
    if (this.json)
      this.io.out(
        `${JSON.stringify({ type: 'error', kind, rank, message, ...(collectives ? { collectives } : {}) })}\n`,
      );
  }

  private jsonLine(e: TrainEvent): void {
    const line = (o: object) => this.io.out(`${JSON.stringify(o)}\n`);
    if (e.type === 'epoch') {
      line({
        type: 'epoch',
        epoch: e.epoch,
        train_loss: e.trainLoss,
        train_accuracy: e.trainAccuracy,
        test_loss: e.testLoss,
        test_accuracy: e.testAccuracy,
        test_samples: e.testSamples,
        images_per_s: e.imagesPerSec,
        seconds: e.seconds,
        workers: workersJson(e.workers),
      });
    } else if (e.type === 'ledger') {
      const { type, epoch, samples, once, repeated, never, before, after, text } = e;
      line({ type, epoch, samples, once, repeated, never, before, after, text });
    } else if (e.type === 'step' && e.fp16 && (e.fp16.skipped || e.fp16.messages.length > 0)) {
      line({
        type: 'fp16',
        epoch: e.epoch,
        step: e.step,
        loss_scale: e.fp16.lossScale,
        skipped: e.fp16.skipped,
        messages: e.fp16.messages,
      });
    }
    if (e.type === 'step' && this.logEvery > 0 && (e.step % this.logEvery === 0 || e.step === e.steps - 1)) {
      line({
        type: 'step',
        epoch: e.epoch,
        step: e.step,
        steps: e.steps,
        loss: e.loss,
        lr: e.lr,
        ...(e.fp16 ? { loss_scale: e.fp16.lossScale, skipped: e.fp16.skipped } : {}),
        accuracy: e.accuracy,
        samples: e.samples,
        images_per_s: e.imagesPerSec,
        ms: e.ms,
        workers: workersJson(e.workers).map((w, i) => ({
          ...w,
          ms: e.workers[i]?.ms,
          comm_ms: e.workers[i]?.commMs,
          comm_bytes: e.workers[i]?.commBytes,
        })),
      });
    } else if (e.type === 'start') {
      line({
        type: 'start',
        mode: e.config.mode,
        workers: e.ranks.map((r) => ({ rank: r.rank, adapter: r.adapter, transport: r.transport })),
      });
    } else if (e.type === 'check') {
      line({ type: 'check', epoch: e.epoch, step: e.step, identical: e.identical, checksums: e.checksums });
    } else if (e.type === 'checkpoint') {
      line({ type: 'checkpoint', epoch: e.epoch, step: e.step, global_step: e.globalStep, path: e.where });
    } else if (e.type === 'restart') {
      line({
        type: 'restart',
        attempt: e.attempt,
        max_restarts: e.maxRestarts,
        rank: e.rank,
        kind: e.kind,
        message: e.message,
        from_step: e.fromStep,
      });
    } else if (e.type === 'done') {
      line({ type: 'done', stopped: e.stopped });
    }
  }
}

/** How the ranks' links move bytes, for the log. */
function transportLine(ranks: readonly RankInfo[]): string {
  return ranks.every((r) => r.transport === 'shared')
    ? 'links between ranks: shared-memory rings (SharedArrayBuffer + Atomics)'
    : 'links between ranks: MessagePort messages (transferred buffers)';
}
