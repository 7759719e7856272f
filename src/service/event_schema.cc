// Parsing and validation of CloudEvents envelopes for POST /v1/events (service/event_schema.h).
#include "service/event_schema.h"

#include <cstdlib>
#include <set>

#include "crawl/seed_date.h"
#include "service/schema.h"

// The tables use designated initializers and rely on the defaults of the fields they leave out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace attest::service {
namespace {

using nlohmann::json;

constexpr size_t kMaxAttributeBytes = 1024;

const FieldSpec& DocumentField(std::string_view name) {
  for (const FieldSpec& f : DocumentInputSchema().fields) {
    if (f.name == name) return f;
  }
  std::abort();  // the names below are DocumentInputSchema's own
}

// An upsert's data: a document as POST /v1/documents takes it, without tenant; the id may come
// from `subject` instead.
}  // namespace

const ObjectSchema& EventUpsertDataSchema() {
  static const ObjectSchema schema = [] {
    ObjectSchema s{"EventUpsertData", "data of attest.document.upsert: a document as POST /v1/documents takes it, without tenant (the "
        "connector's), plus source_version; id may come from the envelope's subject instead", {}};
    for (const FieldSpec& f : DocumentInputSchema().fields) {
      if (f.name == "tenant") continue;
      FieldSpec copy = f;
      if (copy.name == "id") copy.required = false;
      s.fields.push_back(copy);
    }
    return s;
  }();
  return schema;
}

const ObjectSchema& EventDeleteDataSchema() {
  static const ObjectSchema schema = [] {
    ObjectSchema s{"EventDeleteData", "data of attest.document.delete: source_version; id may come from subject", {}};
    FieldSpec id = DocumentField("id");
    id.required = false;
    s.fields.push_back(id);
    return s;
  }();
  return schema;
}

const ObjectSchema& EventAclDataSchema() {
  static const ObjectSchema schema = [] {
    ObjectSchema s{"EventAclData", "data of attest.document.acl: the document's new access (source_version, acl_groups, access_label)", {}};
    FieldSpec id = DocumentField("id");
    id.required = false;
    FieldSpec groups = DocumentField("acl_groups");
    groups.required = true;  // an ACL change states the groups, even when [] (the whole tenant)
    s.fields.push_back(id);
    s.fields.push_back(groups);
    s.fields.push_back(DocumentField("access_label"));
    return s;
  }();
  return schema;
}

namespace {

std::string Join(const std::string& prefix, std::string_view name) {
  return prefix.empty() ? std::string(name) : prefix + "." + std::string(name);
}

// A required (or optional, when absent/null) CloudEvents String attribute: non-empty, bounded, no
// control characters (CloudEvents' String type).
ApiResult<std::string> Attribute(const json& envelope, std::string_view name, const std::string& prefix,
                                 bool required) {
  const std::string field = Join(prefix, name);
  auto it = envelope.find(std::string(name));
  if (it == envelope.end() || it->is_null()) {
    if (required) return InvalidField(field, "the CloudEvents attribute " + std::string(name) + " is required");
    return std::string();
  }
  if (!it->is_string()) return InvalidField(field, "must be a string");
  const std::string& s = it->get_ref<const std::string&>();
  if (s.empty()) return InvalidField(field, "must be a non-empty string");
  if (s.size() > kMaxAttributeBytes) return InvalidField(field, "must be at most 1024 bytes");
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return InvalidField(field, "must not contain control characters");
  }
  return s;
}

bool IsJsonMediaType(std::string_view t) {
  const size_t semi = t.find(';');
  std::string base(t.substr(0, semi));
  while (!base.empty() && base.back() == ' ') base.pop_back();
  for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t slash = base.find('/');
  if (slash == std::string::npos || slash == 0) return false;
  const std::string sub = base.substr(slash + 1);
  return sub == "json" || (sub.size() > 5 && sub.compare(sub.size() - 5, 5, "+json") == 0);
}

