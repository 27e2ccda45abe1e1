// The dataset panel's file drop zone: the text, a "Choose files…" button and its hidden file input,
// wired so that picking files or dropping them (folders expanded) hands them to `onFiles`.
import { h } from '../dom.ts';
import { wireDropZone } from './drop-files.ts';
import { rich, t } from '../i18n/index.ts';

export interface FileDrop {
  readonly element: HTMLDivElement;
  readonly chooseButton: HTMLButtonElement;
}

export function fileDrop(
  id: string,
  enabled: () => boolean,
  onFiles: (files: readonly File[]) => void,
  onError: (err: unknown) => void,
): FileDrop {
  const input = h('input', {
    type: 'file',
    multiple: true,
    class: 'ds-file',
    tabindex: -1,
    'aria-hidden': 'true',
    accept: '.gz,.tgz,.tar,.bin,.txt,application/gzip,application/x-gzip,application/x-tar',
  });
  const chooseButton = h('button', { type: 'button', 'aria-describedby': `${id}-drop-text` }, t().dataset.choose);
  const element = h(
    'div',
    { class: 'ds-drop' },
    h('p', { id: `${id}-drop-text` }, ...rich(t().dataset.dropText)),
    chooseButton,
    input,
  );
  chooseButton.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    const files = [...(input.files ?? [])];
    input.value = ''; // picking the same file again fires change again
    onFiles(files);
  });
  wireDropZone(element, enabled, onFiles, onError);
  return { element, chooseButton };
}
