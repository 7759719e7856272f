// `attest serve`: the HTTP API over the data directory (docs/http_api.md).
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/serve_cluster.h"
#include "cli/serve_watch.h"
#include "common/file_util.h"
#include "mcp/mcp_server.h"
#include "server/open_file_limit.h"
#include "server/routes.h"
#include "server/static_site.h"
#include "service/audit_log.h"
#include "service/authenticator.h"
#include "service/conversation_store.h"
#include "service/event_config.h"
#include "service/event_log.h"
#include "service/crawl_sources.h"
#include "service/rate_limiter.h"
#include "service/service.h"
#include "service/service_internal.h"

namespace attest::cli {

namespace {

// A startup error of the authenticator, naming the serve flags behind the setting.
std::string AuthStartupError(const service::ApiError& e) {
  if (e.field == "jwt_hs256_secret") return "--jwt-hs256-secret-env: " + e.message;
  if (e.field == "jwt_rs256_public_key") return "--jwt-rs256-public-key: " + e.message;
  if (e.field == "jwt_allow_hs256_and_rs256") {
    return "--jwt-hs256-secret-env with --jwt-rs256-public-key: " + e.message + " (--jwt-allow-hs256-and-rs256)";
  }
  return e.message;
}

std::string EnvOrEmpty(const std::string& name) {
  if (name.empty()) return "";
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

}  // namespace

void AddConversationOptions(CLI::App* serve, ServeArgs* a) {
  const auto at_least_one = CLI::Range(size_t{1}, size_t{1} << 40);
  serve->add_option("--conversation-retention-days", a->conversation_retention_days,
                    "threads, remembered answers and feedback older than this are deleted")
      ->check(CLI::Range(1u, 36500u))->capture_default_str();
  serve->add_option("--max-threads-per-user", a->max_threads_per_user,
                    "threads a user keeps; a new one replaces the user's oldest")
      ->check(at_least_one)->capture_default_str();
  serve->add_option("--max-threads-per-tenant", a->max_threads_per_tenant,
                    "threads a tenant keeps; beyond, creating one is refused (429 quota_exceeded)")
      ->check(at_least_one)->capture_default_str();
  serve->add_option("--max-turns-per-thread", a->max_turns_per_thread,
                    "messages a thread holds; beyond, a message is refused (429 quota_exceeded)")
      ->check(at_least_one)->capture_default_str();
  serve->add_option("--max-answers-per-tenant", a->max_answers_per_tenant,
                    "answers outside threads remembered for feedback; the tenant's oldest is forgotten")
      ->check(at_least_one)->capture_default_str();
  serve->add_option("--max-feedback-per-user", a->max_feedback_per_user,
                    "feedback records a user keeps; beyond, refused (429 quota_exceeded)")
      ->check(at_least_one)->capture_default_str();
  serve->add_option("--max-feedback-per-tenant", a->max_feedback_per_tenant,
                    "feedback records a tenant keeps; beyond, refused (429 quota_exceeded)")
      ->check(at_least_one)->capture_default_str();
  serve->add_option("--feedback-rate", a->feedback_rate, "feedback posts per second per credential")
      ->check(CLI::Range(0.001, 1e6))->capture_default_str();
  serve->add_option("--feedback-burst", a->feedback_burst, "feedback posts a credential may send at once")
      ->check(CLI::Range(1.0, 1e6))->capture_default_str();
}

void AddServeTransportFlags(CLI::App& serve, ServeArgs& a) {
  const auto positive = CLI::Range(1u, 3600u * 1000u);
  serve.add_option("--max-connections", a.max_connections, "open connections; more get 503 and are closed")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20))
      ->capture_default_str();
  serve.add_option("--max-connections-per-address", a.max_connections_per_address,
                   "open connections per client IP; more get 429 and are closed (0 = no bound; raise it, or 0, "
                   "behind a proxy that pools many connections)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve.add_option("--header-timeout-ms", a.header_timeout_ms,
                   "a request header must arrive within this long of accept or of the previous response "
                   "(also closes idle keep-alive connections)")
      ->check(positive)
      ->capture_default_str();
  serve.add_option("--read-timeout-ms", a.read_timeout_ms,
                   "a whole request must arrive within this long, and a write must make progress")
      ->check(positive)
      ->capture_default_str();
  serve.add_option("--stream-send-buffer-bytes", a.stream_send_buffer_bytes,
                   "kernel send buffer (SO_SNDBUF) of a connection once it streams; bounds the kernel's share "
                   "of a slow stream's unsent bytes (0 = the kernel's autotuning)")
      ->check(CLI::Range(size_t{0}, size_t{1} << 30))
      ->capture_default_str();
  serve.add_option("--stream-kernel-unsent-bytes", a.stream_kernel_unsent_bytes,
                   "unsent bytes of a stream the kernel may hold (TCP_NOTSENT_LOWAT); the rest wait in the "
                   "stream's buffer, and a slow reader wakes the server every few KiB (0 = no limit)")
      ->check(CLI::Range(size_t{0}, size_t{1} << 30))
      ->capture_default_str();
  serve.add_option("--answer-queue", a.answer_queue,
                   "answers that may wait beyond the answer workers; more get 503 overloaded")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve.add_option("--bulk-queue", a.bulk_queue, "ingestion requests that may wait beyond the bulk workers")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  serve.add_option("--bulk-queue-per-tenant", a.bulk_queue_per_tenant,
                   "ingestion requests one tenant may have waiting; more get 429 (0 = no bound)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

int RunServe(const GlobalArgs& g, const ServeArgs& a) {
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  eo->background_vectors = true;  // ingestion through the API never blocks on training
  auto live = MakeLiveFetchOptions(a.live);
  if (!live.ok()) {
    std::fprintf(stderr, "attest: %s\n", live.status().message().c_str());
    return kExitUsage;
  }
  eo->live_fetch = std::move(live).value();
  std::vector<service::CrawlSourceConfig> crawl_sources;
  if (!a.crawl_config.empty()) {
    auto text = ReadFileToString(a.crawl_config, 1 << 20);
    auto parsed = text.ok() ? service::ParseCrawlConfig(*text) : Result<std::vector<service::CrawlSourceConfig>>(text.status());
    if (!parsed.ok()) {
      std::fprintf(stderr, "attest: --crawl-config %s: %s\n", a.crawl_config.c_str(), parsed.status().message().c_str());
      return kExitUsage;
    }
    crawl_sources = std::move(*parsed);
  }
  // Before the engine: the reranker's batch observer counts into it (and must outlive the engine).
  service::Registry metrics;
  if (Status st = ApplyRerankBatch(a.rerank_batch, metrics, &*eo); !st.ok()) {
    std::fprintf(stderr, "attest: %s\n", st.message().c_str());
    return kExitUsage;
  }
  Coordinator coordinator;  // cluster mode: the engine over the shard nodes and their health poller
  const bool coordinator_mode = !a.cluster.shards.empty() || a.cluster.discover;
  if (coordinator_mode) {
    std::error_code mkdir_error;  // the coordinator's own directory: its keys and audit log only
    std::filesystem::create_directories(g.data_dir, mkdir_error);
    auto opened = OpenCoordinator(a.cluster, &metrics);
    if (!opened.ok()) {
      std::fprintf(stderr, "attest: %s: %s\n", a.cluster.discover ? "--cluster-discover" : "--cluster-shard",
                   opened.status().message().c_str());
      return opened.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
    }
    coordinator = std::move(opened).value();
  }
  auto engine = coordinator.engine ? Result<std::unique_ptr<Engine>>(std::move(coordinator.engine)) : Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                 FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }

  service::AuthOptions ao;
  ao.auth_db = std::filesystem::path(g.data_dir) / "auth.db";
  ao.jwt_hs256_secret = EnvOrEmpty(a.jwt_hs256_secret_env);
  if (!a.jwt_hs256_secret_env.empty() && ao.jwt_hs256_secret.empty()) {
    std::fprintf(stderr, "attest: --jwt-hs256-secret-env: the variable '%s' is not set or empty\n",
                 a.jwt_hs256_secret_env.c_str());
    return kExitUsage;
  }
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
  ao.jwt_allow_hs256_and_rs256 = a.jwt_allow_hs256_and_rs256;
  ao.jwt_allow_operator_claim = a.jwt_allow_operator_claim;
  ao.group_cache_ttl = std::chrono::milliseconds(a.group_cache_ttl_ms);
  ao.allow_anonymous = a.allow_anonymous;
  auto auth = service::Authenticator::Create(ao);
  if (!auth.ok()) {
    std::fprintf(stderr, "attest: %s\n", AuthStartupError(auth.error()).c_str());
    return kExitUsage;
  }

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

  service::ConversationStoreOptions co;
  co.path = std::filesystem::path(g.data_dir) / "conversations.db";
  co.limits.retention = std::chrono::hours(24) * a.conversation_retention_days;
  co.limits.max_threads_per_user = a.max_threads_per_user;
  co.limits.max_threads_per_tenant = a.max_threads_per_tenant;
  co.limits.max_turns_per_thread = a.max_turns_per_thread;
  co.limits.max_answers_per_tenant = a.max_answers_per_tenant;
  co.limits.max_feedback_per_user = a.max_feedback_per_user;
  co.limits.max_feedback_per_tenant = a.max_feedback_per_tenant;
  auto conversations = service::ConversationStore::Open(co);
  std::unique_ptr<service::ConversationStore> no_conversations;
  if (!conversations.ok()) {
    if (conversations.status().code() != StatusCode::kNoSpace) {
      std::fprintf(stderr, "attest: %s\n", conversations.status().ToString().c_str());
      return kExitFailure;
    }
    // A full disk must not stop the server from answering reads (docs/http_api.md): threads and
    // feedback answer 503 until it is restarted with space to create its conversations file.
    std::fprintf(stderr, "attest: warning: %s; serving without threads and feedback\n",
                 conversations.status().ToString().c_str());
    conversations = std::move(no_conversations);
  }

  // Pushed events: the connectors (secrets from the environment) and the durable log.
  std::unique_ptr<service::WebhookVerifier> webhooks;
  std::unique_ptr<service::EventLog> event_log;
  if (!a.events_config.empty()) {
    auto text = ReadFileToString(a.events_config, 1 << 20);
    if (!text.ok()) {
      std::fprintf(stderr, "attest: --events-config: %s\n", text.status().message().c_str());
      return kExitUsage;
    }
    auto config = service::ParseEventsConfig(*text, [](const std::string& name) -> std::optional<std::string> {
      const char* v = std::getenv(name.c_str());
      return v ? std::optional<std::string>(v) : std::nullopt;
    });
    if (!config.ok()) {
      std::fprintf(stderr, "attest: --events-config %s: %s\n", a.events_config.c_str(),
                   config.status().message().c_str());
      return kExitUsage;
    }
    auto opened = service::EventLog::Open(std::filesystem::path(g.data_dir) / "events.db");
    if (!opened.ok()) {
      std::fprintf(stderr, "attest: %s\n", opened.status().ToString().c_str());
      return kExitFailure;
    }
    event_log = std::move(opened).value();
    // Deliveries (idempotency keys) and finished events are kept 7 days (docs/http_api.md, "Events").
    const int64_t week_ago_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                    (std::chrono::system_clock::now() - std::chrono::hours(24 * 7)).time_since_epoch())
                                    .count();
    if (auto purged = event_log->Purge(week_ago_ms); !purged.ok()) {
      spdlog::warn("events.db: purge: {}", purged.status().ToString());
    }
    webhooks = std::make_unique<service::WebhookVerifier>(std::move(config->connectors), config->tolerance, nullptr);
  }

