// The typed request parsers of service/contracts.h: each reads the body (ParseJsonBody), validates
// it against its table (service/schema.h) and copies the validated, normalized values into the
// struct. The copying below trusts the validator for types and bounds; every name it reads is a
// field of the table (tests/service_contracts_test.cc checks the defaults agree with the structs).
#include "service/contracts.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <set>

#include "service/base64url.h"
#include "service/schema.h"

namespace attest::service {
namespace {

using nlohmann::json;

void Get(const json& v, const char* name, std::string* out) {
  if (auto it = v.find(name); it != v.end()) *out = it->get<std::string>();
}
void Get(const json& v, const char* name, std::optional<std::string>* out) {
  if (auto it = v.find(name); it != v.end()) *out = it->get<std::string>();
}
void Get(const json& v, const char* name, uint32_t* out) {
  if (auto it = v.find(name); it != v.end()) *out = static_cast<uint32_t>(it->get<int64_t>());
}
void Get(const json& v, const char* name, std::optional<uint32_t>* out) {
  if (auto it = v.find(name); it != v.end()) *out = static_cast<uint32_t>(it->get<int64_t>());
}
void Get(const json& v, const char* name, double* out) {
  if (auto it = v.find(name); it != v.end() && it->is_number()) *out = it->get<double>();
}
void Get(const json& v, const char* name, bool* out) {
  if (auto it = v.find(name); it != v.end()) *out = it->get<bool>();
}
void Get(const json& v, const char* name, std::vector<std::string>* out) {
  if (auto it = v.find(name); it != v.end()) *out = it->get<std::vector<std::string>>();
}
void Get(const json& v, const char* name, std::map<std::string, std::string>* out) {
  if (auto it = v.find(name); it != v.end()) *out = it->get<std::map<std::string, std::string>>();
}

RequestFilters ToFilters(const json& v) {
  RequestFilters f;
  auto it = v.find("filters");
  if (it == v.end()) return f;
  Get(*it, "source_types", &f.source_types);
  Get(*it, "sites", &f.sites);
  Get(*it, "versions", &f.versions);
  Get(*it, "date_from", &f.date_from);
  Get(*it, "date_to", &f.date_to);
  return f;
}

DocumentInput ToDocument(const json& v) {
  DocumentInput d;
  Get(v, "id", &d.id);
  Get(v, "tenant", &d.tenant);
  Get(v, "title", &d.title);
  Get(v, "text", &d.text);
  Get(v, "content_type", &d.content_type);
  Get(v, "url", &d.url);
  Get(v, "site", &d.site);
  Get(v, "version", &d.version);
  Get(v, "source_type", &d.source_type);
  Get(v, "language", &d.language);
  Get(v, "published", &d.published);
  Get(v, "updated", &d.updated);
  Get(v, "acl_groups", &d.acl_groups);
  Get(v, "access_label", &d.access_label);
  Get(v, "feed", &d.feed);
  Get(v, "license", &d.license);
  Get(v, "fetched_at", &d.fetched_at);
  Get(v, "metadata", &d.metadata);
  return d;
}

// Reads and validates a body against `schema`, then converts it with `convert`. Catches
// everything: a parser never throws, whatever the input.
template <class T, class Convert>
ApiResult<T> Parse(std::string_view body, const ObjectSchema& schema, const ParseLimits& limits, Convert convert) {
  try {
    ApiResult<json> parsed = ParseJsonBody(body);
    if (!parsed.ok()) return parsed.error();
    ApiResult<json> valid = ValidateObject(parsed.value(), schema, "", limits);
    if (!valid.ok()) return valid.error();
    return convert(valid.value());
  } catch (const std::bad_alloc&) {
    return ApiError{ApiErrorCode::kPayloadTooLarge, "the request is too large to process", ""};
  } catch (const std::exception& e) {
    return ApiError{ApiErrorCode::kInternal, std::string("request parsing failed: ") + e.what(), ""};
  } catch (...) {
    return ApiError{ApiErrorCode::kInternal, "request parsing failed", ""};
  }
}

}  // namespace

bool ValidTenant(std::string_view tenant) {
  if (tenant.empty() || tenant.size() > 32) return false;
  for (char c : tenant) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

bool ValidRequestId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == ':' || c == '-')) {
      return false;
    }
  }
  return true;
}

