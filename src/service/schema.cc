// The field tables of the v1 requests (docs/http_api.md describes the same fields) and their
// OpenAPI rendering. Bounds here are the contract: change them here and both the validator and the
// published schema follow.
#include "service/schema.h"

// The tables use designated initializers and rely on the defaults of the fields they leave out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace attest::service {
namespace {

using nlohmann::json;

constexpr std::string_view kTenantDescription =
    "Tenant to act in, [a-z0-9_-]{1,32}. Defaults to the credential's tenant; another tenant needs an "
    "admin credential.";
constexpr std::string_view kDeadlineDescription =
    "Time budget in milliseconds for planning, retrieval and reranking (1..120000; the server default "
    "is 800). Optional stages are skipped when it runs short and the response says degraded.";

}  // namespace

const ObjectSchema& FiltersSchema() {
  static const ObjectSchema schema{
      "RequestFilters",
      "Restricts retrieval to matching chunks. Lists match any of their values; different fields must all match.",
      {
          {.name = "source_types", .type = FieldType::kStringArray, .min = 1, .max = 64, .max_items = 32,
           .description = "Source types to keep (e.g. docs, blog, forum); each 1..64 characters, at most 32."},
          {.name = "sites", .type = FieldType::kStringArray, .min = 1, .max = 256, .max_items = 32,
           .description = "Sites (host names) to keep; each 1..256 characters, at most 32."},
          {.name = "versions", .type = FieldType::kStringArray, .min = 1, .max = 64, .max_items = 32,
           .description = "Product versions to keep; each 1..64 characters, at most 32."},
          {.name = "date_from", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "Keep documents dated on or after this day (YYYY-MM-DD)."},
          {.name = "date_to", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "Keep documents dated on or before this day (YYYY-MM-DD); not before date_from."},
      }};
  return schema;
}

const ObjectSchema& ResearchLimitsSchema() {
  static const ObjectSchema schema{
      "ResearchLimits",
      "Research mode's hard limits (docs/research.md): never exceeded, whatever the planner asks for.",
      {
          {.name = "max_hops", .type = FieldType::kInteger, .min = 1, .max = 16, .default_json = "4",
           .description = "Retrieval rounds at most, the first included (1..16)."},
          {.name = "max_cost", .type = FieldType::kNumber, .min = 0, .max = 1000000000, .default_json = "0",
           .description = "Cost at most, in the server's configured prices (docs/cost.md); 0 = no limit."},
          {.name = "max_ms", .type = FieldType::kInteger, .min = 0, .max = kMaxDeadlineMs, .default_json = "0",
           .description = "Milliseconds at most from the start of the answer to the end of the rounds; 0 = "
                          "no limit but deadline_ms."},
      }};
  return schema;
}

const ObjectSchema& SearchRequestSchema() {
  static const ObjectSchema schema{
      "SearchRequest",
      "POST /v1/search: ranked chunks for a query, restricted to what the caller may read.",
      {
          {.name = "query", .type = FieldType::kString, .required = true, .min = 1,
           .max = static_cast<int64_t>(kMaxQueryChars),
           .description = "The query; NFC-normalized and trimmed, then 1..2000 characters."},
          {.name = "tenant", .type = FieldType::kString, .check = StringCheck::kTenant, .normalize = false,
           .description = kTenantDescription},
          {.name = "top_k", .type = FieldType::kInteger, .min = 1, .max = static_cast<int64_t>(kMaxTopK),
           .default_json = "10", .description = "Number of hits to return (1..100)."},
          {.name = "mode", .type = FieldType::kString, .enum_values = {"auto", "bm25", "vector", "hybrid"},
           .normalize = false, .default_json = "\"auto\"",
           .description = "Retrieval mode: auto (the planner decides), bm25, vector or hybrid (both fused)."},
          {.name = "filters", .type = FieldType::kObject, .nested = &FiltersSchema(),
           .description = "Metadata filters, applied inside retrieval."},
          {.name = "explain", .type = FieldType::kBoolean, .default_json = "false",
           .description = "Add each leg's rank and score to every hit."},
          {.name = "deadline_ms", .type = FieldType::kInteger, .min = 1, .max = kMaxDeadlineMs,
           .description = kDeadlineDescription},
      }};
  return schema;
}

