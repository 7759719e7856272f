// The declarative field tables of the v1 request contracts and the one validator that walks them.
// Each request type is an ObjectSchema: a list of FieldSpecs (name, JSON type, required, bounds,
// enum values, pattern, default, description). The same tables drive
//   - validation (ValidateObject): unknown, forbidden and duplicate keys, types, bounds, patterns,
//     NFC normalization and trimming, list sizes, nested paths such as "filters.sites[2]";
//   - the OpenAPI schemas (SchemaToOpenApi), so documentation and parser cannot drift apart.
// ParseJsonBody is the strict body reader in front of it: valid UTF-8, valid JSON (error names the
// byte offset), no duplicate keys, a nesting bound, a top-level object. Nothing here throws.
//
// Thread-safety: the tables are immutable statics; all functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/api_error.h"
#include "service/contracts.h"

namespace attest::service {

inline constexpr int kMaxJsonDepth = 16;  // deepest legal request: documents[i].metadata = 3

enum class FieldType {
  kString,
  kInteger,
  kNumber,        // a finite JSON number (integer or not) within [min, max]
  kBoolean,
  kStringArray,   // array of strings; the item rules are the field's string rules
  kObject,        // nested object described by `nested`
  kObjectArray,   // array of objects described by `nested`
  kStringMap,     // object with string values only; key rules: 1..128 bytes, no control characters
};

enum class StringCheck {
  kNone,
  kTenant,     // [a-z0-9_-]{1,32}
  kDate,       // YYYY-MM-DD, a real calendar date
  kIdentifier, // no control characters anywhere, not normalized (ids are compared byte for byte)
};

struct ObjectSchema;

struct FieldSpec {
  std::string_view name;
  FieldType type = FieldType::kString;
  bool required = false;
  // kInteger, kNumber: value bounds. kString (and items of kStringArray): length bounds, in code points
  // unless `length_in_bytes`. kStringArray / kObjectArray / kStringMap: see min_items / max_items.
  int64_t min = 0;
  int64_t max = 0;
  size_t min_items = 0;
  size_t max_items = 0;
  std::vector<std::string_view> enum_values;  // exact matches; empty = any
  StringCheck check = StringCheck::kNone;
  bool normalize = true;        // strings: NFC, then trim Unicode white space
  bool length_in_bytes = false;
  bool allow_controls = false;  // strings: only NUL is rejected (document text); else C0 (but tab,
                                // LF, CR in normalized text), DEL and C1 are rejected
  bool max_from_limits = false; // kString: max is ParseLimits::max_document_bytes (bytes)
  std::string_view default_json;  // JSON literal of the default, "" = none (documented and applied)
  std::string_view alias;         // accepted alternative name (AnswerRequest: "question" for "query")
  const ObjectSchema* nested = nullptr;
  std::string_view description;
};

struct ObjectSchema {
  std::string_view name;         // OpenAPI component name, e.g. "SearchRequest"
  std::string_view description;
  std::vector<FieldSpec> fields;
};

// The tables (one per request type; filters and documents are nested in others).
const ObjectSchema& FiltersSchema();
const ObjectSchema& ResearchLimitsSchema();  // AnswerRequest.research
const ObjectSchema& SearchRequestSchema();
const ObjectSchema& AnswerRequestSchema();
const ObjectSchema& DocumentInputSchema();
const ObjectSchema& DocumentBatchSchema();
const ObjectSchema& ThreadCreateSchema();
const ObjectSchema& FeedbackSchema();
// The query parameters of GET /v1/documents (rendered as OpenAPI parameters, not a component).
const ObjectSchema& DocumentListQuerySchema();
std::vector<const ObjectSchema*> AllRequestSchemas();  // every body table, for the OpenAPI components

// Reads a request body: UTF-8, JSON, duplicate keys, nesting depth, top level an object (or an
// array when `allow_array`: a CloudEvents JSON batch).
ApiResult<nlohmann::json> ParseJsonBody(std::string_view body, bool allow_array = false);

// Validates `object` (must be a JSON object) against `schema`. On success returns a new object
// holding only known fields, with aliases renamed to the canonical name, nulls of optional fields
// dropped, absent fields with a default filled in, and strings normalized. `path` prefixes the
// field names in errors ("" at the top level, "documents[3]" inside a batch).
ApiResult<nlohmann::json> ValidateObject(const nlohmann::json& object, const ObjectSchema& schema,
                                         const std::string& path, const ParseLimits& limits);

// One string value under a field's rules (NFC/trim, length, pattern, enum, control characters);
// returns the normalized string. Exposed for path parameters (ParseDocumentId).
ApiResult<std::string> ValidateString(std::string_view value, const FieldSpec& spec, const std::string& path,
                                      const ParseLimits& limits);

// True for a real calendar date written YYYY-MM-DD.
bool ValidDate(std::string_view s);

// The OpenAPI 3.0 schema object of a table (type object, properties, required, additionalProperties
// false); nested tables are referenced as #/components/schemas/<name>.
nlohmann::json SchemaToOpenApi(const ObjectSchema& schema);

}  // namespace attest::service
