// OpenApiJson (service/contracts.h): the OpenAPI 3.0.3 document of the v1 API. Request schemas
// come from the field tables (service/schema.h); response shapes are described here and match
// docs/http_api.md (the answer is the `attest ask --json` object plus answer_id, request_id and
// versions; see src/answer/answer_output.cc).
#include <exception>
#include <map>

#include "service/contracts.h"
#include "service/event_schema.h"
#include "service/openapi_parts.h"
#include "service/schema.h"

namespace attest::service {
namespace {

using nlohmann::json;
using namespace openapi;  // the builders shared with openapi_events.cc

constexpr const char* kSseDescription =
    "A text/event-stream (sent when the client asks with Accept: text/event-stream or \"stream\": true). "
    "Each event is `event: <type>` and `data: <one JSON object>`; proxy buffering is disabled. Events, in "
    "order of appearance:\n"
    "- `progress`: {stage, queries?} a pipeline stage started (plan, retrieve, rerank, write, verify).\n"
    "- `sources`: {sources:[AnswerSource]} the source cards, sent as soon as the evidence is final.\n"
    "- `delta`: {text} answer text to append.\n"
    "- `sentence_done`: {sentence_id, cites:[source ids]} a sentence is complete and verified.\n"
    "- `retract`: {sentence_id, reason} a sent sentence is withdrawn (unsupported, off_topic, access revoked, deleted).\n"
    "- `replace`: {sentence_id, text} a sent sentence is replaced by a corrected one.\n"
    "- `notice`: {code, message, chunk_ids?} e.g. the corpus moved during the answer and cited chunks changed.\n"
    "- `done`: {answer_id, outcome, snapshot_version, as_of, freshness, answer, tokens:{prompt, completion}, cost, timings_ms, "
    "dropped_claims, retracted, degraded, warnings, standalone, resolved_version, resolved_version_date, cached, "
    "request_id, versions, fallback_reason?, results?, thread?} the last event (`thread` on messages of a thread; "
    "warnings are also sent as `notice` events with code warning). An error after the stream started is sent as "
    "`event: error` with the Error object, then the stream ends.";

json Security();
json Parameters();


// Error responses, generated from the HTTP adapter's table: one component per status, "Error400",
// listing the codes answered with it.
std::string ErrorResponseName(int status) { return "Error" + std::to_string(status); }

json ErrorResponses(ErrorStatusTable status_of) {
  std::map<int, std::string> by_status;
  for (int i = 0; i < kApiErrorCodeCount; ++i) {
    const auto code = static_cast<ApiErrorCode>(i);
    std::string& text = by_status[status_of(code)];
    text += (text.empty() ? "" : " ") + std::string(ApiErrorCodeName(code)) + ": " +
            std::string(ApiErrorCodeDescription(code)) + ".";
  }
  json responses = json::object();
  for (const auto& [status, text] : by_status) {
    responses[ErrorResponseName(status)] = {{"description", text},
                                            {"content", {{"application/json", {{"schema", Ref("Error")}}}}}};
  }
  return responses;
}

// The codes every authenticated operation may answer; those of operations that may call a model
// server (embeddings on indexing and search, chat and rerank on answers); not_found.
constexpr ApiErrorCode kOperationErrors[] = {
    ApiErrorCode::kInvalidJson,  ApiErrorCode::kInvalidRequest, ApiErrorCode::kUnauthorized,
    ApiErrorCode::kForbidden,    ApiErrorCode::kPayloadTooLarge, ApiErrorCode::kRateLimited,
    ApiErrorCode::kQuotaExceeded, ApiErrorCode::kOverloaded,    ApiErrorCode::kUnavailable,
    ApiErrorCode::kAuditUnavailable, ApiErrorCode::kInternal};
// What the connection itself may answer on any route: a request too slow to arrive, headers too
// large, a transfer coding other than chunked.
constexpr ApiErrorCode kTransportErrors[] = {ApiErrorCode::kTimeout, ApiErrorCode::kHeadersTooLarge,
                                             ApiErrorCode::kNotImplemented};
constexpr ApiErrorCode kModelErrors[] = {ApiErrorCode::kVectorLegUnavailable, ApiErrorCode::kModelUnavailable,
                                         ApiErrorCode::kUpstreamError, ApiErrorCode::kDeadlineExceeded};

void AddErrorResponse(ErrorStatusTable status_of, ApiErrorCode code, json* responses) {
  const int status = status_of(code);
  (*responses)[std::to_string(status)] = {{"$ref", "#/components/responses/" + ErrorResponseName(status)}};
}

// The error object, component versions and highlights.
void AddErrorSchemas(json* out) {
  json& schemas = *out;
  json code_names = json::array();
  for (int i = 0; i < kApiErrorCodeCount; ++i) code_names.push_back(ApiErrorCodeName(static_cast<ApiErrorCode>(i)));
  schemas["Error"] = Object(
      {{"error", Object({{"code", {{"type", "string"},
                                   {"enum", code_names},
                                   {"description", "Stable machine-readable code (docs/http_api.md, \"Errors\")."}}},
                         {"message", Str("What was wrong, for people.")},
                         {"field", Str("JSON path of the offending request field, e.g. filters.sites[2]; "
                                       "\"model\" when a model server failed; \"\" when none.")}},
                        {"code", "message", "field"})}},
      {"error"});
  schemas["Versions"] = {{"type", "object"},
                         {"additionalProperties", {{"type", "string"}}},
                         {"description", "Component versions (attest, pipeline, index format, models)."}};
  schemas["Highlight"] = Object({{"start", Int("Byte offset into snippet.")}, {"end", Int("Byte offset, exclusive.")}});
}

// /v1/search.
void AddSearchSchemas(json* out) {
  json& schemas = *out;
  schemas["SearchHit"] = Object(
      {{"doc_id", Str("Document id.")},
       {"chunk_id", Int("Chunk id.")},
       {"score", Num("Fused score.")},
       {"title", Str("Document title.")},
       {"url", Str("Document URL.")},
       {"site", Str("Site.")},
       {"date", Str("Published, else updated (YYYY-MM-DD), or \"\".")},
       {"version", Str("Product version.")},
       {"source_type", Str("Source type.")},
       {"section", Str("Section heading path.")},
       {"snippet", Str("Passage text.")}, {"license", Str("Licence or terms of the document; absent when none.")},
       {"highlights", ArrayOf(Ref("Highlight"), "Query term spans in the snippet.")},
       {"lexical_rank", Int("With explain: rank in the BM25 leg (0 = not a candidate).")},
       {"lexical_score", Num("With explain: BM25 score.")},
       {"vector_rank", Int("With explain: rank in the vector leg (0 = not a candidate).")},
       {"vector_score", Num("With explain: cosine similarity.")}},
      {"doc_id", "chunk_id", "score", "snippet"});
  schemas["SearchResponse"] = Object(
      {{"request_id", Str("Echoed or assigned request id.")},
       {"snapshot_version", Int("Index snapshot the search read.")},
       {"cluster_snapshot", Str("A cluster coordinator's search: the snapshot of each shard it read, shard@version.")},
       {"took_ms", Num("Server time in milliseconds.")},
       {"mode", Str("Mode that ran (auto resolved).")},
       {"hits", ArrayOf(Ref("SearchHit"), "Ranked hits, at most top_k.")},
       {"notices", ArrayOf({{"type", "string"}}, "E.g. stages skipped for the deadline.")},
       {"versions", Ref("Versions")}},
      {"request_id", "snapshot_version", "hits", "versions"});
}

// /v1/answer and thread messages.
void AddAnswerSchemas(json* out) {
  json& schemas = *out;
  schemas["AnswerClaim"] = Object(
      {{"id", Str("Claim id, e.g. c1.")},
       {"text", Str("The sentence.")},
       {"cites", ArrayOf(Object({{"source", Str("Source id, e.g. S1.")}, {"quote", Str("Supporting quote.")}}),
                         "Citations.")},
       {"verdict", Str("supported, partial, unsupported, quote_not_found, unknown_source, off_topic (quoted "
                       "verbatim but not about the question's subject or not of its focus; never kept).")},
       {"reason", Str("Why.")},
       {"kept", Bool("Whether the claim is in the answer.")},
       {"version_label", Str("Set when the claim comes from another version than the resolved one.")}});
  schemas["AnswerSource"] = Object(
      {{"id", Str("Source id, e.g. S1.")},       {"doc_id", Str("Document id.")},
       {"chunk_id", Int("Chunk id.")},           {"title", Str("Title.")},
       {"site", Str("Site.")},                   {"url", Str("URL.")},
       {"date", Str("YYYY-MM-DD or \"\".")},     {"version", Str("Product version.")},
       {"source_type", Str("Source type.")},     {"authority", Str("Authority tier.")},
       {"text", Str("The passage given to the writer.")}, {"score", Num("Retrieval score.")},
       {"cited", Bool("Cited by a kept claim.")}, {"flagged", Bool("Flagged by the injection screen: never cited.")},
       {"flag_reason", Str("Why it was flagged.")},
       {"subject", Str("What the passage is about from its source's structure (definition term, table row "
                       "header or heading); absent when unknown.")},
       {"fetched_at", Str("When the text of this source's document was fetched (crawled pages), else committed, or "
                          "a live fetch found it unchanged; ISO 8601 UTC.")}, {"license", Str("Licence; absent if none.")}});
  schemas["LiveFetch"] = Object(
      {{"decision", Str("off, not_needed, fresh, no_candidates, no_budget or fetched.")},
       {"detail", Str("The decision in words.")},
       {"urls", ArrayOf({{"type", "string"}}, "Stored URLs fetched again, in priority order.")},
       {"attempted", Int("Fetches started.")},
       {"succeeded", Int("Pages that arrived in time (2xx).")},
       {"refreshed", Int("Documents given a new version.")},
       {"unchanged", Int("Documents found current.")},
       {"failed", Int("Fetches refused or failed, and pages that could not be put.")},
       {"failures", {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}},
                     {"description", "Failures by reason (the fetcher's reasons, http_<status>, ...)."}}},
       {"refreshed_ids", ArrayOf({{"type", "string"}}, "Documents given a new version.")},
       {"ms", Num("Time live fetch took.")}});
  schemas["Freshness"] = Object(
      {{"as_of", Str("Commit time of the snapshot read, ISO 8601 UTC (the index's last commit when the answer started).")},
       {"index_lag_seconds", Int("Now minus as_of; -1 when unknown.")},
       {"newest_source_date", Str("The newest published/updated date (YYYY-MM-DD) among cited sources, \"\" when none is dated.")},
       {"newest_source", Str("The source id carrying newest_source_date.")},
       {"newest_fetched_at", Str("The most recent fetched_at among cited sources, ISO 8601 UTC.")},
       {"live_fetch", Ref("LiveFetch")}});
  schemas["StageCost"] = Object({{"searches", Int("Index searches run.")},
                                 {"fetches", Int("Live fetches started.")},
                                 {"rerank_pairs", Int("Query-passage pairs sent to the cross-encoder.")},
                                 {"model_calls", Int("Chat-model calls.")},
                                 {"prompt_tokens", Int("Prompt tokens the model reported.")},
                                 {"completion_tokens", Int("Completion tokens the model reported.")},
                                 {"cost", Num("By the configured prices.")}});
  schemas["AnswerResponse"] = Object(
      {{"answer_id", Str("Id to give to /v1/feedback.")},
       {"request_id", Str("Echoed or assigned request id.")},
       {"outcome", {{"type", "string"}, {"enum", {"answer", "fallback", "calculation", "greeting"}}}},
       {"answer", Str("The answer text with [n] source markers.")},
       {"claims", ArrayOf(Ref("AnswerClaim"), "Every drafted claim with its verdict.")},
       {"sources", ArrayOf(Ref("AnswerSource"), "The evidence pack.")},
       {"results", ArrayOf(Ref("SearchHit"), "The ranked result list.")},
       {"warnings", ArrayOf({{"type", "string"}}, "E.g. stale sources, conflicting sources.")},
       {"degraded", ArrayOf({{"type", "string"}}, "Stages skipped or weakened, e.g. rerank_skipped_deadline.")},
       {"fallback_reason", Str("With outcome fallback: no_documents, filtered_by_access, no_confident_answer, "
                               "claims_unsupported.")},
       {"resolved_version", Str("Product version the answer is about (\"latest\" resolved from the index); \"\" "
                                "when none.")},
       {"resolved_version_date", Str("Release date (YYYY-MM-DD) of resolved_version when the index knows it (an "
                                     "authoritative version feed, else a release_notes source of that version); "
                                     "\"\" when unknown.")},
       {"standalone", Str("The planner's standalone question: in a thread, the follow-up rewritten to stand alone.")},
       {"snapshot_version", Int("The pinned snapshot every retrieval round read.")},
       {"as_of", Str("Commit time of that snapshot, ISO 8601 UTC.")},
       {"freshness", Ref("Freshness")},
       {"timings_ms", {{"type", "object"}, {"additionalProperties", {{"type", "number"}}}}},
       {"dropped_claims", Int("Claims removed by verification.")},
       {"tokens", Object({{"prompt", Int("Prompt tokens.")}, {"completion", Int("Completion tokens.")}})},
       {"cost", Num("The sum of stage_costs' costs, from configured prices (docs/cost.md).")},
       {"stage_costs", {{"type", "object"},
                        {"description", "What each stage spent: plan, retrieve, live_fetch, rerank, write, verify "
                                        "(research in research mode)."},
                        {"additionalProperties", Ref("StageCost")}}},
       {"mode", {{"type", "string"}, {"enum", {"standard", "research"}}}},
       {"tier", Str("The writer's model tier: small, large, small->large (escalated), \"\" for the extractive "
                    "writer.")},
       {"tier_reason", Str("Why that tier (comparison, multi_hop, research, subqueries=N, coverage=..., "
                           "strong_evidence, one_model; \"; escalated: <why>\" after an escalation).")},
       {"manifest", Object({{"sha256", Str("SHA-256 of the evidence manifest.")},
                            {"hmac", Str("HMAC-SHA256, \"\" when unsigned.")}})},
       {"hops", ArrayOf({{"type", "object"}}, "Multi-hop trace.")},
       {"verdict", Str("yes/no when a comparison was computed in code.")},
       {"research", {{"type", "object"},
                     {"description", "Research mode only (docs/research.md): limits, rounds (queries, who decided "
                                     "them and why, documents read, cost, ms), why the loop stopped (sufficient, "
                                     "no_gap, max_hops, max_cost, max_ms, cancelled), rounds run, cost and ms."}}},
       {"overview", {{"type", "object"},
                     {"description", "Research mode, exploratory questions (docs/research.md): topics (label, "
                                     "source ids, documents), viewpoints represented, sources, coverage in words."}}},
       {"plan", {{"type", "object"}, {"nullable", true}, {"description", "The validated query plan."}}},
       {"thread", Ref("ThreadView")},
       {"versions", Ref("Versions")}},
      {"answer_id", "request_id", "outcome", "answer", "claims", "sources", "snapshot_version", "versions"});
}