ApiResult<std::string> ParseDocumentId(std::string_view id, std::string_view field) {
  try {
    // The same rules as DocumentInput.id, so an id accepted in a body can be fetched by path.
    const FieldSpec& spec = DocumentInputSchema().fields.front();
    return ValidateString(id, spec, std::string(field), ParseLimits{});
  } catch (...) {
    return ApiError{ApiErrorCode::kInternal, "document id validation failed", std::string(field)};
  }
}

ApiResult<SearchRequest> ParseSearchRequest(std::string_view body) {
  return Parse<SearchRequest>(body, SearchRequestSchema(), ParseLimits{}, [](const json& v) {
    SearchRequest r;
    Get(v, "query", &r.query);
    Get(v, "tenant", &r.tenant);
    Get(v, "top_k", &r.top_k);
    Get(v, "mode", &r.mode);
    r.filters = ToFilters(v);
    Get(v, "explain", &r.explain);
    Get(v, "deadline_ms", &r.deadline_ms);
    return r;
  });
}

ApiResult<AnswerRequest> ParseAnswerRequest(std::string_view body) {
  return Parse<AnswerRequest>(body, AnswerRequestSchema(), ParseLimits{}, [](const json& v) {
    AnswerRequest r;
    Get(v, "query", &r.query);  // the validator renamed "question" to "query"
    Get(v, "tenant", &r.tenant);
    Get(v, "writer", &r.writer);
    Get(v, "judge", &r.judge);
    Get(v, "max_sentences", &r.max_sentences);
    Get(v, "deadline_ms", &r.deadline_ms);
    Get(v, "today", &r.today);
    r.filters = ToFilters(v);
    Get(v, "multi_hop", &r.multi_hop);
    Get(v, "mode", &r.mode);
    if (auto it = v.find("research"); it != v.end() && it->is_object()) {
      Get(*it, "max_hops", &r.max_hops);
      Get(*it, "max_cost", &r.max_cost);
      Get(*it, "max_ms", &r.max_ms);
    }
    Get(v, "stream", &r.stream);
    Get(v, "no_cache", &r.no_cache);
    return r;
  });
}

namespace {

bool Blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); });
}

// A document needs a body or a title (a title-only document is one chunk holding its title);
// `prefix` is "" or "documents[i]." for the field path.
std::optional<ApiError> CheckHasContent(const DocumentInput& d, const std::string& prefix) {
  if (!Blank(d.text) || !Blank(d.title)) return std::nullopt;
  return InvalidField(prefix + "text", prefix + "text must not be empty or blank unless the document has a title");
}

}  // namespace

ApiResult<DocumentInput> ParseDocumentInput(std::string_view body, const ParseLimits& limits) {
  return Parse<DocumentInput>(body, DocumentInputSchema(), limits, [](const json& v) -> ApiResult<DocumentInput> {
    DocumentInput d = ToDocument(v);
    if (auto e = CheckHasContent(d, "")) return *e;
    return d;
  });
}

ApiResult<DocumentBatchRequest> ParseDocumentBatch(std::string_view body, const ParseLimits& limits) {
  return Parse<DocumentBatchRequest>(
      body, DocumentBatchSchema(), limits, [](const json& v) -> ApiResult<DocumentBatchRequest> {
        DocumentBatchRequest r;
        std::map<std::string, size_t> seen;  // id -> first index
        const json& docs = v.at("documents");
        r.documents.reserve(docs.size());
        for (size_t i = 0; i < docs.size(); ++i) {
          DocumentInput d = ToDocument(docs[i]);
          if (auto e = CheckHasContent(d, "documents[" + std::to_string(i) + "].")) return *e;
          // Ids are per tenant; an item without a tenant is in the caller's.
          const std::string key = d.tenant.value_or("") + '\n' + d.id;
          auto [it, inserted] = seen.emplace(key, i);
          if (!inserted) {
            const std::string field = "documents[" + std::to_string(i) + "].id";
            return InvalidField(field, field + " repeats the id of documents[" + std::to_string(it->second) +
                                           "]; ids in a batch must be distinct");
          }
          r.documents.push_back(std::move(d));
        }
        return r;
      });
}

