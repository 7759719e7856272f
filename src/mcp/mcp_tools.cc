// The tool table and the calls (mcp/mcp_tools.h).
#include "mcp/mcp_tools.h"

#include <functional>
#include <vector>

#include "service/contracts.h"

namespace attest::mcp {
namespace {

using nlohmann::json;
using service::ApiError;
using service::ApiResult;
using service::Identity;

const json kTenant = {{"type", "string"}, {"pattern", "^[a-z0-9_-]{1,32}$"},
                      {"description", "Another tenant (only a deployment operator may name one); default: the caller's."}};
const json kDocId = {{"type", "string"}, {"minLength", 1}, {"maxLength", 256}, {"description", "The document id."}};
const json kString = {{"type", "string"}};

json Object(json properties, json required) {
  return json{{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)},
              {"additionalProperties", false}};
}

json ArrayOf(json items) { return json{{"type", "array"}, {"items", std::move(items)}}; }

// Output schemas: the fields every result has (open to additions, as the outputs may grow).
json Open(json properties, json required) {
  return json{{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

json AskOutputSchema() {
  json citation = Open({{"source", kString}, {"doc_id", kString}, {"quote", kString}}, {"source", "doc_id", "quote"});
  json claim = Open({{"id", kString}, {"text", kString}, {"verdict", kString}, {"citations", ArrayOf(citation)}},
                    {"id", "text", "verdict", "citations"});
  json source = Open({{"id", kString}, {"n", {{"type", "integer"}}}, {"doc_id", kString}, {"title", kString},
                      {"url", kString}, {"date", kString}, {"fetched_at", kString}},
                     {"id", "n", "doc_id", "title", "url", "date", "fetched_at"});
  json result = Open({{"doc_id", kString}, {"title", kString}, {"url", kString}, {"snippet", kString}},
                     {"doc_id", "title", "url", "snippet"});
  return Open({{"outcome", {{"type", "string"}, {"enum", {"answer", "fallback", "calculation", "greeting"}}}},
               {"answer", kString},
               {"claims", ArrayOf(claim)},
               {"sources", ArrayOf(source)},
               {"as_of", kString},
               {"fallback_reason", kString},
               {"results", ArrayOf(result)}},
              {"outcome", "answer", "claims", "sources", "as_of"});
}

json SearchOutputSchema() {
  json hit = Open({{"doc_id", kString}, {"chunk_id", {{"type", "integer"}}}, {"title", kString}, {"url", kString},
                   {"date", kString}, {"snippet", kString}, {"score", {{"type", "number"}}}},
                  {"doc_id", "chunk_id", "title", "url", "date", "snippet", "score"});
  return Open({{"hits", ArrayOf(hit)}}, {"hits"});
}

struct Tool {
  const char* name;
  const char* title;
  const char* description;
  bool admin_only;
  json input;
  json output;
  json annotations;
};

const std::vector<Tool>& Tools() {
  static const std::vector<Tool>* tools = [] {
    const json read_only = {{"readOnlyHint", true}, {"openWorldHint", false}};
    auto* t = new std::vector<Tool>{
        {"ask", "Ask (cited answer)",
         "A verified answer from the caller's documents: the answer text with [n] citation markers, each claim with "
         "its verdict and quotes, the sources with URLs and dates, and the snapshot time (as_of). When no answer can "
         "be verified, the reason and a list of the closest documents instead. Quote the markers and the Sources list.",
         false,
         Object({{"question", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}, {"description", "The question."}}},
                 {"max_sentences", {{"type", "integer"}, {"minimum", 1}, {"maximum", 10}, {"description", "At most this many answer sentences (default 3)."}}},
                 {"mode", {{"type", "string"}, {"enum", {"standard", "research"}}, {"description", "research: search in rounds until nothing is missing or a limit is reached (slower; default standard)."}}},
                 {"research", {{"type", "object"},
                               {"properties", {{"max_hops", {{"type", "integer"}, {"minimum", 1}, {"maximum", 16}}},
                                               {"max_cost", {{"type", "number"}, {"minimum", 0}}},
                                               {"max_ms", {{"type", "integer"}, {"minimum", 0}}}}},
                               {"additionalProperties", false},
                               {"description", "Research mode's limits: rounds (default 4), cost (0 = none), milliseconds (0 = none)."}}},
                 {"tenant", kTenant}},
                {"question"}),
         AskOutputSchema(), read_only},
        {"search", "Search passages", "Ranked passages (chunks) of the caller's documents for a query.", false,
         Object({{"query", {{"type", "string"}, {"minLength", 1}, {"maxLength", 2000}}},
                 {"top_k", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"description", "Default 10."}}},
                 {"mode", {{"type", "string"}, {"enum", {"auto", "bm25", "vector", "hybrid"}}, {"description", "Default auto."}}},
                 {"tenant", kTenant}},
                {"query"}),
         SearchOutputSchema(), read_only},
        {"get_document", "Read a document", "One document the caller may read: its metadata and full text.", false,
         Object({{"id", kDocId}, {"tenant", kTenant}}, {"id"}),
         Open({{"id", kString}, {"title", kString}, {"url", kString}, {"text", kString}}, {"id", "title", "url", "text"}),
         read_only},
        {"list_documents", "List documents",
         "A page of the tenant's documents in id order, without their text (admin or operator credentials).", false,
         Object({{"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"description", "Default 20."}}},
                 {"cursor", {{"type", "string"}, {"description", "next_cursor of the previous page."}}},
                 {"q", {{"type", "string"}, {"minLength", 1}, {"maxLength", 200}, {"description", "Substring of the id or title."}}},
                 {"tenant", kTenant}},
                json::array()),
         Open({{"documents", ArrayOf({{"type", "object"}})}, {"next_cursor", {{"type", {"string", "null"}}}},
               {"total", {{"type", "integer"}}}},
              {"documents", "next_cursor", "total"}),
         read_only},
        {"add_document", "Add or replace a document",
         "Stores a document (idempotent by id: new content replaces the old version). Admin credentials only.", true,
         Object({{"id", kDocId},
                 {"text", {{"type", "string"}, {"description", "The document text."}}},
                 {"title", {{"type", "string"}, {"maxLength", 1000}}},
                 {"url", {{"type", "string"}, {"maxLength", 2048}}},
                 {"content_type", {{"type", "string"}, {"enum", {"text", "markdown", "html"}}}},
                 {"acl_groups", {{"type", "array"}, {"items", kString}, {"maxItems", 64},
                                 {"description", "Groups that may read it; empty = the whole tenant."}}},
                 {"site", kString}, {"version", kString}, {"source_type", kString}, {"language", kString},
                 {"published", {{"type", "string"}, {"description", "YYYY-MM-DD"}}},
                 {"updated", {{"type", "string"}, {"description", "YYYY-MM-DD"}}},
                 {"access_label", kString}, {"license", kString},
                 {"fetched_at", {{"type", "string"}, {"description", "ISO 8601 UTC, e.g. 2026-11-20T09:12:00Z"}}},
                 {"tenant", kTenant}},
                {"id", "text"}),
         Open({{"snapshot_version", {{"type", "integer"}}}, {"added", {{"type", "integer"}}},
               {"replaced", {{"type", "integer"}}}, {"unchanged", {{"type", "integer"}}}},
              {"snapshot_version", "added", "replaced", "unchanged"}),
         {{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}}},
        {"delete_document", "Delete a document", "Deletes a document of the tenant. Admin credentials only.", true,
         Object({{"id", kDocId}, {"tenant", kTenant}}, {"id"}),
         Open({{"id", kString}, {"deleted", {{"type", "boolean"}}}}, {"id", "deleted"}),
         {{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", true}, {"openWorldHint", false}}},
    };
    return t;
  }();
  return *tools;
}

const Tool* Find(std::string_view name) {
  for (const Tool& t : Tools()) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

const char* JsonTypeName(const json& v) {
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number_integer() || v.is_number_unsigned()) return "an integer";
  if (v.is_number()) return "a fractional number";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

// Unknown and missing arguments and JSON types, against the tool's input schema. Bounds, patterns
// and normalization are left to the service's parsers, which name the field the same way.
std::optional<std::string> CheckArguments(const Tool& tool, const json& args) {
  const json& props = tool.input["properties"];
  for (const auto& [key, value] : args.items()) {
    if (!props.contains(key)) return "unknown argument '" + key + "' (tool " + tool.name + " takes: " +
                                     [&] {
                                       std::string names;
                                       for (const auto& [k, v] : props.items()) names += (names.empty() ? "" : ", ") + k;
                                       return names;
                                     }() + ")";
    const std::string type = props[key]["type"];
    bool ok = type == "string"    ? value.is_string()
              : type == "integer" ? (value.is_number_integer() || value.is_number_unsigned())
              : type == "array"   ? value.is_array()
                                  : true;
    if (type == "array" && ok) {
      for (const json& item : value) ok = ok && item.is_string();
      if (!ok) return "argument '" + key + "' must be an array of strings";
    }
    if (!ok) return "argument '" + key + "' must be " + (type == "integer" ? "an integer" : "a " + type) + ", got " +
                    JsonTypeName(value);
  }
  for (const json& r : tool.input["required"]) {
    if (!args.contains(r.get<std::string>())) return "missing required argument '" + r.get<std::string>() + "'";
  }
  return std::nullopt;
}

// A service error as the tool's error text: "forbidden: ... (argument 'id')".
json ServiceError(const ApiError& e, const std::map<std::string, std::string>& renames = {}) {
  std::string text = std::string(service::ApiErrorCodeName(e.code)) + ": " + e.message;
  std::string field = e.field;
  if (auto it = renames.find(field); it != renames.end()) field = it->second;
  if (!field.empty()) text += " (argument '" + field + "')";
  if (e.retry_after_seconds > 0) text += "; retry after " + std::to_string(e.retry_after_seconds) + " s";
  return ToolError(std::move(text));
}

json Done(json structured, std::string text) {
  return json{{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})},
              {"structuredContent", std::move(structured)},
              {"isError", false}};
}

// The service's body (JSON text) as an object; a body that is not one is an internal error.
std::optional<json> Body(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  return j;
}

std::string OptionalString(const json& args, const char* key) {
  return args.contains(key) ? args[key].get<std::string>() : std::string();
}

// The answer body with only what AskStructured reads: the plan, freshness, timings, the passages'
// texts and (unless the answer is a fallback) the result list are not built (they are most of the
// body; building them cost a measurable share of an MCP ask, bench/faces/run.sh).
std::optional<json> AnswerBody(const std::string& text) {
  std::string top;
  bool fallback = false, dropped_results = false;
  auto keep = [&](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1) {
      top = parsed.get<std::string>();
      if (top == "results" && !fallback) {
        dropped_results = true;
        return false;
      }
      return top == "outcome" || top == "answer" || top == "claims" || top == "sources" || top == "as_of" ||
             top == "fallback_reason" || top == "results";
    }
    if (event == json::parse_event_t::key && depth == 3 && top == "sources") return parsed != "text";
    if (event == json::parse_event_t::value && depth == 1 && top == "outcome") fallback = parsed == "fallback";
    return true;
  };
  json j = json::parse(text, keep, /*allow_exceptions=*/false);
  if (fallback && dropped_results) j = json::parse(text, nullptr, false);  // "results" came before "outcome"
  if (!j.is_object()) return std::nullopt;
  return j;
}

json Ask(service::Service& svc, const json& args, const Identity& who, const service::RequestContext& ctx) {
  json body = {{"question", args["question"]}};
  for (const char* k : {"max_sentences", "tenant", "mode", "research"}) {
    if (args.contains(k)) body[k] = args[k];
  }
  auto req = service::ParseAnswerRequest(body.dump());
  if (!req.ok()) return ServiceError(req.error(), {{"query", "question"}});
  auto r = svc.Answer(who, req.value(), ctx, nullptr);
  if (!r.ok()) return ServiceError(r.error(), {{"query", "question"}});
  auto parsed = AnswerBody(r.value());
  if (!parsed) return ToolError("internal: the answer could not be read");
  json s = AskStructured(*parsed);
  std::string text = AskText(s);
  return Done(std::move(s), std::move(text));
}

json Search(service::Service& svc, const json& args, const Identity& who, const service::RequestContext& ctx) {
  auto req = service::ParseSearchRequest(args.dump());
  if (!req.ok()) return ServiceError(req.error());
  auto r = svc.Search(who, req.value(), ctx);
  if (!r.ok()) return ServiceError(r.error());
  auto parsed = Body(r.value());
  if (!parsed) return ToolError("internal: the search result could not be read");
  json s = SearchStructured(*parsed);
  std::string text = SearchText(s);
  return Done(std::move(s), std::move(text));
}

// id and tenant of get_document / delete_document, checked as the path and query of the v1 routes.
std::optional<json> IdAndTenant(const json& args, std::string* id, std::string* tenant) {
  auto parsed = service::ParseDocumentId(args["id"].get<std::string>());
  if (!parsed.ok()) return ServiceError(parsed.error());
  *id = parsed.value();
  *tenant = OptionalString(args, "tenant");
  if (args.contains("tenant") && !service::ValidTenant(*tenant)) {
    return ToolError("invalid_request: tenant must match [a-z0-9_-]{1,32} (argument 'tenant')");
  }
  return std::nullopt;
}

json GetDocument(service::Service& svc, const json& args, const Identity& who, const service::RequestContext& ctx) {
  std::string id, tenant;
  if (auto bad = IdAndTenant(args, &id, &tenant)) return *bad;
  auto r = svc.GetDocument(who, id, tenant, ctx);
  if (!r.ok()) return ServiceError(r.error());
  auto parsed = Body(r.value());
  if (!parsed) return ToolError("internal: the document could not be read");
  json d = std::move(*parsed);
  for (const char* k : {"request_id", "versions", "sha256", "chunk_ids"}) d.erase(k);
  std::string text = d.value("title", "") + (d.value("url", "").empty() ? "" : " — " + d.value("url", "")) + "\n\n" +
                     d.value("text", "");
  return Done(std::move(d), std::move(text));
}

json ListDocuments(service::Service& svc, const json& args, const Identity& who, const service::RequestContext& ctx) {
  std::map<std::string, std::string> query;
  if (args.contains("limit")) query["limit"] = args["limit"].dump();
  for (const char* k : {"cursor", "q", "tenant"}) {
    if (args.contains(k)) query[k] = args[k].get<std::string>();
  }
  auto req = service::ParseDocumentListQuery(query);
  if (!req.ok()) return ServiceError(req.error());
  auto r = svc.ListDocuments(who, req.value(), ctx);
  if (!r.ok()) return ServiceError(r.error());
  auto parsed = Body(r.value());
  if (!parsed) return ToolError("internal: the list could not be read");
  json d = std::move(*parsed);
  for (const char* k : {"request_id", "versions"}) d.erase(k);
  std::string text = std::to_string(d.value("total", 0)) + " documents";
  for (const json& doc : d.value("documents", json::array())) {
    text += "\n- " + doc.value("id", "") + (doc.value("title", "").empty() ? "" : ": " + doc.value("title", ""));
  }
  if (d.contains("next_cursor") && d["next_cursor"].is_string()) text += "\nnext cursor: " + d["next_cursor"].get<std::string>();
  return Done(std::move(d), std::move(text));
}

json AddDocument(service::Service& svc, const json& args, const Identity& who, const service::RequestContext& ctx) {
  auto doc = service::ParseDocumentInput(args.dump());
  if (!doc.ok()) return ServiceError(doc.error());
  std::vector<service::DocumentInput> docs;
  docs.push_back(std::move(doc).value());
  auto r = svc.PutDocuments(who, std::move(docs), ctx);
  if (!r.ok()) return ServiceError(r.error());
  auto parsed = Body(r.value());
  if (!parsed) return ToolError("internal: the write result could not be read");
  json d = std::move(*parsed);
  for (const char* k : {"request_id", "versions"}) d.erase(k);
  std::string text = "Stored '" + args["id"].get<std::string>() + "': added " + std::to_string(d.value("added", 0)) +
                     ", replaced " + std::to_string(d.value("replaced", 0)) + ", unchanged " +
                     std::to_string(d.value("unchanged", 0)) + " (snapshot " +
                     std::to_string(d.value("snapshot_version", 0)) + ").";
  return Done(std::move(d), std::move(text));
}

json DeleteDocument(service::Service& svc, const json& args, const Identity& who, const service::RequestContext& ctx) {
  std::string id, tenant;
  if (auto bad = IdAndTenant(args, &id, &tenant)) return *bad;
  auto r = svc.DeleteDocument(who, id, tenant, ctx);
  if (!r.ok()) return ServiceError(r.error());
  auto parsed = Body(r.value());
  if (!parsed) return ToolError("internal: the delete result could not be read");
  json d = std::move(*parsed);
  for (const char* k : {"request_id", "versions"}) d.erase(k);
  return Done(std::move(d), "Deleted '" + id + "'.");
}

}  // namespace

json ToolDefinitions(const Identity& who) {
  json out = json::array();
  for (const Tool& t : Tools()) {
    if (t.admin_only && !who.admin && !who.deployment_operator) continue;
    out.push_back({{"name", t.name}, {"title", t.title}, {"description", t.description}, {"inputSchema", t.input},
                   {"outputSchema", t.output}, {"annotations", t.annotations}});
  }
  return out;
}

bool IsKnownTool(std::string_view name) { return Find(name) != nullptr; }

json CallTool(service::Service& svc, const std::string& name, const json& arguments, const Identity& who,
              const service::RequestContext& ctx) {
  const Tool* tool = Find(name);
  if (!tool) return ToolError("unknown tool '" + name + "'");
  if (tool->admin_only && !who.admin && !who.deployment_operator) {
    return ToolError(std::string("forbidden: ") + tool->name + " needs an admin credential of the tenant");
  }
  if (auto bad = CheckArguments(*tool, arguments)) return ToolError("invalid arguments: " + *bad);
  using Fn = json (*)(service::Service&, const json&, const Identity&, const service::RequestContext&);
  static const std::map<std::string_view, Fn> kCalls = {
      {"ask", &Ask},           {"search", &Search},           {"get_document", &GetDocument},
      {"list_documents", &ListDocuments}, {"add_document", &AddDocument}, {"delete_document", &DeleteDocument}};
  return kCalls.at(tool->name)(svc, arguments, who, ctx);
}

}  // namespace attest::mcp
