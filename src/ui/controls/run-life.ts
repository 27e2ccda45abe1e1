// The run's life on the page: checkpoint cadence, how many to keep and torchrun's max restarts (the
// CLI's --checkpoint-every, --keep, --max-restarts), the newest checkpoint stored in this browser's
// IndexedDB (src/checkpoint/dir-idb.ts), "Resume from the last checkpoint" (the same exact resume
// as `webddp train --resume`), its download as the three files --resume reads, and its
// export as a torchrun project (the same files `webddp export-torchrun` writes, in one .tar).
import { encodeCheckpoint, readCheckpoint, type Snapshot } from '../../checkpoint/checkpoint.ts';
import type { DatasetRecord } from '../../checkpoint/dataset-record.ts';
import { IdbCheckpointStore, type StoredCheckpoint } from '../../checkpoint/dir-idb.ts';
import type { TrainConfig } from '../../config.ts';
import { SYNTHETIC_DATASET } from '../../data/synthetic.ts';
import { projectTar } from '../../export/project-tar.ts';
import { exportCheckpoint } from '../../export/torchrun.ts';
import { simpleCnnSpec } from '../../nn/spec.ts';
import type { RunOptions } from '../../runtime/options.ts';
import { h } from '../dom.ts';
import { rich, t } from '../i18n/index.ts';
import { MODE_SHORT } from './config-fields.ts';
import { exportWhy } from './life-export.ts';
import {
  LIFE_DEFAULTS,
  LIFE_KEYS,
  LIFE_LIMITS,
  lifeProblem,
  type LifeKey,
  type LifeSettings,
} from './life-settings.ts';

type Control = { input: HTMLInputElement; error: HTMLElement };

export class RunLifePanel {
  readonly element: HTMLFieldSetElement;
  private readonly controls = new Map<LifeKey, Control>();
  private readonly status = h('p', { class: 'status', id: 'life-status', role: 'status' });
  private readonly resumeButton = h('button', { type: 'button', id: 'life-resume', disabled: true }, t().life.resume);
  private readonly downloadButton = h(
    'button',
    { type: 'button', id: 'life-download', disabled: true },
    t().life.download,
  );
  private readonly exportButton = h(
    'button',
    { type: 'button', id: 'life-export', disabled: true, 'aria-describedby': 'life-export-why' },
    t().life.export,
  );
  private readonly exportWhy = h('p', { class: 'hint', id: 'life-export-why' });
  private readonly exportListeners: (() => void)[] = [];
  private readonly clearButton = h('button', { type: 'button', id: 'life-clear', disabled: true }, t().life.clear);
  private newest: StoredCheckpoint | null = null;
  private busy = false;
  private readonly listeners: (() => void)[] = [];

  /** `dataset`: the name of the dataset the page trains on (train.py's default --data for a checkpoint that records none). */
  constructor(
    initial: Partial<Record<LifeKey, boolean | number>>,
    private readonly dataset: () => string = () => SYNTHETIC_DATASET,
    private readonly store = new IdbCheckpointStore(),
  ) {
    const w = t().life;
    this.element = h('fieldset', { class: 'run-life' }, h('legend', {}, w.legend));
    for (const key of LIFE_KEYS) this.element.append(this.build(key, initial[key] ?? LIFE_DEFAULTS[key]));
    this.element.append(
      this.status,
      h('div', { class: 'buttons' }, this.resumeButton, this.downloadButton, this.exportButton, this.clearButton),
      h('p', { class: 'hint' }, ...rich(w.downloadHint)),
      h('p', { class: 'hint' }, ...rich(w.exportHint)),
      this.exportWhy,
    );
    this.downloadButton.addEventListener('click', () => void this.download());
    this.exportButton.addEventListener('click', () => void this.exportTorchrun());
    this.clearButton.addEventListener('click', () => void this.clear());
    void this.refresh();
  }

  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  /** A torchrun project was exported and offered for download. */
  onExported(cb: () => void): void {
    this.exportListeners.push(cb);
  }

  /** "Resume from the last checkpoint" was clicked. */
  onResume(cb: () => void): void {
    this.resumeButton.addEventListener('click', cb);
  }

  /** The settings, or null while one is bad (shown at its control). */
  settings(): LifeSettings | null {
    const out: Record<string, boolean | number> = {};
    let ok = true;
    for (const [key, c] of this.controls) {
      if (key === 'checkpoints') {
        out[key] = c.input.checked;
        continue;
      }
      const v = c.input.value.trim() === '' ? NaN : Number(c.input.value);
      const bad = lifeProblem(key, v);
      c.error.hidden = bad === null;
      c.error.textContent = bad ? t().life.range(t().life.labels[key], bad.min, bad.max) : '';
      c.input.setAttribute('aria-invalid', String(bad !== null));
      ok &&= bad === null;
      out[key] = v;
    }
    return ok ? (out as unknown as LifeSettings) : null;
  }

  /** The controls' values as the page address carries them. */
  values(): Record<LifeKey, string> {
    const out = {} as Record<LifeKey, string>;
    for (const [key, c] of this.controls)
      out[key] = key === 'checkpoints' ? (c.input.checked ? '1' : '0') : c.input.value;
    return out;
  }

  /** Puts a lesson's settings (the rest: defaults) into the controls. */
  setValues(v: Partial<LifeSettings>): void {
    const all = { ...LIFE_DEFAULTS, ...v };
    for (const [key, c] of this.controls) {
      if (key === 'checkpoints') c.input.checked = all.checkpoints;
      else c.input.value = String(all[key]);
    }
    this.changed();
  }

