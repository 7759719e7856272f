// Words for the codes the server sends, and small formatting helpers. Unknown codes are shown as
// they are rather than hidden: the page never drops something the server said.

const STAGES: Record<string, [string, string]> = {
  // stage: [stage line while it runs, "Failed while …" wording]
  plan: ['Planning…', 'planning'],
  retrieve: ['Searching', 'searching'],
  rerank: ['Ranking the evidence…', 'ranking the evidence'],
  write: ['Writing', 'writing'],
  verify: ['Verifying', 'verifying'],
  cache: ['Reading the saved answer…', 'reading the saved answer'],
};

export function stageLine(stage: string, queries: string[] | undefined): string {
  if (stage === 'retrieve' && queries && queries.length > 0) {
    const distinct = queries.filter((q, i) => queries.findIndex((o) => o.toLowerCase() === q.toLowerCase()) === i);
    return `Searching: ${distinct.join(' · ')}`;
  }
  return STAGES[stage] ? STAGES[stage][0] : stage;
}

export function stageWords(stage: string): string {
  return STAGES[stage] ? STAGES[stage][1] : stage || 'sending the question';
}

const RETRACTIONS: Record<string, string> = {
  unsupported: 'Withdrawn: its quote does not support it',
  quote_not_found: 'Withdrawn: its quote was not found in the source',
  off_topic: 'Withdrawn: it does not answer the question',
  access_revoked: 'Withdrawn: your access to its source was revoked',
  source_deleted: 'Withdrawn: its source was deleted',
};

export function retractionWords(reason: string): string {
  return RETRACTIONS[reason] || `Withdrawn: ${reason.replace(/_/g, ' ')}`;
}

const FALLBACKS: Record<string, string> = {
  no_confident_answer: 'The sources found do not answer this question.',
  no_documents: 'No document matches this question.',
  filtered_by_access: 'Documents match this question, but none you are allowed to read.',
  claims_unsupported: 'No sentence could be verified against its sources.',
  sources_withdrawn: 'The sources of this answer are no longer available to you.',
};

export function fallbackWords(reason: string): string {
  return FALLBACKS[reason] || `No answer was written (${reason.replace(/_/g, ' ')}).`;
}

const DEGRADED: Record<string, string> = {
  vector_leg_skipped_deadline: 'the meaning-based search (too little time left)',
  vector_leg_unavailable: 'the meaning-based search (its model cannot be loaded)',
  vector_leg_failed: 'the meaning-based search (embedding the question failed)',
  rerank_skipped_deadline: 'the reranker (too little time left)',
  rerank_failed: 'the reranker (it failed)',
  llm_judge_failed: 'the language-model judge (it failed)',
  repair_failed: 'the repair round (it failed)',
};

export function degradedWords(items: string[]): string {
  const words = items.map((d) => {
    const colon = d.indexOf(':');
    const code = colon < 0 ? d : d.slice(0, colon);
    return DEGRADED[code] || d.replace(/_/g, ' ');
  });
  return `Skipped: ${words.join('; ')}.`;
}

// "2026-12-01T08:00:00Z" → "2026-12-01 08:00 UTC"; anything else is shown as given.
export function utc(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2}(\.\d+)?)?Z$/.exec(iso);
  return m ? `${m[1]} ${m[2]} UTC` : iso;
}

export function asOfLine(asOf: string | undefined, snapshot: number | undefined): string {
  const parts: string[] = [];
  if (asOf) parts.push(`As of ${utc(asOf)}`);
  if (snapshot !== undefined && snapshot !== null) parts.push(`snapshot ${snapshot}`);
  return parts.join(', ');
}

export function versionLine(version: string, released: string | undefined): string {
  return released ? `Version ${version}, released ${released}` : `Version ${version}`;
}

export function score(n: number | undefined): string {
  return typeof n === 'number' && isFinite(n) ? n.toFixed(2) : '–';
}

// "S3" → 3 (the marker number of a source, by source order).
export function sourceNumber(id: string): number {
  const m = /^S(\d+)$/.exec(id);
  return m ? Number(m[1]) : NaN;
}

// The metadata parts shown under a title: site, date, version; empty ones left out.
export function metaParts(site?: string, date?: string, version?: string): string[] {
  const out: string[] = [];
  if (site) out.push(site);
  if (date) out.push(date);
  if (version) out.push(`version ${version}`);
  return out;
}

export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

// The content type of an uploaded file, by its extension: text | markdown | html.
export function contentType(name: string): 'text' | 'markdown' | 'html' {
  const ext = name.toLowerCase().split('.').pop() || '';
  if (ext === 'md' || ext === 'markdown' || ext === 'mdown') return 'markdown';
  if (ext === 'html' || ext === 'htm' || ext === 'xhtml') return 'html';
  return 'text';
}