// /v1/documents.
void AddDocumentSchemas(json* out) {
  json& schemas = *out;
  schemas["PutDocumentsResult"] = Object(
      {{"snapshot_version", Int("Snapshot that holds the documents (unchanged when nothing changed).")},
       {"added", Int("Documents new to the store.")},
       {"replaced", Int("Documents whose content changed (the old version is superseded atomically).")},
       {"unchanged", Int("Identical re-puts (no-ops): puts are idempotent by (tenant, id).")},
       {"chunks", Int("Chunks written.")},
       {"documents", ArrayOf(Object({{"id", Str("Document id.")}, {"tenant", Str("Tenant.")}}), "The documents, in order.")},
       {"request_id", Str("Request id.")},
       {"versions", Ref("Versions")}});
  schemas["DeleteResult"] = Object({{"id", Str("Document id.")},
                                    {"tenant", Str("Tenant.")},
                                    {"deleted", Bool("Always true (a missing document is 404).")},
                                    {"snapshot_version", Int("Snapshot without the document.")},
                                    {"request_id", Str("Request id.")},
                                    {"versions", Ref("Versions")}});
  schemas["Document"] = Object(
      {{"id", Str("Document id.")}, {"tenant", Str("Tenant.")}, {"title", Str("Title.")}, {"url", Str("URL.")},
       {"site", Str("Site.")}, {"version", Str("Version label.")}, {"source_type", Str("Source type.")},
       {"language", Str("Language.")}, {"feed", Str("Authoritative feed kind, or \"\".")},
       {"published", Str("YYYY-MM-DD or \"\".")}, {"updated", Str("YYYY-MM-DD or \"\".")},
       {"acl_groups", ArrayOf(Str("Group."), "Groups that may read it; empty = the whole tenant.")},
       {"access_label", Str("Access label; \"\" = the lowest level.")},
       {"sha256", Str("Digest of the stored content and metadata.")}, {"bytes", Int("Source bytes.")},
       {"chunk_ids", ArrayOf(Int("Chunk id."), "Chunks, in order.")}, {"text", Str("Chunk texts joined by blank lines.")},
       {"created_snapshot", Int("First snapshot with this version.")}, {"snapshot_version", Int("Snapshot read.")},
       {"fetched_at", Str("When this version's text was fetched (crawled pages), else committed, or a later live "
                          "fetch found it unchanged; ISO 8601 UTC.")}, {"license", Str("Licence or terms, or \"\".")},
       {"request_id", Str("Request id.")}, {"versions", Ref("Versions")}});
}

