// The v1 request contracts of the HTTP API: typed requests and their strict parsers. Every parser
// takes the raw body bytes and either returns the typed request or an ApiError naming the field:
// invalid JSON or UTF-8, a body that is not an object, unknown fields, wrong types (a boolean is
// never an integer), empty or oversized strings (a query over 2,000 characters), a tenant outside
// [a-z0-9_-]{1,32}, numbers out of range, too many items, duplicate keys, nesting too deep.
// Strings are NFC-normalized and trimmed where the field says so. Nothing here throws.
//
// The same field tables produce the OpenAPI document (OpenApiJson()), so the validator and the
// documentation cannot drift apart. docs/http_api.md describes every field.
//
// Thread-safety: all functions are pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "service/api_error.h"

namespace attest::service {

inline constexpr size_t kMaxQueryChars = 2000;     // code points, after trimming
inline constexpr size_t kMaxTopK = 100;
inline constexpr uint32_t kMaxDeadlineMs = 120000;
inline constexpr size_t kMaxBatchDocuments = 1000;
inline constexpr size_t kMaxFeedbackCommentChars = 1000;  // code points, after trimming

struct RequestFilters {
  std::vector<std::string> source_types;   // each 1..64 chars, at most 32 items
  std::vector<std::string> sites;          // each 1..256 chars, at most 32 items
  std::vector<std::string> versions;       // each 1..64 chars, at most 32 items
  std::optional<std::string> date_from;    // YYYY-MM-DD, a real date
  std::optional<std::string> date_to;      // YYYY-MM-DD, not before date_from
};

// POST /v1/search
struct SearchRequest {
  std::string query;                       // required, 1..2000 chars after trimming
  std::optional<std::string> tenant;       // [a-z0-9_-]{1,32}; must equal the caller's unless admin
  uint32_t top_k = 10;                     // 1..100
  std::string mode = "auto";               // auto | bm25 | vector | hybrid
  RequestFilters filters;
  bool explain = false;                    // per-leg ranks and scores on each hit
  std::optional<uint32_t> deadline_ms;     // 1..120000; default: the server's (800)
};

// POST /v1/answer and the message body of POST /v1/threads/{id}/messages
struct AnswerRequest {
  std::string query;                       // required, 1..2000 chars after trimming ("question" is an alias)
  std::optional<std::string> tenant;
  std::string writer = "extractive";       // extractive | llm
  std::string judge = "builtin";           // builtin | llm
  uint32_t max_sentences = 3;              // 1..10
  std::optional<uint32_t> deadline_ms;     // 1..120000
  std::optional<std::string> today;        // YYYY-MM-DD: resolves "latest", "this year"
  RequestFilters filters;
  bool multi_hop = true;
  std::string mode = "standard";           // standard | research
  uint32_t max_hops = 4;                   // research.max_hops, 1..16
  double max_cost = 0;                     // research.max_cost, >= 0 (0 = no limit)
  uint32_t max_ms = 0;                     // research.max_ms (0 = no limit)
  bool stream = false;                     // also SSE when the client sends Accept: text/event-stream
  bool no_cache = false;                   // skip the whole-answer cache for this request
  // Earlier questions of a conversation the client keeps (the chat face: earlier user messages),
  // oldest first; the follow-up is planned from them as from a thread's turns. Never stored, and
  // not a field of the v1 body (a stored thread's questions come from the thread).
  std::vector<std::string> earlier_questions;
};

// A document for POST /v1/documents (one) or inside a batch.
struct DocumentInput {
  std::string id;                          // required, 1..256 bytes, no control characters
  std::optional<std::string> tenant;       // admin only; default: the caller's tenant
  std::string title;                       // 0..1000 chars
  std::string text;                        // required, 1 byte..max_document_bytes
  std::string content_type = "text";       // text | markdown | html
  std::string url, site, version, source_type, language;  // optional, bounded (url 2048, others 256)
  std::optional<std::string> published;    // YYYY-MM-DD
  std::optional<std::string> updated;      // YYYY-MM-DD
  std::vector<std::string> acl_groups;     // empty = readable by the whole tenant; at most 64 items
  std::string access_label;                // "" = the lowest access level
  std::string feed;                        // "" or "versions": an authoritative version feed
  std::string license;                     // licence or terms of the source, 0..1000 bytes, shown with it
  std::string fetched_at;                  // ISO 8601 UTC, when the text was fetched; "" = the commit
  std::map<std::string, std::string> metadata;  // string values only; at most 64 keys
};

// POST /v1/documents:batch
struct DocumentBatchRequest {
  std::vector<DocumentInput> documents;    // 1..1000
};

// POST /v1/threads
struct ThreadCreateRequest {
  std::optional<std::string> tenant;
  std::string title;                       // 0..200 chars
};

// POST /v1/feedback
struct FeedbackRequest {
  std::string answer_id;                   // required, as returned in `done` / the answer JSON
  std::string claim_id;                    // optional, e.g. "c2"
  std::string source_id;                   // optional, e.g. "S3"
  std::string kind;                        // required: wrong | unsupported | stale
  std::string comment;                     // 0..1000 chars (kMaxFeedbackCommentChars)
};

// GET /v1/documents (query parameters; each at most once)
inline constexpr size_t kMaxListLimit = 100;
struct DocumentListRequest {
  uint32_t limit = 20;                     // 1..100
  std::string after_id;                    // decoded from `cursor`; "" = the first page
  std::optional<std::string> tenant;       // only the operator may name another tenant
  std::optional<std::string> source_type, site, version;
  std::optional<std::string> q;            // substring of the id or title, 1..200 chars
  std::optional<std::string> date_from, date_to;  // YYYY-MM-DD, date_to not before date_from
};

struct ParseLimits {
  size_t max_document_bytes = 4u << 20;    // DocumentInput::text
};

ApiResult<SearchRequest> ParseSearchRequest(std::string_view body);
ApiResult<AnswerRequest> ParseAnswerRequest(std::string_view body);
ApiResult<DocumentInput> ParseDocumentInput(std::string_view body, const ParseLimits& limits = {});
ApiResult<DocumentBatchRequest> ParseDocumentBatch(std::string_view body, const ParseLimits& limits = {});
ApiResult<ThreadCreateRequest> ParseThreadCreate(std::string_view body);
ApiResult<FeedbackRequest> ParseFeedback(std::string_view body);
// The query parameters of GET /v1/documents: unknown parameters, a limit that is not an integer in
// 1..100 and a cursor no server made are invalid_request naming the parameter.
ApiResult<DocumentListRequest> ParseDocumentListQuery(const std::map<std::string, std::string>& query);
// The opaque cursor of the page after `after_id` (a version tag and the id, base64url).
std::string DocumentListCursor(const std::string& after_id);

// Path and header values: a document id from the URL, a tenant, a request id
// (X-Request-Id: 1..128 of [A-Za-z0-9._:-], else the server assigns one).
bool ValidTenant(std::string_view tenant);
bool ValidRequestId(std::string_view id);
ApiResult<std::string> ParseDocumentId(std::string_view id, std::string_view field = "id");

// The OpenAPI 3.0 document of the v1 API (request schemas from the same tables the parsers use,
// responses and routes described), as pretty JSON. Served at GET /v1/openapi.json. The error
// responses come from `status_of`, the HTTP adapter's one table (server::HttpStatusOf): this
// layer knows no status numbers of its own.
using ErrorStatusTable = int (*)(ApiErrorCode code);
std::string OpenApiJson(std::string_view server_version, ErrorStatusTable status_of);

// The (METHOD, path) of every operation of an OpenAPI document (upper-case methods, as the router
// spells them); empty when `document` is not one. Tests compare it with the route table.
std::vector<std::pair<std::string, std::string>> OpenApiOperations(const std::string& document);

}  // namespace attest::service
