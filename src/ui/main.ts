// The teaching page (minimal for now): one worker with its own WebGPU device trains SimpleCNN on
// random CIFAR-sized data and the loss is shown as it falls.
import { wrap } from 'comlink';
import { CpuGenerator } from '../dist/rng.ts';
import type { LocalTrainerApi } from '../train/local-api.ts';
import { initSimpleCnnOrRandom } from './init-params.ts';

const app = document.querySelector<HTMLDivElement>('#app');

function line(text: string): void {
  const p = document.createElement('p');
  p.textContent = text;
  app?.append(p);
}

async function run(): Promise<void> {
  if (!('gpu' in navigator)) {
    line('WebGPU is not available in this browser. Use a recent Chrome or Edge, or enable WebGPU (chrome://flags/#enable-unsafe-webgpu).');
    return;
  }
  const worker = new Worker(new URL('../../workers/local.worker.ts', import.meta.url), { type: 'module' });
  const api = wrap<LocalTrainerApi>(worker);
  const batch = 16;
  const info = await api.init({ label: 'worker 0', width: 1, maxBatch: batch, optimizer: { name: 'sgd', lr: 0.01, momentum: 0.9 } });
  line(`worker 0: ${info.adapter.description || info.adapter.architecture} (${info.params} parameters)`);
  await api.setParams(initSimpleCnnOrRandom(0));
  const g = new CpuGenerator(1);
  const images = new Uint8Array(batch * 3072);
  for (let i = 0; i < images.length; i++) images[i] = g.random() & 0xff;
  const labels = Int32Array.from({ length: batch }, () => g.random() % 10);
  for (let step = 0; step < 20; step++) {
    const r = await api.step({ images, labels }, true);
    line(`step ${step} | loss ${r.loss.toFixed(4)}`);
  }
}

run().catch((e: unknown) => line(`error: ${e instanceof Error ? e.message : String(e)}`));
