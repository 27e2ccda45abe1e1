// The teaching page: settings and dataset on the left, the run's views on the right, every number
// measured from the run. Wires the form, the dataset panel and the buttons to a Session, and the
// Session's events to the views (stored at once, drawn once per frame).
import type { TrainConfig } from '../config.ts';
import { IdbDatasetStore } from '../data/store-idb.ts';
import type { TrainEvent } from '../runtime/events.ts';
import { parseFaultSpec, type RankFault } from '../runtime/fault.ts';
import { addressQuery } from './address.ts';
import { CheckpointPanel } from './controls/checkpoint.ts';
import { ConfigForm } from './controls/config-form.ts';
import { DatasetPanel } from './controls/dataset-panel.ts';
import { DeepSpeedPanel } from './controls/deepspeed-panel.ts';
import { RunButtons, type RunAction } from './controls/run-buttons.ts';
import { h } from './dom.ts';
import { lang, localizeRunError, t } from './i18n/index.ts';
import { isLessonId, LESSONS, type LessonId } from './lessons/index.ts';
import { missing } from './lessons/features.ts';
import {
  contents,
  faultNote,
  trackContents,
  GPU_DEFAULTS,
  languageSwitch,
  section,
  SOFTWARE_DEFAULTS,
  VIEW_IDS,
} from './page-frame.ts';
import type { PageApi } from './page-api.ts';
import { RenderScheduler } from './scheduler.ts';
import { Session } from './session.ts';
import { readParams } from './url-params.ts';
import { CompareView } from './views/compare.ts';
import { CurvesView } from './views/curves.ts';
import { LessonsView } from './views/lessons.ts';
import { LogView } from './views/log.ts';
import { MemoryView } from './views/memory.ts';
import { RingView } from './views/ring.ts';
import { SamplesView } from './views/samples.ts';
import { ShardsView } from './views/shards.ts';
import { TimelineView } from './views/timeline.ts';
import { ZeroCalcView } from './views/zero-calc.ts';
import type { View } from './views/view.ts';
import { isSoftwareAdapter, type WebGpuInfo } from './webgpu-check.ts';

