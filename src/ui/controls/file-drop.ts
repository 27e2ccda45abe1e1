// The dataset panel's file drop zone: the text, a "Choose files…" button and its hidden file input,
// wired so that picking files or dropping them (folders expanded) hands them to `onFiles`.
import { h } from '../dom.ts';
import { wireDropZone } from './drop-files.ts';

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
  const chooseButton = h('button', { type: 'button', 'aria-describedby': `${id}-drop-text` }, 'Choose files…');
  const element = h(
    'div',
    { class: 'ds-drop' },
    h(
      'p',
      { id: `${id}-drop-text` },
      'Drop ',
      h('strong', {}, 'cifar-10-binary.tar.gz'),
      ', or the ',
      h('code', {}, '.bin'),
      ' files with ',
      h('code', {}, 'batches.meta.txt'),
      ' (or their folder) here',
    ),
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
