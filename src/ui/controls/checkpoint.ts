// The model as a PyTorch checkpoint: download the trained parameters as a safetensors state_dict
// (SimpleCNN's names, so `model.load_state_dict(load_file(path))` takes it), or start a run from
// one. A loaded file is checked against the model width of the run that uses it; a bad file is
// refused here with what is wrong and where, and the run is not started.
import type { TrainConfig } from '../../config.ts';
import { parseSafetensors } from '../../checkpoint/safetensors.ts';
import { loadStateDict, saveStateDict } from '../../checkpoint/state-dict.ts';
import { simpleCnnSpec } from '../../nn/spec.ts';
import { h } from '../dom.ts';
import { fileProblem, STATE_DICT } from './file-checks.ts';
import { rich, t } from '../i18n/index.ts';

export class CheckpointPanel {
  readonly element: HTMLFieldSetElement;
  private readonly input = h('input', { id: 'ckpt-file', type: 'file', accept: '.safetensors' });
  private readonly clear = h('button', { type: 'button', id: 'ckpt-clear', hidden: true }, t().checkpoint.clear);
  private readonly download = h(
    'button',
    { type: 'button', id: 'ckpt-download', disabled: true },
    t().checkpoint.download,
  );
  private readonly status = h('p', { class: 'status', id: 'ckpt-status', role: 'status' });
  private loaded: { name: string; bytes: Uint8Array } | null = null;
  private trained: { params: Float32Array; config: TrainConfig } | null = null;

  constructor() {
    this.element = h(
      'fieldset',
      { class: 'checkpoint' },
      h('legend', {}, t().checkpoint.legend),
      h('div', { class: 'field' }, h('label', { for: 'ckpt-file' }, t().checkpoint.startFrom), this.input),
      h('div', { class: 'buttons' }, this.clear, this.download),
      this.status,
      h('p', { class: 'hint' }, ...rich(t().checkpoint.hint)),
    );
    this.input.addEventListener('change', () => void this.pick());
    this.clear.addEventListener('click', () => {
      this.loaded = null;
      this.input.value = '';
      this.clear.hidden = true;
      this.say(t().checkpoint.seeded, false);
    });
    this.download.addEventListener('click', () => this.save());
  }

  /** The loaded checkpoint's parameters for this config (undefined: none loaded); throws with the reason when it does not fit. */
  paramsFor(config: TrainConfig): Float32Array | undefined {
    if (!this.loaded) return undefined;
    try {
      return loadStateDict(this.loaded.bytes, simpleCnnSpec(config.width), this.loaded.name);
    } catch (e) {
      const msg = `${e instanceof Error ? e.message : String(e)}`;
      this.say(msg, true);
      throw new Error(t().run.checkpointMismatch(msg), { cause: e });
    }
  }

  /** Offers the parameters of a finished run for download. */
  setTrained(params: Float32Array | null, config: TrainConfig): void {
    this.trained = params ? { params, config } : null;
    this.download.disabled = params === null;
  }

  setDisabled(busy: boolean): void {
    this.input.disabled = busy;
    this.clear.disabled = busy;
  }

  private async pick(): Promise<void> {
    const file = this.input.files?.[0];
    if (!file) return;
    const problem = fileProblem(file, STATE_DICT);
    if (problem !== null) {
      this.loaded = null;
      this.input.value = '';
      return this.say(problem, true);
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    try {
      // The width is read off conv1 (32 x width output channels); the run checks it against its own.
      const c1 = parseSafetensors(bytes, file.name).tensors.get('conv1.weight')?.shape[0] ?? 32;
      const width = c1 / 32;
      const params = loadStateDict(bytes, simpleCnnSpec(width), file.name);
      this.loaded = { name: file.name, bytes };
      this.clear.hidden = false;
      this.say(t().checkpoint.loaded(file.name, params.length, width), false);
    } catch (e) {
      this.loaded = null;
      this.input.value = '';
      this.say(t().checkpoint.refused(e instanceof Error ? e.message : String(e)), true);
    }
  }

  private save(): void {
    if (!this.trained) return;
    const { params, config } = this.trained;
    const bytes = saveStateDict(simpleCnnSpec(config.width), params, { config: JSON.stringify(config) });
    const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }));
    const a = h('a', {
      href: url,
      download: `webddp-simplecnn-${config.mode}-w${config.workers}-seed${config.seed}.safetensors`,
    });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    this.say(t().checkpoint.downloaded((bytes.length / 2 ** 20).toFixed(2)), false);
  }

  private say(text: string, error: boolean): void {
    this.status.textContent = text;
    this.status.classList.toggle('error', error);
    this.element.dataset.state = error ? 'error' : this.loaded ? 'loaded' : 'none';
  }
}
