// The teaching page: settings and dataset on the left, the run's views on the right, every number
// measured from the run. Wires the form, the dataset panel and the buttons to a Session, and the
// Session's events to the views (stored at once, drawn once per frame).
import type { Snapshot } from '../checkpoint/checkpoint.ts';
import { checkDataset, storedDataset, type DatasetRecord } from '../checkpoint/dataset-record.ts';
import type { TrainConfig } from '../config.ts';
import { IdbDatasetStore } from '../data/store-idb.ts';
import type { TrainEvent } from '../runtime/events.ts';
import type { RankFault } from '../runtime/fault.ts';
import { addressQuery } from './address.ts';
import { CheckpointPanel } from './controls/checkpoint.ts';
import { ConfigForm } from './controls/config-form.ts';
import { DatasetPanel } from './controls/dataset-panel.ts';
import { DeepSpeedPanel } from './controls/deepspeed-panel.ts';
import { RunButtons, type RunAction } from './controls/run-buttons.ts';
import { RunLifePanel } from './controls/run-life.ts';
import { PlacementControl } from './controls/placement.ts';
import { h } from './dom.ts';
import { localizeRunError, t } from './i18n/index.ts';
import { isLessonId, LESSONS, type LessonId } from './lessons/index.ts';
import { missing } from './lessons/features.ts';
import {
  contents,
  faultNote,
  layOut,
  trackContents,
  GPU_DEFAULTS,
  section,
  SOFTWARE_DEFAULTS,
  stagedFault,
  VIEW_IDS,
} from './page-frame.ts';
import type { PageApi } from './page-api.ts';
import { RenderScheduler } from './scheduler.ts';
import { RunRecord } from './run-record.ts';
import { Session } from './session.ts';
import { readParams } from './url-params.ts';
import { runViews } from './page-views.ts';
import { LessonsView } from './views/lessons.ts';
import type { View } from './views/view.ts';
import { isSoftwareAdapter, type WebGpuInfo } from './webgpu-check.ts';
import { IdbCheckpointStore } from '../checkpoint/dir-idb.ts';

