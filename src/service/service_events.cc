// Service: pushed events (POST /v1/events, GET /v1/events/{seq}; docs/http_api.md, "Events").
#include <openssl/sha.h>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "service/event_schema.h"
#include "service/service.h"
#include "service/service_internal.h"

namespace attest::service {

using nlohmann::json;

namespace {

ApiError EventsDisabled() {
  return ApiError{ApiErrorCode::kNotFound, "pushed events are not enabled on this server (attest serve --events-config)",
                  ""};
}

std::string Sha256(std::string_view body) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof(digest));
}

std::string ApiTenant(const std::string& tenant) { return tenant.empty() ? internal::kDefaultTenant : tenant; }

json EventJson(const EventRecord& r) {
  json j = {{"seq", r.seq},
            {"index", r.position},
            {"id", r.ce_id},
            {"source", r.ce_source},
            {"type", EventTypeName(r.kind)},
            {"document", r.document_id},
            {"source_version", r.version.text},
            {"status", EventStateName(r.state)}};
  if (!r.detail.empty()) j["detail"] = r.detail;
  if (r.state == EventState::kApplied) j["snapshot_version"] = r.snapshot;
  return j;
}

}  // namespace

ApiResult<Identity> Service::AuthenticateConnector(const WebhookHeaders& headers, std::string_view body) {
  if (!events_enabled()) return EventsDisabled();
  WebhookVerdict v = options_.webhooks->Verify(headers, body);
  if (!v.connector) {
    metrics_.GetCounter("attest_events_rejected_total", "Pushed deliveries refused, by reason",
                        {{"reason", WebhookRefusalName(v.refusal)}})->Add();
    return v.error;
  }
  Identity who;
  who.tenant = v.connector->tenant;
  who.user = v.connector->name;
  who.admin = true;  // of its own tenant only: EffectiveTenant never lets it name another
  who.credential_id = "connector:" + v.connector->name;
  who.method = "webhook";
  return who;
}

ApiResult<EventsReply> Service::PostEvents(const Identity& who, const std::string& webhook_id, std::string_view body,
                                           const ParseLimits& limits, const RequestContext& ctx) {
  if (!events_enabled()) return EventsDisabled();
  if (who.method != "webhook") {
    return ApiError{ApiErrorCode::kForbidden, "events are posted by a connector (Standard Webhooks signature)", ""};
  }
  auto reject = [&](const char* reason) {
    metrics_.GetCounter("attest_events_rejected_total", "Pushed deliveries refused, by reason", {{"reason", reason}})
        ->Add();
  };
  ApiResult<std::vector<EventInput>> events = ParseEvents(body, limits);
  if (!events.ok()) {
    reject(events.error().code == ApiErrorCode::kUnsupportedEventType ? "unsupported_type" : "invalid");
    return events.error();
  }
  ApiResult<AuditSlot> slot = ReserveAudit();  // a write that could not be audited is not taken
  if (!slot.ok()) return slot.error();

  NewDelivery d;
  d.connector = who.user;
  d.tenant = who.tenant;
  d.webhook_id = webhook_id;
  d.body_sha256 = Sha256(body);
  d.events = std::move(events).value();
  const Clock* clock = options_.clock ? options_.clock : RealClock();
  d.received_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock->WallNow().time_since_epoch()).count();
  auto render = [&](const std::vector<EventRecord>& rows) {
    StoredResponse out;
    json list = json::array();
    for (const EventRecord& r : rows) {
      list.push_back(EventJson(r));
      if (r.state == EventState::kQueued) out.pending = true;
    }
    out.body = json{{"request_id", ctx.request_id},
                    {"webhook_id", webhook_id},
                    {"connector", who.user},
                    {"tenant", who.tenant},
                    {"events", std::move(list)},
                    {"versions", Versions()}}
                   .dump(-1, ' ', false, json::error_handler_t::replace);
    return out;
  };
  Result<AppendResult> r = options_.event_log->Append(d, render);
  if (!r.ok()) return internal::FromStatus(r.status(), "", internal::LimitsOf::kCallerInput);

  EventsReply reply;
  AuditRecord rec;
  rec.tenant = who.tenant;
  rec.snapshot = engine_.CurrentSnapshot();
  switch (r->kind) {
    case AppendResult::Kind::kConflict:
      reject("idempotency_conflict");
      return ApiError{ApiErrorCode::kIdempotencyConflict,
                      "webhook-id '" + webhook_id + "' was already delivered with another body; a repeat must send "
                      "the same bytes, a new event needs a new id",
                      "webhook-id"};
    case AppendResult::Kind::kRejected: {
      reject("invalid");
      const std::string& path = d.events[r->rejected_index].path;
      return InvalidField(path.empty() ? "data.source_version" : path + ".data.source_version", r->rejected_message);
    }
    case AppendResult::Kind::kReplay:
      metrics_.GetCounter("attest_events_replayed_total", "Deliveries repeated with a known webhook-id (first answer)")
          ->Add();
      reply.replayed = true;
      reply.pending = r->response.pending;
      reply.body = r->response.body;
      rec.outcome = "events_replayed";
      break;
    case AppendResult::Kind::kNew:
      for (const EventRecord& e : r->events) {
        const char* kind = EventKindName(e.kind);
        metrics_.GetCounter("attest_events_received_total", "Pushed events durably received", {{"kind", kind}})->Add();
        if (e.state == EventState::kStale) {
          metrics_.GetCounter("attest_events_stale_total", "Pushed events older than the document's version",
                              {{"kind", kind}})->Add();
        }
        reply.last_seq = std::max(reply.last_seq, e.seq);
      }
      reply.pending = r->response.pending;
      reply.body = r->response.body;
      rec.outcome = "events_received";
      if (event_applier_) event_applier_->Notify();
      break;
  }
  if (reply.replayed) {
    json stored = json::parse(reply.body, nullptr, false);
    if (stored.is_object() && stored.contains("events")) {
      for (const json& e : stored["events"]) reply.last_seq = std::max(reply.last_seq, e.value("seq", uint64_t{0}));
    }
  }
  Audit(std::move(slot).value(), who, ctx, std::move(rec));
  return reply;
}

