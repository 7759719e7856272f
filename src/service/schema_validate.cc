// The strict body reader (ParseJsonBody) and the table-driven validator (ValidateObject,
// ValidateString) declared in service/schema.h.
#include <cmath>
#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <exception>

#include "common/json_guard.h"
#include "common/strings.h"
#include "ingest/text_util.h"
#include "service/schema.h"

namespace attest::service {
namespace {

using nlohmann::json;

std::string JoinPath(const std::string& path, std::string_view name) {
  if (path.empty()) return std::string(name);
  return path + "." + std::string(name);
}

std::string IndexPath(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// At most `max_bytes` of `s`, cut on a UTF-8 character boundary, with "..." when shortened.
std::string Shorten(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return std::string(s);
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return std::string(s.substr(0, cut)) + "...";
}

// `s` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD. nlohmann's error
// text quotes the last bytes read ("last read: '...'"), which may cut a character in half; error
// messages end up in JSON responses and must be valid UTF-8.
std::string ValidUtf8(std::string s) {
  size_t from = 0;
  while (auto bad = ingest::FindInvalidUtf8(std::string_view(s).substr(from))) {
    const size_t at = from + *bad;
    s.replace(at, 1, "\xEF\xBF\xBD");
    from = at + 3;
  }
  return s;
}

const char* TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a non-integer number";
    default: return "a number";
  }
}

// Builds the DOM like nlohmann's own SAX DOM parser, but rejects duplicate keys (naming their
// path) and records where a syntax error happened.
class StrictSax {
 public:
  bool null() { return Put(json(nullptr)) != nullptr; }
  bool boolean(bool v) { return Put(json(v)) != nullptr; }
  bool number_integer(json::number_integer_t v) { return Put(json(v)) != nullptr; }
  bool number_unsigned(json::number_unsigned_t v) { return Put(json(v)) != nullptr; }
  bool number_float(json::number_float_t v, const std::string&) { return Put(json(v)) != nullptr; }
  bool string(std::string& v) { return Put(json(std::move(v))) != nullptr; }
  bool binary(json::binary_t&) { return false; }  // not produced by the JSON text parser

  bool start_object(std::size_t) { return Open(json::object()); }
  bool start_array(std::size_t) { return Open(json::array()); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& k) {
    json* object = stack_.back();
    if (object->contains(k)) {
      duplicate_ = ApiError{ApiErrorCode::kInvalidRequest, "duplicate key \"" + Shorten(k, 64) + "\": each key may appear once",
                            JoinPath(paths_.back(), k)};
      return false;
    }
    pending_key_ = k;
    element_ = &(*object)[k];
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) {
    error_offset_ = position;
    error_text_ = ValidUtf8(CleanJsonErrorMessage(ex.what()));
    return false;
  }

  json& root() { return root_; }
  const std::optional<ApiError>& duplicate() const { return duplicate_; }
  size_t error_offset() const { return error_offset_; }
  const std::string& error_text() const { return error_text_; }

 private:
  // Stores `v` where the parser is (root, array element or the value of the last key); returns it.
  json* Put(json v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json* parent = stack_.back();
    if (parent->is_array()) {
      parent->push_back(std::move(v));
      return &parent->back();
    }
    *element_ = std::move(v);
    return element_;
  }

  bool Open(json container) {
    std::string path;
    if (!stack_.empty()) {
      const json* parent = stack_.back();
      path = parent->is_array() ? IndexPath(paths_.back(), parent->size()) : JoinPath(paths_.back(), pending_key_);
    }
    json* placed = Put(std::move(container));
    stack_.push_back(placed);
    paths_.push_back(std::move(path));
    return true;
  }

  bool Close() {
    stack_.pop_back();
    paths_.pop_back();
    return true;
  }

