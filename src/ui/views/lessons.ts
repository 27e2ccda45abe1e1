// The guided path's card: pick a lesson (or free exploration), read it, load its prepared run, look
// where it says, answer its questions (answers fold out), and see whether the run reached the
// lesson's point. A lesson whose run needs an engine feature this build lacks shows its text and
// says so, with no run button. The DDP lesson then trains the equivalence check's DDP case live (W
// ranks at batch B/W against one worker at batch B) and shows the largest parameter difference.
import { EQUIVALENCE_QUICK, type DdpComparison } from '../../check/equivalence.ts';
import { h } from '../dom.ts';
import { docLinkOf, lang, para, t } from '../i18n/index.ts';
import { FEATURE_NAMES, missing } from '../lessons/features.ts';
import { isLessonId, LESSON_IDS, LESSONS, type Lesson, type LessonId, type LessonRun } from '../lessons/index.ts';

export interface LessonsHost {
  /** Shows the lesson's settings in the form and the address (null: free exploration, settings kept). */
  select(id: LessonId | null): void;
  /** Starts the lesson's run (its settings are in the form). */
  run(): void;
  /** Trains DDP against one worker at the whole batch (the equivalence check's DDP case, its --quick size). */
  compare(): Promise<DdpComparison>;
}

export class LessonsView {
  private readonly picker: HTMLSelectElement;
  private readonly prev: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly article = h('article', { class: 'lesson', 'aria-live': 'off' });
  private readonly result = h('p', { class: 'lesson-result', role: 'status' });
  private readonly proof = h('p', { class: 'lesson-proof', 'data-equivalence': '' });
  /** Counts comparisons started, so one that ends after the lesson changed is dropped. */
  private comparisons = 0;
  private readonly root: HTMLElement;
  private current: LessonId | null = null;
  private reached: boolean | null = null;
  private lastRun: LessonRun | null = null;

  constructor(
    body: HTMLElement,
    private readonly host: LessonsHost,
  ) {
    const w = t().lesson;
    this.picker = h(
      'select',
      { id: 'lesson-pick' },
      h('option', { value: '' }, w.free),
      ...LESSON_IDS.map((id, i) => h('option', { value: id }, `${i + 1}. ${LESSONS[id].text[lang()].title}`)),
    );
    this.prev = h('button', { type: 'button', id: 'lesson-prev' }, w.prev);
    this.next = h('button', { type: 'button', id: 'lesson-next' }, w.next);
    this.picker.addEventListener('change', () => this.open(isLessonId(this.picker.value) ? this.picker.value : null));
    this.prev.addEventListener('click', () => this.step(-1));
    this.next.addEventListener('click', () => this.step(1));
    this.root = h(
      'div',
      { class: 'lessons', 'data-lesson': '', 'data-reached': '' },
      h(
        'div',
        { class: 'lesson-nav' },
        h('div', { class: 'field wide' }, h('label', { for: 'lesson-pick' }, w.pick), this.picker),
        h('div', { class: 'buttons' }, this.prev, this.next),
      ),
      this.article,
      this.result,
      this.proof,
    );
    body.append(this.root);
    this.show(null);
  }

  /** The open lesson and whether its last run reached the point (null: no run finished yet). */
  get state(): { id: LessonId | null; reached: boolean | null } {
    return { id: this.current, reached: this.reached };
  }

  /** Opens a lesson (or free exploration), puts its settings in the form and the address. */
  open(id: LessonId | null): void {
    this.show(id);
    this.host.select(id);
  }

  /** A run ended: says whether it reached the open lesson's point. */
  finished(run: LessonRun): void {
    this.lastRun = run;
    const lesson = this.current ? LESSONS[this.current] : null;
    if (!lesson || missing(lesson.needs).length > 0) return;
    this.reached = lesson.reached(run);
    this.root.dataset.reached = String(this.reached);
    const text = lesson.text[lang()];
    const measured = this.reached ? (lesson.measured?.(run, lang()) ?? '') : '';
    this.result.textContent = this.reached
      ? `✓ ${t().lesson.point} ${text.point}${measured ? ` ${measured}` : ''}`
      : '';
    if (this.reached && lesson.equivalence) void this.compare();
  }

