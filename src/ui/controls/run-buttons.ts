// Start, pause, resume and stop, with the run's state in words beside them. Buttons are enabled
// only where they make sense; the state is also on the element (data-state) for tests.
import { h } from '../dom.ts';
import type { RunState } from '../session.ts';

export type RunAction = 'start' | 'pause' | 'resume' | 'stop';

const WORDS: Record<RunState | 'idle', string> = {
  idle: 'Ready.',
  starting: 'Starting…',
  running: 'Training…',
  pausing: 'Pausing…',
  paused: 'Paused.',
  stopping: 'Stopping…',
  done: 'Finished.',
  stopped: 'Stopped.',
  failed: 'The run failed.',
};

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
      start: b('start', 'Start', true),
      pause: b('pause', 'Pause'),
      resume: b('resume', 'Resume'),
      stop: b('stop', 'Stop'),
    };
    this.element = h(
      'div',
      { class: 'run-buttons', 'data-state': 'idle' },
      h('div', { class: 'buttons' }, this.buttons.start, this.buttons.pause, this.buttons.resume, this.buttons.stop),
      this.status,
    );
    this.set('idle');
  }

  /** Start is refused (disabled) while the settings hold a bad value or another run is busy. */
  allowStart(ok: boolean): void {
    this.canStart = ok;
    this.refresh();
  }

  set(state: RunState | 'idle', detail?: string): void {
    this.state = state;
    this.element.dataset.state = state;
    this.status.textContent = detail ? `${WORDS[state]} ${detail}` : WORDS[state];
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
