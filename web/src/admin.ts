// The admin view (shown only when GET /v1/me says admin): the document list with paging and the
// shared filters, upload of a file, delete (confirmed in a dialog) and re-ingest (replace a
// document's content from a file, keeping its id and metadata).

import { Api, ApiError, query } from './api';
import { el, uid } from './dom';
import { contentType, errorMessage } from './format';
import { DocumentPage, DocumentRow, Filters } from './types';

const PAGE = 20;

export interface AdminContext {
  api(): Api | null;
  filters(): Filters | undefined;
}

// Metadata fields of GET /v1/documents/{id} that POST /v1/documents takes back unchanged.
const KEPT = ['title', 'url', 'site', 'version', 'source_type', 'language', 'published', 'updated', 'acl_groups', 'access_label', 'feed', 'metadata'];

export class AttestAdmin extends HTMLElement {
  private ctx!: AdminContext;
  private body!: HTMLTableSectionElement;
  private pageLabel!: HTMLElement;
  private prev!: HTMLButtonElement;
  private next!: HTMLButtonElement;
  private status!: HTMLElement;
  private file!: HTMLInputElement;
  private docId!: HTMLInputElement;
  private find!: HTMLInputElement;
  private reingestFile!: HTMLInputElement;
  private confirm!: HTMLDialogElement;
  private confirmText!: HTMLElement;
  private confirmResolve: ((yes: boolean) => void) | null = null;
  private cursors: string[] = ['']; // cursor of each page visited
  private page = 0;
  private nextCursor = '';
  private reingestId = '';