const ObjectSchema& AnswerRequestSchema() {
  static const ObjectSchema schema{
      "AnswerRequest",
      "POST /v1/answer (and the body of POST /v1/threads/{id}/messages): a cited answer to a question. "
      "Give exactly one of query and question.",
      {
          {.name = "query", .type = FieldType::kString, .required = true, .min = 1,
           .max = static_cast<int64_t>(kMaxQueryChars), .alias = "question",
           .description = "The question; NFC-normalized and trimmed, then 1..2000 characters."},
          {.name = "tenant", .type = FieldType::kString, .check = StringCheck::kTenant, .normalize = false,
           .description = kTenantDescription},
          {.name = "writer", .type = FieldType::kString, .enum_values = {"extractive", "llm"}, .normalize = false,
           .default_json = "\"extractive\"",
           .description = "Answer writer: extractive (quotes evidence sentences) or llm (a model drafts, every "
                          "sentence is verified)."},
          {.name = "judge", .type = FieldType::kString, .enum_values = {"builtin", "llm"}, .normalize = false,
           .default_json = "\"builtin\"", .description = "Claim verifier: builtin or llm."},
          {.name = "max_sentences", .type = FieldType::kInteger, .min = 1, .max = 10, .default_json = "3",
           .description = "Most sentences in the answer (1..10)."},
          {.name = "deadline_ms", .type = FieldType::kInteger, .min = 1, .max = kMaxDeadlineMs,
           .description = kDeadlineDescription},
          {.name = "today", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "The date that resolves \"latest\" and \"this year\" (YYYY-MM-DD); default: the "
                          "server's date."},
          {.name = "filters", .type = FieldType::kObject, .nested = &FiltersSchema(),
           .description = "Metadata filters, applied inside retrieval."},
          {.name = "multi_hop", .type = FieldType::kBoolean, .default_json = "true",
           .description = "Allow follow-up retrieval rounds for questions that need two facts."},
          {.name = "mode", .type = FieldType::kString, .enum_values = {"standard", "research"}, .normalize = false,
           .default_json = "\"standard\"",
           .description = "standard: one planned round (and a bridge hop); research: rounds until nothing is "
                          "missing or a limit in `research` is reached, with progress events (docs/research.md)."},
          {.name = "research", .type = FieldType::kObject, .nested = &ResearchLimitsSchema(),
           .description = "Limits of research mode (ignored in standard mode)."},
          {.name = "stream", .type = FieldType::kBoolean, .default_json = "false",
           .description = "Answer as a text/event-stream (also chosen by Accept: text/event-stream)."},
          {.name = "no_cache", .type = FieldType::kBoolean, .default_json = "false",
           .description = "Skip the whole-answer cache for this request."},
      }};
  return schema;
}

