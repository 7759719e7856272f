// The sign-in form: an API key, checked with GET /v1/me before the page opens. The key is kept
// by session.ts; this form never puts it anywhere else.

import { el, uid } from './dom';

export class AttestSignin extends HTMLElement {
  private input!: HTMLInputElement;
  private error!: HTMLElement;
  private submit!: HTMLButtonElement;
  onKey: (key: string) => void = () => {};

  connectedCallback(): void {
    if (this.input) return;
    const id = uid('signin-key');
    const errId = uid('signin-error');
    this.input = el('input', {
      testid: 'signin-key',
      attrs: { id, type: 'password', autocomplete: 'off', spellcheck: 'false', required: '', 'aria-describedby': errId },
    });
    this.error = el('p', { class: 'form-error', testid: 'signin-error', attrs: { id: errId, role: 'alert' } });
    this.submit = el('button', { class: 'primary', testid: 'signin-submit', text: 'Sign in', attrs: { type: 'submit' } });
    const form = el('form', { class: 'signin', testid: 'signin-form', attrs: { 'aria-label': 'Sign in' } }, [
      el('h2', { text: 'Sign in' }),
      el('p', { class: 'hint', text: 'Paste the API key you were given (attest keys create). It is kept only in this browser tab.' }),
      el('label', { text: 'API key', attrs: { for: id } }),
      el('div', { class: 'ask-row' }, [this.input, this.submit]),
      this.error,
    ]);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const key = this.input.value.trim();
      if (!key) {
        this.showError('Enter an API key.');
        return;
      }
      this.showError('');
      this.submit.disabled = true;
      this.onKey(key);
    });
    this.replaceChildren(form);
  }

  showError(message: string): void {
    if (!this.error) return;
    this.error.textContent = message;
    this.submit.disabled = false;
    if (message) this.input.focus();
  }

  focusInput(): void {
    if (this.input) this.input.focus();
  }
}

customElements.define('attest-signin', AttestSignin);
