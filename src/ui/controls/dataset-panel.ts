// The "Dataset" control of the left panel: choose the built-in synthetic dataset (the default,
// generated in the browser) or CIFAR-10 (once imported), and import CIFAR-10 from a file picker,
// a drop zone or a URL, with progress, Cancel, and the importer's own error messages.
// For tests: data-dataset = the selected name; data-import-state = idle|importing|done|error.
import { describe } from '../../data/errors.ts';
import { DatasetNotFoundError } from '../../data/store-errors.ts';
import { CIFAR10_CLASSES } from '../../data/cifar.ts';
import { readManifest } from '../../data/dataset.ts';
import { DEFAULT_DATASET } from '../../data/import-types.ts';
import type { DatasetManifest, DatasetStore } from '../../data/store.ts';
import { SYNTHETIC_CLASSES, SYNTHETIC_DATASET, importSynthetic } from '../../data/synthetic.ts';
import { docLink, h } from '../dom.ts';
import {
  errorMessages,
  isCancel,
  planFiles,
  planUrl,
  recordCounts,
  resultMessages,
  sourceLabel,
  startImport,
  type ImportRequest,
} from './dataset-import.ts';
import { fileDrop, type FileDrop } from './file-drop.ts';
import { choice, type Choice } from './dataset-choice.ts';
import { ImportProgressView } from './import-progress.ts';
import { UrlImportForm } from './url-import-form.ts';
import './dataset-panel.css';
import { rich, t } from '../i18n/index.ts';

export type ImportState = 'idle' | 'importing' | 'done' | 'error';

const CIFAR_PAGE = 'https://www.cs.toronto.edu/~kriz/cifar.html';
let instances = 0;

/** The hint paragraph: rich text with the link where the table's sentence has the \u0000 mark. */
function hintWithLink(text: string, link: HTMLAnchorElement): HTMLParagraphElement {
  const [before = '', after = ''] = text.split('\u0000');
  return h('p', { class: 'ds-hint' }, ...rich(before), link, ...rich(after));
}

export class DatasetPanel {
  readonly element: HTMLFieldSetElement;
  private readonly choices: Record<'synthetic' | 'cifar10', Choice>;
  private readonly manifests = new Map<string, DatasetManifest>();
  private readonly listeners: (() => void)[] = [];
  private readonly drop: FileDrop;
  private readonly url: UrlImportForm;
  private readonly progress = new ImportProgressView();
  private readonly status: HTMLParagraphElement;
  private readonly alert: HTMLDivElement;
  private busy = false;
  private controller: AbortController | undefined;
  private syntheticJob: Promise<void> | undefined;

  constructor(private readonly store: DatasetStore) {
    const id = `ds-${++instances}`;
    const w = t().dataset;
    this.choices = {
      synthetic: choice(id, SYNTHETIC_DATASET, w.synthetic, w.syntheticText, w.syntheticNote),
      cifar10: choice(id, DEFAULT_DATASET, w.cifar, w.cifarText, w.cifarNote),
    };
    this.choices.synthetic.radio.checked = true;
    this.choices.cifar10.radio.disabled = true;

    this.drop = fileDrop(
      id,
      () => !this.busy && !this.importing,
      (files) => this.importFiles(files),
      (err) => this.fail([w.droppedUnreadable(describe(err))]),
    );
    this.url = new UrlImportForm(id, (text) => this.importUrl(text));
    this.status = h('p', { class: 'ds-status', role: 'status' });
    this.alert = h('div', { class: 'ds-alert', role: 'alert' });

    this.element = h(
      'fieldset',
      { class: 'dataset-panel', 'data-dataset': SYNTHETIC_DATASET, 'data-import-state': 'idle' },
      h('legend', {}, w.legend),
      h(
        'div',
        { class: 'ds-choices', role: 'radiogroup', 'aria-label': w.trainOn },
        this.choices.synthetic.label,
        this.choices.cifar10.label,
      ),
      h(
        'div',
        { class: 'ds-import', role: 'group', 'aria-labelledby': `${id}-import-title` },
        h('p', { class: 'ds-import-title', id: `${id}-import-title` }, w.importTitle),
        this.drop.element,
        this.url.element,
        hintWithLink(w.hint('\u0000'), docLink(CIFAR_PAGE, w.cifarPage)),
        this.progress.element,
        this.status,
        this.alert,
      ),
    );

    for (const c of Object.values(this.choices)) c.radio.addEventListener('change', () => this.selectionChanged());
    this.progress.cancel.addEventListener('click', () =>
      this.controller?.abort(new Error(t().dataset.cancelledByUser)),
    );
    void this.refresh();
  }

  /** Name of the dataset to train on. */
  selected(): string {
    return this.choices.cifar10.radio.checked ? DEFAULT_DATASET : SYNTHETIC_DATASET;
  }

  /** Class names of the selected dataset (from its manifest when known). */
  classes(): readonly string[] {
    const name = this.selected();
    return this.manifests.get(name)?.classes ?? (name === SYNTHETIC_DATASET ? SYNTHETIC_CLASSES : CIFAR10_CLASSES);
  }

  /** True while a CIFAR-10 import runs. */
  get importing(): boolean {
    return this.controller !== undefined;
  }