  /** What a run of `config` on `dataset` saves, or undefined (checkpoints off). */
  sink(config: TrainConfig, s: LifeSettings, dataset: DatasetRecord): RunOptions['checkpoint'] | undefined {
    if (!s.checkpoints) return undefined;
    const spec = simpleCnnSpec(config.width);
    return {
      every: s.checkpointEvery,
      save: async (snap: Snapshot) => {
        const entry = await this.store.write(await encodeCheckpoint(snap, spec, dataset), s.keep);
        this.show(entry);
        return this.store.whereOf(entry);
      },
    };
  }

  /** The newest stored checkpoint, decoded and checked (checksums, names, shapes), and the dataset it records; throws saying what is wrong. */
  async last(): Promise<{ where: string; snapshot: Snapshot; dataset: DatasetRecord | null }> {
    try {
      const { entry, files } = await this.store.read();
      const where = this.store.whereOf(entry);
      return { where, ...(await readCheckpoint(files, where)) };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.say(t().life.refused(message), true);
      throw e;
    }
  }

  setDisabled(busy: boolean): void {
    this.busy = busy;
    for (const c of this.controls.values()) c.input.disabled = busy;
    this.buttons();
  }

  /** Reads the store again (after a run, or on load). */
  async refresh(): Promise<void> {
    try {
      this.show((await this.store.list()).at(-1) ?? null);
    } catch (e) {
      this.newest = null;
      this.say(e instanceof Error ? e.message : String(e), true);
      this.buttons();
    }
  }

  /** The newest checkpoint as the panel shows it (null: none). */
  get latest(): StoredCheckpoint | null {
    return this.newest;
  }

  private show(entry: StoredCheckpoint | null): void {
    this.newest = entry;
    const w = t().life;
    this.say(
      entry
        ? w.newest(
            entry.globalStep,
            entry.epoch,
            entry.step,
            entry.stepsPerEpoch,
            MODE_SHORT[entry.mode as keyof typeof MODE_SHORT] ?? entry.mode,
            entry.workers,
            (entry.bytes / 2 ** 20).toFixed(1),
          )
        : w.none,
      false,
    );
    this.buttons();
  }

  private buttons(): void {
    const none = this.newest === null || this.busy;
    this.resumeButton.disabled = none;
    this.downloadButton.disabled = none;
    const why = exportWhy(this.newest);
    this.exportButton.disabled = none || why.refused;
    this.exportWhy.textContent = why.text;
    this.clearButton.disabled = none;
  }

  /** The three files, each its own download under the name --resume reads. */
  private async download(): Promise<void> {
    try {
      const { entry, files } = await this.store.read();
      for (const [name, bytes] of Object.entries(files)) await save(bytes, name);
      this.say(t().life.downloaded(entry.globalStep), false);
    } catch (e) {
      this.say(t().life.refused(e instanceof Error ? e.message : String(e)), true);
    }
  }

  /** The newest checkpoint as a torchrun project (src/export/torchrun.ts, as the CLI), one .tar download. */
  private async exportTorchrun(): Promise<void> {
    try {
      const { entry, files } = await this.store.read();
      // train.py's --data: the dataset the checkpoint records; for one that records none, the page's
      const unrecorded = this.dataset() === SYNTHETIC_DATASET ? 'synthetic' : 'cifar-10-binary.tar.gz';
      const { snapshot, project } = await exportCheckpoint(files, { source: this.store.whereOf(entry), unrecorded });
      const root = `webddp-torchrun-step-${snapshot.position.globalStep}`;
      await save(await projectTar(project, root), `${root}.tar`);
      const c = snapshot.config;
      this.say(t().life.exported(`${root}.tar`, Object.keys(project.files).length, c.workers), false);
      this.element.dataset.exported = root;
      for (const cb of this.exportListeners) cb();
    } catch (e) {
      this.say(t().life.refused(e instanceof Error ? e.message : String(e)), true);
    }
  }

  private async clear(): Promise<void> {
    await this.store.clear().catch((e: unknown) => this.say(e instanceof Error ? e.message : String(e), true));
    await this.refresh();
  }

  private say(text: string, error: boolean): void {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
    this.element.dataset.state = error ? 'error' : this.newest ? 'stored' : 'none';
  }

  private changed(): void {
    this.settings();
    for (const cb of this.listeners) cb();
  }

  private build(key: LifeKey, value: boolean | number): HTMLElement {
    const w = t().life;
    const id = `life-${key}`;
    const error = h('p', { class: 'error', id: `${id}-error`, role: 'alert', hidden: true });
    const hint = h('p', { class: 'hint', id: `${id}-hint` }, w.hints[key]);
    const label = h('label', { for: id }, w.labels[key]);
    const described = `${id}-hint ${id}-error`;
    let input: HTMLInputElement;
    let row: HTMLElement;
    if (key === 'checkpoints') {
      input = h('input', { id, type: 'checkbox', 'aria-describedby': described });
      input.checked = value === true;
      row = h('div', { class: 'field check' }, input, label, hint, error);
    } else {
      const { min, max } = LIFE_LIMITS[key];
      input = h('input', {
        id,
        type: 'number',
        inputmode: 'numeric',
        min,
        max,
        step: 1,
        'aria-describedby': described,
      });
      input.value = String(value);
      row = h('div', { class: 'field' }, label, input, hint, error);
    }
    input.addEventListener(key === 'checkpoints' ? 'change' : 'input', () => this.changed());
    this.controls.set(key, { input, error });
    return row;
  }
}

/** Saves `bytes` as a download named `name`. */
async function save(bytes: Uint8Array, name: string): Promise<void> {
  const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>]));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  await new Promise((r) => setTimeout(r, 150)); // browsers drop downloads started in one tick
}
