// The source cards of one answer: cited sources first (in source order), then the other
// evidence; past 4 cards the rest are collapsed behind a "N more sources" button.

import { el, joined, linkOrText } from './dom';
import { score, sourceNumber } from './format';
import { Source } from './types';

const VISIBLE = 4;

export type FeedbackOpener = (claimId: string, sourceId: string, label: string) => void;

function whyLine(s: Source): string {
  if (s.flagged) return 'Why here: retrieved, but flagged (it addresses the reader or the model), so it is shown and never cited.';
  const parts = [`retrieval score ${score(s.score)}`];
  if (s.authority) parts.push(`${s.authority.replace(/_/g, ' ')} source`);
  if (s.source_type && s.source_type !== s.authority) parts.push(s.source_type.replace(/_/g, ' '));
  return `Why here: ${parts.join(' · ')}`;
}

export class SourcePanel {
  readonly element: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly more: HTMLButtonElement;
  private readonly cards = new Map<string, HTMLElement>();
  private readonly feedbackButtons: HTMLButtonElement[] = [];
  private sources: Source[] = [];
  private cited = new Set<string>();
  private expanded = false;
  private readonly divider = el('li', { class: 'source-group', text: 'Other evidence (not cited)' });

  constructor(private readonly openFeedback: FeedbackOpener) {
    this.list = el('ol', { class: 'source-list' });
    this.more = el('button', {
      class: 'link-button',
      testid: 'sources-more',
      attrs: { type: 'button', 'aria-expanded': 'false' },
      on: { click: () => this.toggle() },
    });
    this.more.hidden = true;
    this.element = el('aside', { class: 'sources', testid: 'sources', attrs: { 'aria-label': 'Sources' } }, [
      el('h3', { text: 'Sources' }),
      this.list,
      this.more,
    ]);
    this.element.hidden = true;
  }

  count(): number {
    return this.sources.length;
  }

  get(id: string): Source | undefined {
    return this.sources.find((s) => s.id === id);
  }

  setSources(sources: Source[]): void {
    this.sources = sources.filter((s) => s && typeof s.id === 'string');
    this.cards.clear();
    for (const s of this.sources) this.cards.set(s.id, this.card(s));
    this.element.hidden = this.sources.length === 0;
    this.layout();
  }

  setCited(ids: Set<string>): void {
    this.cited = ids;
    this.layout();
  }

  enableFeedback(): void {
    for (const b of this.feedbackButtons) b.disabled = false;
  }

  // Shows a source's card (expanding the list when it is collapsed) and moves focus to it.
  reveal(id: string): void {
    const card = this.cards.get(id);
    if (!card) return;
    if (card.hidden) {
      this.expanded = true;
      this.layout();
    }
    card.scrollIntoView({ block: 'nearest' });
    card.focus();
  }

  private order(): Source[] {
    const num = (s: Source) => {
      const n = sourceNumber(s.id);
      return isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
    };
    const byNum = (a: Source, b: Source) => num(a) - num(b);
    const cited = this.sources.filter((s) => this.cited.has(s.id)).sort(byNum);
    const other = this.sources.filter((s) => !this.cited.has(s.id)).sort(byNum);
    return cited.concat(other);
  }

  private layout(): void {
    const ordered = this.order();
    const items: HTMLElement[] = [];
    ordered.forEach((s, i) => {
      const card = this.cards.get(s.id);
      if (!card) return;
      card.dataset.cited = this.cited.has(s.id) ? 'true' : 'false';
      const item = (card.parentElement as HTMLElement | null) || el('li', {}, [card]);
      item.hidden = !this.expanded && i >= VISIBLE;
      card.hidden = item.hidden;
      items.push(item);
    });
    // A divider before the first source no sentence cites, once some are cited.
    const firstOther = ordered.findIndex((s) => !this.cited.has(s.id));
    if (firstOther > 0) {
      this.divider.hidden = items[firstOther].hidden;
      items.splice(firstOther, 0, this.divider);
    }
    this.list.replaceChildren(...items);
    const hiddenCount = Math.max(0, ordered.length - VISIBLE);
    this.more.hidden = hiddenCount === 0;
    this.more.textContent = this.expanded ? 'Show fewer sources' : `${hiddenCount} more source${hiddenCount === 1 ? '' : 's'}`;
    this.more.setAttribute('aria-expanded', this.expanded ? 'true' : 'false');
  }

  private toggle(): void {
    this.expanded = !this.expanded;
    this.layout();
  }

  private card(s: Source): HTMLElement {
    const n = sourceNumber(s.id);
    const title = s.title || s.doc_id || s.id;
    const heading = el('h4', { class: 'source-title', testid: 'source-title' }, [
      el('span', { class: 'source-number', text: isNaN(n) ? s.id : `[${n}]` }),
      ' ',
      linkOrText(title, s.url, 'source-link'),
    ]);
    const metaEls: HTMLElement[] = [];
    if (s.site) metaEls.push(el('span', { testid: 'source-site', text: s.site }));
    metaEls.push(el('span', { testid: 'source-date', text: s.date || 'undated' }));
    if (s.version) metaEls.push(el('span', { testid: 'source-version', text: `version ${s.version}` }));
    const feedback = el('button', {
      class: 'feedback-button link-button small',
      testid: 'feedback-button',
      text: 'Report a problem',
      attrs: { type: 'button', 'aria-label': `Report a problem with source ${isNaN(n) ? s.id : n}: ${title}` },
      on: { click: () => this.openFeedback('', s.id, `source ${isNaN(n) ? s.id : n}: ${title}`) },
    });
    feedback.disabled = true;
    this.feedbackButtons.push(feedback);
    return el(
      'article',
      {
        class: s.flagged ? 'source-card flagged' : 'source-card',
        testid: 'source-card',
        attrs: { 'data-source-id': s.id, 'data-cited': 'false', tabindex: '-1' },
      },
      [
        heading,
        el('p', { class: 'source-meta' }, joined(metaEls)),
        el('p', { class: 'source-snippet', testid: 'source-snippet', text: s.text || '' }),
        el('p', { class: 'source-why', testid: 'source-why', text: whyLine(s) }),
        feedback,
      ],
    );
  }
}
