// Start, pause, resume and stop, with the run's state in words beside them. Buttons are enabled
// only where they make sense; the state is also on the element (data-state) for tests.
import { h } from '../dom.ts';
import type { RunState } from '../run-state.ts';
import { t } from '../i18n/index.ts';

export type RunAction = 'start' | 'pause' | 'resume' | 'stop';

export class RunButtons {
  readonly element: HTMLElement;
  private readonly buttons: Record<RunAction, HTMLButtonElement>;
  private readonly status = h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private state: RunState | 'idle' = 'idle';
  private canStart = true;

  constructor(act: (a: RunAction) => void) {
    const b = (a: RunAction, text: string, primary = false) => {
      const el = h('button', { type: 'button', id: `run-${a}`, class: primary ? 'primary' : undefined }, text);
      el.addEventListener('click', () => act(a));
      return el;
    };
    this.buttons = {
      start: b('start', t().run.start, true),
      pause: b('pause', t().run.pause),
      resume: b('resume', t().run.resume),
      stop: b('stop', t().run.stop),
    };
    this.element = h(
      'div',
      { class: 'run-buttons', 'data-state': 'idle' },
      h(
        'div',
        { class: 'buttons', role: 'group', 'aria-label': t().run.buttons },
        this.buttons.start,
        this.buttons.pause,
        this.buttons.resume,
        this.buttons.stop,
      ),
      this.status,
    );
    this.set('idle');
  }

  /** The status line's text (a failed run's error). */
  get statusText(): string {
    return this.status.textContent;
  }

  /** Start is refused (disabled) while the settings hold a bad value or another run is busy. */
  allowStart(ok: boolean): void {
    this.canStart = ok;
    this.refresh();
  }

  set(state: RunState | 'idle', detail?: string): void {
    this.state = state;
    this.element.dataset.state = state;
    const words = t().run.words[state];
    this.status.textContent = detail ? `${words} ${detail}` : words;
    this.status.classList.toggle('error', state === 'failed');
    this.refresh();
  }

  private refresh(): void {
    const s = this.state;
    const active = s === 'starting' || s === 'running' || s === 'pausing' || s === 'paused' || s === 'stopping';
    this.buttons.start.disabled = active || !this.canStart;
    this.buttons.pause.disabled = s !== 'running';
    this.buttons.resume.disabled = s !== 'paused' && s !== 'pausing';
    this.buttons.stop.disabled = !(s === 'running' || s === 'pausing' || s === 'paused' || s === 'starting');
  }
}
