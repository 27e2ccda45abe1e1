// The benchmark page (bench.html): runs src/throughput/train-step.ts, src/throughput/dist-step.ts or the
// TF.js comparison (bench/compare-tfjs.ts) in this browser and shows the table and the JSON;
// `window.webddpBench` holds the result for headless runs (`webddp bench --runtime chromium`).
import { parseConfig } from '../src/parallel/index.ts';
import { IdbDatasetStore } from '../src/data/store-idb.ts';
import { importSynthetic, SYNTHETIC_DATASET } from '../src/data/synthetic.ts';
import { browserSpawner, colocatedBrowserSpawner } from '../src/runtime/spawn-browser.ts';
import { acquireDevice } from '../src/gpu/device.ts';
import { benchmarkDistributed, formatDistBench } from '../src/throughput/dist-step.ts';
import { benchmarkTraining, formatProfiles, formatTrainBench } from '../src/throughput/train-step.ts';

declare global {
  interface Window {
    webddpBench?: { done: boolean; result?: unknown; error?: string };
  }
}

const q = new URLSearchParams(location.search);
/** A comma-separated list of positive integers from the URL, or `d`. */
const list = (k: string, d: number[]) => {
  const v = (q.get(k) ?? '')
    .split(',')
    .filter(Boolean)
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
  return v.length > 0 ? v : d;
};
const num = (k: string, d: number) => {
  const n = Number(q.get(k));
  return Number.isInteger(n) && n >= 0 && q.has(k) ? n : d;
};
const status = (t: string) => {
  const el = document.querySelector('#status');
  if (el) el.textContent = t;
};
const show = (sel: string, t: string) => {
  const el = document.querySelector(sel);
  if (el) el.textContent = t;
};

async function run(): Promise<unknown> {
  if (!('gpu' in navigator)) throw new Error('WebGPU is not available in this browser');
  if (q.get('kind') === 'dist') {
    const modes = (q.get('modes') ?? 'ddp,dp').split(',').map((m) => parseConfig({ mode: m }).mode);
    status('importing the synthetic dataset into IndexedDB...');
    await importSynthetic(new IdbDatasetStore());
    const rows = await benchmarkDistributed(
      {
        workers: list('workers', [1, 2, 4]),
        modes,
        batch: num('batch', 16),
        steps: num('steps', 5),
        warmup: num('warmup', 1),
        data: { kind: 'idb', dataset: SYNTHETIC_DATASET },
        spawn: browserSpawner(),
        colocated: (w: number) => colocatedBrowserSpawner(w),
      },
      (r) => status(`${r.mode} x${r.workers}, ${r.placement}: ${r.stepMs.toFixed(1)} ms/step`),
    );
    show('#table', formatDistBench(rows));
    return { runtime: 'chromium', kind: 'dist', userAgent: navigator.userAgent, rows };
  }
  const gpu = await acquireDevice(navigator.gpu, { label: 'bench' });
  try {
    if (q.get('kind') === 'compare') {
      // TF.js is loaded only for this comparison.
      const { compareWithTfjs, formatCompare } = await import('../bench/compare-tfjs.ts');
      const opts = { batch: num('batch', 64), rounds: num('steps', 4), per: num('per', 4), warmup: num('warmup', 2) };
      const r = await compareWithTfjs(gpu, opts, status);
      show('#table', formatCompare(r));
      return { runtime: 'chromium', kind: 'compare', adapter: gpu.adapter, userAgent: navigator.userAgent, ...r };
    }
    const rows = await benchmarkTraining(
      gpu,
      {
        batches: list('batches', [8, 32]),
        steps: num('steps', 3),
        warmup: num('warmup', 1),
        profile: q.get('profile') === '1',
      },
      (r) => status(`batch ${r.batch}: ${r.imagesPerSec.toFixed(1)} images/s`),
    );
    const profiles = rows.some((r) => r.kernels) ? [formatProfiles(rows)] : [];
    show('#table', [formatTrainBench(rows), ...profiles].join('\n'));
    return { runtime: 'chromium', kind: 'train', adapter: gpu.adapter, userAgent: navigator.userAgent, rows };
  } finally {
    gpu.destroy();
  }
}

window.webddpBench = { done: false };
run().then(
  (result) => {
    window.webddpBench = { done: true, result };
    show('#json', JSON.stringify(result));
    status('done');
  },
  (e: unknown) => {
    const error = e instanceof Error ? e.message : String(e);
    window.webddpBench = { done: true, error };
    status(`error: ${error}`);
  },
);