bool ValidExtensionName(std::string_view name) {
  if (name.empty() || name.size() > 20) return false;
  for (char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

std::optional<int64_t> Rfc3339Micros(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.size() < 20) return std::nullopt;
  std::optional<SeedDate> d = ParseRfc3339(s);
  if (!d || d->precision != DatePrecision::kSecond || !d->unix_seconds) return std::nullopt;
  int64_t micros = 0;
  if (s[19] == '.') {
    int digits = 0;
    for (size_t i = 20; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
      if (digits < 6) {
        micros = micros * 10 + (s[i] - '0');
        ++digits;
      }
    }
    for (; digits < 6; ++digits) micros *= 10;
  }
  return *d->unix_seconds * 1000000 + micros;
}

ApiResult<EventInput> ParseOne(const json& envelope, const std::string& prefix, const ParseLimits& limits) {
  if (!envelope.is_object()) {
    return InvalidField(prefix.empty() ? "" : prefix, "an event must be a JSON object (a CloudEvents envelope)");
  }
  static const std::set<std::string, std::less<>> kCore = {"specversion", "id", "source", "type", "subject",
                                                          "time", "datacontenttype", "dataschema", "data",
                                                          "data_base64"};
  for (const auto& [key, value] : envelope.items()) {
    if (kCore.count(key)) continue;
    if (!ValidExtensionName(key)) {
      return InvalidField(Join(prefix, key),
                          "unknown attribute: CloudEvents extension attributes are named [a-z0-9]{1,20}");
    }
    if (value.is_object() || value.is_array()) {
      return InvalidField(Join(prefix, key), "an extension attribute must be a string, number, boolean or null");
    }
  }
  EventInput ev;
  ev.path = prefix;
  auto specversion = Attribute(envelope, "specversion", prefix, true);
  if (!specversion.ok()) return specversion.error();
  if (specversion.value() != "1.0") {
    return InvalidField(Join(prefix, "specversion"), "must be \"1.0\" (CloudEvents 1.0)");
  }
  for (auto [name, out, required] : {std::tuple{"id", &ev.ce_id, true}, std::tuple{"source", &ev.source, true},
                                     std::tuple{"type", &ev.type, true}, std::tuple{"subject", &ev.subject, false},
                                     std::tuple{"time", &ev.time, false}}) {
    auto v = Attribute(envelope, name, prefix, required);
    if (!v.ok()) return v.error();
    *out = std::move(v).value();
  }
  if (ev.source.find(' ') != std::string::npos) {
    return InvalidField(Join(prefix, "source"), "must be a URI-reference (no spaces)");
  }
  if (!ev.time.empty() && !Rfc3339Micros(ev.time)) {
    return InvalidField(Join(prefix, "time"), "must be an RFC 3339 date-time, e.g. 2026-12-02T13:44:00Z");
  }
  auto content_type = Attribute(envelope, "datacontenttype", prefix, false);
  if (!content_type.ok()) return content_type.error();
  if (!content_type.value().empty() && !IsJsonMediaType(content_type.value())) {
    return InvalidField(Join(prefix, "datacontenttype"),
                        "must be a JSON media type (application/json or */*+json): data is a JSON object");
  }
  if (auto schema = Attribute(envelope, "dataschema", prefix, false); !schema.ok()) return schema.error();
  if (envelope.contains("data_base64") && !envelope["data_base64"].is_null()) {
    return InvalidField(Join(prefix, "data_base64"), "binary data is not accepted: send data as a JSON object");
  }

  if (ev.type == EventTypeName(EventKind::kUpsert)) {
    ev.kind = EventKind::kUpsert;
  } else if (ev.type == EventTypeName(EventKind::kDelete)) {
    ev.kind = EventKind::kDelete;
  } else if (ev.type == EventTypeName(EventKind::kAcl)) {
    ev.kind = EventKind::kAcl;
  } else {
    return ApiError{ApiErrorCode::kUnsupportedEventType,
                    "unknown event type '" + ev.type + "' (known: attest.document.upsert, attest.document.delete, "
                    "attest.document.acl)",
                    Join(prefix, "type")};
  }

  const std::string data_field = Join(prefix, "data");
  auto data_it = envelope.find("data");
  if (data_it == envelope.end() || !data_it->is_object()) {
    return InvalidField(data_field, "must be a JSON object holding at least source_version");
  }
  json data = *data_it;
  auto version_it = data.find("source_version");
  if (version_it == data.end() || version_it->is_null()) {
    return InvalidField(Join(data_field, "source_version"),
                        "is required: an integer or RFC 3339 time that grows with every change of the document");
  }
  auto version = ParseSourceVersion(*version_it, Join(data_field, "source_version"));
  if (!version.ok()) return version.error();
  ev.version = std::move(version).value();
  data.erase("source_version");

  const ObjectSchema& schema = ev.kind == EventKind::kUpsert   ? EventUpsertDataSchema()
                               : ev.kind == EventKind::kDelete ? EventDeleteDataSchema()
                                                               : EventAclDataSchema();
  if (data.contains("tenant")) {
    return InvalidField(Join(data_field, "tenant"),
                        "a connector writes into the tenant its configuration binds it to; leave tenant out");
  }
  auto valid = ValidateObject(data, schema, data_field, limits);
  if (!valid.ok()) return valid.error();
  ev.data = std::move(valid).value();

  // The document id: data.id or subject; both given must agree.
  const std::string id = ev.data.contains("id") ? ev.data["id"].get<std::string>() : std::string();
  if (!ev.subject.empty()) {
    auto subject = ParseDocumentId(ev.subject, Join(prefix, "subject"));
    if (!subject.ok()) return subject.error();
    if (!id.empty() && id != subject.value()) {
      return InvalidField(Join(data_field, "id"), "differs from subject ('" + ev.subject + "'); give one or equal ones");
    }
    ev.document_id = subject.value();
  } else if (!id.empty()) {
    ev.document_id = id;
  } else {
    return InvalidField(Join(prefix, "subject"), "the document id is required: in subject or data.id");
  }
  ev.data["id"] = ev.document_id;
  return ev;
}

}  // namespace

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kUpsert: return "upsert";
    case EventKind::kDelete: return "delete";
    case EventKind::kAcl: return "acl";
  }
  return "upsert";
}

