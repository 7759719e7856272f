// The body of `POST /v1/events` (docs/http_api.md, "Events"): one CloudEvents 1.0 envelope in the
// JSON event format (cloudevents/formats/json-format.md), a JSON batch of them (a top-level array,
// "application/cloudevents-batch+json"), or {"events": [...]}. At most kMaxEventsPerRequest events.
//
// Envelope: specversion "1.0", id, source, type (required, non-empty strings); subject, time (RFC
// 3339), datacontenttype (a JSON media type: */json or */*+json), dataschema (optional; null =
// absent); `data` a JSON object (data_base64 is refused); extension attributes named [a-z0-9]{1,20}
// with scalar values are accepted and ignored. The types:
//
//   attest.document.upsert  data: a document as POST /v1/documents takes it (no tenant: the
//                           connector's) plus source_version; the id from data.id or subject
//   attest.document.delete  data: {source_version[, id]}; the id from data.id or subject
//   attest.document.acl     data: {source_version, acl_groups[, access_label][, id]}: the document's
//                           new access, its text and fields unchanged
//
// source_version: a non-negative integer, or an RFC 3339 date-time with seconds (fractions to the
// microsecond). One document's events must use one kind. An event is applied only when its version
// is greater than the document's last accepted one (event_log.h).
//
// Validation is all-or-nothing: the first bad field of any event is the error, naming it
// ("events[2].data.text"; a single envelope's fields are named without the prefix).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "attest/engine.h"
#include "service/api_error.h"
#include "service/contracts.h"
#include "service/schema.h"

namespace attest::service {

inline constexpr size_t kMaxEventsPerRequest = 100;

enum class EventKind { kUpsert, kDelete, kAcl };
const char* EventKindName(EventKind kind);          // "upsert", "delete", "acl"
const char* EventTypeName(EventKind kind);          // "attest.document.upsert", ...

// A per-document version chosen by the connector: an integer, or a time in Unix microseconds.
struct SourceVersion {
  bool is_time = false;
  int64_t value = 0;
  std::string text;  // as given: the decimal integer or the RFC 3339 string
  const char* kind() const { return is_time ? "time" : "integer"; }
};

struct EventInput {
  std::string path;  // how errors name this event: "" (a single envelope), "events[2]" or "[2]"
  std::string ce_id, source, type, subject, time;  // CloudEvents attributes ("" = absent)
  EventKind kind = EventKind::kUpsert;
  std::string document_id;
  SourceVersion version;
  // The validated data, normalized (strings NFC-trimmed as POST /v1/documents does, defaults
  // filled in), with `id` set and without source_version: what the log stores and applies.
  nlohmann::json data;
};

// The field tables of each type's data (source_version is read before them, so it is not listed);
// also rendered in the OpenAPI document.
const ObjectSchema& EventUpsertDataSchema();
const ObjectSchema& EventDeleteDataSchema();
const ObjectSchema& EventAclDataSchema();

ApiResult<std::vector<EventInput>> ParseEvents(std::string_view body, const ParseLimits& limits);

// Parses a source_version value (a JSON integer or an RFC 3339 string); `field` names it in errors.
ApiResult<SourceVersion> ParseSourceVersion(const nlohmann::json& value, const std::string& field);

// The DocumentSpec of an upsert's stored data in `store_tenant` ("" = the default tenant).
DocumentSpec DocumentSpecFromEventData(const nlohmann::json& data, const std::string& store_tenant);

}  // namespace attest::service
