// e2e harness: the synthetic dataset into real IndexedDB, then a data-parallel run with one module
// worker (and WebGPU device) per rank; returns what the run reported.
import { validateConfig } from '../../../src/parallel/index.ts';
import { IdbDatasetStore } from '../../../src/data/store-idb.ts';
import { importSynthetic, SYNTHETIC_DATASET } from '../../../src/data/synthetic.ts';
import { Coordinator } from '../../../src/runtime/coordinator.ts';
import { browserSpawner } from '../../../src/runtime/spawn-browser.ts';

export interface DistRun {
  adapters: string[];
  losses: number[];
  peaks: number[];
  byCategory: Record<string, number>[];
  testAccuracy: number;
  checks: boolean[];
  crossOriginIsolated: boolean;
  /** Each rank's link transport (shared-memory rings on an isolated page). */
  transports: string[];
}

export interface DistHarness {
  /** `tuning`: kernel tuning JSON over the adapter's own (src/gpu/tuning.ts parseTuning). */
  run(config: Record<string, unknown>, tuning?: string): Promise<DistRun>;
}

declare global {
  interface Window {
    webddpDist?: DistHarness;
  }
}

window.webddpDist = {
  async run(partial, tuning) {
    const v = validateConfig(partial);
    if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('; '));
    await importSynthetic(new IdbDatasetStore(), { train: 512, test: 64 });
    const c = await Coordinator.start({
      config: v.config,
      data: { kind: 'idb', dataset: SYNTHETIC_DATASET },
      spawn: browserSpawner(),
      transport: 'shared',
      ...(tuning ? { tuning } : {}),
    });
    const out: DistRun = {
      adapters: c.ranks.map((r) => r.adapter.description || r.adapter.architecture),
      losses: [],
      peaks: [],
      byCategory: [],
      testAccuracy: NaN,
      checks: [],
      crossOriginIsolated,
      transports: c.ranks.map((r) => r.transport),
    };
    try {
      for await (const e of c.run()) {
        if (e.type === 'step') out.losses.push(e.loss);
        if (e.type === 'check') out.checks.push(e.identical);
        if (e.type === 'epoch') {
          out.testAccuracy = e.testAccuracy;
          out.peaks = e.workers.map((w) => w.memory.peak);
          out.byCategory = e.workers.map((w) =>
            Object.fromEntries(Object.entries(w.memory.byCategory).map(([k, s]) => [k, s.peak])),
          );
        }
      }
    } finally {
      await c.close();
    }
    return out;
  },
};
