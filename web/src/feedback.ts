// The feedback dialog: one <dialog> for the page, opened from a sentence or a source card, posting
// POST /v1/feedback and acknowledging in `feedback-ack` (role=status).

import { Api, ApiError } from './api';
import { el, uid } from './dom';
import { errorMessage } from './format';

const KINDS: Array<[string, string]> = [
  ['wrong', 'Wrong: it says something false'],
  ['unsupported', 'Unsupported: the source does not say this'],
  ['stale', 'Out of date'],
];

export class FeedbackDialog {
  readonly dialog: HTMLDialogElement;
  readonly ack: HTMLElement;
  private readonly subject: HTMLElement;
  private readonly comment: HTMLTextAreaElement;
  private readonly error: HTMLElement;
  private readonly submit: HTMLButtonElement;
  private target = { answerId: '', claimId: '', sourceId: '' };
  private opener: HTMLElement | null = null;
  private ackTimer = 0;

  constructor(private readonly api: () => Api | null) {
    const titleId = uid('feedback-title');
    const commentId = uid('feedback-comment');
    this.subject = el('p', { class: 'feedback-subject' });
    this.comment = el('textarea', { testid: 'feedback-comment', attrs: { id: commentId, rows: '3', maxlength: '1000' } });
    this.error = el('p', { class: 'form-error', attrs: { role: 'alert' } });
    this.error.hidden = true;
    this.submit = el('button', { class: 'primary', testid: 'feedback-submit', text: 'Send', attrs: { type: 'submit' } });
    const radios = KINDS.map(([value, label], i) => {
      const id = uid('kind');
      const input = el('input', { attrs: { type: 'radio', name: 'kind', value, id } });
      if (i === 0) input.checked = true;
      return el('div', { class: 'radio' }, [input, el('label', { text: label, attrs: { for: id } })]);
    });
    const form = el('form', { attrs: { method: 'dialog' } }, [
      el('h2', { text: 'Report a problem', attrs: { id: titleId } }),
      this.subject,
      el('fieldset', {}, [el('legend', { text: 'What is wrong?' }), ...radios]),
      el('label', { text: 'Comment (optional)', attrs: { for: commentId } }),
      this.comment,
      this.error,
      el('div', { class: 'dialog-buttons' }, [
        el('button', {
          testid: 'feedback-cancel',
          text: 'Cancel',
          attrs: { type: 'button' },
          on: { click: () => this.close() },
        }),
        this.submit,
      ]),
    ]);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.send(form);
    });
    this.dialog = el('dialog', { class: 'dialog', testid: 'feedback-dialog', attrs: { 'aria-labelledby': titleId } }, [form]);
    this.dialog.addEventListener('close', () => this.restoreFocus());
    this.ack = el('p', { class: 'feedback-ack', testid: 'feedback-ack', attrs: { role: 'status', 'aria-live': 'polite' } });
  }

  open(answerId: string, claimId: string, sourceId: string, label: string): void {
    this.target = { answerId, claimId, sourceId };
    this.opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    this.subject.textContent = `About the ${label}`;
    this.comment.value = '';
    this.error.hidden = true;
    this.submit.disabled = false;
    const first = this.dialog.querySelector('input[name="kind"]') as HTMLInputElement | null;
    if (first) first.checked = true;
    if (!this.dialog.open) this.dialog.showModal();
  }

  private close(): void {
    if (this.dialog.open) this.dialog.close();
  }

  private restoreFocus(): void {
    if (this.opener && this.opener.isConnected) this.opener.focus();
    this.opener = null;
  }

  private async send(form: HTMLFormElement): Promise<void> {
    const api = this.api();
    if (!api) return;
    const checked = form.querySelector('input[name="kind"]:checked') as HTMLInputElement | null;
    const kind = checked ? checked.value : 'wrong';
    if (!this.target.answerId) {
      this.showError('The answer is not finished yet; feedback can be sent once it is.');
      return;
    }
    this.submit.disabled = true;
    try {
      await api.json('POST', '/v1/feedback', {
        answer_id: this.target.answerId,
        claim_id: this.target.claimId,
        source_id: this.target.sourceId,
        kind,
        comment: this.comment.value,
      });
      this.ack.dataset.state = 'ok';
      this.ack.textContent = 'Thanks — feedback recorded';
      this.close();
      // The acknowledgement floats over the page's bottom edge; it fades out after a while.
      window.clearTimeout(this.ackTimer);
      this.ackTimer = window.setTimeout(() => {
        if (this.ack.dataset.state === 'ok') this.ack.textContent = '';
      }, 8000);
    } catch (e) {
      this.submit.disabled = false;
      const msg = e instanceof ApiError ? `Feedback was not recorded: ${e.message} (${e.code})` : errorMessage(e);
      this.showError(msg);
    }
  }

  private showError(message: string): void {
    window.clearTimeout(this.ackTimer);
    this.ack.dataset.state = 'error';
    this.ack.textContent = message;
    this.error.textContent = message;
    this.error.hidden = false;
  }
}