const ObjectSchema& DocumentInputSchema() {
  static const ObjectSchema schema{
      "DocumentInput",
      "A document to index (POST /v1/documents, or one item of a batch). Idempotent by id: sending the same "
      "id again replaces the document.",
      {
          {.name = "id", .type = FieldType::kString, .required = true, .min = 1, .max = 256,
           .check = StringCheck::kIdentifier, .normalize = false, .length_in_bytes = true,
           .description = "Document id, 1..256 bytes of UTF-8 without control characters; compared byte for "
                          "byte."},
          {.name = "tenant", .type = FieldType::kString, .check = StringCheck::kTenant, .normalize = false,
           .description = "Tenant that owns the document (admin credentials only); default: the caller's."},
          {.name = "title", .type = FieldType::kString, .min = 0, .max = 1000, .default_json = "\"\"",
           .description = "Title, 0..1000 characters."},
          {.name = "text", .type = FieldType::kString, .min = 0, .normalize = false, .length_in_bytes = true,
           .allow_controls = true, .max_from_limits = true, .default_json = "\"\"",
           .description = "The document body, stored as given: up to the server's document limit (default "
                          "4 MiB); no NUL characters. May be empty or blank when the title has words (a "
                          "title-only document is one chunk holding its title); otherwise it must have text "
                          "after extraction."},
          {.name = "content_type", .type = FieldType::kString, .enum_values = {"text", "markdown", "html"},
           .normalize = false, .default_json = "\"text\"",
           .description = "How to parse text: text, markdown or html."},
          {.name = "url", .type = FieldType::kString, .max = 2048, .default_json = "\"\"",
           .description = "Canonical URL shown on source cards, 0..2048 characters."},
          {.name = "site", .type = FieldType::kString, .max = 256, .default_json = "\"\"",
           .description = "Site (host) name; default: the URL's host."},
          {.name = "version", .type = FieldType::kString, .max = 256, .default_json = "\"\"",
           .description = "Product version the document describes (e.g. 16)."},
          {.name = "source_type", .type = FieldType::kString, .max = 256, .default_json = "\"\"",
           .description = "Source type (e.g. docs, blog, forum, release_notes)."},
          {.name = "language", .type = FieldType::kString, .max = 256, .default_json = "\"\"",
           .description = "Language tag (e.g. en)."},
          {.name = "published", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "Publication date (YYYY-MM-DD)."},
          {.name = "updated", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "Last update date (YYYY-MM-DD)."},
          {.name = "acl_groups", .type = FieldType::kStringArray, .min = 1, .max = 256, .max_items = 64,
           .check = StringCheck::kIdentifier, .normalize = false, .length_in_bytes = true,
           .description = "Groups allowed to read the document; empty: the whole tenant. At most 64, each "
                          "1..256 bytes."},
          {.name = "access_label", .type = FieldType::kString, .max = 64, .check = StringCheck::kIdentifier,
           .normalize = false, .length_in_bytes = true, .default_json = "\"\"",
           .description = "Access label (one of the server's --access-levels, e.g. public, internal, "
                          "confidential, restricted); a caller reads the document only with a clearance at or "
                          "above it. \"\": the lowest level."},
          {.name = "feed", .type = FieldType::kString, .enum_values = {"", "versions"}, .normalize = false,
           .default_json = "\"\"",
           .description = "\"versions\" marks an authoritative version feed (what the latest version is)."},
          {.name = "license", .type = FieldType::kString, .max = 1000, .length_in_bytes = true,
           .default_json = "\"\"",
           .description = "Licence or terms of the source (e.g. CC BY-SA 4.0), shown with the document, its "
                          "search hits and answer sources; 0..1000 bytes, no control characters."},
          {.name = "fetched_at", .type = FieldType::kString, .max = 64, .normalize = false,
           .default_json = "\"\"",
           .description = "When the text was fetched from its source, ISO 8601 UTC "
                          "(YYYY-MM-DDThh:mm:ss[.fff]Z); \"\": the time of the commit."},
          {.name = "metadata", .type = FieldType::kStringMap, .max = 4096, .max_items = 64,
           .description = "Free-form string metadata: at most 64 keys (1..128 bytes), values up to 4096 "
                          "characters."},
      }};
  return schema;
}

const ObjectSchema& DocumentBatchSchema() {
  static const ObjectSchema schema{
      "DocumentBatchRequest",
      "POST /v1/documents:batch: up to 1000 documents, validated as a whole before any is indexed.",
      {
          {.name = "documents", .type = FieldType::kObjectArray, .required = true, .min_items = 1,
           .max_items = kMaxBatchDocuments, .nested = &DocumentInputSchema(),
           .description = "The documents (1..1000); ids must be distinct."},
      }};
  return schema;
}