  service::ServiceOptions so;
  so.event_log = event_log.get();
  so.webhooks = webhooks.get();
  so.default_deadline_ms = a.deadline_ms;
  // A coordinator has no snapshot to key its caches by yet: they are off (docs/cluster.md).
  so.caches = !a.no_cache && !coordinator_mode;
  so.conversations = conversations->get();
  so.feedback_rate = service::RateLimit{a.feedback_rate, a.feedback_burst};
  so.llm_model = g.llm_model;
  so.manifest_key = EnvOrEmpty(a.manifest_key_env);
  so.report_access_filtered = a.report_access_filtered;
  if (auto st = (*engine)->Stats(); st.ok()) so.embedder = st->embedder;
  service::Service svc(**engine, *auth.value(), metrics, audit->get(), so);
  service::RateLimiter limiter(service::RateLimit{a.rate_limit, a.rate_burst});

  const http::OpenFileLimit files = http::RaiseOpenFileLimit(a.max_connections);
  if (files.raised) {
    spdlog::info("serve: open-file limit raised from {} to {} for --max-connections {}", files.before, files.soft,
                 a.max_connections);
  }
  if (!files.warning.empty()) spdlog::warn("serve: {}", files.warning);

  http::ServerOptions ho;
  ho.host = a.host;
  ho.port = a.port;
  ho.io_threads = a.io_threads;
  ho.interactive_workers = a.workers ? a.workers : std::max(2u, std::thread::hardware_concurrency());
  ho.answer_workers = a.answer_workers ? a.answer_workers : std::max(2u, std::thread::hardware_concurrency());
  ho.bulk_workers = a.bulk_workers;
  ho.max_body_bytes = a.max_body_bytes;
  ho.stream_buffer_bytes = a.stream_buffer_bytes;
  ho.max_connections = a.max_connections;
  ho.max_connections_per_address = a.max_connections_per_address;
  ho.header_timeout_ms = a.header_timeout_ms;
  ho.read_timeout_ms = a.read_timeout_ms;
  ho.answer_queue = a.answer_queue;
  ho.stream_send_buffer_bytes = a.stream_send_buffer_bytes;
  ho.stream_kernel_unsent_bytes = a.stream_kernel_unsent_bytes;
  ho.bulk_queue = a.bulk_queue;
  ho.bulk_queue_per_key = a.bulk_queue_per_tenant;
  ho.on_complete = [&metrics](const http::Request&, std::string_view route, int status, double seconds) {
    const std::string r = route.empty() ? "(none)" : std::string(route);
    metrics.GetCounter("attest_http_requests_total", "HTTP requests by route and status",
                       {{"route", r}, {"status", std::to_string(status)}})->Add();
    metrics.GetHistogram("attest_http_request_seconds", "HTTP request latency by route", {{"route", r}})
        ->Observe(seconds);
  };