  setup(ctx: AdminContext): void {
    this.ctx = ctx;
    const fileId = uid('upload-file');
    const idId = uid('upload-id');
    this.file = el('input', { testid: 'upload-file', attrs: { id: fileId, type: 'file', accept: '.txt,.text,.md,.markdown,.html,.htm,text/*' } });
    this.docId = el('input', { testid: 'upload-id', attrs: { id: idId, type: 'text', placeholder: 'default: the file name', autocomplete: 'off' } });
    this.reingestFile = el('input', { attrs: { type: 'file', 'aria-label': 'Replacement file', accept: '.txt,.text,.md,.markdown,.html,.htm,text/*' } });
    this.reingestFile.hidden = true;
    this.reingestFile.addEventListener('change', () => void this.reingestChosen());
    this.status = el('p', { class: 'stage', testid: 'admin-status', attrs: { role: 'status', 'aria-live': 'polite' } });
    const upload = el('form', { class: 'upload', attrs: { 'aria-label': 'Upload a document' } }, [
      el('h3', { text: 'Upload a document' }),
      el('div', { class: 'field' }, [el('label', { text: 'Document file', attrs: { for: fileId } }), this.file]),
      el('div', { class: 'field' }, [el('label', { text: 'Document id (optional)', attrs: { for: idId } }), this.docId]),
      el('button', { class: 'primary', testid: 'upload-submit', text: 'Upload', attrs: { type: 'submit' } }),
    ]);
    upload.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.upload();
    });
    const findId = uid('docs-find');
    this.find = el('input', { testid: 'docs-find', attrs: { id: findId, type: 'search', placeholder: 'id or title contains…', autocomplete: 'off' } });
    const findForm = el('form', { class: 'upload', attrs: { role: 'search', 'aria-label': 'Find documents' } }, [
      el('div', { class: 'field' }, [el('label', { text: 'Find documents', attrs: { for: findId } }), this.find]),
      el('button', { text: 'Find', attrs: { type: 'submit' } }),
    ]);
    findForm.addEventListener('submit', (e) => {
      e.preventDefault();
      this.reload();
    });
    this.body = el('tbody');
    const headers = ['Id', 'Title', 'Source type', 'Site', 'Version', 'Updated', 'Chunks', 'Actions'];
    const table = el('table', { class: 'doc-table', testid: 'doc-table' }, [
      el('caption', { text: 'Documents' }),
      el('thead', {}, [el('tr', {}, headers.map((h) => el('th', { text: h, attrs: { scope: 'col' } })))]),
      this.body,
    ]);
    this.prev = el('button', { testid: 'docs-prev', text: 'Previous', attrs: { type: 'button', 'aria-label': 'Previous page of documents' }, on: { click: () => void this.go(-1) } });
    this.next = el('button', { testid: 'docs-next', text: 'Next', attrs: { type: 'button', 'aria-label': 'Next page of documents' }, on: { click: () => void this.go(1) } });
    this.pageLabel = el('span', { testid: 'docs-page' });
    this.confirmText = el('p');
    const confirmTitle = uid('confirm-title');
    this.confirm = el('dialog', { class: 'dialog', testid: 'confirm-dialog', attrs: { 'aria-labelledby': confirmTitle } }, [
      el('h2', { text: 'Delete the document?', attrs: { id: confirmTitle } }),
      this.confirmText,
      el('div', { class: 'dialog-buttons' }, [
        el('button', { testid: 'confirm-no', text: 'Cancel', attrs: { type: 'button' }, on: { click: () => this.answer(false) } }),
        el('button', { class: 'danger', testid: 'confirm-yes', text: 'Delete', attrs: { type: 'button' }, on: { click: () => this.answer(true) } }),
      ]),
    ]);
    this.confirm.addEventListener('close', () => this.answer(false));
    this.replaceChildren(
      el('section', { class: 'admin', testid: 'admin', attrs: { 'aria-label': 'Documents' } }, [
        upload,
        this.status,
        findForm,
        el('div', { class: 'table-wrap' }, [table]),
        el('div', { class: 'paging' }, [this.prev, this.pageLabel, this.next]),
        this.reingestFile,
        this.confirm,
      ]),
    );
  }

  // Loads the first page (the view was opened or the filters changed).
  reload(): void {
    this.cursors = [''];
    this.page = 0;
    void this.load();
  }

  private say(text: string, state: 'ok' | 'error' | 'running' = 'ok'): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
  }

  private async go(step: number): Promise<void> {
    if (step > 0 && this.nextCursor) {
      this.page += 1;
      this.cursors[this.page] = this.nextCursor;
    } else if (step < 0 && this.page > 0) {
      this.page -= 1;
    } else return;
    await this.load();
  }

  private async load(): Promise<void> {
    const api = this.ctx.api();
    if (!api) return;
    const f = this.ctx.filters() || {};
    const path = '/v1/documents' + query({
      limit: PAGE,
      cursor: this.cursors[this.page] || undefined,
      source_type: f.source_types ? f.source_types[0] : undefined,
      site: f.sites ? f.sites[0] : undefined,
      version: f.versions ? f.versions[0] : undefined,
      q: this.find.value.trim().slice(0, 200) || undefined,
    });
    try {
      const res = await api.json<DocumentPage>('GET', path);
      const docs = res.documents || [];
      this.nextCursor = res.next_cursor || '';
      this.body.replaceChildren(...docs.map((d) => this.row(d)));
      if (docs.length === 0) {
        this.body.appendChild(el('tr', {}, [el('td', { text: 'No documents.', attrs: { colspan: '8' } })]));
      }
      const first = this.page * PAGE + 1;
      const last = this.page * PAGE + docs.length;
      const of = typeof res.total === 'number' ? ` of ${res.total}` : '';
      const total = typeof res.total === 'number' ? res.total : 0;
      this.pageLabel.textContent = docs.length ? `Documents ${first}–${last}${of}` : total > 0 ? `No documents on this page (${total} in all)` : 'No documents';
      if (res.corrupt && res.corrupt.length) {
        this.say(`${res.corrupt.length} document${res.corrupt.length === 1 ? '' : 's'} failed an integrity check: ${res.corrupt.map((c) => c.id).join(', ')}`, 'error');
      }
      this.prev.disabled = this.page === 0;
      this.next.disabled = !this.nextCursor;
    } catch (e) {
      this.say(`Failed while listing the documents: ${errorMessage(e)}`, 'error');
    }
  }

  private row(d: DocumentRow): HTMLElement {
    const chunks = d.chunks ?? d.chunk_count;
    const cells = [d.id, d.title || '', (d.source_type || '').replace(/_/g, ' '), d.site || '', d.version || '', d.updated || d.published || '', chunks === undefined ? '' : String(chunks)];
    const actions = el('td', { class: 'actions' }, [
      el('button', {
        testid: 'doc-reingest',
        text: 'Re-ingest',
        attrs: { type: 'button', 'aria-label': `Re-ingest ${d.id} from a file` },
        on: { click: () => this.pickReingest(d.id) },
      }),
      el('button', {
        class: 'danger',
        testid: 'doc-delete',
        text: 'Delete',
        attrs: { type: 'button', 'aria-label': `Delete ${d.id}` },
        on: { click: () => void this.deleteDoc(d.id) },
      }),
    ]);
    return el('tr', { testid: 'doc-row', attrs: { 'data-doc-id': d.id } }, [
      ...cells.map((c, i) => (i === 0 ? el('th', { text: c, attrs: { scope: 'row' } }) : el('td', { text: c }))),
      actions,
    ]);
  }

  private ask(text: string): Promise<boolean> {
    this.confirmText.textContent = text;
    return new Promise((resolve) => {
      this.confirmResolve = resolve;
      this.confirm.showModal();
    });
  }

  private answer(yes: boolean): void {
    const r = this.confirmResolve;
    this.confirmResolve = null;
    if (this.confirm.open) this.confirm.close();
    if (r) r(yes);
  }

  private async deleteDoc(id: string): Promise<void> {
    const api = this.ctx.api();
    if (!api) return;
    if (!(await this.ask(`“${id}” will be removed from the index; answers will no longer cite it.`))) return;
    this.say(`Deleting ${id}…`, 'running');
    try {
      await api.json('DELETE', `/v1/documents/${encodeURIComponent(id)}`);
      this.say(`Deleted ${id}.`);
      await this.load();
    } catch (e) {
      this.say(`Failed while deleting ${id}: ${errorMessage(e)}`, 'error');
    }
  }

  private async upload(): Promise<void> {
    const api = this.ctx.api();
    const file = this.file.files && this.file.files[0];
    if (!api) return;
    if (!file) {
      this.say('Choose a file to upload.', 'error');
      return;
    }
    const id = this.docId.value.trim() || file.name;
    this.say(`Uploading ${id}…`, 'running');
    try {
      const text = await file.text();
      const res = await api.json<{ added?: number; replaced?: number; unchanged?: number; chunks?: number }>('POST', '/v1/documents', {
        id,
        text,
        content_type: contentType(file.name),
      });
      this.say(`Uploaded ${id}: ${outcome(res)}.`);
      this.file.value = '';
      this.docId.value = '';
      await this.load();
    } catch (e) {
      this.say(`Failed while uploading ${id}: ${errorMessage(e)}`, 'error');
    }
  }

  private pickReingest(id: string): void {
    this.reingestId = id;
    this.reingestFile.value = '';
    this.reingestFile.click();
  }

  private async reingestChosen(): Promise<void> {
    const api = this.ctx.api();
    const file = this.reingestFile.files && this.reingestFile.files[0];
    const id = this.reingestId;
    if (!api || !file || !id) return;
    this.say(`Re-ingesting ${id}…`, 'running');
    try {
      const doc = await api.json<Record<string, unknown>>('GET', `/v1/documents/${encodeURIComponent(id)}`);
      const body: Record<string, unknown> = { id, text: await file.text(), content_type: contentType(file.name) };
      for (const k of KEPT) {
        const v = doc[k];
        if (typeof v === 'string' ? v !== '' : Array.isArray(v) ? v.length > 0 : v && typeof v === 'object' && Object.keys(v).length > 0) body[k] = v;
      }
      const res = await api.json<{ added?: number; replaced?: number; unchanged?: number; chunks?: number }>('POST', '/v1/documents', body);
      this.say(`Re-ingested ${id}: ${outcome(res)}.`);
      await this.load();
    } catch (e) {
      const msg = e instanceof ApiError ? `${e.message} (${e.code})` : errorMessage(e);
      this.say(`Failed while re-ingesting ${id}: ${msg}`, 'error');
    }
  }
}

function outcome(r: { added?: number; replaced?: number; unchanged?: number; chunks?: number }): string {
  const s = r.added ? 'added' : r.replaced ? 'replaced' : r.unchanged ? 'unchanged' : 'stored';
  return typeof r.chunks === 'number' ? `${s}, ${r.chunks} chunk${r.chunks === 1 ? '' : 's'}` : s;
}

customElements.define('attest-admin', AttestAdmin);