ApiResult<ThreadCreateRequest> ParseThreadCreate(std::string_view body) {
  return Parse<ThreadCreateRequest>(body, ThreadCreateSchema(), ParseLimits{}, [](const json& v) {
    ThreadCreateRequest r;
    Get(v, "tenant", &r.tenant);
    Get(v, "title", &r.title);
    return r;
  });
}

ApiResult<FeedbackRequest> ParseFeedback(std::string_view body) {
  return Parse<FeedbackRequest>(body, FeedbackSchema(), ParseLimits{}, [](const json& v) {
    FeedbackRequest r;
    Get(v, "answer_id", &r.answer_id);
    Get(v, "claim_id", &r.claim_id);
    Get(v, "source_id", &r.source_id);
    Get(v, "kind", &r.kind);
    Get(v, "comment", &r.comment);
    return r;
  });
}

namespace {

constexpr std::string_view kCursorTag = "d1:";  // the cursor format: "d1:" + the last id listed

ApiError InvalidParameter(const std::string& name, std::string message) {
  return ApiError{ApiErrorCode::kInvalidRequest, std::move(message), name};
}

}  // namespace

std::string DocumentListCursor(const std::string& after_id) {
  return Base64UrlEncode(std::string(kCursorTag) + after_id);
}

ApiResult<DocumentListRequest> ParseDocumentListQuery(const std::map<std::string, std::string>& query) {
  try {
    const ObjectSchema& schema = DocumentListQuerySchema();
    json object = json::object();
    for (const auto& entry : query) {
      const std::string& name = entry.first;  // not a structured binding: lambdas below capture it
      const std::string& value = entry.second;
      auto spec = std::find_if(schema.fields.begin(), schema.fields.end(),
                               [&](const FieldSpec& f) { return f.name == name; });
      if (spec == schema.fields.end()) {
        std::string accepted;
        for (const FieldSpec& f : schema.fields) accepted += (accepted.empty() ? "" : ", ") + std::string(f.name);
        return InvalidParameter(name.size() > 64 ? name.substr(0, 64) : name,
                                "unknown query parameter \"" + (name.size() > 64 ? name.substr(0, 64) + "…" : name) +
                                    "\" (accepted: " + accepted + ")");
      }
      if (spec->type == FieldType::kInteger) {
        const bool digits = !value.empty() && value.size() <= 9 &&
                            std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
        if (!digits) {
          return InvalidParameter(name, name + " must be an integer in " + std::to_string(spec->min) + ".." +
                                            std::to_string(spec->max));
        }
        object[name] = std::stoll(value);
      } else {
        object[name] = value;
      }
    }
    ApiResult<json> valid = ValidateObject(object, schema, "", ParseLimits{});
    if (!valid.ok()) return valid.error();
    const json& v = valid.value();
    DocumentListRequest r;
    Get(v, "limit", &r.limit);
    Get(v, "tenant", &r.tenant);
    Get(v, "source_type", &r.source_type);
    Get(v, "site", &r.site);
    Get(v, "version", &r.version);
    Get(v, "q", &r.q);
    Get(v, "date_from", &r.date_from);
    Get(v, "date_to", &r.date_to);
    if (auto it = v.find("cursor"); it != v.end()) {
      std::optional<std::string> raw = Base64UrlDecode(it->get<std::string>());
      if (!raw || raw->size() <= kCursorTag.size() || raw->compare(0, kCursorTag.size(), kCursorTag) != 0) {
        return InvalidParameter("cursor", "cursor is not one this server made (pass next_cursor of the previous page "
                                          "as it is)");
      }
      ApiResult<std::string> id = ParseDocumentId(std::string_view(*raw).substr(kCursorTag.size()), "cursor");
      if (!id.ok() || id.value() != raw->substr(kCursorTag.size())) {
        return InvalidParameter("cursor", "cursor is not one this server made (pass next_cursor of the previous page "
                                          "as it is)");
      }
      r.after_id = id.value();
    }
    return r;
  } catch (const std::exception& e) {
    return ApiError{ApiErrorCode::kInternal, std::string("query parsing failed: ") + e.what(), ""};
  } catch (...) {
    return ApiError{ApiErrorCode::kInternal, "query parsing failed", ""};
  }
}

}  // namespace attest::service
