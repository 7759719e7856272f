// The v1 route table: thin adapters from HTTP exchanges to the Service.
#include "server/routes.h"
#include "server/route_call.h"

#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "service/service_internal.h"

namespace attest::server {
namespace {

using service::ApiError;
using service::ApiErrorCode;
using service::ApiResult;
using service::Identity;
using service::RequestContext;

// The SSE side of a streamed answer: the HTTP stream starts with the first event, so errors found
// before any event (validation, authorization) still get a JSON error response.
class SseSink final : public service::EventSink {
 public:
  SseSink(std::shared_ptr<http::Exchange> ex, std::vector<std::pair<std::string, std::string>> headers,
          service::Registry* metrics)
      : ex_(std::move(ex)), headers_(std::move(headers)), metrics_(metrics) {}
  bool Emit(std::string_view event, const std::string& json) override {
    if (!stream_) {
      if (ex_->ClientGone()) return false;
      stream_ = ex_->StartStream(headers_);
    }
    if (!stream_->Send(event, json)) {
      if (stream_->CloseReason() == "slow_client" && !counted_) {
        counted_ = true;
        metrics_->GetCounter("attest_slow_clients_dropped_total", "Streams dropped because the client read too slowly")
            ->Add();
      }
      return false;
    }
    return true;
  }
  bool Closed() const override { return stream_ ? stream_->Closed() : ex_->ClientGone(); }
  bool started() const { return stream_ != nullptr; }
  void Finish() {
    if (stream_) stream_->Finish();
  }

 private:
  std::shared_ptr<http::Exchange> ex_;
  std::vector<std::pair<std::string, std::string>> headers_;
  service::Registry* metrics_;
  std::shared_ptr<http::Stream> stream_;
  bool counted_ = false;
};

bool WantsStream(const http::Request& req, bool body_stream) {
  return body_stream || req.Header("accept").find("text/event-stream") != std::string::npos;
}

void Answer(Call& c, const Identity& who, const service::AnswerRequest& req, const std::string* thread_id) {
  if (!WantsStream(c.ex->request(), req.stream)) {
    c.Reply(thread_id ? c.ctx->service->PostMessage(who, *thread_id, req, c.rc, nullptr)
                      : c.ctx->service->Answer(who, req, c.rc, nullptr));
    return;
  }
  SseSink sink(c.ex, c.Headers(), c.ctx->metrics);
  auto r = thread_id ? c.ctx->service->PostMessage(who, *thread_id, req, c.rc, &sink)
                     : c.ctx->service->Answer(who, req, c.rc, &sink);
  if (!r.ok()) {
    if (!sink.started()) return c.Fail(r.error());
    nlohmann::json n = {{"code", service::ApiErrorCodeName(r.error().code)}, {"message", r.error().message}};
    sink.Emit("notice", n.dump());
  }
  if (!sink.started()) {
    // Nothing was emitted (the client left before the first event): end the exchange.
    c.Fail(ApiError{ApiErrorCode::kCancelled, "the client went away", ""});
    return;
  }
  sink.Finish();
}

// /v1/documents/{id}[?tenant=]: checks the id and the tenant parameter, then calls `fn(id, tenant)`.
template <class Fn>
void DocumentRoute(Call& c, Fn fn) {
  auto id = service::ParseDocumentId(c.ex->request().params.at("id"));
  if (!id.ok()) return c.Fail(id.error());
  const auto& q = c.ex->request().query;
  const std::string tenant = q.count("tenant") ? q.at("tenant") : "";
  if (!tenant.empty() && !service::ValidTenant(tenant)) {
    return c.Fail(ApiError{ApiErrorCode::kInvalidRequest, "tenant must match [a-z0-9_-]{1,32}", "tenant"});
  }
  c.Reply(fn(id.value(), tenant));
}

template <class Fn>
http::Handler Api(RouteContext* ctx, const char* route, Fn fn) {
  return [ctx, route, fn](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), route);
    std::optional<Identity> who = Admit(c);
    if (!who) return;
    fn(c, *who);
  };
}

