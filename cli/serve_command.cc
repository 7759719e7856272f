// `attest serve`: the HTTP API over the data directory (docs/http_api.md).
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "common/file_util.h"
#include "server/routes.h"
#include "service/audit_log.h"
#include "service/authenticator.h"
#include "service/rate_limiter.h"
#include "service/service.h"
#include "service/service_internal.h"

namespace attest::cli {

namespace {

std::string EnvOrEmpty(const std::string& name) {
  if (name.empty()) return "";
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

}  // namespace

int RunServe(const GlobalArgs& g, const ServeArgs& a) {
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  eo->background_vectors = true;  // ingestion through the API never blocks on training
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), engine.status().ToString().c_str());
    return kExitFailure;
  }
  // Tenants without a model yet (e.g. a store just upgraded) get one, in the background.
  if (Status v = (*engine)->RefreshVectors(); !v.ok()) {
    std::fprintf(stderr, "attest: vectors not refreshed: %s\n", v.ToString().c_str());
  }

  service::AuthOptions ao;
  ao.auth_db = std::filesystem::path(g.data_dir) / "auth.db";
  ao.jwt_hs256_secret = EnvOrEmpty(a.jwt_hs256_secret_env);
  if (!a.jwt_rs256_public_key.empty()) {
    auto pem = ReadFileToString(a.jwt_rs256_public_key, 1 << 20);
    if (!pem.ok()) {
      std::fprintf(stderr, "attest: --jwt-rs256-public-key: %s\n", pem.status().message().c_str());
      return kExitUsage;
    }
    ao.jwt_rs256_public_key_pem = *pem;
  }
  ao.jwt_issuer = a.jwt_issuer;
  ao.jwt_audience = a.jwt_audience;
  ao.group_cache_ttl = std::chrono::milliseconds(a.group_cache_ttl_ms);
  ao.allow_anonymous = a.allow_anonymous;
  auto auth = service::Authenticator::Create(ao);
  if (!auth.ok()) {
    std::fprintf(stderr, "attest: %s\n", auth.error().message.c_str());
    return kExitUsage;
  }

  service::Registry metrics;
  service::AuditOptions audit_options;
  audit_options.path = a.audit_log.empty() ? std::filesystem::path(g.data_dir) / "audit.jsonl"
                                           : std::filesystem::path(a.audit_log);
  service::Counter* audit_failures =
      metrics.GetCounter("attest_audit_failures_total", "Audit records that failed to be written (retried)");
  audit_options.on_failure = [audit_failures](const std::string&) { audit_failures->Add(); };
  audit_options.max_queue = a.audit_queue;
  auto audit = service::AuditLog::Open(audit_options);
  if (!audit.ok()) {
    std::fprintf(stderr, "attest: audit log: %s\n", audit.status().ToString().c_str());
    return kExitFailure;
  }

  service::ServiceOptions so;
  so.default_deadline_ms = a.deadline_ms;
  so.caches = !a.no_cache;
  so.feedback_path = std::filesystem::path(g.data_dir) / "feedback.jsonl";
  so.llm_model = g.llm_model;
  so.manifest_key = EnvOrEmpty(a.manifest_key_env);
  so.report_access_filtered = a.report_access_filtered;
  if (auto st = (*engine)->Stats(); st.ok()) so.embedder = st->embedder;
  service::Service svc(**engine, *auth.value(), metrics, audit->get(), so);
  service::RateLimiter limiter(service::RateLimit{a.rate_limit, a.rate_burst});

  http::ServerOptions ho;
  ho.host = a.host;
  ho.port = a.port;
  ho.io_threads = a.io_threads;
  ho.interactive_workers = a.workers ? a.workers : std::max(2u, std::thread::hardware_concurrency());
  ho.answer_workers = a.answer_workers ? a.answer_workers : std::max(2u, std::thread::hardware_concurrency());
  ho.bulk_workers = a.bulk_workers;
  ho.max_body_bytes = a.max_body_bytes;
  ho.stream_buffer_bytes = a.stream_buffer_bytes;
  ho.on_complete = [&metrics](const http::Request&, std::string_view route, int status, double seconds) {
    const std::string r = route.empty() ? "(none)" : std::string(route);
    metrics.GetCounter("attest_http_requests_total", "HTTP requests by route and status",
                       {{"route", r}, {"status", std::to_string(status)}})->Add();
    metrics.GetHistogram("attest_http_request_seconds", "HTTP request latency by route", {{"route", r}})
        ->Observe(seconds);
  };

  server::RouteContext rc;
  rc.service = &svc;
  rc.auth = auth.value().get();
  rc.limiter = &limiter;
  rc.metrics = &metrics;
  rc.limits.max_document_bytes = a.max_body_bytes;
  std::unique_ptr<http::Server> srv;
  rc.ready = [&srv] { return srv && !srv->Stopping(); };
  rc.open_streams = [&srv] { return srv ? srv->open_streams() : 0; };
  rc.in_flight = [&srv] { return srv ? srv->in_flight() : 0; };
  auto errors = [&svc](int status, std::string code, std::string message, std::string field) {
    // The transport's own errors (404, 405, 413, 503...): the request was not parsed as far as its
    // X-Request-Id, so it gets an assigned one.
    return server::ErrorResponse(service::ApiError{std::move(code), std::move(message), std::move(field)},
                                 service::internal::RandomId("req_"), svc.VersionHeader());
  };
  auto created = http::Server::Create(ho, server::BuildRoutes(&rc), errors);
  if (!created.ok()) {
    std::fprintf(stderr, "attest: %s\n", created.status().ToString().c_str());
    return kExitFailure;
  }
  srv = std::move(created).value();
  if (Status st = srv->Start(); !st.ok()) {
    std::fprintf(stderr, "attest: cannot listen on %s:%u: %s\n", a.host.c_str(), unsigned(a.port), st.ToString().c_str());
    return kExitFailure;
  }
  std::printf("attest: listening on http://%s:%u (revocation delay %u ms)\n", a.host.c_str(), unsigned(srv->port()),
              unsigned(a.group_cache_ttl_ms));
  std::fflush(stdout);
  srv->Run();
  Status flushed = audit.value()->Flush();
  if (!flushed.ok()) spdlog::error("audit log not fully written at shutdown: {}", flushed.ToString());
  if (Status v = (*engine)->WaitForVectors(); !v.ok()) spdlog::warn("background vector work: {}", v.ToString());
  std::printf("attest: stopped\n");
  return kExitOk;
}

}  // namespace attest::cli