// GET /v1/documents.
void AddListingSchemas(json* out) {
  json& schemas = *out;
  schemas["DocumentSummary"] = Object(
      {{"id", Str("Document id.")}, {"title", Str("Title.")}, {"url", Str("URL.")}, {"site", Str("Site.")},
       {"version", Str("Version label.")}, {"source_type", Str("Source type.")}, {"language", Str("Language.")},
       {"feed", Str("Authoritative feed kind, or \"\".")}, {"published", Str("YYYY-MM-DD or \"\".")},
       {"updated", Str("YYYY-MM-DD or \"\".")}, {"access_label", Str("Access label; \"\" = the lowest level.")},
       {"acl_groups", ArrayOf(Str("Group."), "Groups that may read it; empty = the whole tenant.")},
       {"chunks", Int("Chunks of this version.")}, {"bytes", Int("Source bytes.")},
       {"created_snapshot", Int("First snapshot with this version.")}, {"license", Str("Licence or terms, or \"\".")},
       {"fetched_at", Str("When this version's text was fetched (crawled pages), else committed, ISO 8601 UTC.")}},
      {"id", "title", "chunks", "created_snapshot"});
  schemas["DocumentList"] = Object(
      {{"tenant", Str("The tenant listed.")},
       {"documents", ArrayOf(Ref("DocumentSummary"), "This page, in id order (byte order).")},
       {"corrupt", ArrayOf(Object({{"id", Str("The id as the row names it.")}, {"message", Str("What failed.")}}),
                           "Rows of this page that failed their checksum: not listed; re-ingest or delete them.")},
       {"next_cursor", {{"type", "string"}, {"nullable", true},
                        {"description", "The cursor of the next page; null on the last page."}}},
       {"total", Int("Documents matching the filters, on every page (corrupt rows included).")},
       {"snapshot_version", Int("The snapshot this page read (each page reads the latest).")},
       {"request_id", Str("Request id.")},
       {"versions", Ref("Versions")}},
      {"documents", "next_cursor", "total", "snapshot_version"});
}

