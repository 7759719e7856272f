// Safe DOM building: elements are made with createElement and text goes in through text nodes,
// so document text (untrusted: passages, titles, snippets) can never become markup (docs/web.md).

export type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  testid?: string;
  text?: string;
  attrs?: Record<string, string>;
  // Event listeners, by event name.
  on?: Record<string, (ev: Event) => void>;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (props.class) e.className = props.class;
  if (props.testid) e.dataset.testid = props.testid;
  if (props.attrs) {
    for (const [k, v] of Object.entries(props.attrs)) {
      if (k === 'style' || k.startsWith('on')) throw new Error(`attribute ${k} is not allowed`);
      e.setAttribute(k, v);
    }
  }
  if (props.on) for (const [name, fn] of Object.entries(props.on)) e.addEventListener(name, fn);
  if (props.text !== undefined) e.textContent = props.text;
  append(e, children);
  return e;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

// A URL the page may link to: absolute http(s) only (never javascript:, data:, relative paths).
export function safeHref(url: string | undefined): string | null {
  if (!url) return null;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  if (u.username || u.password) return null;
  return u.href;
}

// A link to an external document when its URL is valid, else a plain span with the same text.
export function linkOrText(text: string, url: string | undefined, testid?: string): HTMLElement {
  const href = safeHref(url);
  if (!href) return el('span', { text });
  return el('a', {
    text,
    testid,
    attrs: { href, target: '_blank', rel: 'noopener noreferrer' },
  });
}

let nextId = 0;
export function uid(prefix: string): string {
  nextId += 1;
  return `${prefix}-${nextId}`;
}

// Text with highlighted ranges. `ranges` are UTF-8 byte offsets [start, end) into `text`, as
// the search API sends them; each range becomes a <mark> holding a text node.
export function highlighted(text: string, ranges: Array<[number, number]>): DocumentFragment {
  const frag = document.createDocumentFragment();
  const bytes = new TextEncoder().encode(text);
  const dec = new TextDecoder();
  const sorted = ranges
    .filter((r) => Array.isArray(r) && r.length === 2 && r[0] < r[1] && r[0] >= 0 && r[1] <= bytes.length)
    .slice()
    .sort((a, b) => a[0] - b[0]);
  let at = 0;
  for (const [s, e] of sorted) {
    if (s < at) continue; // overlapping range: skip
    if (s > at) frag.appendChild(document.createTextNode(dec.decode(bytes.subarray(at, s))));
    frag.appendChild(el('mark', { text: dec.decode(bytes.subarray(s, e)) }));
    at = e;
  }
  if (at < bytes.length) frag.appendChild(document.createTextNode(dec.decode(bytes.subarray(at))));
  return frag;
}

// Nodes separated by " · ".
export function joined(parts: Node[], sep = ' · '): Child[] {
  const out: Child[] = [];
  parts.forEach((p, i) => {
    if (i > 0) out.push(sep);
    out.push(p);
  });
  return out;
}
