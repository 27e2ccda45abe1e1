// The teaching page: settings and dataset on the left, the run's views on the right, every number
// measured from the run. Wires the form, the dataset panel and the buttons to a Session, and the
// Session's events to the views (stored at once, drawn once per frame).
import { MAX_WORKERS, type TrainConfig } from '../config.ts';
import { IdbDatasetStore } from '../data/store-idb.ts';
import type { TrainEvent } from '../runtime/events.ts';
import { parseFaultSpec, type RankFault } from '../runtime/fault.ts';
import { imbalance } from './compare-runner.ts';
import { CheckpointPanel } from './controls/checkpoint.ts';
import { ConfigForm } from './controls/config-form.ts';
import type { FormValues } from './controls/config-fields.ts';
import { DatasetPanel } from './controls/dataset-panel.ts';
import { RunButtons, type RunAction } from './controls/run-buttons.ts';
import { card, h } from './dom.ts';
import type { PageApi } from './page-api.ts';
import { RenderScheduler } from './scheduler.ts';
import { Session } from './session.ts';
import { readParams } from './url-params.ts';
import { CompareView } from './views/compare.ts';
import { CurvesView } from './views/curves.ts';
import {
  compareExplanation,
  logExplanation,
  memoryExplanation,
  trainingExplanation,
  type Explanation,
} from './views/explain.ts';
import { LogView } from './views/log.ts';
import { MemoryView } from './views/memory.ts';
import { RingView, ringExplanation } from './views/ring.ts';
import { SamplesView, samplesExplanation } from './views/samples.ts';
import { ShardsView, shardsExplanation } from './views/shards.ts';
import { TimelineView, timelineExplanation } from './views/timeline.ts';
import type { View } from './views/view.ts';
import { isSoftwareAdapter, type WebGpuInfo } from './webgpu-check.ts';

/** Defaults for a GPU, and smaller ones for a software adapter (SwiftShader does ~1-2 GFLOP/s). */
const GPU_DEFAULTS: FormValues = {
  mode: 'ddp',
  workers: 4,
  batchSize: 32,
  gpu0Bsz: 16,
  optimizer: 'sgd',
  lr: 0.01,
  epochs: 5,
  width: 1,
  trainLimit: 0,
  seed: 0,
  augment: false,
};
const SOFTWARE_DEFAULTS: FormValues = { ...GPU_DEFAULTS, batchSize: 8, gpu0Bsz: 4, epochs: 3, trainLimit: 2048 };

const FAULT_VERBS = {
  throw: 'throws an error',
  exit: 'exits',
  hang: 'stops answering',
  'device-lost': 'loses its GPU device',
} as const;

/** The banner of a page that stages a failure (?fault=RANK:STEP:KIND). */
function faultNote(spec: string): string {
  const f = parseFaultSpec(spec, MAX_WORKERS);
  const what = f.ok
    ? `rank ${f.fault.rank} ${FAULT_VERBS[f.fault.kind]} at its step ${f.fault.step}`
    : `but fault ${f.message}`;
  return `This page stages a failure (fault=${spec}): ${what}, to show that the run stops with an error naming the rank instead of hanging or going on with half-reduced gradients.`;
}

function section(parent: HTMLElement, id: string, ex: Explanation): HTMLElement {
  const c = card(id, ex.title, ex.explanation, ex.links);
  parent.append(c.section);
  return c.body;
}

