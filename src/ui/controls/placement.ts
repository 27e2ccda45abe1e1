// Where the run's workers live: "each worker its own device" (a Web Worker and a GPUDevice per rank,
// gradients through a host ring) or "workers share one device" (every rank in one Web Worker on one
// GPUDevice, DDP's buckets summed on it, as the CLI's --colocate). Sharing is offered only where the
// mode table says the run's mode and precision run so, and for two or more workers.
import type { TrainConfig } from '../../config.ts';
import { runsPlaced } from '../../parallel/index.ts';
import type { Placement } from '../../parallel/mode.ts';
import { h } from '../dom.ts';
import { t } from '../i18n/index.ts';

export class PlacementControl {
  readonly element: HTMLFieldSetElement;
  private readonly inputs: Record<Placement, HTMLInputElement>;
  private readonly note: HTMLElement;
  private accepted = false;
  private locked = false;

  constructor(initial: Placement = 'own-devices') {
    const w = t().placement;
    const radio = (p: Placement, label: string) => {
      const input = h('input', { type: 'radio', name: 'placement', id: `placement-${p}`, value: p });
      input.checked = p === initial;
      return { input, row: h('div', { class: 'field check' }, input, h('label', { for: input.id }, label)) };
    };
    const own = radio('own-devices', w.own);
    const shared = radio('shared-device', w.shared);
    this.inputs = { 'own-devices': own.input, 'shared-device': shared.input };
    this.note = h('p', { class: 'hint', id: 'placement-note' });
    this.element = h(
      'fieldset',
      { class: 'placement', 'aria-describedby': 'placement-note' },
      h('legend', {}, w.legend),
    );
    this.element.append(own.row, shared.row, this.note);
  }

  /** The placement the next run uses: sharing only where `update` found it accepted. */
  value(): Placement {
    return this.accepted && this.inputs['shared-device'].checked ? 'shared-device' : 'own-devices';
  }

  /** What was chosen, accepted or not (for the page address). */
  chosen(): Placement {
    return this.inputs['shared-device'].checked ? 'shared-device' : 'own-devices';
  }

  set(p: Placement): void {
    this.inputs[p].checked = true;
  }

  onChange(cb: () => void): void {
    for (const i of Object.values(this.inputs)) i.addEventListener('change', cb);
  }

  /** Offers sharing for `config` (null: the form holds a bad value) where the mode table accepts it. */
  update(config: TrainConfig | null): void {
    this.accepted = config !== null && config.workers > 1 && runsPlaced(config, 'shared-device');
    this.inputs['shared-device'].disabled = this.locked || !this.accepted;
    this.note.textContent = this.accepted ? t().placement.hint : t().placement.notAccepted;
  }

  setDisabled(disabled: boolean): void {
    this.locked = disabled;
    this.inputs['own-devices'].disabled = disabled;
    this.inputs['shared-device'].disabled = disabled || !this.accepted;
  }
}