import { compareDdp, EQUIVALENCE_QUICK } from '../check/equivalence.ts';
import { browserSpawner } from '../runtime/spawn-browser.ts';

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

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
  const datasets = new DatasetPanel(new IdbDatasetStore());
  const buttons = new RunButtons((a) => act(a));
  const checkpoint = new CheckpointPanel();
  const life = new RunLifePanel({ ...first?.life, ...params.life }, () => datasets.selected());
  const placement = new PlacementControl(params.placement ?? first?.placement);
  const deepspeed = new DeepSpeedPanel({
    workers: () => form.config()?.workers ?? null,
    apply: (values, extra) => {
      form.setValues(values, { ...extra, testLimit: testLimit ?? defaultTestLimit });
      form.showMoreFor(values);
    },
  });
  const viewsEl = h('div', { class: 'views', id: 'views', tabindex: -1 });
  const notesEl = h('div', { class: 'notes' });
  // The header already says when the adapter is a software one.
  for (const n of notes.filter((x) => x !== t().page.softwareNote)) notesEl.append(h('p', { class: 'banner' }, n));
  const nav = contents(VIEW_IDS);
  layOut(root, gpu, software, nav, {
    settings: [buttons, form, placement, life, deepspeed, datasets, checkpoint].map((x) => x.element),
    views: [notesEl, viewsEl],
  });
  const faultEl = h('p', { class: 'banner', id: 'fault-note', hidden: fault === undefined });
  notesEl.append(faultEl);
  const showFault = () => {
    faultEl.hidden = fault === undefined;
    faultEl.textContent = fault === undefined ? '' : faultNote(fault);
  };
  showFault();
  if (params.unknown.length > 0)
    notesEl.append(h('p', { class: 'banner' }, t().page.unknownParams(params.unknown.join(', '))));

  let lessonId: LessonId | null = opened;
  /** The DDP lesson's equivalence comparison is training. */
  let comparing = false;
  const syncAddress = () => {
    const q = addressQuery(location.search, {
      values: form.values(),
      defaults,
      lesson: lessonId,
      life: life.values(),
      placement: placement.chosen(),
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
        life.setValues(l.life ?? {});
        placement.set(l.placement ?? 'own-devices');
        showFault();
      }
      syncAddress();
    },
    run: () => void start(),
    compare: async () => {
      // no run starts while the comparison's workers train
      comparing = true;
      lock(true);
      try {
        return await compareDdp(browserSpawner(), EQUIVALENCE_QUICK);
      } finally {
        comparing = false;
        lock(false);
      }
    },
  });
  const { curves, memory, calc, ring, shards, timeline, samples, compare, log } = runViews(viewsEl, {
    classes: () => datasets.classes(),
    config: () => form.config(),
    dataset: () => datasets.ensureReady(),
    busy: (on) => lock(on),
  });
  trackContents(nav);
  const views: View[] = [curves, memory, calc, ring, shards, timeline, log];
  const scheduler = new RenderScheduler(views);
  let session: Session | null = null;

  const lock = (on: boolean) => {
    for (const part of [form, placement, datasets, checkpoint, life, deepspeed, compare]) part.setDisabled(on);
    buttons.allowStart(!on && startable());
  };
  const startable = () => form.config() !== null && life.settings() !== null;
  for (const c of [form, life, placement])
    c.onChange(() => {
      placement.update(form.config());
      buttons.allowStart(startable() && session === null);
      syncAddress();
    });
  placement.update(form.config());
  life.onResume(() => void resumeLast());
  life.onExported(() => lessons.exported());

  const record = new RunRecord();
  const onEvent = (e: TrainEvent) => {
    record.handle(e);
    for (const v of views) v.handle(e);
    scheduler.request();
  };

  /** The newest stored checkpoint, continued exactly; a bad one is refused with what is wrong, and nothing starts. */
  async function resumeLast(): Promise<void> {
    const last = session
      ? null
      : await life.last().catch((e: unknown) => void buttons.set('failed', t().life.refused(errorText(e))));
    if (last) await start(last);
  }

  async function start(resume?: { where: string; snapshot: Snapshot; dataset: DatasetRecord | null }): Promise<void> {
    const config: TrainConfig | null = resume?.snapshot.config ?? form.config();
    const lifeSettings = life.settings();
    if (!config || !lifeSettings || session || comparing) return;
    let initialParams: Float32Array | undefined;
    let staged: RankFault | undefined;
    try {
      initialParams = resume ? undefined : checkpoint.paramsFor(config);
      staged = fault === undefined ? undefined : stagedFault(fault, config.workers);
    } catch (e) {
      buttons.set('failed', errorText(e));
      return;
    }
    for (const v of views) v.reset();
    samples.reset();
    record.reset(resume !== undefined, placement.value());
    const p = resume?.snapshot.position;
    if (p) log.note(t().log.resumed(resume.where, p.epoch, p.step, p.globalStep));
    const s = new Session({
      event: onEvent,
      sample: (b, at) => samples.show(b, at),
      failed: (e) => {
        record.failed(e.message);
        timeline.failed(e);
        scheduler.request();
      },
      state: (st, raw) => {
        const detail = raw === undefined ? undefined : localizeRunError(raw);
        buttons.set(st, detail);
        if (st === 'failed' && detail) log.note(t().log.error(detail));
        scheduler.request();
      },
    });
    session = s;
    let releaseStore = () => {};
    lock(true);
    buttons.set('starting', t().run.preparing);
    try {
      const dataset = await datasets.ensureReady();
      const manifest = datasets.manifestOf(dataset);
      if (!manifest) throw new Error(`dataset '${dataset}' has no manifest after it was made ready`);
      const read = storedDataset(manifest);
      // an exact resume continues on the checkpoint's data: another dataset is refused, naming both
      const warning = resume ? checkDataset(resume.dataset, read, resume.where, t().life.datasetHint) : null;
      if (warning) log.note(warning);
      const sink = life.sink(config, lifeSettings, read);
      if (sink) releaseStore = await new IdbCheckpointStore().claimRun(); // one tab's run at a time writes checkpoints
      await s.run(config, dataset, {
        sampleEveryMs: 1500,
        keepParams: true,
        ...(initialParams ? { initialParams } : {}),
        ...(staged ? { fault: staged } : {}),
        ...(sink ? { checkpoint: sink } : {}),
        ...(resume ? { resume: resume.snapshot } : {}),
        maxRestarts: lifeSettings.maxRestarts,
        placement: placement.value(),
        ...(lessonId && LESSONS[lessonId].debugCollectives ? { debugCollectives: true } : {}),
      });
      checkpoint.setTrained(s.params, config);
      await record.finished(s.params);
    } catch (e) {
      buttons.set('failed', errorText(e));
    } finally {
      releaseStore();
      session = null;
      lock(false);
      void life.refresh();
      const hist = curves.history;
      lessons.finished(
        record.lessonRun({
          state: buttons.element.dataset.state ?? '',
          status: buttons.statusText,
          memory: memory.latest,
          ...{ losses: hist.loss, lrs: hist.lr, lossScales: hist.lossScale, epochs: hist.epochs.length },
          moved: shards.movedShare,
          commSpans: timeline.commSpans,
        }),
      );
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
    params: () => record.paramsSha,
    checkpoint: () => life.latest,
  };
  window.webddpPage = api;
  // A file dropped outside the drop zone must not navigate away from a running page.
  for (const t of ['dragover', 'drop'] as const) window.addEventListener(t, (e) => e.preventDefault());
  buttons.allowStart(startable());
  lessons.show(opened);
  if (opened) syncAddress();
  const runnable = !first || missing(first.needs).length === 0;
  if (params.autostart && runnable && startable()) void start();
  else void datasets.ensureReady().catch(() => undefined); // shows the built-in dataset's counts
}