// Bulk routes (ingestion, deletion): authentication and the rate limit run on the interactive pool
// (microseconds), then the work is queued on the bulk lane under the caller's tenant. The lane
// serves tenants round robin and bounds how many requests each may have waiting
// (ServerOptions::bulk_queue_per_key), so one tenant's flood never stalls another tenant's ingest.
template <class Fn>
http::Handler Bulk(RouteContext* ctx, const char* route, Fn fn) {
  return [ctx, route, fn](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), route);
    std::optional<Identity> who = Admit(c);
    if (!who) return;
    const std::string tenant = who->tenant;
    auto work = [c, who = std::move(*who), fn](std::shared_ptr<http::Exchange>) mutable { fn(c, who); };
    switch (c.ex->Defer(http::Pool::kBulk, tenant, std::move(work))) {
      case http::Admission::kQueued:
        return;
      case http::Admission::kKeyFull: {
        http::Response r = ErrorResponse(
            ApiError{ApiErrorCode::kRateLimited,
                     "tenant '" + tenant + "' already has its share of the bulk queue waiting; retry when one finishes",
                     ""},
            c.rc.request_id, c.version);
        r.headers.emplace_back("Retry-After", "1");
        return c.ex->Respond(std::move(r));
      }
      case http::Admission::kPoolFull:
        return c.Fail(ApiError{ApiErrorCode::kOverloaded, "the bulk work queue is full; retry later", ""});
      case http::Admission::kStopped:
        return c.Fail(ApiError{ApiErrorCode::kUnavailable, "the server is shutting down", ""});
    }
  };
}


// POST /v1/events and GET /v1/events/{seq}: a connector authenticates by its Standard Webhooks
// signature over the body (GET: over the empty body); the rate limit is its own.
std::optional<Identity> AdmitConnector(Call& c) {
  const http::Request& q = c.ex->request();
  service::WebhookHeaders h{q.Header("webhook-id"), q.Header("webhook-timestamp"), q.Header("webhook-signature")};
  ApiResult<Identity> who = c.ctx->service->AuthenticateConnector(h, q.body);
  if (!who.ok()) {
    c.Fail(who.error());
    return std::nullopt;
  }
  auto d = c.ctx->limiter->Acquire(who.value().credential_id);
  if (!d.allowed) {
    c.ctx->metrics->GetCounter("attest_rate_limited_total", "Requests refused by the per-credential rate limit")->Add();
    http::Response r = ErrorResponse(
        ApiError{ApiErrorCode::kRateLimited, "rate limit exceeded for this connector", ""}, c.rc.request_id, c.version);
    r.headers.emplace_back("Retry-After", std::to_string(static_cast<int>(std::ceil(d.retry_after_seconds))));
    c.ex->Respond(std::move(r));
    return std::nullopt;
  }
  return std::move(who).value();
}

// ?wait_ms=N (0..kMaxEventWaitMs), the only query parameter of the events routes.
ApiResult<uint32_t> WaitMs(const http::Request& q) {
  uint32_t wait = 0;
  for (const auto& [name, value] : q.query) {
    if (name != "wait_ms") return ApiError{ApiErrorCode::kInvalidRequest, "unknown query parameter '" + name + "'", name};
    if (value.empty() || value.size() > 6 || value.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(value) > service::kMaxEventWaitMs) {
      return ApiError{ApiErrorCode::kInvalidRequest, "wait_ms must be an integer in 0..10000", "wait_ms"};
    }
    wait = static_cast<uint32_t>(std::stoul(value));
  }
  return wait;
}

void ReplyEvents(Call& c, const service::EventsReply& reply) {
  http::Response resp;
  resp.status = reply.pending ? 202 : 200;
  resp.body = reply.body;
  resp.headers = c.Headers();
  if (reply.replayed) resp.headers.emplace_back("Idempotent-Replayed", "true");
  c.ex->Respond(std::move(resp));
}

}  // namespace