  /** Makes sure the selected dataset is stored (generating the built-in one if missing) and returns its name. */
  async ensureReady(): Promise<string> {
    const name = this.selected();
    if (name === SYNTHETIC_DATASET) {
      this.syntheticJob ??= this.makeSynthetic().finally(() => {
        this.syntheticJob = undefined;
      });
      await this.syntheticJob;
      return name;
    }
    const m = await readManifest(this.store, name);
    if (m === undefined) throw new DatasetNotFoundError(name, this.store.where);
    this.setManifest(name, m);
    return name;
  }

  /** The manifest of `name` as ensureReady last read it (what a checkpoint records of the data). */
  manifestOf(name: string): DatasetManifest | undefined {
    return this.manifests.get(name);
  }

  /** While training: no imports, no switching. */
  setDisabled(busy: boolean): void {
    this.busy = busy;
    this.updateDisabled();
  }

  /** Called when the selected dataset (or its stored content) changes. */
  onChange(cb: () => void): void {
    this.listeners.push(cb);
  }

  /** Re-reads both manifests from the store (counts, sources, whether CIFAR-10 is available). */
  async refresh(): Promise<void> {
    for (const name of [SYNTHETIC_DATASET, DEFAULT_DATASET]) {
      try {
        const m = await readManifest(this.store, name);
        if (m) this.setManifest(name, m);
      } catch (e) {
        this.noteOf(name).textContent = t().dataset.unusable(describe(e));
      }
    }
  }

  private async makeSynthetic(): Promise<void> {
    const m = await readManifest(this.store, SYNTHETIC_DATASET).catch(() => undefined); // invalid: generate again
    if (m) return this.setManifest(SYNTHETIC_DATASET, m);
    const note = this.choices.synthetic.note;
    note.textContent = t().dataset.generating;
    await new Promise((r) => setTimeout(r, 30)); // let the note paint before generating
    try {
      this.setManifest(SYNTHETIC_DATASET, (await importSynthetic(this.store)).manifest);
    } catch (e) {
      note.textContent = t().dataset.cannotGenerate(describe(e));
      throw e;
    }
  }

  private noteOf(name: string): HTMLElement {
    return (name === SYNTHETIC_DATASET ? this.choices.synthetic : this.choices.cifar10).note;
  }

  private setManifest(name: string, m: DatasetManifest): void {
    this.manifests.set(name, m);
    const note = this.noteOf(name);
    note.textContent = recordCounts(m);
    if (name === DEFAULT_DATASET)
      note.append(h('span', { class: 'ds-source' }, t().dataset.from(m.source.description)));
    this.updateDisabled();
  }

  private select(name: string): void {
    const radio = (name === SYNTHETIC_DATASET ? this.choices.synthetic : this.choices.cifar10).radio;
    radio.disabled = false;
    radio.checked = true;
    this.selectionChanged();
  }

  private selectionChanged(): void {
    this.element.dataset.dataset = this.selected();
    for (const cb of this.listeners) cb();
  }

  private setState(s: ImportState): void {
    this.element.dataset.importState = s;
  }

  private updateDisabled(): void {
    const noImport = this.busy || this.importing;
    this.choices.synthetic.radio.disabled = this.busy;
    this.choices.cifar10.radio.disabled = this.busy || !this.manifests.has(DEFAULT_DATASET);
    this.drop.chooseButton.disabled = noImport;
    this.url.setDisabled(noImport);
    this.drop.element.classList.toggle('disabled', noImport);
    for (const c of Object.values(this.choices)) c.label.classList.toggle('disabled', c.radio.disabled);
  }

  private importFiles(files: readonly File[]): void {
    if (files.length === 0) return;
    const plan = planFiles(files);
    if (typeof plan === 'string') return this.fail([plan]);
    void this.run(plan);
  }

  /** Returns the URL's problem (shown under the field), or null once the import has begun. */
  private importUrl(text: string): string | null {
    const plan = planUrl(text);
    if (typeof plan === 'string') return plan;
    void this.run(plan);
    return null;
  }

  private fail(lines: readonly string[]): void {
    this.status.textContent = '';
    this.alert.replaceChildren(...lines.map((t) => h('p', {}, t)));
    this.setState('error');
  }

  private async run(req: ImportRequest): Promise<void> {
    if (this.busy || this.importing) return;
    const controller = new AbortController();
    this.controller = controller;
    const source = sourceLabel(req);
    this.alert.replaceChildren();
    this.url.showError('');
    this.status.textContent = t().dataset.importing(source);
    this.progress.start(source);
    this.setState('importing');
    this.updateDisabled();
    try {
      const r = await startImport(req, this.store, {
        onProgress: (p) => this.progress.update(p),
        signal: controller.signal,
      });
      const [first = '', ...rest] = resultMessages(r, source);
      this.status.replaceChildren(
        h('span', { class: 'ds-ok' }, first),
        ...rest.map((t) => h('span', { class: 'ds-note' }, t)),
      );
      this.setState('done');
      this.setManifest(DEFAULT_DATASET, r.manifest);
      this.select(DEFAULT_DATASET);
    } catch (e) {
      if (isCancel(e, controller.signal)) {
        this.status.textContent = t().dataset.cancelled;
        this.setState('idle');
      } else {
        this.fail(errorMessages(e, req));
      }
    } finally {
      this.controller = undefined;
      this.progress.stop();
      this.updateDisabled();
    }
  }
}
