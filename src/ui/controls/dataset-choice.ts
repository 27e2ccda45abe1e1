// One choice of the Dataset panel: a labelled radio with the dataset's name, a description, and a
// note (record counts and source, or why it is not available yet), wired for screen readers.
import { h } from '../dom.ts';

export interface Choice {
  readonly radio: HTMLInputElement;
  readonly label: HTMLLabelElement;
  /** Record counts and source, or why the choice is not available yet. */
  readonly note: HTMLElement;
}

export function choice(id: string, value: string, title: string, text: string, note: string): Choice {
  const rid = `${id}-${value}`;
  const radio = h('input', {
    type: 'radio',
    name: `${id}-choice`,
    value,
    id: rid,
    'aria-labelledby': `${rid}-name`,
    'aria-describedby': `${rid}-text ${rid}-note`,
  });
  const noteEl = h('span', { class: 'ds-counts', id: `${rid}-note` }, note);
  const label = h(
    'label',
    { class: 'ds-choice', for: rid },
    radio,
    h(
      'span',
      { class: 'ds-choice-body' },
      h('span', { class: 'ds-name', id: `${rid}-name` }, title),
      h('span', { class: 'ds-text', id: `${rid}-text` }, text),
      noteEl,
    ),
  );
  return { radio, label, note: noteEl };
}
