// One turn of the conversation: the question, the answer streaming in, its sources, notices and
// the closing facts (as of, version, degraded, fallback). Each stream event maps to one DOM change
// (docs/web.md, "From events to the page").

import { StreamEnd } from './api';
import { el, linkOrText, uid } from './dom';
import {
  asOfLine,
  degradedWords,
  fallbackWords,
  retractionWords,
  sourceNumber,
  stageLine,
  stageWords,
  versionLine,
} from './format';
import { QuotePopover } from './popover';
import { SourcePanel } from './sources';
import { StreamEvent } from './sse';
import { Citation, Done, ResultItem, Source } from './types';

export type StageState = 'running' | 'done' | 'error';

export interface TurnHost {
  quotes: QuotePopover;
  setStage(text: string, state: StageState): void;
  openFeedback(answerId: string, claimId: string, sourceId: string, label: string): void;
}

interface Sentence {
  id: string;
  element: HTMLElement;
  text: HTMLElement;
  raw: string;
  citations: Citation[];
  state: 'streaming' | 'verified' | 'partial' | 'retracted' | 'replaced';
  replaced: boolean;
  feedback: HTMLButtonElement;
}

// Codes of notices that inform; any other code is an error code naming what failed.
const INFORMATIVE = new Set(['warning', 'sources_changed', 'fallback', 'not_remembered', 'stale', 'conflict']);
const TERMINAL: Record<string, string> = {
  access_revoked: 'your access was revoked',
  shutting_down: 'the server is shutting down',
};

function noticeCode(code: string, message: string): string {
  if (code !== 'warning') return code;
  if (/^stale\b/i.test(message)) return 'stale';
  if (/\bdisagree\b/i.test(message)) return 'conflict';
  return code;
}

const NOTICE_LABEL: Record<string, string> = {
  warning: 'Note',
  sources_changed: 'Sources changed',
  access_revoked: 'Access revoked',
  not_remembered: 'Not saved',
  fallback: 'No answer written',
  shutting_down: 'Server stopping',
};

// "no confident answer: no_confident_answer" → "no confident answer".
function fallbackDetail(message: string): string {
  const words = message.replace(/_/g, ' ');
  const m = /^(.*?):\s*(.*)$/.exec(words);
  return m && m[1].trim() === m[2].trim() ? m[1] : words;
}

export class Turn {
  readonly element: HTMLElement;
  private readonly answer: HTMLElement;
  private readonly paragraph: HTMLElement;
  private readonly notices: HTMLElement;
  private readonly footer: HTMLElement;
  private readonly standalone: HTMLElement;
  private readonly panel: SourcePanel;
  private readonly sentences = new Map<string, Sentence>();
  private readonly noticeTexts = new Set<string>();
  private stage = '';
  private failed = false;
  private answerId = '';
  private firstSources = true;

  constructor(
    readonly number: number,
    readonly question: string,
    private readonly host: TurnHost,
    private readonly started: number,
  ) {
    this.panel = new SourcePanel((claim, source, label) => this.feedback(claim, source, label));
    this.paragraph = el('p', { class: 'answer-text' });
    this.answer = el('div', { class: 'answer', testid: 'answer', attrs: { 'aria-live': 'off' } }, [this.paragraph]);
    this.notices = el('ul', { class: 'notices', attrs: { 'aria-label': 'Notices' } });
    this.footer = el('div', { class: 'answer-footer' });
    this.standalone = el('p', { class: 'standalone', testid: 'standalone' });
    const headingId = uid('question');
    this.element = el(
      'section',
      { class: 'turn', testid: 'turn', attrs: { 'data-turn': String(number), 'aria-labelledby': headingId } },
      [
        el('div', { class: 'turn-main' }, [
          el('h2', { class: 'question', text: question, attrs: { id: headingId } }),
          this.notices,
          this.answer,
          this.footer,
        ]),
        this.panel.element,
      ],
    );
  }