const ObjectSchema& ThreadCreateSchema() {
  static const ObjectSchema schema{
      "ThreadCreateRequest",
      "POST /v1/threads: a conversation whose messages may follow up on earlier answers.",
      {
          {.name = "tenant", .type = FieldType::kString, .check = StringCheck::kTenant, .normalize = false,
           .description = kTenantDescription},
          {.name = "title", .type = FieldType::kString, .max = 200, .default_json = "\"\"",
           .description = "Title, 0..200 characters."},
      }};
  return schema;
}

const ObjectSchema& FeedbackSchema() {
  static const ObjectSchema schema{
      "FeedbackRequest",
      "POST /v1/feedback: flags an answer, one of its claims or one of its sources. A flagged answer leaves "
      "the answer cache.",
      {
          {.name = "answer_id", .type = FieldType::kString, .required = true, .min = 1, .max = 128,
           .check = StringCheck::kIdentifier, .normalize = false, .length_in_bytes = true,
           .description = "The answer id from the done event or the answer JSON."},
          {.name = "claim_id", .type = FieldType::kString, .max = 64, .check = StringCheck::kIdentifier,
           .normalize = false, .length_in_bytes = true, .default_json = "\"\"",
           .description = "A claim of that answer, e.g. c2."},
          {.name = "source_id", .type = FieldType::kString, .max = 64, .check = StringCheck::kIdentifier,
           .normalize = false, .length_in_bytes = true, .default_json = "\"\"",
           .description = "A source of that answer, e.g. S3."},
          {.name = "kind", .type = FieldType::kString, .required = true,
           .enum_values = {"wrong", "unsupported", "stale"}, .normalize = false,
           .description = "What is wrong: wrong, unsupported or stale."},
          {.name = "comment", .type = FieldType::kString, .max = static_cast<int64_t>(kMaxFeedbackCommentChars),
           .default_json = "\"\"", .description = "Free text, 0..1000 characters."},
      }};
  return schema;
}

const ObjectSchema& DocumentListQuerySchema() {
  static const ObjectSchema schema{
      "DocumentListQuery",
      "GET /v1/documents: query parameters of the admin document listing (one value each).",
      {
          {.name = "limit", .type = FieldType::kInteger, .min = 1, .max = static_cast<int64_t>(kMaxListLimit),
           .default_json = "20", .description = "Documents per page (1..100)."},
          {.name = "cursor", .type = FieldType::kString, .min = 1, .max = 512, .check = StringCheck::kIdentifier,
           .normalize = false, .length_in_bytes = true,
           .description = "Opaque: the next_cursor of the previous page. Absent = the first page."},
          {.name = "tenant", .type = FieldType::kString, .check = StringCheck::kTenant, .normalize = false,
           .description = "Tenant to list; defaults to the credential's. Only the operator may name another."},
          {.name = "source_type", .type = FieldType::kString, .min = 1, .max = 64,
           .description = "Keep documents of this source type (e.g. docs, release_notes)."},
          {.name = "site", .type = FieldType::kString, .min = 1, .max = 256, .description = "Keep documents of this site."},
          {.name = "version", .type = FieldType::kString, .min = 1, .max = 64,
           .description = "Keep documents of this version label."},
          {.name = "q", .type = FieldType::kString, .min = 1, .max = 200,
           .description = "Keep documents whose id or title contains this text (ASCII letters case-insensitive; "
                          "1..200 characters)."},
          {.name = "date_from", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "Keep documents dated (published, else updated) on or after this day (YYYY-MM-DD)."},
          {.name = "date_to", .type = FieldType::kString, .check = StringCheck::kDate, .normalize = false,
           .description = "Keep documents dated on or before this day (YYYY-MM-DD); not before date_from."},
      }};
  return schema;
}

