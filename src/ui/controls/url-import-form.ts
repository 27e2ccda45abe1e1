// The "or from a URL" row of the dataset panel: a URL field, an Import button and the field's own
// error line (aria-invalid, focus back on the field). It only checks and hands the text over.
import { h } from '../dom.ts';
import { t } from '../i18n/index.ts';

export class UrlImportForm {
  readonly element: HTMLFormElement;
  readonly input: HTMLInputElement;
  readonly button: HTMLButtonElement;
  private readonly error: HTMLParagraphElement;

  /** `submit` gets the text of the field; it returns an error to show there, or null when it took it. */
  constructor(id: string, submit: (url: string) => string | null) {
    this.input = h('input', {
      type: 'url',
      id: `${id}-url`,
      inputmode: 'url',
      spellcheck: 'false',
      autocomplete: 'url',
      placeholder: 'https://…',
      'aria-describedby': `${id}-url-error`,
    });
    this.button = h('button', { type: 'submit' }, t().dataset.urlImport);
    this.error = h('p', { class: 'ds-url-error', id: `${id}-url-error` });
    this.element = h(
      'form',
      { class: 'ds-url', novalidate: true },
      h('label', { for: `${id}-url` }, t().dataset.urlLabel),
      h('div', { class: 'ds-url-row' }, this.input, this.button),
      this.error,
    );
    this.element.addEventListener('submit', (e) => {
      e.preventDefault();
      this.showError(submit(this.input.value) ?? '');
    });
    this.input.addEventListener('input', () => this.showError(''));
  }

  setDisabled(disabled: boolean): void {
    this.input.disabled = disabled;
    this.button.disabled = disabled;
  }

  /** Shows `text` under the field ('' clears it); a real error puts the focus back on the field. */
  showError(text: string): void {
    this.error.textContent = text;
    if (text === '') this.input.removeAttribute('aria-invalid');
    else this.input.setAttribute('aria-invalid', 'true');
    if (text !== '') this.input.focus();
  }
}
