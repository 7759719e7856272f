// `attest mcp`: the MCP server over stdio (docs/mcp.md, "stdio"). Newline-delimited JSON-RPC on
// stdin/stdout, logs on stderr only. The credential is the API key in ATTEST_API_KEY, resolved by
// the same Authenticator as `attest serve` (the data directory's auth.db) and re-checked before
// every request, so a revoked key stops working here as it does over HTTP. Requests run one at a
// time, through the same Service (authorization, caches, audit in <data>/audit.jsonl) and the same
// per-credential rate limit as the HTTP API. Stops cleanly on end of input.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cli/commands.h"
#include "mcp/mcp_server.h"
#include "service/audit_log.h"
#include "service/authenticator.h"
#include "service/rate_limiter.h"
#include "service/service.h"
#include "service/service_internal.h"

namespace attest::cli {
namespace {

struct McpArgs {
  size_t max_line_bytes = 8u << 20;   // one message; longer lines are refused (and skipped)
  double rate_limit = 10000;          // requests per second per credential, as `serve` (0 = unlimited)
  uint32_t deadline_ms = 800;         // planning + retrieval + reranking budget, as `serve`
  std::string audit_log;              // default <data>/audit.jsonl
};

// Reads one line of at most `max` bytes (without the newline). Returns false at end of input with
// nothing read. `oversized` is set when the line was longer; the rest of it is consumed.
bool ReadLine(std::FILE* in, size_t max, std::string* line, bool* oversized) {
  line->clear();
  *oversized = false;
  int c;
  bool any = false;
  while ((c = std::getc(in)) != EOF) {
    any = true;
    if (c == '\n') return true;
    if (line->size() < max) {
      line->push_back(static_cast<char>(c));
    } else {
      *oversized = true;
    }
  }
  return any;
}

void Write(const std::string& body) {
  std::fwrite(body.data(), 1, body.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

int RunMcp(const GlobalArgs& g, const McpArgs& a) {
  const char* key = std::getenv("ATTEST_API_KEY");
  if (!key || !*key) {
    std::fprintf(stderr, "attest: mcp: set ATTEST_API_KEY to an API key (attest keys create ...)\n");
    return kExitUsage;
  }
  service::AuthOptions ao;
  ao.auth_db = std::filesystem::path(g.data_dir) / "auth.db";
  auto auth = service::Authenticator::Create(ao);
  if (!auth.ok()) {
    std::fprintf(stderr, "attest: mcp: %s\n", auth.error().message.c_str());
    return kExitUsage;
  }
  auto who = auth.value()->Authenticate({{"authorization", std::string("Bearer ") + key}});
  if (!who.ok()) {
    std::fprintf(stderr, "attest: mcp: ATTEST_API_KEY is not accepted: %s\n", who.error().message.c_str());
    return kExitUsage;
  }

  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  eo->background_vectors = true;
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  service::Registry metrics;
  service::AuditOptions audit_options;
  audit_options.path = a.audit_log.empty() ? std::filesystem::path(g.data_dir) / "audit.jsonl"
                                           : std::filesystem::path(a.audit_log);
  auto audit = service::AuditLog::Open(audit_options);
  if (!audit.ok()) {
    std::fprintf(stderr, "attest: audit log: %s\n", audit.status().ToString().c_str());
    return kExitFailure;
  }
  service::ServiceOptions so;
  so.default_deadline_ms = a.deadline_ms;
  so.llm_model = g.llm_model;
  if (auto st = (*engine)->Stats(); st.ok()) so.embedder = st->embedder;
  service::Service svc(**engine, *auth.value(), metrics, audit->get(), so);
  service::RateLimiter limiter(service::RateLimit{a.rate_limit, 0});
  mcp::McpServer server(svc);
  spdlog::info("mcp: serving tenant '{}' over stdio ({})", who.value().tenant, who.value().admin ? "admin" : "reader");

  service::Identity identity = who.value();
  std::string negotiated;  // the version an initialize on this process chose ("" = none yet)
  std::string line;
  bool oversized = false;
  while (ReadLine(stdin, a.max_line_bytes, &line, &oversized)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (oversized) {
      Write(mcp::ErrorResponse(nullptr, mcp::RpcError{mcp::kInvalidRequest,
                                                      "the message is longer than " + std::to_string(a.max_line_bytes) +
                                                          " bytes (attest mcp --max-line-bytes); it was skipped",
                                                      nullptr}));
      continue;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) continue;  // blank lines carry nothing
    mcp::Parsed parsed = mcp::ParseTransportMessage(line);
    const nlohmann::json id = !parsed.batch && !parsed.elements.empty() ? parsed.elements.front().id : nlohmann::json();
    auto refreshed = auth.value()->Refresh(identity);
    if (!refreshed.ok()) {
      Write(mcp::ErrorResponse(id, mcp::RpcError{mcp::kUnauthorizedCode,
                                                 "the credential is no longer accepted: " + refreshed.error().message,
                                                 nullptr}));
      continue;
    }
    identity = refreshed.value();
    const double own = identity.rate_per_second;
    auto d = own > 0 ? limiter.Acquire(identity.credential_id, service::RateLimit{own, 0})
                     : limiter.Acquire(identity.credential_id);
    if (!d.allowed) {
      const int after = static_cast<int>(std::ceil(d.retry_after_seconds));
      Write(mcp::ErrorResponse(id, mcp::RpcError{mcp::kRateLimitedCode, "rate limit exceeded for this credential",
                                                 nlohmann::json{{"retry_after_seconds", after}}}));
      continue;
    }
    mcp::CallContext cc;
    cc.who = &identity;
    cc.request.request_id = service::internal::RandomId("req_");
    cc.request.route = "stdio:mcp";
    cc.request.received = std::chrono::steady_clock::now();
    cc.transport_version = negotiated;
    mcp::Reply reply = server.HandleParsed(parsed, cc);
    if (!reply.negotiated_version.empty()) negotiated = reply.negotiated_version;
    if (!reply.body.empty()) Write(reply.body);
  }
  Status flushed = audit.value()->Flush();
  if (!flushed.ok()) spdlog::error("audit log not fully written at exit: {}", flushed.ToString());
  if (Status v = (*engine)->WaitForVectors(); !v.ok()) spdlog::warn("background vector work: {}", v.ToString());
  return kExitOk;
}

class McpCommandImpl final : public McpCommand {
 public:
  explicit McpCommandImpl(CLI::App& app) {
    cmd_ = app.add_subcommand("mcp",
                              "the MCP server over stdio (docs/mcp.md): JSON-RPC lines on stdin/stdout; the API key "
                              "comes from ATTEST_API_KEY");
    cmd_->add_option("--max-line-bytes", args_.max_line_bytes, "longest message line; longer ones are refused")
        ->check(CLI::Range(size_t{1024}, size_t{1} << 30))
        ->capture_default_str();
    cmd_->add_option("--rate-limit", args_.rate_limit, "requests per second per credential (0 = unlimited)")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    cmd_->add_option("--deadline-ms", args_.deadline_ms, "default budget for planning, retrieval and reranking")
        ->check(CLI::Range(1u, 120000u))
        ->capture_default_str();
    cmd_->add_option("--audit-log", args_.audit_log, "audit JSONL file (default <data>/audit.jsonl)");
  }
  bool Selected() const override { return cmd_->parsed(); }
  int Run(const GlobalArgs& g) override { return RunMcp(g, args_); }

 private:
  CLI::App* cmd_ = nullptr;
  McpArgs args_;
};

}  // namespace

std::unique_ptr<McpCommand> RegisterMcpCommand(CLI::App& app) { return std::make_unique<McpCommandImpl>(app); }

}  // namespace attest::cli