  // Applies one event of the stream.
  handle(e: StreamEvent): void {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(e.data) as Record<string, unknown>;
    } catch {
      return; // not JSON: nothing the page can show
    }
    switch (e.event) {
      case 'progress':
        return this.progress(String(data.stage || ''), data.queries as string[] | undefined);
      case 'sources':
        return this.sources((data.sources as Source[]) || []);
      case 'delta':
        return this.delta(String(data.sentence_id || ''), String(data.text || ''));
      case 'sentence_done':
        return this.sentenceDone(String(data.sentence_id || ''), (data.citations as Citation[]) || [], String(data.verified || ''));
      case 'retract':
        return this.retract(String(data.sentence_id || ''), String(data.reason || ''));
      case 'replace':
        return this.replace(String(data.sentence_id || ''), String(data.text || ''));
      case 'notice':
        return this.notice(String(data.code || 'warning'), String(data.message || ''));
      case 'done':
        return this.done(data as Done);
      default:
        return;
    }
  }

  // The stream is over; `end` says whether `done` arrived.
  finish(end: StreamEnd): void {
    if (end === 'done' || this.failed) return;
    if (end === 'aborted') {
      this.fail('the question was cancelled');
      return;
    }
    this.fail('the connection closed before the answer was complete');
  }

  // An error before the stream began (the server's JSON error body, or no connection).
  failBefore(message: string): void {
    this.fail(message);
  }

  private fail(message: string): void {
    this.failed = true;
    this.host.setStage(`Failed while ${stageWords(this.stage)}: ${message}`, 'error');
    for (const s of this.sentences.values()) if (s.state === 'streaming') this.setState(s, 'partial');
  }

  private progress(stage: string, queries: string[] | undefined): void {
    this.stage = stage;
    if (this.failed) return;
    this.host.setStage(stageLine(stage, queries), 'running');
  }

  private sources(list: Source[]): void {
    this.panel.setSources(list);
    if (!this.failed) this.host.setStage(`Reading ${list.length} source${list.length === 1 ? '' : 's'}`, 'running');
    if (this.firstSources && list.length > 0) {
      this.firstSources = false;
      performance.mark('attest:first-sources');
    }
  }

  private sentence(id: string): Sentence {
    let s = this.sentences.get(id);
    if (s) return s;
    const text = el('span', { class: 'sentence-text' });
    const feedback = el('button', {
      class: 'feedback-button icon',
      testid: 'feedback-button',
      text: '⚑',
      attrs: { type: 'button', 'aria-label': `Report a problem with sentence ${this.sentences.size + 1}` },
    });
    feedback.disabled = true;
    const element = el('span', {
      class: 'sentence',
      testid: 'sentence',
      attrs: { 'data-sentence-id': id, 'data-state': 'streaming' },
    }, [text]);
    s = { id, element, text, raw: '', citations: [], state: 'streaming', replaced: false, feedback };
    const sentence = s;
    feedback.addEventListener('click', () => this.feedback(id, '', `sentence: “${sentence.raw.replace(/\s*\[\d+\]/g, '').slice(0, 80)}”`));
    if (this.paragraph.childNodes.length > 0) this.paragraph.appendChild(document.createTextNode(' '));
    this.paragraph.appendChild(element);
    this.sentences.set(id, s);
    return s;
  }

  private delta(id: string, text: string): void {
    if (!id) return;
    const s = this.sentence(id);
    s.raw += text;
    s.text.textContent = s.raw;
  }

  private sentenceDone(id: string, citations: Citation[], verified: string): void {
    const s = this.sentence(id);
    s.citations = citations.filter((c) => c && typeof c.source === 'string');
    this.renderText(s);
    s.element.dataset.verified = verified || 'supported';
    this.setState(s, s.replaced ? 'replaced' : verified === 'partial' ? 'partial' : 'verified');
    if (verified === 'partial' && !s.element.querySelector('.sentence-note')) {
      s.element.appendChild(el('span', { class: 'sentence-note', text: ' (partly supported)' }));
    }
    s.element.appendChild(s.feedback);
    this.updateCited();
  }

  private retract(id: string, reason: string): void {
    const s = this.sentence(id);
    this.setState(s, 'retracted');
    s.element.querySelectorAll('.marker').forEach((m) => ((m as HTMLButtonElement).disabled = true));
    s.element.querySelectorAll('.retraction-reason, .sentence-note').forEach((n) => n.remove());
    s.element.appendChild(el('span', { class: 'retraction-reason', testid: 'retraction-reason', text: ` ${retractionWords(reason)}.` }));
    this.updateCited();
  }

  private replace(id: string, text: string): void {
    const s = this.sentence(id);
    s.raw = text;
    s.replaced = true;
    this.renderText(s);
    this.setState(s, 'replaced');
  }

  private setState(s: Sentence, state: Sentence['state']): void {
    s.state = state;
    s.element.dataset.state = state;
  }

  // The sentence's text with its "[n]" markers turned into marker buttons. A "[n]" that names no
  // citation of the sentence stays text; a citation the text does not mark gets a marker at the end.
  private renderText(s: Sentence): void {
    const bySource = new Map<string, Citation[]>();
    for (const c of s.citations) {
      const list = bySource.get(c.source) || [];
      list.push(c);
      bySource.set(c.source, list);
    }
    const placed = new Set<string>();
    const nodes: Node[] = [];
    const re = /\s*\[(\d+)\]/g;
    let at = 0;
    for (let m = re.exec(s.raw); m; m = re.exec(s.raw)) {
      const id = `S${m[1]}`;
      if (!bySource.has(id)) continue;
      if (m.index > at) nodes.push(document.createTextNode(s.raw.slice(at, m.index)));
      if (!placed.has(id)) nodes.push(this.marker(id, bySource.get(id) || []));
      placed.add(id);
      at = m.index + m[0].length;
    }
    if (at < s.raw.length) nodes.push(document.createTextNode(s.raw.slice(at)));
    for (const [id, cites] of bySource) if (!placed.has(id)) nodes.push(this.marker(id, cites));
    s.text.replaceChildren(...nodes);
  }

  private marker(sourceId: string, cites: Citation[]): HTMLButtonElement {
    const n = sourceNumber(sourceId);
    const b = el('button', {
      class: 'marker',
      testid: 'marker',
      text: `[${isNaN(n) ? sourceId : n}]`,
      attrs: { type: 'button', 'data-source': sourceId },
      on: { click: () => this.panel.reveal(sourceId) },
    });
    this.host.quotes.attach(b, () => {
      const src = this.panel.get(sourceId);
      const quotes = cites.map((c) => c.quote || '').filter((q) => q);
      return {
        quote: quotes.join(' … '),
        title: (src && (src.title || src.doc_id)) || cites[0]?.doc_id || sourceId,
        site: (src && src.site) || '',
        date: (src && src.date) || '',
        version: (src && src.version) || '',
      };
    });
    return b;
  }

  private updateCited(): void {
    const cited = new Set<string>();
    for (const s of this.sentences.values()) {
      if (s.state === 'retracted') continue;
      for (const c of s.citations) cited.add(c.source);
    }
    this.panel.setCited(cited);
  }

  private notice(code: string, message: string): void {
    const shown = noticeCode(code, message);
    // A warning is sent as a notice while it happens and again in done.warnings: shown once.
    const key = `${shown}\u0000${message}`;
    if (this.noticeTexts.has(key)) return;
    this.noticeTexts.add(key);
    // stale and conflict warnings say what they are in their own words; other codes get a label.
    const label = shown === 'stale' || shown === 'conflict' ? '' : NOTICE_LABEL[shown] || `Error (${code.replace(/_/g, ' ')})`;
    if (code === 'fallback') message = fallbackDetail(message);
    const text = message.charAt(0).toUpperCase() + message.slice(1);
    this.notices.appendChild(
      el('li', { class: `notice notice-${INFORMATIVE.has(shown) ? 'info' : 'error'}`, testid: 'notice', attrs: { 'data-code': shown, role: 'note' } }, [
        label ? el('strong', { text: `${label}: ` }) : null,
        text,
      ]),
    );
    if (TERMINAL[code]) this.fail(TERMINAL[code]);
    else if (!INFORMATIVE.has(shown)) this.fail(message || code.replace(/_/g, ' '));
  }

  private done(d: Done): void {
    this.answerId = d.answer_id || '';
    for (const w of d.warnings || []) this.notice('warning', w);
    if (d.standalone && this.number > 1 && d.standalone.trim() !== this.question.trim()) {
      this.standalone.textContent = `Understood as: ${d.standalone}`;
      this.notices.before(this.standalone);
    }
    for (const s of this.sentences.values()) if (s.state === 'streaming') this.setState(s, 'partial');
    if (d.outcome === 'fallback' || d.fallback_reason) this.fallback(d.fallback_reason || 'no_confident_answer', d.results || []);
    const footer: HTMLElement[] = [];
    if (d.degraded && d.degraded.length) footer.push(el('p', { class: 'degraded', testid: 'degraded', text: degradedWords(d.degraded) }));
    const asOf = asOfLine(d.as_of, d.snapshot_version) + (d.cached ? ', served from the answer cache' : '');
    if (asOf) footer.push(el('p', { class: 'as-of', testid: 'as-of', text: asOf }));
    if (d.resolved_version) {
      footer.push(el('p', { class: 'resolved-version', testid: 'resolved-version', text: versionLine(d.resolved_version, d.resolved_version_date) }));
    }
    this.footer.replaceChildren(...footer);
    if (this.answerId) {
      for (const s of this.sentences.values()) s.feedback.disabled = false;
      this.panel.enableFeedback();
    }
    if (!this.failed) this.host.setStage(`Done in ${Math.round(performance.now() - this.started)} ms`, 'done');
    performance.mark('attest:answer-done');
  }

  private fallback(reason: string, results: ResultItem[]): void {
    const items = results.map((r) =>
      el('li', { class: 'result-item', testid: 'result-item' }, [
        el('span', { class: 'result-title' }, [linkOrText(r.title || r.doc_id || 'Untitled', r.url)]),
        el('span', { class: 'result-meta', text: [r.site, r.date || 'undated', r.version ? `version ${r.version}` : ''].filter((x) => x).join(' · ') }),
        el('span', { class: 'result-snippet', text: r.snippet || '' }),
      ]),
    );
    this.answer.appendChild(
      el('div', { class: 'fallback', testid: 'fallback' }, [
        el('p', { class: 'fallback-reason', testid: 'fallback-reason', text: fallbackWords(reason) }),
        items.length ? el('p', { class: 'fallback-lead', text: 'The closest results, best first:' }) : null,
        items.length ? el('ol', { class: 'result-list' }, items) : null,
      ]),
    );
  }

  private feedback(claimId: string, sourceId: string, label: string): void {
    this.host.openFeedback(this.answerId, claimId, sourceId, label);
  }
}