// Query parameters from a table (one value each).
json QueryParameters(const ObjectSchema& table) {
  const json object = SchemaToOpenApi(table);
  json params = json::array();
  for (const FieldSpec& f : table.fields) {
    json schema = object["properties"][std::string(f.name)];
    const json description = schema.value("description", json(""));
    schema.erase("description");
    params.push_back({{"name", std::string(f.name)}, {"in", "query"}, {"required", f.required},
                      {"description", description}, {"schema", schema}});
  }
  return params;
}

// Threads and feedback.
void AddThreadSchemas(json* out) {
  json& schemas = *out;
  schemas["EarlierTurn"] = Object(
      {{"turn", Int("1-based position in the thread.")},
       {"question", Str("The question asked.")},
       {"answer_id", Str("Its answer id (feedback still accepted).")},
       {"asked_ms", Int("When, Unix epoch milliseconds.")},
       {"outcome", Str("As answered; fallback with fallback_reason sources_withdrawn when every claim was "
                       "withdrawn since.")},
       {"answer", Str("The answer text with [n] markers, rebuilt without withdrawn claims.")},
       {"claims", ArrayOf(Object({{"id", Str("Claim id.")}, {"text", Str("Claim text.")},
                                  {"citations", ArrayOf({{"type", "object"}}, "source, doc_id, chunk_id, quote.")}}),
                          "The kept claims whose sources the caller may still read.")},
       {"sources", ArrayOf({{"type", "object"}}, "Source cards (id, doc_id, chunk_id, title, url, site, date, "
                                                  "cited, changed?) without passage text; deleted or unreadable "
                                                  "sources are not shown.")},
       {"results", ArrayOf({{"type", "object"}}, "The result list's chunks the caller may still read.")},
       {"withdrawn_claims", Int("Claims withdrawn because a source they cite is deleted or no longer readable.")}});
  schemas["ThreadView"] = Object(
      {{"thread_id", Str("The thread.")},
       {"turn", Int("This message's position in the thread.")},
       {"saved", Bool("Whether this turn was stored (false: see notices).")},
       {"earlier", ArrayOf(Ref("EarlierTurn"), "The last (up to 5) earlier turns, as the caller may see them now.")}},
      {"thread_id", "turn", "saved", "earlier"});
  schemas["Thread"] = Object({{"thread_id", Str("Thread id for /v1/threads/{id}/messages.")},
                              {"tenant", Str("Tenant.")},
                              {"title", Str("Title.")},
                              {"evicted_thread_id", Str("Present when the caller's oldest thread was forgotten "
                                                        "to keep within --max-threads-per-user.")},
                              {"request_id", Str("Request id.")},
                              {"versions", Ref("Versions")}},
                             {"thread_id"});
  schemas["FeedbackResult"] = Object({{"feedback_id", Str("Feedback id.")},
                                      {"answer_id", Str("The answer flagged.")},
                                      {"replaced", Bool("An earlier record of this answer, claim and user was replaced.")},
                                      {"cache_invalidated", Bool("Whether a cached copy of the answer was removed.")},
                                      {"request_id", Str("Request id.")},
                                      {"versions", Ref("Versions")}});
}