const char* EventTypeName(EventKind kind) {
  switch (kind) {
    case EventKind::kUpsert: return "attest.document.upsert";
    case EventKind::kDelete: return "attest.document.delete";
    case EventKind::kAcl: return "attest.document.acl";
  }
  return "attest.document.upsert";
}

ApiResult<SourceVersion> ParseSourceVersion(const json& value, const std::string& field) {
  SourceVersion v;
  if (value.is_number_unsigned() || value.is_number_integer()) {
    if (value.is_number_integer() && !value.is_number_unsigned() && value.get<int64_t>() < 0) {
      return InvalidField(field, "must not be negative");
    }
    if (value.is_number_unsigned() && value.get<uint64_t>() > uint64_t(INT64_MAX)) {
      return InvalidField(field, "must be at most 9223372036854775807");
    }
    v.value = value.get<int64_t>();
    v.text = std::to_string(v.value);
    return v;
  }
  if (value.is_string()) {
    const std::string& s = value.get_ref<const std::string&>();
    std::optional<int64_t> micros = Rfc3339Micros(s);
    if (!micros) {
      return InvalidField(field, "a string source_version must be an RFC 3339 date-time with seconds, e.g. "
                                 "2026-12-02T13:44:05.250Z");
    }
    v.is_time = true;
    v.value = *micros;
    v.text = s;
    return v;
  }
  return InvalidField(field, "must be a non-negative integer or an RFC 3339 date-time string");
}

ApiResult<std::vector<EventInput>> ParseEvents(std::string_view body, const ParseLimits& limits) {
  auto parsed = ParseJsonBody(body, /*allow_array=*/true);
  if (!parsed.ok()) return parsed.error();
  json& root = parsed.value();
  const json* list = nullptr;
  std::string prefix = "events";
  if (root.is_array()) {
    list = &root;
    prefix = "";
  } else if (root.contains("events")) {
    for (const auto& item : root.items()) {
      if (item.key() != "events") return InvalidField(item.key(), "unknown field next to events");
    }
    if (!root["events"].is_array()) return InvalidField("events", "must be an array of CloudEvents envelopes");
    list = &root["events"];
  }
  std::vector<EventInput> out;
  if (!list) {
    auto one = ParseOne(root, "", limits);
    if (!one.ok()) return one.error();
    out.push_back(std::move(one).value());
    return out;
  }
  if (list->empty()) return InvalidField(prefix.empty() ? "" : prefix, "the batch holds no events");
  if (list->size() > kMaxEventsPerRequest) {
    return ApiError{ApiErrorCode::kPayloadTooLarge,
                    "a request holds at most " + std::to_string(kMaxEventsPerRequest) + " events (it has " +
                        std::to_string(list->size()) + ")",
                    prefix};
  }
  std::set<std::pair<std::string, std::string>> ids;  // (source, id): CloudEvents' identity of an event
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string at = (prefix.empty() ? "" : prefix) + "[" + std::to_string(i) + "]";
    auto one = ParseOne((*list)[i], at, limits);
    if (!one.ok()) return one.error();
    if (!ids.insert({one.value().source, one.value().ce_id}).second) {
      return InvalidField(at + ".id", "repeats the source and id of an earlier event of the batch");
    }
    out.push_back(std::move(one).value());
  }
  return out;
}

DocumentSpec DocumentSpecFromEventData(const json& data, const std::string& store_tenant) {
  DocumentSpec s;
  auto str = [&](const char* name) { return data.contains(name) ? data[name].get<std::string>() : std::string(); };
  s.id = str("id");
  s.tenant = store_tenant;
  s.title = str("title");
  s.text = str("text");
  s.content_type = data.contains("content_type") ? str("content_type") : std::string("text");
  s.url = str("url");
  s.site = str("site");
  s.version = str("version");
  s.source_type = str("source_type");
  s.language = str("language");
  s.published = str("published");
  s.updated = str("updated");
  if (data.contains("acl_groups")) s.acl_groups = data["acl_groups"].get<std::vector<std::string>>();
  s.access_label = str("access_label");
  s.feed = str("feed");
  s.license = str("license");
  s.fetched_at = str("fetched_at");
  if (data.contains("metadata")) s.metadata = data["metadata"].get<std::map<std::string, std::string>>();
  return s;
}

}  // namespace attest::service
