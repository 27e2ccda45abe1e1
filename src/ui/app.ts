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
import { lang, LANGS, messagesOf, t } from './i18n/index.ts';
import type { PageApi } from './page-api.ts';
import { RenderScheduler } from './scheduler.ts';
import { Session } from './session.ts';
import { readParams } from './url-params.ts';
import { CompareView } from './views/compare.ts';
import { CurvesView } from './views/curves.ts';
import { explanation, type ExplainKey } from './views/explain.ts';
import { LogView } from './views/log.ts';
import { MemoryView } from './views/memory.ts';
import { RingView } from './views/ring.ts';
import { SamplesView } from './views/samples.ts';
import { ShardsView } from './views/shards.ts';
import { TimelineView } from './views/timeline.ts';
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
  gradAccum: 1,
  bucketCapMB: 25,
  clipGradNorm: 0,
  momentum: 0.9,
  weightDecay: 0,
  schedule: '',
  fp16: false,
};
const SOFTWARE_DEFAULTS: FormValues = { ...GPU_DEFAULTS, batchSize: 8, gpu0Bsz: 4, epochs: 3, trainLimit: 2048 };

/** The banner of a page that stages a failure (?fault=RANK:STEP:KIND). */
function faultNote(spec: string): string {
  const f = parseFaultSpec(spec, MAX_WORKERS);
  const w = t().page;
  const what = f.ok ? w.faultWhat(f.fault.rank, w.faultVerbs[f.fault.kind], f.fault.step) : w.faultBad(f.message);
  return w.faultNote(spec, what);
}

/** The views in page order: their card ids, which are also the contents list's anchors. */
const VIEW_IDS = [
  'training',
  'memory',
  'ring',
  'shards',
  'timeline',
  'samples',
  'compare',
  'log',
] as const satisfies readonly ExplainKey[];

function section(parent: HTMLElement, id: ExplainKey): HTMLElement {
  const ex = explanation(id);
  const c = card(id, ex.title, ex.explanation, ex.links);
  parent.append(c.section);
  return c.body;
}

/** The language switch: a link per language to this page with `?lang=`, each name in its own language. */
function languageSwitch(): HTMLElement {
  const links = LANGS.map((l) => {
    const q = new URLSearchParams(location.search);
    q.set('lang', l);
    return h(
      'a',
      {
        href: `?${q.toString()}`,
        lang: l === 'zh' ? 'zh-CN' : 'en',
        hreflang: l === 'zh' ? 'zh-CN' : 'en',
        'aria-current': l === lang() ? 'true' : undefined,
      },
      messagesOf(l).langName,
    );
  });
  return h('nav', { class: 'lang-switch', 'aria-label': t().page.language }, ...links);
}

/** The sticky list of views: links to every card (keyboard and screen readers get a nav landmark). */
function contents(ids: readonly ExplainKey[]): HTMLElement {
  return h(
    'nav',
    { class: 'contents', 'aria-label': t().page.contents },
    h('ul', {}, ...ids.map((id) => h('li', {}, h('a', { href: `#${id}` }, t().page.nav[id])))),
  );
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
  const viewsEl = h('div', { class: 'views', id: 'views', tabindex: -1 });
  const notesEl = h('div', { class: 'notes' });
  const w = t().page;
  document.documentElement.lang = lang() === 'zh' ? 'zh-CN' : 'en';
  document.title = w.title;
  // The header already says when the adapter is a software one.
  for (const n of notes.filter((x) => x !== t().page.softwareNote)) notesEl.append(h('p', { class: 'banner' }, n));
  const adapter = gpu.description || [gpu.vendor, gpu.architecture].filter(Boolean).join(' ') || w.anAdapter;
  root.replaceChildren(
    h('a', { class: 'skip', href: '#views' }, w.skip),
    h(
      'header',
      { class: 'top' },
      h('h1', {}, 'webddp'),
      h('p', {}, w.tagline),
      h('p', { class: 'adapter' }, w.adapter(adapter, software)),
      languageSwitch(),
    ),
    h(
      'main',
      {},
      h(
        'aside',
        { class: 'panel', 'aria-label': w.settings },
        buttons.element,
        form.element,
        datasets.element,
        checkpoint.element,
      ),
      h('div', { class: 'views-col' }, contents(VIEW_IDS), notesEl, viewsEl),
    ),
  );
  if (params.fault !== undefined)
    notesEl.append(h('p', { class: 'banner', id: 'fault-note' }, faultNote(params.fault)));
  if (params.unknown.length > 0)
    notesEl.append(h('p', { class: 'banner' }, w.unknownParams(params.unknown.join(', '))));

  const curves = new CurvesView(section(viewsEl, 'training'));
  const memory = new MemoryView(section(viewsEl, 'memory'));
  const ring = new RingView(section(viewsEl, 'ring'));
  const shards = new ShardsView(section(viewsEl, 'shards'));
  const timeline = new TimelineView(section(viewsEl, 'timeline'));
  // The dataset cannot change during a run (the panel is locked), so its class names are the run's.
  const samples = new SamplesView(section(viewsEl, 'samples'), () => datasets.classes());
  const compare = new CompareView(section(viewsEl, 'compare'), {
    config: () => form.config(),
    dataset: () => datasets.ensureReady(),
    busy: (on) => lock(on),
  });
  const log = new LogView(section(viewsEl, 'log'));
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
        if (!f.ok) throw new RangeError(t().run.badFault(f.message));
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
        if (st === 'failed' && detail) log.note(t().log.error(detail));
        scheduler.request();
      },
    });
    session = s;
    lock(true);
    buttons.set('starting', t().run.preparing);
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
