// The quote popover: one role=tooltip element for the whole page, filled with the verbatim quote
// and the source's title, site, date and version of the marker that is hovered or focused.
// The marker references it with aria-describedby while it is shown; Escape hides it.

import { el, uid } from './dom';

export interface QuoteInfo {
  quote: string;
  title: string;
  site: string;
  date: string;
  version: string;
}

export class QuotePopover {
  readonly element: HTMLElement;
  private readonly quote: HTMLElement;
  private readonly title: HTMLElement;
  private readonly site: HTMLElement;
  private readonly date: HTMLElement;
  private readonly version: HTMLElement;
  private anchor: HTMLElement | null = null;
  private hideTimer = 0;

  constructor() {
    this.quote = el('blockquote', { class: 'quote-text', testid: 'quote-text' });
    this.title = el('span', { class: 'quote-title', testid: 'quote-title' });
    this.site = el('span', { testid: 'quote-site' });
    this.date = el('span', { testid: 'quote-date' });
    this.version = el('span', { testid: 'quote-version' });
    this.element = el(
      'div',
      { class: 'quote-popover', testid: 'quote-popover', attrs: { role: 'tooltip', id: uid('quote-popover') } },
      [this.quote, el('p', { class: 'quote-source' }, [this.title]), el('p', { class: 'quote-meta' }, [this.site, this.date, this.version])],
    );
    this.element.hidden = true;
    this.element.addEventListener('mouseenter', () => this.cancelHide());
    this.element.addEventListener('mouseleave', () => this.hideSoon());
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.element.hidden) this.hide();
    });
    window.addEventListener('scroll', () => this.place(), { passive: true });
    window.addEventListener('resize', () => this.place());
  }

  // Wires a marker button: hover and focus show, leaving and blur hide.
  attach(marker: HTMLElement, info: () => QuoteInfo): void {
    marker.addEventListener('mouseenter', () => this.show(marker, info()));
    marker.addEventListener('focus', () => this.show(marker, info()));
    marker.addEventListener('mouseleave', () => this.hideSoon());
    marker.addEventListener('blur', () => this.hide());
  }

  show(marker: HTMLElement, info: QuoteInfo): void {
    this.cancelHide();
    if (this.anchor && this.anchor !== marker) this.anchor.removeAttribute('aria-describedby');
    this.anchor = marker;
    this.quote.textContent = info.quote || 'No quote was recorded for this citation.';
    this.title.textContent = info.title;
    this.site.textContent = info.site ? info.site : '';
    this.date.textContent = info.date ? info.date : 'no date';
    this.version.textContent = info.version ? `version ${info.version}` : 'no version';
    this.site.hidden = !info.site;
    marker.setAttribute('aria-describedby', this.element.id);
    this.element.hidden = false;
    this.place();
  }

  hide(): void {
    this.cancelHide();
    this.element.hidden = true;
    if (this.anchor) {
      this.anchor.removeAttribute('aria-describedby');
    }
    this.anchor = null;
  }

  private hideSoon(): void {
    this.cancelHide();
    this.hideTimer = window.setTimeout(() => {
      // A focused marker keeps its popover (keyboard users move focus, not the mouse).
      if (this.anchor && document.activeElement === this.anchor) return;
      this.hide();
    }, 200);
  }

  private cancelHide(): void {
    if (this.hideTimer) window.clearTimeout(this.hideTimer);
    this.hideTimer = 0;
  }

  // Below the marker (above it when there is no room), kept inside the viewport. CSSOM only.
  private place(): void {
    if (!this.anchor || this.element.hidden) return;
    const r = this.anchor.getBoundingClientRect();
    const p = this.element.getBoundingClientRect();
    const vw = document.documentElement.clientWidth;
    const vh = document.documentElement.clientHeight;
    const left = Math.max(8, Math.min(r.left, vw - p.width - 8));
    let top = r.bottom + 6;
    if (top + p.height > vh - 8 && r.top - p.height - 6 > 8) top = r.top - p.height - 6;
    this.element.style.left = `${Math.round(left)}px`;
    this.element.style.top = `${Math.round(top)}px`;
  }
}