  json root_;
  std::vector<json*> stack_;
  std::vector<std::string> paths_;
  std::string pending_key_;
  json* element_ = nullptr;
  std::optional<ApiError> duplicate_;
  size_t error_offset_ = 0;
  std::string error_text_;
};

// Code points of valid UTF-8 (the whole body was checked before parsing).
size_t CountCodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool IsControl(UChar32 c, bool allow_text_whitespace) {
  if (allow_text_whitespace && (c == '\t' || c == '\n' || c == '\r')) return false;
  return c < 0x20 || (c >= 0x7F && c <= 0x9F);
}

// First disallowed character: NUL always; other controls unless `allow_controls`.
std::optional<std::pair<size_t, UChar32>> FindForbiddenChar(std::string_view s, bool allow_controls,
                                                            bool allow_text_whitespace) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int32_t n = static_cast<int32_t>(s.size());
  int32_t i = 0;
  size_t index = 0;
  while (i < n) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c == 0 || (!allow_controls && c >= 0 && IsControl(c, allow_text_whitespace))) {
      return std::make_pair(index, c);
    }
    ++index;
  }
  return std::nullopt;
}

std::string CodePointName(UChar32 c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(c));
  return buf;
}

// NFC, then trims Unicode white space at both ends.
std::optional<std::string> NormalizeNfcTrim(std::string_view s) {
  std::string out;
  bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii) {
    out.assign(s);  // NFC is the identity on ASCII
  } else {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
    if (U_FAILURE(status) || nfc == nullptr) return std::nullopt;
    const icu::StringPiece piece(s.data(), static_cast<int32_t>(s.size()));
    if (nfc->isNormalizedUTF8(piece, status) && U_SUCCESS(status)) {
      out.assign(s);
    } else {
      status = U_ZERO_ERROR;
      icu::StringByteSink<std::string> sink(&out);
      nfc->normalizeUTF8(0, piece, sink, nullptr, status);
      if (U_FAILURE(status)) return std::nullopt;
    }
  }
  const auto* p = reinterpret_cast<const uint8_t*>(out.data());
  const int32_t n = static_cast<int32_t>(out.size());
  int32_t begin = 0;
  while (begin < n) {
    int32_t next = begin;
    UChar32 c;
    U8_NEXT(p, next, n, c);
    if (c < 0 || !u_isUWhiteSpace(c)) break;
    begin = next;
  }
  int32_t end = n;
  while (end > begin) {
    int32_t prev = end;
    UChar32 c;
    U8_PREV(p, 0, prev, c);
    if (c < 0 || !u_isUWhiteSpace(c)) break;
    end = prev;
  }
  return out.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin));
}

bool IsBlank(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int32_t n = static_cast<int32_t>(s.size());
  int32_t i = 0;
  while (i < n) {
    UChar32 c;
    U8_NEXT(p, i, n, c);
    if (c < 0 || !u_isUWhiteSpace(c)) return false;
  }
  return true;
}

std::string EnumList(const FieldSpec& spec) {
  std::string list;
  for (std::string_view v : spec.enum_values) {
    if (!list.empty()) list += ", ";
    list += "\"" + std::string(v) + "\"";
  }
  return list;
}

ApiResult<json> ValidateValue(const json& value, const FieldSpec& spec, const std::string& path,
                              const ParseLimits& limits);

ApiResult<json> ValidateStringValue(const json& value, const FieldSpec& spec, const std::string& path,
                                    const ParseLimits& limits) {
  if (!value.is_string()) {
    return InvalidField(path, path + " must be a string, got " + TypeName(value));
  }
  ApiResult<std::string> s = ValidateString(value.get_ref<const std::string&>(), spec, path, limits);
  if (!s.ok()) return s.error();
  return json(std::move(s).value());
}

