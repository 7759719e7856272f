// Shapes of what the HTTP API sends (docs/http_api.md). Fields the page does not use are left out;
// every field is optional where the server may omit it, so the page reads them defensively.

export interface Filters {
  source_types?: string[];
  sites?: string[];
  versions?: string[];
  date_from?: string;
  date_to?: string;
}

export interface Me {
  tenant: string;
  user: string;
  admin: boolean;
  operator?: boolean;
}

export interface Source {
  id: string;
  doc_id?: string;
  chunk_id?: number;
  title?: string;
  url?: string;
  site?: string;
  date?: string;
  version?: string;
  source_type?: string;
  authority?: string;
  text?: string;
  score?: number;
  flagged?: boolean;
}

export interface Citation {
  source: string;
  doc_id?: string;
  chunk_id?: number;
  quote?: string;
}

export interface ResultItem {
  doc_id?: string;
  chunk_id?: number;
  title?: string;
  url?: string;
  site?: string;
  date?: string;
  version?: string;
  snippet?: string;
  score?: number;
}

export interface ThreadInfo {
  thread_id?: string;
  turn?: number;
  saved?: boolean;
}

export interface Done {
  answer_id?: string;
  snapshot_version?: number;
  as_of?: string;
  outcome?: string;
  answer?: string;
  degraded?: string[];
  retracted?: number;
  cached?: boolean;
  fallback_reason?: string;
  results?: ResultItem[];
  thread?: ThreadInfo;
  standalone?: string;
  resolved_version?: string;
  resolved_version_date?: string;
  warnings?: string[];
  timings_ms?: Record<string, number>;
}

export interface SearchHit extends ResultItem {
  section?: string;
  source_type?: string;
  highlights?: Array<[number, number]>;
  explain?: {
    bm25?: { rank?: number; score?: number };
    vector?: { rank?: number; score?: number };
    fused?: number;
  };
}

export interface SearchResponse {
  hits?: SearchHit[];
  took_ms?: number;
  mode?: string;
  snapshot_version?: number;
  degraded?: string[];
  notices?: Array<{ code?: string; message?: string }>;
}

export interface DocumentRow {
  id: string;
  title?: string;
  source_type?: string;
  site?: string;
  version?: string;
  updated?: string;
  published?: string;
  chunks?: number;
  chunk_count?: number;
}

export interface DocumentPage {
  documents?: DocumentRow[];
  next_cursor?: string | null;
  total?: number;
  corrupt?: Array<{ id: string; message?: string }>;
}
