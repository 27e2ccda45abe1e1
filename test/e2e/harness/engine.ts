// e2e harness: one real module worker (workers/local.worker.ts) with its own WebGPU device runs a
// forward/backward step on data the test passes in (base64 float32), and returns loss, logits and
// gradients as base64.
import { wrap } from 'comlink';
import type { LocalTrainerApi } from '../../../src/train/local-api.ts';

export interface EngineHarness {
  runStep(
    params: string,
    x: string,
    labels: number[],
  ): Promise<{ loss: number; logits: string; grads: string; adapter: string }>;
}

declare global {
  interface Window {
    webddpEngine?: EngineHarness;
  }
}

const toF32 = (b64: string) => {
  const s = atob(b64);
  const u = Uint8Array.from(s, (c) => c.charCodeAt(0));
  return new Float32Array(u.buffer);
};
const toB64 = (f: Float32Array) => {
  const u = new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  let s = '';
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(s);
};

window.webddpEngine = {
  async runStep(params, x, labels) {
    const worker = new Worker(new URL('../../../workers/local.worker.ts', import.meta.url), { type: 'module' });
    const api = wrap<LocalTrainerApi>(worker);
    try {
      const info = await api.init({
        label: 'e2e worker',
        width: 1,
        maxBatch: labels.length,
        optimizer: { name: 'sgd', lr: 0 },
      });
      await api.setParams(toF32(params));
      const r = await api.step({ x: toF32(x), labels: Int32Array.from(labels) }, false);
      return {
        loss: r.loss,
        logits: toB64(await api.readLogits(labels.length)),
        grads: toB64(await api.readGrads()),
        adapter: info.adapter.description || info.adapter.architecture,
      };
    } finally {
      await api.dispose();
      worker.terminate();
    }
  },
};