/** Builds the page; `notes` are remarks about this browser's WebGPU (e.g. no cross-origin isolation). */
export function startApp(root: HTMLElement, gpu: WebGpuInfo, notes: readonly string[] = []): void {
  const params = readParams(location.search);
  const software = isSoftwareAdapter(gpu);
  const form = new ConfigForm(
    { ...(software ? SOFTWARE_DEFAULTS : GPU_DEFAULTS), ...params.values },
    { testLimit: params.testLimit ?? (software ? 512 : 0), checkEvery: 25 },
  );
  const store = new IdbDatasetStore();
  const datasets = new DatasetPanel(store);
  const buttons = new RunButtons((a) => act(a));
  const checkpoint = new CheckpointPanel();
  const viewsEl = h('div', { class: 'views' });
  const notesEl = h('div', { class: 'notes' });
  // The header already says when the adapter is a software one.
  for (const n of notes.filter((x) => !/software/i.test(x))) notesEl.append(h('p', { class: 'banner' }, n));
  root.replaceChildren(
    h(
      'header',
      { class: 'top' },
      h('h1', {}, 'webddp'),
      h('p', {}, 'Data-parallel training you can see: DataParallel, DDP and ZeRO on WebGPU, checked against PyTorch.'),
      h(
        'p',
        { class: 'adapter' },
        `GPU: ${gpu.description || [gpu.vendor, gpu.architecture].filter(Boolean).join(' ') || 'a WebGPU adapter'}${software ? ' (software renderer: small defaults, expect a few images per second)' : ''}`,
      ),
    ),
    h(
      'main',
      {},
      h(
        'aside',
        { class: 'panel', 'aria-label': 'Settings' },
        buttons.element,
        form.element,
        datasets.element,
        checkpoint.element,
      ),
      h('div', { class: 'views-col' }, notesEl, viewsEl),
    ),
  );
  if (params.fault !== undefined)
    notesEl.append(h('p', { class: 'banner', id: 'fault-note' }, faultNote(params.fault)));
  if (params.unknown.length > 0)
    notesEl.append(h('p', { class: 'banner' }, `Ignored unknown page parameter(s): ${params.unknown.join(', ')}.`));

  const curves = new CurvesView(section(viewsEl, 'training', trainingExplanation()));
  const memory = new MemoryView(section(viewsEl, 'memory', memoryExplanation()));
  const ring = new RingView(section(viewsEl, 'ring', ringExplanation()));
  const shards = new ShardsView(section(viewsEl, 'shards', shardsExplanation()));
  const timeline = new TimelineView(section(viewsEl, 'timeline', timelineExplanation()));
  // The dataset cannot change during a run (the panel is locked), so its class names are the run's.
  const samples = new SamplesView(section(viewsEl, 'samples', samplesExplanation()), () => datasets.classes());
  const compare = new CompareView(section(viewsEl, 'compare', compareExplanation()), {
    config: () => form.config(),
    dataset: () => datasets.ensureReady(),
    busy: (on) => lock(on),
  });
  const log = new LogView(section(viewsEl, 'log', logExplanation()));
  const views: View[] = [curves, memory, ring, shards, timeline, log];
  const scheduler = new RenderScheduler(views);
  let session: Session | null = null;

  const lock = (on: boolean) => {
    form.setDisabled(on);
    datasets.setDisabled(on);
    checkpoint.setDisabled(on);
    compare.setDisabled(on);
    buttons.allowStart(!on && form.config() !== null);
  };
  form.onChange(() => buttons.allowStart(form.config() !== null && session === null));

  const onEvent = (e: TrainEvent) => {
    for (const v of views) v.handle(e);
    scheduler.request();
  };

  async function start(): Promise<void> {
    const config: TrainConfig | null = form.config();
    if (!config || session) return;
    let initialParams: Float32Array | undefined;
    let fault: RankFault | undefined;
    try {
      initialParams = checkpoint.paramsFor(config);
      if (params.fault !== undefined) {
        const f = parseFaultSpec(params.fault, config.workers);
        if (!f.ok) throw new RangeError(`fault ${f.message}`);
        fault = f.fault;
      }
    } catch (e) {
      buttons.set('failed', e instanceof Error ? e.message : String(e));
      return;
    }
    for (const v of views) v.reset();
    samples.reset();
    const s = new Session({
      event: onEvent,
      sample: (b, at) => samples.show(b, at),
      state: (st, detail) => {
        buttons.set(st, detail);
        if (st === 'failed' && detail) log.note(`error: ${detail}`);
        scheduler.request();
      },
    });
    session = s;
    lock(true);
    buttons.set('starting', 'preparing the dataset');
    try {
      const dataset = await datasets.ensureReady();
      await s.run(config, dataset, {
        sampleEveryMs: 1500,
        keepParams: true,
        ...(initialParams ? { initialParams } : {}),
        ...(fault ? { fault } : {}),
      });
      checkpoint.setTrained(s.params, config);
    } catch (e) {
      buttons.set('failed', e instanceof Error ? e.message : String(e));
    } finally {
      session = null;
      lock(false);
    }
  }

  function act(a: RunAction): void {
    if (a === 'start') void start();
    else if (a === 'pause') session?.pause();
    else if (a === 'resume') session?.resume();
    else session?.stop();
  }

  const api: PageApi = {
    state: () => session?.state ?? buttons.element.dataset.state ?? 'idle',
    losses: () => [...curves.history.loss],
    epochs: () => [...curves.history.epochs],
    memory: () => [...memory.latest],
    compare: () =>
      compare.results.map((r) => ({
        mode: r.mode,
        workers: r.config.workers,
        steps: r.steps,
        ...(r.error ? { error: r.error } : {}),
        peaks: r.workers.map((w) => w.peak),
        memory: r.workers,
        imbalance: imbalance(r.workers),
      })),
    log: () => [...log.text],
  };
  window.webddpPage = api;
  // A file dropped outside the drop zone must not navigate away from a running page.
  for (const t of ['dragover', 'drop'] as const) window.addEventListener(t, (e) => e.preventDefault());
  buttons.allowStart(form.config() !== null);
  if (params.autostart && form.config() !== null) void start();
  else void datasets.ensureReady().catch(() => undefined); // shows the built-in dataset's counts
}