// /v1/me.
void AddIdentitySchemas(json* out) {
  (*out)["Me"] = Object(
      {{"tenant", Str("The credential's tenant as the API names it (the store's default tenant is \"default\").")},
       {"user", Str("The principal's user.")},
       {"admin", Bool("May write, delete and list the documents of its tenant (true for the operator too).")},
       {"operator", Bool("The deployment operator: an admin of every tenant, may name another tenant.")},
       {"groups", ArrayOf({{"type", "string"}}, "The caller's groups in force now, sorted.")},
       {"clearance", Str("The caller's clearance; \"\" when none was given (the lowest level).")},
       {"method", {{"type", "string"}, {"enum", {"api_key", "jwt", "anonymous"}}}},
       {"request_id", Str("Request id.")},
       {"versions", Ref("Versions")}},
      {"tenant", "user", "admin", "operator", "groups"});
}

json Components(ErrorStatusTable status_of) {
  json schemas = json::object();
  for (const ObjectSchema* s : AllRequestSchemas()) schemas[std::string(s->name)] = SchemaToOpenApi(*s);
  AddErrorSchemas(&schemas);
  AddSearchSchemas(&schemas);
  AddAnswerSchemas(&schemas);
  AddDocumentSchemas(&schemas);
  AddThreadSchemas(&schemas);
  AddIdentitySchemas(&schemas);
  AddListingSchemas(&schemas);
  AddEventSchemas(&schemas);
  AddOpenAiSchemas(&schemas);

  return {{"schemas", schemas}, {"responses", ErrorResponses(status_of)}, {"securitySchemes", Security()},
          {"parameters", Parameters()}};
}

