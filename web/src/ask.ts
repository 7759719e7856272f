// The Ask view: the question form, the stage line and the thread of turns. The first question
// creates a thread (POST /v1/threads); every question is a message of it, streamed; "New thread"
// starts over.

import { Api, ApiError } from './api';
import { StageState, Turn, TurnHost } from './answer';
import { el, uid } from './dom';
import { errorMessage } from './format';
import { QuotePopover } from './popover';
import { Filters } from './types';

export interface AskContext {
  api(): Api | null;
  filters(): Filters | undefined;
  quotes: QuotePopover;
  openFeedback(answerId: string, claimId: string, sourceId: string, label: string): void;
}

export class AttestAsk extends HTMLElement implements TurnHost {
  private ctx!: AskContext;
  private input!: HTMLTextAreaElement;
  private writer!: HTMLSelectElement;
  private submit!: HTMLButtonElement;
  private stageLine!: HTMLElement;
  private thread!: HTMLElement;
  private threadId = '';
  private turns = 0;
  private busy: AbortController | null = null;
  private intro!: HTMLElement;

  get quotes(): QuotePopover {
    return this.ctx.quotes;
  }

  setup(ctx: AskContext): void {
    this.ctx = ctx;
    const inputId = uid('ask-input');
    const writerId = uid('ask-writer');
    this.input = el('textarea', {
      testid: 'ask-input',
      attrs: { id: inputId, rows: '2', placeholder: 'Ask a question about your documents', required: '' },
    });
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.form().requestSubmit();
      }
    });
    this.writer = el('select', { testid: 'ask-writer', attrs: { id: writerId } }, [
      el('option', { text: 'Extractive (quotes the sources)', attrs: { value: 'extractive' } }),
      el('option', { text: 'Language model (when the server has one)', attrs: { value: 'llm' } }),
    ]);
    this.submit = el('button', { class: 'primary', testid: 'ask-submit', text: 'Ask', attrs: { type: 'submit' } });
    this.stageLine = el('p', { class: 'stage', testid: 'stage', attrs: { role: 'status', 'aria-live': 'polite', 'data-state': 'idle' } });
    this.thread = el('div', { class: 'thread', attrs: { 'aria-label': 'Conversation' } });
    const form = el('form', { class: 'ask-form', testid: 'ask-form', attrs: { 'aria-label': 'Ask a question' } }, [
      el('label', { class: 'visually-hidden', text: 'Question', attrs: { for: inputId } }),
      el('div', { class: 'ask-row' }, [this.input, this.submit]),
      el('div', { class: 'options', attrs: { role: 'group', 'aria-label': 'Options' } }, [
        el('span', { class: 'options-title', text: 'Options' }),
        el('label', { text: 'Writer', attrs: { for: writerId } }),
        this.writer,
        el('button', {
          class: 'link-button',
          testid: 'new-thread',
          text: 'New thread',
          attrs: { type: 'button' },
          on: { click: () => this.newThread() },
        }),
      ]),
    ]);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const q = this.input.value.trim();
      if (q && !this.busy) void this.ask(q);
    });
    this.intro = el('p', {
      class: 'hint intro',
      text: 'Each sentence of an answer is checked against the passage it quotes. Hover over or focus a marker such as [1] to read that passage; the sources are listed beside the answer.',
    });
    this.replaceChildren(form, this.stageLine, this.intro, this.thread);
  }

  focusInput(): void {
    this.input.focus();
  }

  // Signed out or replaced: a question still streaming is cancelled.
  disconnectedCallback(): void {
    if (this.busy) this.busy.abort();
  }

  setStage(text: string, state: StageState): void {
    this.stageLine.textContent = text;
    this.stageLine.dataset.state = state;
  }

  openFeedback(answerId: string, claimId: string, sourceId: string, label: string): void {
    this.ctx.openFeedback(answerId, claimId, sourceId, label);
  }

  private form(): HTMLFormElement {
    return this.querySelector('form.ask-form') as HTMLFormElement;
  }

  private newThread(): void {
    if (this.busy) this.busy.abort();
    this.threadId = '';
    this.turns = 0;
    this.thread.replaceChildren();
    this.intro.hidden = false;
    this.setStage('', 'done');
    this.stageLine.dataset.state = 'idle';
    this.input.value = '';
    this.input.focus();
  }

  private async ask(question: string): Promise<void> {
    const api = this.ctx.api();
    if (!api) return;
    performance.mark('attest:submit');
    const controller = new AbortController();
    this.busy = controller;
    this.submit.disabled = true;
    this.input.value = '';
    this.turns += 1;
    const turn = new Turn(this.turns, question, this, performance.now());
    this.thread.appendChild(turn.element);
    this.intro.hidden = true;
    this.setStage('Planning…', 'running');
    turn.element.scrollIntoView({ block: 'nearest' });
    try {
      if (!this.threadId) {
        const t = await api.json<{ thread_id?: string }>('POST', '/v1/threads', { title: question.slice(0, 200) });
        if (!t.thread_id) throw new ApiError(0, 'invalid_response', 'the server did not return a thread id');
        this.threadId = t.thread_id;
      }
      const body: Record<string, unknown> = { query: question, writer: this.writer.value };
      const filters = this.ctx.filters();
      if (filters) body.filters = filters;
      const end = await api.stream(
        `/v1/threads/${encodeURIComponent(this.threadId)}/messages`,
        body,
        (e) => turn.handle(e),
        controller.signal,
      );
      if (turn.element.isConnected) turn.finish(end);
    } catch (e) {
      if (!turn.element.isConnected) return;
      if (e instanceof ApiError && e.code === 'aborted') turn.finish('aborted');
      else if (e instanceof ApiError) turn.failBefore(`${e.message} (${e.code})`);
      else turn.failBefore(errorMessage(e));
    } finally {
      if (this.busy === controller) this.busy = null;
      this.submit.disabled = false;
    }
  }
}

customElements.define('attest-ask', AttestAsk);
