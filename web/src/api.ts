// The HTTP client of the page: JSON calls and event streams over fetch, one error type for every
// failure (the server's error body, a network failure, a body that is not JSON). The credential
// goes only into the Authorization header.

import { SseParser, StreamEvent } from './sse';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field = '',
  ) {
    super(message);
  }
}

export type StreamEnd = 'done' | 'ended' | 'aborted';

export class Api {
  // Called on any 401, before the error is thrown: the app returns to sign-in.
  onUnauthorized: (e: ApiError) => void = () => {};

  constructor(private readonly key: string) {}

  private headers(extra: Record<string, string> = {}): Headers {
    const h = new Headers(extra);
    h.set('Authorization', `Bearer ${this.key}`);
    return h;
  }

  private async fail(res: Response): Promise<never> {
    let code = 'http_' + res.status;
    let message = res.statusText || `HTTP ${res.status}`;
    let field = '';
    try {
      const body = (await res.json()) as { error?: { code?: string; message?: string; field?: string } };
      if (body && body.error) {
        code = body.error.code || code;
        message = body.error.message || message;
        field = body.error.field || '';
      }
    } catch {
      // not a JSON error body: keep the status line
    }
    const err = new ApiError(res.status, code, message, field);
    if (res.status === 401) this.onUnauthorized(err);
    throw err;
  }

  private async send(method: string, path: string, body?: unknown, accept = 'application/json', signal?: AbortSignal): Promise<Response> {
    const init: RequestInit = { method, headers: this.headers({ Accept: accept }), signal, cache: 'no-store' };
    if (body !== undefined) {
      (init.headers as Headers).set('Content-Type', 'application/json');
      init.body = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(path, init);
    } catch (e) {
      if (signal && signal.aborted) throw new ApiError(0, 'aborted', 'cancelled');
      throw new ApiError(0, 'network', 'the server could not be reached');
    }
    if (!res.ok) await this.fail(res);
    return res;
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body);
    if (res.status === 204) return {} as T;
    try {
      return (await res.json()) as T;
    } catch {
      throw new ApiError(res.status, 'invalid_response', 'the server answered something that is not JSON');
    }
  }

  // POSTs `body` asking for an event stream and calls `onEvent` for each event as it arrives.
  // Resolves with how the stream ended: after a `done` event, or without one (the caller says so).
  async stream(path: string, body: unknown, onEvent: (e: StreamEvent) => void, signal?: AbortSignal): Promise<StreamEnd> {
    const res = await this.send('POST', path, body, 'text/event-stream', signal);
    let sawDone = false;
    const parser = new SseParser((e) => {
      if (e.event === 'done') sawDone = true;
      onEvent(e);
    });
    if (!res.body) {
      parser.push(await res.text());
      parser.end();
      return sawDone ? 'done' : 'ended';
    }
    const reader = res.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (value) parser.push(value);
      }
    } catch {
      if (signal && signal.aborted) return 'aborted';
      parser.end();
      return sawDone ? 'done' : 'ended';
    }
    parser.end();
    return sawDone ? 'done' : 'ended';
  }
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