json Security() {
  return {
      {"bearer", {{"type", "http"}, {"scheme", "bearer"}, {"bearerFormat", "JWT"},
                  {"description", "JWT (HS256 or RS256) with exp, nbf, iss and aud checked; claims give tenant, "
                                  "user, groups and clearance."}}},
      {"apiKey", {{"type", "apiKey"}, {"in", "header"}, {"name", "X-API-Key"},
                  {"description", "API key (stored hashed by the server)."}}},
  };
}

json Parameters() {
  return {
      {"RequestId", {{"name", "X-Request-Id"}, {"in", "header"}, {"required", false},
                     {"description", "1..128 of [A-Za-z0-9._:-]; echoed. Otherwise the server assigns one."},
                     {"schema", {{"type", "string"}, {"pattern", "^[A-Za-z0-9._:-]{1,128}$"}}}}},
      {"Id", {{"name", "id"}, {"in", "path"}, {"required", true},
              {"description", "Document or thread id (percent-encoded)."},
              {"schema", {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}}}}},
  };
}

json JsonBody(const std::string& schema) {
  return {{"required", true}, {"content", {{"application/json", {{"schema", Ref(schema)}}}}}};
}

json Ok(const char* description, const std::string& schema) {
  return {{"description", description}, {"content", {{"application/json", {{"schema", Ref(schema)}}}}}};
}

// What an authenticated operation takes and may fail with.
struct OperationShape {
  bool with_id = false;    // the {id} path parameter
  bool not_found = false;  // may answer not_found
  bool models = false;     // may call a model server
};

// An authenticated operation with its error responses (from the HTTP adapter's table).
json Operation(ErrorStatusTable status_of, const char* summary, const char* tag, json responses,
               OperationShape shape) {
  for (ApiErrorCode code : kOperationErrors) AddErrorResponse(status_of, code, &responses);
  for (ApiErrorCode code : kTransportErrors) AddErrorResponse(status_of, code, &responses);
  if (shape.models) {
    for (ApiErrorCode code : kModelErrors) AddErrorResponse(status_of, code, &responses);
  }
  if (shape.not_found) AddErrorResponse(status_of, ApiErrorCode::kNotFound, &responses);
  json params = json::array({{{"$ref", "#/components/parameters/RequestId"}}});
  if (shape.with_id) params.push_back({{"$ref", "#/components/parameters/Id"}});
  return {{"summary", summary}, {"tags", json::array({tag})}, {"parameters", params}, {"responses", responses}};
}

