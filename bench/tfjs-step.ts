// TensorFlow.js training throughput on its WebGPU backend, for the side-by-side comparison in
// bench/compare-tfjs.ts: the same SimpleCNN as webddp's (conv 3->32 3x3 pad 1, ReLU, maxpool 2,
// conv 32->64 3x3 pad 1, ReLU, maxpool 2, flatten, fc 4096->128, ReLU, fc 128->10), SGD with
// momentum 0.9 and cross-entropy, written the way a TF.js user would: a Keras-style sequential
// model and `trainOnBatch` (which reads the loss back every step, as webddp's step does). TF.js is
// channels-last, so the flatten order differs from PyTorch's; the FLOPs are the same.
// Browser only (the WebGPU backend needs navigator.gpu).
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-webgpu';
import * as tfl from '@tensorflow/tfjs-layers';

export interface TfjsBenchOptions {
  readonly batch: number;
  readonly steps: number;
  readonly warmup: number;
  readonly lr?: number;
}

export interface TfjsBenchRow {
  readonly batch: number;
  readonly imagesPerSec: number;
  readonly stepMs: number;
  /** The first (warm-up) step, which includes compiling TF.js's shaders. */
  readonly firstStepMs: number;
  readonly steps: number;
  readonly warmup: number;
  /** What tf.getBackend() said while training (checked to be 'webgpu'). */
  readonly backend: string;
  readonly version: string;
  /** The loss of every step, warm-up included (one fixed batch, so it should fall). */
  readonly losses: readonly number[];
}

function simpleCnn(): tfl.Sequential {
  const conv = (filters: number, inputShape?: number[]) =>
    tfl.layers.conv2d({
      filters,
      kernelSize: 3,
      padding: 'same',
      activation: 'relu',
      ...(inputShape ? { inputShape } : {}),
    });
  return tfl.sequential({
    layers: [
      conv(32, [32, 32, 3]),
      tfl.layers.maxPooling2d({ poolSize: 2 }),
      conv(64),
      tfl.layers.maxPooling2d({ poolSize: 2 }),
      tfl.layers.flatten(),
      tfl.layers.dense({ units: 128, activation: 'relu' }),
      tfl.layers.dense({ units: 10, activation: 'softmax' }),
    ],
  });
}

/** Selects TF.js's WebGPU backend; throws when it cannot be had (no silent fallback to another). */
export async function useTfjsWebGpu(): Promise<string> {
  if (!(await tf.setBackend('webgpu'))) throw new Error("TF.js could not initialise its 'webgpu' backend");
  await tf.ready();
  const backend = tf.getBackend();
  if (backend !== 'webgpu') throw new Error(`TF.js runs on '${backend}', not 'webgpu'`);
  return backend;
}

/** Trains `warmup` then `steps` steps on one fixed random batch and times the latter. */
export async function benchmarkTfjs(o: TfjsBenchOptions): Promise<TfjsBenchRow> {
  const backend = await useTfjsWebGpu();
  const model = simpleCnn();
  model.compile({ optimizer: tf.train.momentum(o.lr ?? 0.01, 0.9), loss: 'categoricalCrossentropy' });
  const x = tf.randomUniform([o.batch, 32, 32, 3], -1, 1, 'float32', 0);
  const labels = tf.randomUniformInt([o.batch], 0, 10, 1);
  const y = tf.cast(tf.oneHot(labels, 10), 'float32');
  const losses: number[] = [];
  const step = async () => {
    const loss = await model.trainOnBatch(x, y);
    losses.push(Array.isArray(loss) ? (loss[0] ?? NaN) : loss);
  };
  try {
    let firstStepMs = NaN;
    for (let i = 0; i < o.warmup; i++) {
      const t0 = performance.now();
      await step();
      if (i === 0) firstStepMs = performance.now() - t0;
    }
    const t1 = performance.now();
    for (let i = 0; i < o.steps; i++) await step();
    const stepMs = (performance.now() - t1) / o.steps;
    if (tf.getBackend() !== 'webgpu') throw new Error(`TF.js moved to '${tf.getBackend()}' while training`);
    return {
      batch: o.batch,
      imagesPerSec: (o.batch * 1000) / stepMs,
      stepMs,
      firstStepMs,
      steps: o.steps,
      warmup: o.warmup,
      backend,
      version: tf.version_core,
      losses,
    };
  } finally {
    tf.dispose([x, labels, y]);
    model.dispose();
  }
}