ApiResult<EventsReply> Service::RefreshEvents(const EventsReply& reply) {
  if (!events_enabled()) return EventsDisabled();
  json body = json::parse(reply.body, nullptr, false);
  if (!body.is_object() || !body.contains("events")) {
    return ApiError{ApiErrorCode::kInternal, "a stored events answer could not be read", ""};
  }
  EventsReply out = reply;
  out.pending = false;
  for (json& e : body["events"]) {
    Result<std::optional<EventRecord>> rec = options_.event_log->Get(e.value("seq", uint64_t{0}));
    if (!rec.ok()) return internal::FromStatus(rec.status(), "", internal::LimitsOf::kCallerInput);
    if (!*rec) continue;  // purged: keep what the first answer said
    json now = EventJson(**rec);
    e["status"] = now["status"];
    if (now.contains("detail")) e["detail"] = now["detail"];
    if (now.contains("snapshot_version")) e["snapshot_version"] = now["snapshot_version"];
    if ((*rec)->state == EventState::kQueued) out.pending = true;
  }
  body["versions"] = Versions();  // the snapshot now, not at receipt
  out.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return out;
}

ApiResult<std::string> Service::GetEvent(const Identity& who, uint64_t seq, const RequestContext& ctx) {
  if (!events_enabled()) return EventsDisabled();
  if (!who.admin && !who.deployment_operator) {
    return ApiError{ApiErrorCode::kForbidden, "reading events needs an admin credential or the connector's signature",
                    ""};
  }
  Result<std::optional<EventRecord>> rec = options_.event_log->Get(seq);
  if (!rec.ok()) return internal::FromStatus(rec.status(), "seq", internal::LimitsOf::kCallerInput);
  // Another tenant's event is as missing as one that never existed.
  if (!*rec || (!who.deployment_operator && (*rec)->tenant != who.tenant)) {
    return ApiError{ApiErrorCode::kNotFound, "no event " + std::to_string(seq) + " that you can read", "seq"};
  }
  const EventRecord& r = **rec;
  json j = EventJson(r);
  j["request_id"] = ctx.request_id;
  j["tenant"] = ApiTenant(r.tenant);
  j["connector"] = r.connector;
  j["webhook_id"] = r.webhook_id;
  j["received_ms"] = r.received_ms;
  if (r.state != EventState::kQueued) j["done_ms"] = r.done_ms;
  j["versions"] = Versions();
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

void Service::StopEvents() { event_applier_.reset(); }

void Service::WhenEventsDone(uint64_t seq, std::chrono::milliseconds timeout, std::function<void()> callback) {
  if (!event_applier_) return callback();
  event_applier_->WhenDone(seq, timeout, std::move(callback));
}

}  // namespace attest::service