  /** The equivalence check's DDP case, live: shown under the lesson's result. */
  private async compare(): Promise<void> {
    const id = ++this.comparisons;
    const w = t().lesson;
    const { world, batch, steps } = EQUIVALENCE_QUICK;
    this.proof.dataset.equivalence = 'running';
    this.proof.textContent = w.comparing(world, batch, steps);
    let text: string;
    let state: string;
    try {
      const c = await this.host.compare();
      const e = (x: number) => x.toExponential(2);
      text = w.compared(world, batch, steps, e(c.diff), e(c.relative), e(c.tolerance), c.equal);
      state = c.equal ? 'equal' : 'unequal';
    } catch (err) {
      text = w.compareFailed(err instanceof Error ? err.message : String(err));
      state = 'failed';
    }
    if (id !== this.comparisons) return;
    this.proof.dataset.equivalence = state;
    this.proof.textContent = text;
  }

  /** The last run's checkpoint was exported for torchrun: checks the open lesson's point again. */
  exported(): void {
    if (this.lastRun) this.finished({ ...this.lastRun, exported: true });
  }

  private step(d: number): void {
    const i = this.current ? LESSON_IDS.indexOf(this.current) : -1;
    const id = LESSON_IDS[Math.min(LESSON_IDS.length - 1, Math.max(0, i + d))] ?? null;
    this.open(id);
  }

  /** Shows a lesson without touching the settings (the page opened on it). */
  show(id: LessonId | null): void {
    this.current = id;
    this.lastRun = null;
    this.reached = null;
    this.root.dataset.lesson = id ?? '';
    this.root.dataset.reached = '';
    this.result.textContent = '';
    this.comparisons++;
    this.proof.dataset.equivalence = '';
    this.proof.textContent = '';
    this.picker.value = id ?? '';
    const i = id ? LESSON_IDS.indexOf(id) : -1;
    this.prev.disabled = i <= 0;
    this.next.disabled = i >= LESSON_IDS.length - 1;
    this.article.replaceChildren(...(id ? this.render(id, LESSONS[id], i) : []));
  }

  private render(id: LessonId, lesson: Lesson, i: number): Node[] {
    const w = t().lesson;
    const l = lang();
    const text = lesson.text[l];
    const gone = missing(lesson.needs);
    const names = (fs: readonly (keyof typeof FEATURE_NAMES)[]) => fs.map((f) => FEATURE_NAMES[f][l]).join(', ');
    const run = h('button', { type: 'button', class: 'primary', id: 'lesson-run' }, w.load);
    run.addEventListener('click', () => this.host.run());
    const parts: (Node | null)[] = [
      h('p', { class: 'lesson-count' }, w.of(i + 1, LESSON_IDS.length)),
      h('h3', { id: `lesson-${id}-title` }, text.title),
      ...text.intro.map(para),
      gone.length > 0 ? h('p', { class: 'lesson-needs' }, w.needs(names(gone))) : null,
      gone.length === 0 ? h('div', { class: 'buttons' }, run) : null,
      h('h4', {}, w.look),
      h('ul', {}, ...text.look.map((x) => h('li', {}, ...para(x).childNodes))),
      h('p', {}, h('a', { href: `#${lesson.view}` }, w.goTo(t().page.nav[lesson.view]))),
      h(
        'p',
        { class: 'links' },
        t().page.docs,
        ...lesson.docs.flatMap((k, j) => (j === 0 ? [docLinkOf(k)] : [' · ', docLinkOf(k)])),
      ),
      h('h4', {}, w.questions),
      ...text.questions.map((q) =>
        h('div', { class: 'lesson-q' }, para(q.q), h('details', {}, h('summary', {}, w.answer), para(q.a))),
      ),
    ];
    return parts.filter((x): x is Node => x !== null);
  }
}
