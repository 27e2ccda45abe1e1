// The library's `train`: data-parallel training in Node, as `webddp train` runs it (W worker
// threads, each with its own Dawn device), with the events handed to a callback and rank 0's final
// parameters returned in state_dict order.
import type { TrainConfig } from '../config.ts';
import type { AdapterChoice } from '../gpu/device-node.ts';
import { parseConfig } from '../parallel/index.ts';
import { Coordinator } from '../runtime/coordinator.ts';
import type { TrainEvent } from '../runtime/events.ts';
import { nodeSpawner } from '../runtime/spawn-node.ts';
import { settleWorkerAdapter } from '../cli/device.ts';
import { defaultStoreDir, prepareData } from '../cli/train-data.ts';
import { tuningOption } from '../cli/tuning-option.ts';

export interface TrainOptions {
  /** TrainConfig fields over the defaults (src/config.ts), checked as the CLI checks its flags. */
  readonly config?: Partial<TrainConfig>;
  /** 'synthetic' (the built-in dataset, the default), a CIFAR-10 .tar.gz or a directory of .bin files. */
  readonly data?: string;
  /** The dataset store directory (default $WEBDDP_HOME/datasets or ~/.cache/webddp/datasets). */
  readonly store?: string;
  /** auto (default): the GPU, else SwiftShader; gpu; swiftshader; lavapipe (Mesa 24+, WEBDDP_LAVAPIPE_ICD). */
  readonly adapter?: AdapterChoice;
  /** Rank 0's initial parameters (flat, state_dict order); default: PyTorch's init from config.seed. */
  readonly initialParams?: Float32Array;
  /**
   * Kernel tuning as JSON over each adapter's own (src/gpu/tuning.ts parseTuning, as `webddp train
   * --tuning`); default: the WEBDDP_TUNING environment variable, else the adapter's tuning.
   */
  readonly tuning?: string;
  /** Every event of the run: epoch-start, step, log, epoch, done... (src/runtime/events.ts). */
  readonly onEvent?: (e: TrainEvent) => void;
}

export interface TrainResult {
  readonly config: TrainConfig;
  /** The last epoch's event (train/test loss and accuracy, images/s, memory per worker). */
  readonly lastEpoch?: Extract<TrainEvent, { type: 'epoch' }>;
  /** Rank 0's parameters after training, flat in state_dict order (checkpoint/state-dict.ts saves them). */
  readonly params: Float32Array;
}

export async function trainWith(rankWorkerUrl: URL, o: TrainOptions = {}): Promise<TrainResult> {
  const config = parseConfig({ ...o.config });
  const silent = { out: () => {}, err: () => {} };
  const { data } = await prepareData(o.data ?? 'synthetic', o.store ?? defaultStoreDir(), silent, true);
  const adapter = await settleWorkerAdapter(o.adapter ?? 'auto', undefined, config.fp16);
  const tuning = tuningOption(o.tuning);
  const c = await Coordinator.start({
    config,
    data,
    spawn: nodeSpawner(rankWorkerUrl, adapter),
    ...(tuning ? { tuning } : {}),
    ...(o.initialParams ? { initialParams: o.initialParams } : {}),
  });
  let lastEpoch: TrainResult['lastEpoch'];
  try {
    for await (const e of c.run()) {
      if (e.type === 'epoch') lastEpoch = e;
      o.onEvent?.(e);
    }
    const [params] = await c.readParams();
    if (!params) throw new Error('rank 0 returned no parameters');
    return { config, params, ...(lastEpoch ? { lastEpoch } : {}) };
  } finally {
    await c.close();
  }
}