/** Builds the page; `notes` are remarks about this browser's WebGPU (e.g. no cross-origin isolation). */
export function startApp(root: HTMLElement, gpu: WebGpuInfo, notes: readonly string[] = []): void {
  const params = readParams(location.search);
  const software = isSoftwareAdapter(gpu);
  const defaults = software ? SOFTWARE_DEFAULTS : GPU_DEFAULTS;
  const defaultTestLimit = software ? 512 : 0;
  const opened: LessonId | null = isLessonId(params.lesson) ? params.lesson : null;
  const first = opened ? LESSONS[opened] : null;
  let fault = params.fault ?? first?.fault;
  let testLimit = params.testLimit ?? first?.testLimit;
  const form = new ConfigForm(
    { ...defaults, ...first?.settings, ...params.values },
    { testLimit: testLimit ?? defaultTestLimit, checkEvery: 25 },
  );
  form.showMoreFor({ ...first?.settings, ...params.values });
  const store = new IdbDatasetStore();
  const datasets = new DatasetPanel(store);
  const buttons = new RunButtons((a) => act(a));
  const checkpoint = new CheckpointPanel();
  const deepspeed = new DeepSpeedPanel({
    workers: () => form.config()?.workers ?? null,
    apply: (values, extra) => {
      form.setValues(values, { ...extra, testLimit: testLimit ?? defaultTestLimit });
      form.showMoreFor(values);
    },
  });
  const viewsEl = h('div', { class: 'views', id: 'views', tabindex: -1 });
  const notesEl = h('div', { class: 'notes' });
  const w = t().page;
  document.documentElement.lang = lang() === 'zh' ? 'zh-CN' : 'en';
  document.title = w.title;
  // The header already says when the adapter is a software one.
  for (const n of notes.filter((x) => x !== t().page.softwareNote)) notesEl.append(h('p', { class: 'banner' }, n));
  const nav = contents(VIEW_IDS);
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
    nav,
    h(
      'main',
      {},
      h(
        'aside',
        { class: 'panel', id: 'settings', tabindex: -1, 'aria-label': w.settings },
        buttons.element,
        form.element,
        deepspeed.element,
        datasets.element,
        checkpoint.element,
      ),
      h('div', { class: 'views-col' }, notesEl, viewsEl),
    ),
  );
  const faultEl = h('p', { class: 'banner', id: 'fault-note', hidden: fault === undefined });
  notesEl.append(faultEl);
  const showFault = () => {
    faultEl.hidden = fault === undefined;
    faultEl.textContent = fault === undefined ? '' : faultNote(fault);
  };
  showFault();
  if (params.unknown.length > 0)
    notesEl.append(h('p', { class: 'banner' }, w.unknownParams(params.unknown.join(', '))));

  let lessonId: LessonId | null = opened;
  const syncAddress = () => {
    const q = addressQuery(location.search, {
      values: form.values(),
      defaults,
      lesson: lessonId,
      ...(testLimit !== undefined ? { testLimit } : {}),
      ...(fault !== undefined ? { fault } : {}),
    });
    history.replaceState(history.state, '', `${location.pathname}${q}${location.hash}`);
  };
  const lessons = new LessonsView(section(viewsEl, 'lessons'), {
    select(id) {
      lessonId = id;
      if (id) {
        const l = LESSONS[id];
        fault = l.fault;
        testLimit = l.testLimit;
        form.setValues({ ...defaults, ...l.settings }, { testLimit: testLimit ?? defaultTestLimit });
        form.showMoreFor(l.settings);
        showFault();
      }
      syncAddress();
    },
    run: () => void start(),
  });
  const curves = new CurvesView(section(viewsEl, 'training'));
  const memory = new MemoryView(section(viewsEl, 'memory'));
  const calc = new ZeroCalcView(section(viewsEl, 'calc'));
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
  trackContents(nav);
  const views: View[] = [curves, memory, calc, ring, shards, timeline, log];
  const scheduler = new RenderScheduler(views);
  let session: Session | null = null;

  const lock = (on: boolean) => {
    form.setDisabled(on);
    datasets.setDisabled(on);
    checkpoint.setDisabled(on);
    deepspeed.setDisabled(on);
    compare.setDisabled(on);
    buttons.allowStart(!on && form.config() !== null);
  };
  form.onChange(() => {
    buttons.allowStart(form.config() !== null && session === null);
    syncAddress();
  });

  const onEvent = (e: TrainEvent) => {
    for (const v of views) v.handle(e);
    scheduler.request();
  };

  async function start(): Promise<void> {
    const config: TrainConfig | null = form.config();
    if (!config || session) return;
    let initialParams: Float32Array | undefined;
    let staged: RankFault | undefined;
    try {
      initialParams = checkpoint.paramsFor(config);
      if (fault !== undefined) {
        const f = parseFaultSpec(fault, config.workers);
        if (!f.ok) throw new RangeError(t().run.badFault(f.message));
        staged = f.fault;
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
      state: (st, raw) => {
        const detail = raw === undefined ? undefined : localizeRunError(raw);
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
        ...(staged ? { fault: staged } : {}),
      });
      checkpoint.setTrained(s.params, config);
    } catch (e) {
      buttons.set('failed', e instanceof Error ? e.message : String(e));
    } finally {
      session = null;
      lock(false);
      lessons.finished({
        state: buttons.element.dataset.state ?? '',
        status: buttons.statusText,
        memory: memory.latest,
        losses: curves.history.loss,
        lrs: curves.history.lr,
        lossScales: curves.history.lossScale,
        epochs: curves.history.epochs.length,
        moved: shards.movedShare,
        commSpans: timeline.commSpans,
      });
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
    compare: () => compare.summaries(),
    log: () => [...log.text],
    lesson: () => lessons.state,
  };
  window.webddpPage = api;
  // A file dropped outside the drop zone must not navigate away from a running page.
  for (const t of ['dragover', 'drop'] as const) window.addEventListener(t, (e) => e.preventDefault());
  buttons.allowStart(form.config() !== null);
  lessons.show(opened);
  if (opened) syncAddress();
  const runnable = !first || missing(first.needs).length === 0;
  if (params.autostart && runnable && form.config() !== null) void start();
  else void datasets.ensureReady().catch(() => undefined); // shows the built-in dataset's counts
}
