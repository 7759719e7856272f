// The OpenAPI schemas of pushed events (docs/events.md); part of OpenApiJson (openapi.cc).
#include "service/event_schema.h"
#include "service/openapi_parts.h"
#include "service/schema.h"

namespace attest::service::openapi {

// POST /v1/events (docs/events.md): the envelope, each type's data (from the parser's tables plus
// source_version) and the answers.
void AddEventSchemas(json* out) {
  json& schemas = *out;
  const json version = {{"oneOf", json::array({{{"type", "integer"}, {"minimum", 0}},
                                               {{"type", "string"}, {"format", "date-time"}}})},
                        {"description", "The connector's version of the document: an integer or an RFC 3339 time; "
                                        "an event not newer than the document's last accepted one is stale."}};
  for (const ObjectSchema* table : {&EventUpsertDataSchema(), &EventDeleteDataSchema(), &EventAclDataSchema()}) {
    json s = SchemaToOpenApi(*table);
    s["properties"]["source_version"] = version;
    s["required"] = json::array({"source_version"});
    if (table == &EventAclDataSchema()) s["required"].push_back("acl_groups");
    schemas[std::string(table->name)] = s;
  }
  schemas["CloudEvent"] = Object(
      {{"specversion", {{"type", "string"}, {"enum", {"1.0"}}}},
       {"id", Str("Event id; source + id distinct within a request.")},
       {"source", Str("URI-reference of the producer.")},
       {"type", {{"type", "string"},
                 {"enum", {"attest.document.upsert", "attest.document.delete", "attest.document.acl"}},
                 {"description", "Another type is 422 unsupported_event_type."}}},
       {"subject", Str("The document id (or data.id).")},
       {"time", {{"type", "string"}, {"format", "date-time"}}},
       {"datacontenttype", Str("A JSON media type; default application/json.")},
       {"dataschema", Str("Ignored.")},
       {"data", {{"oneOf", json::array({Ref("EventUpsertData"), Ref("EventDeleteData"), Ref("EventAclData")})}}}},
      {"specversion", "id", "source", "type", "data"});
  schemas["CloudEvent"]["additionalProperties"] = {
      {"description", "Extension attributes named [a-z0-9]{1,20} with scalar values (ignored)."}};
  schemas["EventState"] = Object(
      {{"seq", Int("Global sequence number.")},
       {"index", Int("Position in the request.")},
       {"id", Str("The event's CloudEvents id.")},
       {"source", Str("Its source.")},
       {"type", Str("Its type.")},
       {"document", Str("The document id.")},
       {"source_version", Str("As given.")},
       {"status", {{"type", "string"}, {"enum", {"queued", "applied", "stale", "failed"}}}},
       {"detail", Str("Why stale or failed.")},
       {"snapshot_version", Int("The index snapshot that holds it (applied).")},
       {"received_ms", Int("GET only: when it became durable, Unix ms.")},
       {"done_ms", Int("GET only: when its outcome was recorded.")}},
      {"seq", "status"});
  schemas["EventsResult"] = Object({{"webhook_id", Str("The delivery's id.")},
                                    {"connector", Str("The connector's name.")},
                                    {"tenant", Str("The tenant it writes into.")},
                                    {"events", ArrayOf(Ref("EventState"), "Each event, in request order.")},
                                    {"request_id", Str("Request id (of the first delivery, on a replay).")},
                                    {"versions", Ref("Versions")}},
                                   {"events"});
}

}  // namespace attest::service::openapi