std::vector<const ObjectSchema*> AllRequestSchemas() {
  return {&FiltersSchema(),       &ResearchLimitsSchema(), &SearchRequestSchema(), &AnswerRequestSchema(), &DocumentInputSchema(),
          &DocumentBatchSchema(), &ThreadCreateSchema(),  &FeedbackSchema()};
}

namespace {

json Ref(std::string_view name) { return {{"$ref", "#/components/schemas/" + std::string(name)}}; }

json StringSchema(const FieldSpec& f) {
  json s = {{"type", "string"}};
  if (f.check == StringCheck::kTenant) {
    s["pattern"] = "^[a-z0-9_-]{1,32}$";
  } else if (f.check == StringCheck::kDate) {
    s["format"] = "date";
    s["pattern"] = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$";
  }
  if (!f.enum_values.empty()) {
    s["enum"] = json::array();
    for (std::string_view v : f.enum_values) s["enum"].push_back(std::string(v));
  } else if (f.check != StringCheck::kTenant && f.check != StringCheck::kDate) {
    if (f.min > 0) s["minLength"] = f.min;
    if (f.max > 0 && !f.max_from_limits) s["maxLength"] = f.max;  // bytes-limited fields: a looser bound
  }
  return s;
}

json FieldSchema(const FieldSpec& f) {
  json s;
  switch (f.type) {
    case FieldType::kString:
      s = StringSchema(f);
      break;
    case FieldType::kInteger:
      s = {{"type", "integer"}, {"minimum", f.min}, {"maximum", f.max}};
      break;
    case FieldType::kNumber:
      s = {{"type", "number"}, {"minimum", f.min}, {"maximum", f.max}};
      break;
    case FieldType::kBoolean:
      s = {{"type", "boolean"}};
      break;
    case FieldType::kStringArray:
      s = {{"type", "array"}, {"items", StringSchema(f)}, {"maxItems", f.max_items}};
      if (f.min_items > 0) s["minItems"] = f.min_items;
      break;
    case FieldType::kObject:
      // `type` beside allOf: OpenAPI 3.0.3 ignores `nullable` without a `type` in the same object.
      s = {{"type", "object"}, {"allOf", json::array({Ref(f.nested->name)})}};
      break;
    case FieldType::kObjectArray:
      s = {{"type", "array"}, {"items", Ref(f.nested->name)}, {"maxItems", f.max_items}};
      if (f.min_items > 0) s["minItems"] = f.min_items;
      break;
    case FieldType::kStringMap:
      s = {{"type", "object"},
           {"additionalProperties", {{"type", "string"}, {"maxLength", f.max}}},
           {"maxProperties", f.max_items}};
      break;
  }
  if (!f.required) s["nullable"] = true;  // null means absent for optional fields
  if (!f.default_json.empty()) s["default"] = json::parse(f.default_json);
  s["description"] = std::string(f.description);
  return s;
}

}  // namespace

json SchemaToOpenApi(const ObjectSchema& schema) {
  json properties = json::object();
  json required = json::array();
  json one_of = json::array();
  for (const FieldSpec& f : schema.fields) {
    properties[std::string(f.name)] = FieldSchema(f);
    if (!f.alias.empty()) {
      json alias = FieldSchema(f);
      alias["description"] = "Alias of " + std::string(f.name) + "; give one of them, not both.";
      properties[std::string(f.alias)] = alias;
      if (f.required) {
        one_of.push_back({{"required", json::array({std::string(f.name)})}});
        one_of.push_back({{"required", json::array({std::string(f.alias)})}});
      }
    } else if (f.required) {
      required.push_back(std::string(f.name));
    }
  }
  json s = {{"type", "object"},
            {"description", std::string(schema.description)},
            {"properties", properties},
            {"additionalProperties", false}};
  if (!required.empty()) s["required"] = required;
  if (!one_of.empty()) s["oneOf"] = one_of;
  return s;
}

}  // namespace attest::service