  service::Counter* refused_per_address = metrics.GetCounter(
      "attest_http_connections_refused_total", "Connections refused at accept", {{"reason", "per_address"}});
  service::Counter* refused_server_full = metrics.GetCounter(
      "attest_http_connections_refused_total", "Connections refused at accept", {{"reason", "server_full"}});
  ho.on_refused = [refused_per_address, refused_server_full](std::string_view reason) {
    (reason == "per_address" ? refused_per_address : refused_server_full)->Add();
  };

  server::RouteContext rc;
  rc.service = &svc;
  rc.chat_model = !g.llm_url.empty();  // the engine builds its chat client from --llm-url
  rc.auth = auth.value().get();
  rc.limiter = &limiter;
  rc.metrics = &metrics;
  rc.limits.max_document_bytes = a.max_body_bytes;
  mcp::McpServer mcp_server(svc);
  rc.mcp = &mcp_server;
  rc.mcp_allowed_origins = a.mcp_allow_origins;
  std::unique_ptr<server::StaticSite> site;
  if (!a.no_web) {
    auto made = a.web_dir.empty() ? server::StaticSite::Embedded() : server::StaticSite::FromFolder(a.web_dir);
    if (!made.ok()) {
      std::fprintf(stderr, "attest: %s\n", made.status().ToString().c_str());
      return kExitFailure;
    }
    site = std::move(made).value();
    rc.site = site.get();
  }
  // Watched folders (docs/watch.md): opened (and refused) before the server listens.
  std::unique_ptr<ServeWatch> watch;
  if (!a.watch.dirs.empty()) {
    auto opened = ServeWatch::Open(g, a.watch, **engine, svc, metrics);
    if (!opened.ok()) {
      std::fprintf(stderr, "attest: --watch: %s\n", opened.status().message().c_str());
      return kExitFailure;
    }
    watch = std::move(opened).value();
  }
  std::unique_ptr<http::Server> srv;
  rc.ready = [&srv] { return srv && !srv->Stopping(); };
  rc.open_streams = [&srv] { return srv ? srv->open_streams() : 0; };
  rc.in_flight = [&srv] { return srv ? srv->in_flight() : 0; };
  auto errors = [&svc](int status, std::string code, std::string message, std::string field) {
    // The transport's own errors (404, 405, 413, 503...): the request was not parsed as far as its
    // X-Request-Id, so it gets an assigned one. The status comes from the error table.
    return server::TransportErrorResponse(code, std::move(message), std::move(field),
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
  if (watch) watch->Start();  // brings the index in line in the background; searches run meanwhile
  std::unique_ptr<service::CrawlSources> crawls;
  if (!crawl_sources.empty()) {
    crawls = std::make_unique<service::CrawlSources>(**engine, metrics, g.data_dir, std::move(crawl_sources),
                                                     *RealClock());
    if (Status st = crawls->Start(); !st.ok()) {
      std::fprintf(stderr, "attest: --crawl-config: %s\n", st.ToString().c_str());
      return kExitFailure;
    }
  }
  std::printf("attest: listening on http://%s:%u (revocation delay %u ms)\n", a.host.c_str(), unsigned(srv->port()),
              unsigned(a.group_cache_ttl_ms));
  std::fflush(stdout);
  srv->Run();
  svc.StopEvents();  // requests waiting on events are answered while the transport still exists
  watch.reset();  // stops the watcher before the engine closes
  if (crawls) crawls->Stop();
  Status flushed = audit.value()->Flush();
  if (!flushed.ok()) spdlog::error("audit log not fully written at shutdown: {}", flushed.ToString());
  if (Status v = (*engine)->WaitForVectors(); !v.ok()) spdlog::warn("background vector work: {}", v.ToString());
  std::printf("attest: stopped\n");
  return kExitOk;
}

}  // namespace attest::cli
