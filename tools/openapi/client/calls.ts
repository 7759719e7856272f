// A TypeScript client of the Attest API, typed by the types openapi-typescript generated from the
// served /v1/openapi.json (./api.d.ts, written next to this file by client.test.mjs) and calling
// through openapi-fetch. `tsc --strict` checks every call against the document: a route, field or
// response shape the document lacks does not compile.
import createClient from 'openapi-fetch';
import type { paths, components } from './api.js';

type Hit = components['schemas']['SearchHit'];

export interface Results {
  put: components['schemas']['PutDocumentsResult'];
  hits: Hit[];
  answer: components['schemas']['AnswerResponse'];
  listed: string[];
  me: components['schemas']['Me'];
  missingStatus: number;
  missingCode: string;
}

export async function run(baseUrl: string, apiKey: string, doc: { id: string; title: string; text: string },
                          query: string, question: string): Promise<Results> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-API-Key': apiKey } });

  const put = await client.POST('/v1/documents', {
    body: { id: doc.id, title: doc.title, text: doc.text, source_type: 'docs', site: 'client.example' },
  });
  if (!put.data) throw new Error(`putDocument failed: ${put.response.status} ${JSON.stringify(put.error)}`);

  const search = await client.POST('/v1/search', { body: { query, top_k: 5, mode: 'bm25' } });
  if (!search.data) throw new Error(`search failed: ${search.response.status} ${JSON.stringify(search.error)}`);

  const answer = await client.POST('/v1/answer', { body: { question } });
  if (!answer.data) throw new Error(`answer failed: ${answer.response.status} ${JSON.stringify(answer.error)}`);
  // The 200 is JSON or, when asked for, a text/event-stream: this call did not ask for the stream.
  if (typeof answer.data === 'string') throw new Error('answer came back as an event stream');

  const list = await client.GET('/v1/documents', { params: { query: { limit: 10 } } });
  if (!list.data) throw new Error(`listDocuments failed: ${list.response.status} ${JSON.stringify(list.error)}`);

  const me = await client.GET('/v1/me');
  if (!me.data) throw new Error(`getMe failed: ${me.response.status} ${JSON.stringify(me.error)}`);

  // An error comes back typed as the document's Error object.
  const missing = await client.GET('/v1/documents/{id}', { params: { path: { id: 'no-such-document' } } });
  const missingCode: string = missing.error ? missing.error.error.code : '';

  return {
    put: put.data,
    hits: search.data.hits,
    answer: answer.data,
    listed: list.data.documents.map((d) => d.id),
    me: me.data,
    missingStatus: missing.response.status,
    missingCode,
  };
}