// A route without a credential: only the transport's own errors.
json Public(ErrorStatusTable status_of, const char* summary, json responses) {
  AddErrorResponse(status_of, ApiErrorCode::kBadHttp, &responses);
  for (ApiErrorCode code : kTransportErrors) AddErrorResponse(status_of, code, &responses);
  return {{"summary", summary}, {"tags", json::array({"operations"})}, {"security", json::array()}, {"responses", responses}};
}

json AnswerResponses() {
  return {{"200", {{"description", "The answer as JSON, or the SSE stream."},
                   {"content", {{"application/json", {{"schema", Ref("AnswerResponse")}}},
                                {"text/event-stream", {{"schema", {{"type", "string"}, {"description", kSseDescription}}}}}}}}}};
}

json Paths(ErrorStatusTable status_of) {
  json p = json::object();
  json create = Operation(status_of, "Index one document (idempotent by id).", "documents",
                          {{"200", Ok("Indexed.", "PutDocumentsResult")}}, {.models = true});
  create["requestBody"] = JsonBody("DocumentInput");
  p["/v1/documents"]["post"] = create;

  json batch = Operation(status_of, "Index up to 1000 documents (bulk queue).", "documents",
                         {{"200", Ok("Indexed in one atomic commit.", "PutDocumentsResult")}}, {.models = true});
  batch["requestBody"] = JsonBody("DocumentBatchRequest");
  p["/v1/documents:batch"]["post"] = batch;

  json list = Operation(status_of, "A page of the tenant's live documents (admin or operator): keyset paging, filters.",
                        "documents", {{"200", Ok("The page.", "DocumentList")}}, {});
  for (const json& q : QueryParameters(DocumentListQuerySchema())) list["parameters"].push_back(q);
  p["/v1/documents"]["get"] = list;

  p["/v1/documents/{id}"]["get"] = Operation(status_of, 
      "A document's metadata and text, if the caller may read it.", "documents",
      {{"200", Ok("The document.", "Document")}},
      {.with_id = true, .not_found = true});
  p["/v1/documents/{id}"]["delete"] = Operation(status_of, "Delete a document (idempotent).", "documents",
                                                {{"200", Ok("Deleted.", "DeleteResult")}},
                                                {.with_id = true, .not_found = true});

  json search = Operation(status_of, "Ranked chunks for a query.", "search", {{"200", Ok("The hits.", "SearchResponse")}},
                          {.models = true});
  search["requestBody"] = JsonBody("SearchRequest");
  p["/v1/search"]["post"] = search;

  json answer = Operation(status_of, "A cited answer, as JSON or streamed as server-sent events.", "answer", AnswerResponses(),
                          {.models = true});
  answer["requestBody"] = JsonBody("AnswerRequest");
  p["/v1/answer"]["post"] = answer;

  json thread = Operation(status_of, "Start a conversation.", "threads", {{"201", Ok("The thread.", "Thread")}}, {});
  thread["requestBody"] = JsonBody("ThreadCreateRequest");
  p["/v1/threads"]["post"] = thread;

  json message = Operation(status_of, "Ask in a thread: a follow-up is planned with the earlier questions; the response "
                           "shows the last turns again, re-checked for the caller.", "threads",
                           AnswerResponses(), {.with_id = true, .not_found = true, .models = true});
  message["requestBody"] = JsonBody("AnswerRequest");
  p["/v1/threads/{id}/messages"]["post"] = message;

  json feedback = Operation(status_of, "Flag an answer, claim or source as wrong, unsupported or stale.", "feedback",
                            {{"201", Ok("Recorded durably in conversations.db; a repeat for the same answer, claim and "
                                        "user replaces the earlier record.", "FeedbackResult")}}, {.not_found = true});
  feedback["requestBody"] = JsonBody("FeedbackRequest");
  p["/v1/feedback"]["post"] = feedback;

  p["/v1/me"]["get"] = Operation(status_of, "The caller's own identity (what a client needs to choose its views); "
                                 "never a secret, hash or key id.", "identity",
                                 {{"200", Ok("The identity.", "Me")}}, {});

  const json webhook_headers = json::array(
      {{{"name", "webhook-id"}, {"in", "header"}, {"required", true}, {"schema", {{"type", "string"}}},
        {"description", "Standard Webhooks: the idempotency key (no '.')."}},
       {{"name", "webhook-timestamp"}, {"in", "header"}, {"required", true}, {"schema", {{"type", "string"}}},
        {"description", "Unix seconds; within 5 minutes of the server's clock."}},
       {{"name", "webhook-signature"}, {"in", "header"}, {"required", true}, {"schema", {{"type", "string"}}},
        {"description", "v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>, several space-separated."}},
       {{"name", "wait_ms"}, {"in", "query"}, {"required", false},
        {"schema", {{"type", "integer"}, {"minimum", 0}, {"maximum", 10000}}},
        {"description", "Wait up to this long for the outcomes."}}});
  json events = Operation(status_of, "Push changes (connectors; docs/events.md).", "events",
                          {{"202", Ok("Durable; some events queued.", "EventsResult")},
                           {"200", Ok("Every event has its outcome (or all stale).", "EventsResult")}},
                          {});
  AddErrorResponse(status_of, ApiErrorCode::kUnsupportedEventType, &events["responses"]);
  AddErrorResponse(status_of, ApiErrorCode::kIdempotencyConflict, &events["responses"]);
  for (const json& h : webhook_headers) events["parameters"].push_back(h);
  events["security"] = json::array();  // the signature headers, not a bearer credential
  events["requestBody"] = {
      {"required", true},
      {"content", {{"application/cloudevents+json", {{"schema", Ref("CloudEvent")}}},
                   {"application/cloudevents-batch+json", {{"schema", {{"type", "array"}, {"items", Ref("CloudEvent")},
                                                                        {"maxItems", 100}}}}},
                   {"application/json",
                    {{"schema", {{"oneOf", json::array({Ref("CloudEvent"),
                                                        Object({{"events", ArrayOf(Ref("CloudEvent"), "1..100.")}},
                                                               {"events"})})}}}}}}}};
  p["/v1/events"]["post"] = events;
  json event = Operation(status_of, "One pushed event's state (its connector, signed, or an admin of its tenant).",
                         "events", {{"200", Ok("The state.", "EventState")}}, {.not_found = true});
  event["parameters"].push_back({{"name", "seq"}, {"in", "path"}, {"required", true},
                                 {"schema", {{"type", "integer"}, {"minimum", 1}}}});
  event["parameters"].push_back(webhook_headers[3]);
  p["/v1/events/{seq}"]["get"] = event;

  p["/healthz"]["get"] = Public(status_of, "Liveness: the process is up.", {{"200", {{"description", "ok"}}}});
  p["/readyz"]["get"] = Public(status_of, "Readiness: the index is open, every tenant's vector model loads, the audit log "
                               "is written and has room, and the server is not shutting down.",
                               {{"200", {{"description", "ready"}}},
                                {std::to_string(status_of(ApiErrorCode::kUnavailable)),
                                 {{"description", "not ready (unavailable); the error message lists every reason"}}}});
  p["/metrics"]["get"] = Public(status_of,
      "Prometheus metrics: per-stage latency histograms, cache hits, retractions, fallbacks by reason, audit "
      "failures.",
      {{"200", {{"description", "Prometheus text format 0.0.4."},
                {"content", {{"text/plain", {{"schema", {{"type", "string"}}}}}}}}}});
  p["/v1/openapi.json"]["get"] = Public(status_of,
      "This document.", {{"200", {{"description", "OpenAPI 3.0.3."},
                                  {"content", {{"application/json", {{"schema", {{"type", "object"}}}}}}}}}});
  AddMcpOperation(&p);
  AddOpenAiPaths(status_of, &p);
  AddOperationIds(&p);
  return p;
}

}  // namespace

std::string OpenApiJson(std::string_view server_version, ErrorStatusTable status_of) {
  try {
    json paths = Paths(status_of);
    json components = Components(status_of);
    MoveUnusedErrorResponses(paths, &components);
    json doc = {
        {"openapi", "3.0.3"},
        {"info", {{"title", "Attest"},
                  {"license", {{"name", "Apache-2.0"}, {"url", "https://www.apache.org/licenses/LICENSE-2.0"}}},
                  {"version", std::string(server_version)},
                  {"description", "Grounded answers with citations over your documents. Every error is "
                                  "{\"error\":{\"code\",\"message\",\"field\"}}; every response echoes "
                                  "X-Request-Id and the component versions."}}},
        // Relative: the server that served this document (a client is given its base URL).
        {"servers", json::array({{{"url", "/"}, {"description", "The server that served this document."}}})},
        {"paths", paths},
        {"components", components},
        {"security", json::array({{{"bearer", json::array()}}, {{"apiKey", json::array()}}})},
    };
    return doc.dump(2, ' ', false, json::error_handler_t::replace);
  } catch (...) {
    return std::string("{\"error\":{\"code\":\"internal\",\"message\":\"openapi generation failed\",\"field\":\"\"}}");
  }
}

}  // namespace attest::service