ApiResult<json> ValidateValue(const json& value, const FieldSpec& spec, const std::string& path,
                              const ParseLimits& limits) {
  switch (spec.type) {
    case FieldType::kString:
      return ValidateStringValue(value, spec, path, limits);
    case FieldType::kInteger: {
      const std::string range = "an integer from " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
      if (value.is_number_integer() && !value.is_number_unsigned()) {
        const int64_t v = value.get<int64_t>();
        if (v < spec.min || v > spec.max) {
          return InvalidField(path, path + " must be " + range + ", got " + std::to_string(v));
        }
        return json(v);
      }
      if (value.is_number_unsigned()) {
        const uint64_t v = value.get<uint64_t>();
        if (spec.min < 0 || v < static_cast<uint64_t>(spec.min) || v > static_cast<uint64_t>(spec.max)) {
          return InvalidField(path, path + " must be " + range + ", got " + std::to_string(v));
        }
        return json(static_cast<int64_t>(v));
      }
      std::string got = TypeName(value);
      if (value.is_string()) got += " (numbers must not be quoted)";
      if (value.is_number_float()) {
        const double d = value.get<double>();
        got = (d >= 9.2e18 || d <= -9.2e18) ? "a number out of range (" + value.dump() + ")"
                                            : got + " (" + value.dump() + ")";
      }
      return InvalidField(path, path + " must be " + range + ", got " + got);
    }
    case FieldType::kNumber: {
      const std::string range = "a number from " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
      if (!value.is_number()) {
        std::string got = TypeName(value);
        if (value.is_string()) got += " (numbers must not be quoted)";
        return InvalidField(path, path + " must be " + range + ", got " + got);
      }
      const double v = value.get<double>();
      if (!std::isfinite(v) || v < double(spec.min) || v > double(spec.max)) {
        return InvalidField(path, path + " must be " + range + ", got " + value.dump());
      }
      return json(v);
    }
    case FieldType::kBoolean:
      if (!value.is_boolean()) {
        return InvalidField(path, path + " must be true or false, got " + std::string(TypeName(value)));
      }
      return value;
    case FieldType::kStringArray: {
      if (!value.is_array()) {
        return InvalidField(path, path + " must be an array of strings, got " + std::string(TypeName(value)));
      }
      if (value.size() > spec.max_items || value.size() < spec.min_items) {
        return InvalidField(path, path + " has " + std::to_string(value.size()) + " items; allowed: " +
                                      std::to_string(spec.min_items) + " to " + std::to_string(spec.max_items));
      }
      json out = json::array();
      for (size_t i = 0; i < value.size(); ++i) {
        ApiResult<json> item = ValidateStringValue(value[i], spec, IndexPath(path, i), limits);
        if (!item.ok()) return item.error();
        out.push_back(std::move(item).value());
      }
      return out;
    }
    case FieldType::kObject:
      if (!value.is_object()) {
        return InvalidField(path, path + " must be an object, got " + std::string(TypeName(value)));
      }
      return ValidateObject(value, *spec.nested, path, limits);
    case FieldType::kObjectArray: {
      if (!value.is_array()) {
        return InvalidField(path, path + " must be an array of objects, got " + std::string(TypeName(value)));
      }
      if (value.size() > spec.max_items || value.size() < spec.min_items) {
        return InvalidField(path, path + " has " + std::to_string(value.size()) + " items; allowed: " +
                                      std::to_string(spec.min_items) + " to " + std::to_string(spec.max_items));
      }
      json out = json::array();
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string item_path = IndexPath(path, i);
        if (!value[i].is_object()) {
          return InvalidField(item_path, item_path + " must be an object, got " + std::string(TypeName(value[i])));
        }
        ApiResult<json> item = ValidateObject(value[i], *spec.nested, item_path, limits);
        if (!item.ok()) return item.error();
        out.push_back(std::move(item).value());
      }
      return out;
    }
    case FieldType::kStringMap: {
      if (!value.is_object()) {
        return InvalidField(path, path + " must be an object of strings, got " + std::string(TypeName(value)));
      }
      if (value.size() > spec.max_items) {
        return InvalidField(path, path + " has " + std::to_string(value.size()) + " keys; the limit is " +
                                      std::to_string(spec.max_items));
      }
      FieldSpec key_spec;
      key_spec.name = "key";
      key_spec.min = 1;
      key_spec.max = 128;
      key_spec.check = StringCheck::kIdentifier;
      key_spec.normalize = false;
      key_spec.length_in_bytes = true;
      json out = json::object();
      for (const auto& [key, item] : value.items()) {
        ApiResult<std::string> k = ValidateString(key, key_spec, path, limits);
        if (!k.ok()) return InvalidField(path, "a key of " + path + " is invalid: " + k.error().message);
        ApiResult<json> v = ValidateStringValue(item, spec, JoinPath(path, key), limits);
        if (!v.ok()) return v.error();
        out[key] = std::move(v).value();
      }
      return out;
    }
  }
  return ApiError{ApiErrorCode::kInternal, "unknown field type in the schema of " + path, path};
}

