// Entry point of the page served at / by `attest serve` (docs/web.md): the <attest-app> element,
// which signs in, holds the session and switches between the Ask, Search and admin views.

import { Api, ApiError } from './api';
import { AttestAdmin } from './admin';
import { AttestAsk } from './ask';
import { el } from './dom';
import { FeedbackDialog } from './feedback';
import { AttestFilters } from './filters';
import { errorMessage } from './format';
import { QuotePopover } from './popover';
import { AttestSearch } from './search';
import { clearKey, storedKey, storeKey } from './session';
import { AttestSignin } from './signin';
import { Me } from './types';

type View = 'ask' | 'search' | 'admin';

// GET /v1/me. A server without that route (404) is asked for a document no one has: 404 means the
// key works (a reader, not known to be an admin), 401 that it was refused.
async function whoAmI(api: Api): Promise<Me> {
  try {
    return await api.json<Me>('GET', '/v1/me');
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  try {
    await api.json('GET', '/v1/documents/attest-signin-probe');
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  return { tenant: '', user: '', admin: false };
}

class AttestApp extends HTMLElement {
  private api: Api | null = null;
  private me: Me | null = null;
  private view: View = 'ask';
  private readonly quotes = new QuotePopover();
  private readonly feedback = new FeedbackDialog(() => this.api);
  private started = false;

  connectedCallback(): void {
    if (this.started) return;
    this.started = true;
    const key = storedKey();
    if (key) void this.signIn(key, true);
    else this.showSignin('');
  }

  private showSignin(error: string): void {
    this.api = null;
    this.me = null;
    const form = new AttestSignin();
    form.onKey = (key) => void this.signIn(key, false);
    this.replaceChildren(this.header(), el('main', { class: 'main narrow' }, [form]));
    form.showError(error);
    form.focusInput();
  }

  private async signIn(key: string, stored: boolean): Promise<void> {
    const api = new Api(key);
    let me: Me;
    try {
      me = await whoAmI(api);
    } catch (e) {
      const refused = e instanceof ApiError && e.status === 401;
      if (refused) clearKey();
      const msg = e instanceof ApiError
        ? refused ? `That key was refused (401 ${e.code})` : `Sign-in failed: ${e.message} (${e.code})`
        : errorMessage(e);
      this.showSignin(stored && refused ? `Your session ended: ${msg}.` : msg);
      return;
    }
    storeKey(key);
    api.onUnauthorized = (err) => this.expired(err);
    this.api = api;
    this.me = me;
    this.openApp();
  }

  private expired(e: ApiError): void {
    if (!this.api) return;
    clearKey();
    this.showSignin(`Your key was refused (401 ${e.code}); sign in again.`);
  }

  private signOut(): void {
    clearKey();
    this.showSignin('');
  }

  private header(): HTMLElement {
    const right: HTMLElement[] = [];
    if (this.me) {
      const who = !this.me.user && !this.me.tenant ? 'Signed in' : this.me.tenant ? `${this.me.user || '?'} @ ${this.me.tenant}` : this.me.user;
      right.push(
        el('span', { class: 'whoami', testid: 'whoami' }, [
          who,
          this.me.admin || this.me.operator ? ' ' : '',
          this.me.operator ? el('span', { class: 'badge', text: 'operator' }) : null,
          this.me.admin ? el('span', { class: 'badge', text: 'admin' }) : null,
        ]),
        el('button', { testid: 'signout', text: 'Sign out', attrs: { type: 'button' }, on: { click: () => this.signOut() } }),
      );
    }
    return el('header', { class: 'top' }, [el('h1', { text: 'Attest' }), el('div', { class: 'who' }, right)]);
  }

  private openApp(): void {
    const admin = !!(this.me && (this.me.admin || this.me.operator));
    const filters = new AttestFilters();
    const ask = new AttestAsk();
    const search = new AttestSearch();
    const adminView = admin ? new AttestAdmin() : null;
    const apiRef = () => this.api;
    const filterRef = () => filters.value();
    ask.setup({
      api: apiRef,
      filters: filterRef,
      quotes: this.quotes,
      openFeedback: (a, c, s, l) => this.feedback.open(a, c, s, l),
    });
    search.setup({ api: apiRef, filters: filterRef });
    if (adminView) adminView.setup({ api: apiRef, filters: filterRef });

    const views: Record<View, HTMLElement | null> = { ask, search, admin: adminView };
    const buttons: Partial<Record<View, HTMLButtonElement>> = {};
    const show = (v: View, focus: boolean) => {
      this.view = v;
      this.quotes.hide();
      for (const [name, elem] of Object.entries(views)) if (elem) elem.hidden = name !== v;
      for (const [name, b] of Object.entries(buttons)) {
        if (!b) continue;
        if (name === v) b.setAttribute('aria-current', 'page');
        else b.removeAttribute('aria-current');
      }
      if (v === 'admin' && adminView) adminView.reload();
      if (focus) {
        if (v === 'ask') ask.focusInput();
        if (v === 'search') search.focusInput();
      }
    };
    const navButton = (v: View, label: string) => {
      const b = el('button', { testid: `nav-${v}`, text: label, attrs: { type: 'button' }, on: { click: () => show(v, true) } });
      buttons[v] = b;
      return b;
    };
    const nav = el('nav', { class: 'views', attrs: { 'aria-label': 'Views' } }, [
      navButton('ask', 'Ask'),
      navButton('search', 'Search'),
      admin ? navButton('admin', 'Documents') : null,
    ]);
    filters.addEventListener('change', () => {
      if (this.view === 'search') search.rerun();
      if (this.view === 'admin' && adminView) adminView.reload();
    });
    const header = this.header();
    header.insertBefore(nav, header.lastChild);
    this.replaceChildren(
      header,
      el('main', { class: 'main' }, [filters, this.feedback.ack, ask, search, adminView]),
      this.quotes.element,
      this.feedback.dialog,
    );
    show('ask', true);
  }
}

customElements.define('attest-app', AttestApp);
