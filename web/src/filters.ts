// The filters shared by Ask, Search and the admin list: one <fieldset>, read when a request is
// made. Empty fields are not sent. Source type, site and version take comma-separated values.

import { el, uid } from './dom';
import { Filters } from './types';

const SOURCE_TYPES = ['docs', 'release_notes', 'wiki', 'ticket', 'forum', 'blog'];

function field(label: string, input: HTMLInputElement): HTMLElement {
  input.id = uid('filter');
  return el('div', { class: 'field' }, [el('label', { text: label, attrs: { for: input.id } }), input]);
}

function list(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export class AttestFilters extends HTMLElement {
  private sourceType!: HTMLInputElement;
  private site!: HTMLInputElement;
  private version!: HTMLInputElement;
  private from!: HTMLInputElement;
  private to!: HTMLInputElement;
  private built = false;
  private legend!: HTMLElement;

  connectedCallback(): void {
    if (this.built) return;
    this.built = true;
    const listId = uid('source-types');
    this.sourceType = el('input', {
      testid: 'filter-source-type',
      attrs: { type: 'text', list: listId, placeholder: 'any', autocomplete: 'off' },
    });
    this.site = el('input', { testid: 'filter-site', attrs: { type: 'text', placeholder: 'any', autocomplete: 'off' } });
    this.version = el('input', { testid: 'filter-version', attrs: { type: 'text', placeholder: 'any', autocomplete: 'off' } });
    this.from = el('input', { testid: 'filter-date-from', attrs: { type: 'date' } });
    this.to = el('input', { testid: 'filter-date-to', attrs: { type: 'date' } });
    const options = el('datalist', { attrs: { id: listId } }, SOURCE_TYPES.map((t) => el('option', { attrs: { value: t } })));
    const clear = el('button', {
      class: 'link-button',
      text: 'Clear filters',
      attrs: { type: 'button' },
      on: { click: () => this.clear() },
    });
    this.legend = el('legend', { text: 'Filters' });
    this.addEventListener('input', () => this.count());
    this.addEventListener('change', () => this.count());
    this.replaceChildren(
      el('fieldset', { class: 'filters', testid: 'filters' }, [
        this.legend,
        field('Source type', this.sourceType),
        field('Site', this.site),
        field('Version', this.version),
        field('From date', this.from),
        field('To date', this.to),
        options,
        clear,
      ]),
    );
  }

  // The filters object of a request, or undefined when no filter is set.
  value(): Filters | undefined {
    if (!this.built) return undefined;
    const f: Filters = {};
    const types = list(this.sourceType.value);
    const sites = list(this.site.value);
    const versions = list(this.version.value);
    if (types.length) f.source_types = types;
    if (sites.length) f.sites = sites;
    if (versions.length) f.versions = versions;
    if (this.from.value) f.date_from = this.from.value;
    if (this.to.value) f.date_to = this.to.value;
    return Object.keys(f).length ? f : undefined;
  }

  // The legend says how many filters are in force, so a narrowed result is never a surprise.
  private count(): void {
    const n = [this.sourceType, this.site, this.version, this.from, this.to].filter((i) => i.value.trim() !== '').length;
    this.legend.textContent = n ? `Filters (${n} in force)` : 'Filters';
  }

  private clear(): void {
    for (const i of [this.sourceType, this.site, this.version, this.from, this.to]) i.value = '';
    this.dispatchEvent(new Event('change', { bubbles: true }));
  }
}

customElements.define('attest-filters', AttestFilters);