bool IsForbiddenIdentityField(std::string_view name) {
  return name == "groups" || name == "acl" || name == "user" || name == "clearance" || name == "roles";
}

}  // namespace

bool ValidDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  const int month = (s[5] - '0') * 10 + (s[6] - '0');
  const int day = (s[8] - '0') * 10 + (s[9] - '0');
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  const int max_day = kDays[month - 1] + (month == 2 && leap ? 1 : 0);
  return day <= max_day;
}

ApiResult<std::string> ValidateString(std::string_view value, const FieldSpec& spec, const std::string& path,
                                      const ParseLimits& limits) {
  if (ingest::FindInvalidUtf8(value).has_value()) {
    return InvalidField(path, path + " is not valid UTF-8");
  }
  const bool strict_chars = spec.check != StringCheck::kNone;
  if (auto bad = FindForbiddenChar(value, spec.allow_controls, !strict_chars)) {
    return InvalidField(path, path + " contains the control character " + CodePointName(bad->second) +
                                  " at character " + std::to_string(bad->first));
  }
  std::string s;
  if (spec.normalize) {
    std::optional<std::string> normalized = NormalizeNfcTrim(value);
    if (!normalized) return ApiError{ApiErrorCode::kInternal, "Unicode normalization failed for " + path, path};
    s = std::move(*normalized);
  } else {
    s.assign(value);
  }
  if (!spec.enum_values.empty()) {
    if (std::find(spec.enum_values.begin(), spec.enum_values.end(), s) == spec.enum_values.end()) {
      return InvalidField(path, path + " must be one of " + EnumList(spec) + ", got \"" + Shorten(s, 64) + "\"");
    }
    return s;
  }
  switch (spec.check) {
    case StringCheck::kTenant:
      if (!ValidTenant(s)) {
        return InvalidField(path, path + " must match [a-z0-9_-]{1,32} (lower-case letters, digits, _ and -)");
      }
      return s;
    case StringCheck::kDate:
      if (!ValidDate(s)) return InvalidField(path, path + " must be a real date written YYYY-MM-DD");
      return s;
    case StringCheck::kIdentifier:
    case StringCheck::kNone:
      break;
  }
  const size_t length = spec.length_in_bytes ? s.size() : CountCodePoints(s);
  const char* unit = spec.length_in_bytes ? " bytes" : " characters";
  const uint64_t max = spec.max_from_limits ? limits.max_document_bytes : static_cast<uint64_t>(spec.max);
  if (spec.min > 0 && (length == 0 || IsBlank(s))) {
    return InvalidField(path, path + (length == 0 ? " must not be empty" : " must not be blank"));
  }
  if (length < static_cast<uint64_t>(spec.min)) {
    return InvalidField(path, path + " is " + std::to_string(length) + unit + "; the minimum is " +
                                  std::to_string(spec.min));
  }
  if (length > max) {
    std::string message = path + " is " + std::to_string(length) + unit + "; the limit is " + std::to_string(max);
    if (spec.max_from_limits) return ApiError{ApiErrorCode::kPayloadTooLarge, std::move(message), path};
    return InvalidField(path, std::move(message));
  }
  return s;
}

