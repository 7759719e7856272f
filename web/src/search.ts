// The Search view: POST /v1/search with the shared filters; results with highlighted snippets,
// title, site, date and version, and the ranking explained on demand.

import { Api, ApiError } from './api';
import { el, highlighted, linkOrText, uid } from './dom';
import { degradedWords, errorMessage, score } from './format';
import { Filters, SearchHit, SearchResponse } from './types';

export interface SearchContext {
  api(): Api | null;
  filters(): Filters | undefined;
}

function explainLine(h: SearchHit): string {
  const x = h.explain || {};
  const part = (name: string, leg?: { rank?: number; score?: number }) =>
    leg && leg.rank !== undefined ? `${name} rank ${leg.rank} (score ${score(leg.score)})` : `${name}: not matched`;
  return `${part('BM25', x.bm25)} · ${part('vector', x.vector)} · fused ${score(x.fused)}`;
}

export class AttestSearch extends HTMLElement {
  private ctx!: SearchContext;
  private input!: HTMLInputElement;
  private explain!: HTMLInputElement;
  private status!: HTMLElement;
  private results!: HTMLElement;
  private lastQuery = '';
  private seq = 0;

  setup(ctx: SearchContext): void {
    this.ctx = ctx;
    const inputId = uid('search-input');
    const explainId = uid('search-explain');
    this.input = el('input', {
      testid: 'search-input',
      attrs: { id: inputId, type: 'search', placeholder: 'Search the documents', required: '', autocomplete: 'off' },
    });
    this.explain = el('input', { testid: 'search-explain', attrs: { id: explainId, type: 'checkbox' } });
    this.explain.addEventListener('change', () => this.rerun());
    this.status = el('p', { class: 'stage', attrs: { role: 'status', 'aria-live': 'polite' } });
    this.results = el('ol', { class: 'search-results', attrs: { 'aria-label': 'Search results' } });
    const form = el('form', { class: 'search-form', testid: 'search-form', attrs: { role: 'search', 'aria-label': 'Search' } }, [
      el('label', { class: 'visually-hidden', text: 'Search', attrs: { for: inputId } }),
      el('div', { class: 'ask-row' }, [
        this.input,
        el('button', { class: 'primary', testid: 'search-submit', text: 'Search', attrs: { type: 'submit' } }),
      ]),
      el('div', { class: 'options' }, [this.explain, el('label', { text: 'Explain ranking', attrs: { for: explainId } })]),
    ]);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const q = this.input.value.trim();
      if (q) void this.run(q);
    });
    this.replaceChildren(form, this.status, this.results);
  }

  focusInput(): void {
    this.input.focus();
  }

  // Runs the last query again (the filters or the explain box changed).
  rerun(): void {
    if (this.lastQuery) void this.run(this.lastQuery);
  }

  private async run(q: string): Promise<void> {
    const api = this.ctx.api();
    if (!api) return;
    this.lastQuery = q;
    const seq = ++this.seq;
    const body: Record<string, unknown> = { query: q, top_k: 20 };
    if (this.explain.checked) body.explain = true;
    const filters = this.ctx.filters();
    if (filters) body.filters = filters;
    this.status.dataset.state = 'running';
    this.status.textContent = 'Searching…';
    try {
      const res = await api.json<SearchResponse>('POST', '/v1/search', body);
      if (seq !== this.seq) return;
      this.render(res);
    } catch (e) {
      if (seq !== this.seq) return;
      this.status.dataset.state = 'error';
      this.status.textContent = e instanceof ApiError ? `Failed while searching: ${e.message} (${e.code})` : errorMessage(e);
      this.results.replaceChildren();
    }
  }

  private render(res: SearchResponse): void {
    const hits = res.hits || [];
    this.status.dataset.state = 'done';
    const took = typeof res.took_ms !== 'number' ? '' : res.took_ms < 1 ? ' in under 1 ms' : ` in ${Math.round(res.took_ms)} ms`;
    this.status.textContent = `${hits.length} result${hits.length === 1 ? '' : 's'}${took}` +
      (res.degraded && res.degraded.length ? ` · ${degradedWords(res.degraded)}` : '');
    if (hits.length === 0) {
      this.results.replaceChildren(
        el('li', { class: 'search-empty', testid: 'search-empty', text: 'No document matches this search (with these filters).' }),
      );
      return;
    }
    this.results.replaceChildren(...hits.map((h) => this.hit(h)));
  }

  private hit(h: SearchHit): HTMLElement {
    const title = h.title || h.doc_id || 'Untitled';
    const snippet = el('p', { class: 'result-snippet', testid: 'result-snippet' });
    snippet.appendChild(highlighted(h.snippet || '', h.highlights || []));
    const meta: HTMLElement[] = [];
    meta.push(el('span', { testid: 'result-site', text: h.site || 'no site' }));
    meta.push(el('span', { testid: 'result-date', text: h.date || 'undated' }));
    meta.push(el('span', { testid: 'result-version', text: h.version ? `version ${h.version}` : 'no version' }));
    if (h.source_type) meta.push(el('span', { text: h.source_type.replace(/_/g, ' ') }));
    const metaLine = el('p', { class: 'result-meta' });
    meta.forEach((m, i) => {
      if (i > 0) metaLine.appendChild(document.createTextNode(' · '));
      metaLine.appendChild(m);
    });
    return el('li', { class: 'search-result', testid: 'search-result' }, [
      el('h3', { class: 'result-title', testid: 'result-title' }, [linkOrText(title, h.url)]),
      h.section ? el('p', { class: 'result-section', text: h.section }) : null,
      metaLine,
      snippet,
      h.explain ? el('p', { class: 'explain', testid: 'explain', text: explainLine(h) }) : null,
    ]);
  }
}

customElements.define('attest-search', AttestSearch);
