// TensorFlow.js training on its WebGPU backend, for the side-by-side comparison in
// bench/compare-tfjs.ts: the same SimpleCNN as webddp's (conv 3->32 3x3 pad 1, ReLU, maxpool 2,
// conv 32->64 3x3 pad 1, ReLU, maxpool 2, flatten, fc 4096->128, ReLU, fc 128->10), SGD with
// momentum 0.9 and cross-entropy, written the way a TF.js user would: a Keras-style sequential
// model and `trainOnBatch` (which reads the loss back every step, as webddp's step does). TF.js is
// channels-last, so the flatten order differs from PyTorch's; the FLOPs are the same.
// Browser only (the WebGPU backend needs navigator.gpu).
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-webgpu';
import * as tfl from '@tensorflow/tfjs-layers';

/** One TF.js model training on one fixed random batch. */
export interface TfjsRunner {
  readonly backend: string;
  readonly version: string;
  /** One training step; resolves with its loss once TF.js has read it back. */
  step(): Promise<number>;
  dispose(): void;
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

/** A SimpleCNN on TF.js's WebGPU backend and one random batch of `batch` images. */
export async function createTfjsRunner(batch: number, lr = 0.01): Promise<TfjsRunner> {
  const backend = await useTfjsWebGpu();
  const model = simpleCnn();
  model.compile({ optimizer: tf.train.momentum(lr, 0.9), loss: 'categoricalCrossentropy' });
  const x = tf.randomUniform([batch, 32, 32, 3], -1, 1, 'float32', 0);
  const labels = tf.randomUniformInt([batch], 0, 10, 1);
  const y = tf.cast(tf.oneHot(labels, 10), 'float32');
  return {
    backend,
    version: tf.version_core,
    async step() {
      const loss = await model.trainOnBatch(x, y);
      if (tf.getBackend() !== 'webgpu') throw new Error(`TF.js moved to '${tf.getBackend()}' while training`);
      return Array.isArray(loss) ? (loss[0] ?? NaN) : loss;
    },
    dispose() {
      tf.dispose([x, labels, y]);
      model.dispose();
    },
  };
}