ApiResult<json> ParseJsonBody(std::string_view body, bool allow_array) {
  try {
    if (Trim(body).empty()) {
      return ApiError{ApiErrorCode::kInvalidJson, "the request body is empty; expected a JSON object", ""};
    }
    if (auto bad = ingest::FindInvalidUtf8(body)) {
      return ApiError{ApiErrorCode::kInvalidJson, "the request body is not valid UTF-8 (bad byte at offset " +
                                          std::to_string(*bad) + ")", ""};
    }
    if (JsonNestingExceeds(body, kMaxJsonDepth)) {
      return InvalidField("", "the request nests arrays and objects deeper than " +
                                  std::to_string(kMaxJsonDepth) + " levels");
    }
    StrictSax sax;
    const bool ok = json::sax_parse(body, &sax, json::input_format_t::json, /*strict=*/true);
    if (sax.duplicate()) return *sax.duplicate();
    if (!ok) {
      return ApiError{ApiErrorCode::kInvalidJson, "the request body is not valid JSON (byte offset " +
                                          std::to_string(sax.error_offset()) + "): " + sax.error_text(), ""};
    }
    if (!sax.root().is_object() && !(allow_array && sax.root().is_array())) {
      return InvalidField("", std::string("the request body must be a JSON object") + (allow_array ? " or array" : "") +
                                  ", got " + TypeName(sax.root()));
    }
    return std::move(sax.root());
  } catch (const std::exception& e) {
    return ApiError{ApiErrorCode::kInvalidJson, std::string("the request body could not be read: ") + e.what(), ""};
  } catch (...) {
    return ApiError{ApiErrorCode::kInternal, "unexpected error while reading the request body", ""};
  }
}

ApiResult<json> ValidateObject(const json& object, const ObjectSchema& schema, const std::string& path,
                               const ParseLimits& limits) {
  // Unknown and forbidden keys first, so a typo is reported as such rather than as a missing field.
  for (const auto& entry : object.items()) {
    const std::string& key = entry.key();
    const bool known = std::any_of(schema.fields.begin(), schema.fields.end(),
                                   [&](const FieldSpec& f) { return f.name == key || f.alias == key; });
    if (known) continue;
    const std::string field = JoinPath(path, key);
    if (IsForbiddenIdentityField(key)) {
      return InvalidField(field, "\"" + key + "\" is not accepted: groups come from your credential, not the "
                                              "request body");
    }
    std::string accepted;
    for (const FieldSpec& f : schema.fields) {
      accepted += (accepted.empty() ? "" : ", ") + std::string(f.name);
      if (!f.alias.empty()) accepted += ", " + std::string(f.alias);
    }
    return InvalidField(field, "unknown field \"" + Shorten(key, 64) + "\" in " + (path.empty() ? "the request" : path) +
                                   " (accepted: " + accepted + ")");
  }
  json out = json::object();
  for (const FieldSpec& f : schema.fields) {
    const std::string name(f.name);
    const std::string field = JoinPath(path, f.name);
    const json* value = nullptr;
    std::string value_path = field;
    auto it = object.find(name);
    if (it != object.end()) value = &*it;
    if (!f.alias.empty()) {
      auto alias = object.find(std::string(f.alias));
      if (alias != object.end()) {
        if (value != nullptr) {
          return InvalidField(JoinPath(path, f.alias), "give either \"" + name + "\" or its alias \"" +
                                                           std::string(f.alias) + "\", not both");
        }
        value = &*alias;
        value_path = JoinPath(path, f.alias);
      }
    }
    if (value == nullptr || value->is_null()) {
      if (f.required) {
        return InvalidField(field, field + (value == nullptr ? " is required" : " is required and must not be null"));
      }
      if (!f.default_json.empty()) out[name] = json::parse(f.default_json);
      continue;
    }
    ApiResult<json> v = ValidateValue(*value, f, value_path, limits);
    if (!v.ok()) return v.error();
    out[name] = std::move(v).value();
  }
  // The one cross-field rule of the tables: a date range must not run backwards.
  if (out.contains("date_from") && out.contains("date_to") &&
      out["date_to"].get_ref<const std::string&>() < out["date_from"].get_ref<const std::string&>()) {
    return InvalidField(JoinPath(path, "date_to"), JoinPath(path, "date_to") + " is before date_from");
  }
  return out;
}

}  // namespace attest::service