http::Router BuildRoutes(RouteContext* ctx) {
  using P = http::Pool;
  http::Router r;
  r.Add("POST", "/v1/search", P::kInteractive, Api(ctx, "/v1/search", [](Call& c, const Identity& who) {
          auto req = service::ParseSearchRequest(c.ex->request().body);
          if (!req.ok()) return c.Fail(req.error());
          c.Reply(c.ctx->service->Search(who, req.value(), c.rc));
        }));
  r.Add("POST", "/v1/answer", P::kAnswer, Api(ctx, "/v1/answer", [](Call& c, const Identity& who) {
          auto req = service::ParseAnswerRequest(c.ex->request().body);
          if (!req.ok()) return c.Fail(req.error());
          Answer(c, who, req.value(), nullptr);
        }));
  r.Add("POST", "/v1/threads", P::kInteractive, Api(ctx, "/v1/threads", [](Call& c, const Identity& who) {
          auto req = service::ParseThreadCreate(c.ex->request().body.empty() ? "{}" : c.ex->request().body);
          if (!req.ok()) return c.Fail(req.error());
          c.Reply(c.ctx->service->CreateThread(who, req.value(), c.rc), 201);
        }));
  r.Add("POST", "/v1/threads/{id}/messages", P::kAnswer,
        Api(ctx, "/v1/threads/{id}/messages", [](Call& c, const Identity& who) {
          auto req = service::ParseAnswerRequest(c.ex->request().body);
          if (!req.ok()) return c.Fail(req.error());
          const std::string id = c.ex->request().params.at("id");
          Answer(c, who, req.value(), &id);
        }));
  r.Add("GET", "/v1/me", P::kInteractive, Api(ctx, "/v1/me", [](Call& c, const Identity& who) {
          if (!c.ex->request().query.empty()) {
            const std::string name = c.ex->request().query.begin()->first;
            return c.Fail(ApiError{ApiErrorCode::kInvalidRequest, "unknown query parameter '" + name + "'", name});
          }
          c.Reply(c.ctx->service->Me(who, c.rc));
        }));
  r.Add("POST", "/v1/feedback", P::kInteractive, Api(ctx, "/v1/feedback", [](Call& c, const Identity& who) {
          auto req = service::ParseFeedback(c.ex->request().body);
          if (!req.ok()) return c.Fail(req.error());
          c.Reply(c.ctx->service->Feedback(who, req.value(), c.rc), 201);
        }));
  r.Add("POST", "/v1/documents", P::kInteractive, Bulk(ctx, "/v1/documents", [](Call& c, const Identity& who) {
          auto req = service::ParseDocumentInput(c.ex->request().body, c.ctx->limits);
          if (!req.ok()) return c.Fail(req.error());
          std::vector<service::DocumentInput> docs;
          docs.push_back(std::move(req).value());
          c.Reply(c.ctx->service->PutDocuments(who, std::move(docs), c.rc));
        }));
  r.Add("POST", "/v1/documents:batch", P::kInteractive,
        Bulk(ctx, "/v1/documents:batch", [](Call& c, const Identity& who) {
          auto req = service::ParseDocumentBatch(c.ex->request().body, c.ctx->limits);
          if (!req.ok()) return c.Fail(req.error());
          c.Reply(c.ctx->service->PutDocuments(who, std::move(req).value().documents, c.rc));
        }));
  r.Add("GET", "/v1/documents", P::kInteractive, Api(ctx, "/v1/documents", [](Call& c, const Identity& who) {
          auto req = service::ParseDocumentListQuery(c.ex->request().query);
          if (!req.ok()) return c.Fail(req.error());
          c.Reply(c.ctx->service->ListDocuments(who, req.value(), c.rc));
        }));
  r.Add("GET", "/v1/documents/{id}", P::kInteractive, Api(ctx, "/v1/documents/{id}", [](Call& c, const Identity& who) {
          DocumentRoute(c, [&](const std::string& id, const std::string& tenant) {
            return c.ctx->service->GetDocument(who, id, tenant, c.rc);
          });
        }));
  r.Add("DELETE", "/v1/documents/{id}", P::kInteractive,
        Bulk(ctx, "/v1/documents/{id}", [](Call& c, const Identity& who) {
          DocumentRoute(c, [&](const std::string& id, const std::string& tenant) {
            return c.ctx->service->DeleteDocument(who, id, tenant, c.rc);
          });
        }));

  // Pushed events (docs/http_api.md, "Events"): signed by a connector; waiting never holds a worker.
  r.Add("POST", "/v1/events", P::kInteractive, [ctx](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), "/v1/events");
    std::optional<Identity> who = AdmitConnector(c);
    if (!who) return;
    auto wait = WaitMs(c.ex->request());
    if (!wait.ok()) return c.Fail(wait.error());
    auto reply = c.ctx->service->PostEvents(*who, c.ex->request().Header("webhook-id"), c.ex->request().body,
                                            c.ctx->limits, c.rc);
    if (!reply.ok()) return c.Fail(reply.error());
    if (!reply.value().pending || wait.value() == 0) return ReplyEvents(c, reply.value());
    const uint64_t last = reply.value().last_seq;
    c.ctx->service->WhenEventsDone(last, std::chrono::milliseconds(wait.value()),
                                   [c, first = std::move(reply).value()]() mutable {
                                     auto now = c.ctx->service->RefreshEvents(first);
                                     if (!now.ok()) return ReplyEvents(c, first);
                                     ReplyEvents(c, now.value());
                                   });
  });
  r.Add("GET", "/v1/events/{seq}", P::kInteractive, [ctx](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), "/v1/events/{seq}");
    const bool signed_by_connector = !c.ex->request().Header("webhook-signature").empty();
    std::optional<Identity> who = signed_by_connector ? AdmitConnector(c) : Admit(c);
    if (!who) return;
    const std::string raw = c.ex->request().params.at("seq");
    if (raw.empty() || raw.size() > 19 || raw.find_first_not_of("0123456789") != std::string::npos) {
      return c.Fail(ApiError{ApiErrorCode::kInvalidRequest, "seq must be a positive integer", "seq"});
    }
    const uint64_t seq = std::stoull(raw);
    auto wait = WaitMs(c.ex->request());
    if (!wait.ok()) return c.Fail(wait.error());
    auto respond = [c, who = *who, seq]() mutable { c.Reply(c.ctx->service->GetEvent(who, seq, c.rc)); };
    // Check access before waiting: a caller learns nothing by waiting on another tenant's event.
    auto first = c.ctx->service->GetEvent(*who, seq, c.rc);
    if (!first.ok() || wait.value() == 0) return c.Reply(std::move(first));
    c.ctx->service->WhenEventsDone(seq, std::chrono::milliseconds(wait.value()), std::move(respond));
  });

  // Unauthenticated operational routes.
  r.Add("GET", "/healthz", P::kInline, [ctx](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), "/healthz");
    c.Reply(std::string(R"({"status":"ok"})"));
  });
  r.Add("GET", "/readyz", P::kInline, [ctx](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), "/readyz");
    if (ctx->ready && !ctx->ready()) {
      return c.Fail(ApiError{ApiErrorCode::kUnavailable, "not ready (starting or shutting down)", ""});
    }
    if (std::vector<std::string> why = ctx->service->NotReadyReasons(); !why.empty()) {
      std::string message = "not ready: ";
      for (size_t i = 0; i < why.size(); ++i) message += (i ? "; " : "") + why[i];
      return c.Fail(ApiError{ApiErrorCode::kUnavailable, message, ""});
    }
    c.Reply(nlohmann::json{{"status", "ready"}, {"versions", ctx->service->Versions()}}.dump());
  });
  r.Add("GET", "/metrics", P::kInteractive, [ctx](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), "/metrics");
    ctx->service->RefreshGauges();
    if (ctx->open_streams) {
      ctx->metrics->GetGauge("attest_open_streams", "Open SSE streams")->Set(double(ctx->open_streams()));
    }
    if (ctx->in_flight) ctx->metrics->GetGauge("attest_in_flight", "Requests in flight")->Set(double(ctx->in_flight()));
    http::Response resp;
    resp.content_type = "text/plain; version=0.0.4; charset=utf-8";
    resp.body = ctx->metrics->Render();
    resp.headers = c.Headers();
    c.ex->Respond(std::move(resp));
  });
  if (ctx->site) {
    // The page (docs/web.md): no credential; the API calls it makes carry the user's key.
    auto page = [ctx](const char* route, std::function<std::string(const http::Request&)> name_of) {
      return [ctx, route, name_of](std::shared_ptr<http::Exchange> ex) {
        Call c = Begin(ctx, std::move(ex), route);
        std::optional<http::Response> r = ctx->site->Serve(name_of(c.ex->request()), c.ex->request());
        if (!r) {
          http::Response e = ErrorResponse(ApiError{ApiErrorCode::kNotFound, "no such file of the page", ""},
                                           c.rc.request_id, c.version);
          for (auto& h : PageSecurityHeaders()) e.headers.push_back(std::move(h));
          return c.ex->Respond(std::move(e));
        }
        for (auto& h : c.Headers()) r->headers.push_back(std::move(h));
        c.ex->Respond(std::move(*r));
      };
    };
    r.Add("GET", "/", P::kInteractive, page("/", [](const http::Request&) { return std::string("index.html"); }));
    r.Add("GET", "/assets/{name}", P::kInteractive, page("/assets/{name}", [](const http::Request& q) {
            return "assets/" + q.params.at("name");
          }));
  }
  AddMcpRoute(&r, ctx);
  AddOpenAiRoutes(ctx, &r);
  r.Add("GET", "/v1/openapi.json", P::kInline, [ctx](std::shared_ptr<http::Exchange> ex) {
    Call c = Begin(ctx, std::move(ex), "/v1/openapi.json");
    static const std::string doc = service::OpenApiJson(ATTEST_VERSION, &HttpStatusOf);
    c.Reply(doc);
  });
  return r;
}

}  // namespace attest::server
