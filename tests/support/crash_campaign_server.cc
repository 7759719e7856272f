// The server scenario of the crash campaign: `attest serve` on the campaign's data directory while
// a client posts `POST /v1/documents:batch`; a batch answered 2xx is acknowledged (every document of
// it at its version). The server is killed at a random moment or at a named point, possibly in its
// background training or vector work; then the data directory is checked and the server restarted.
#include <signal.h>

#include <atomic>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/crash_campaign_internal.h"
#include "support/crash_child.h"
#include "support/http_test_client.h"

namespace attest::testing_support::crash_internal {

void Campaign::RoundServer() {
  if (fresh_store_next_) {
    NewStore();
    fresh_store_next_ = false;
    CrashChild keys({o_.binary, "--data", data_.string(), "keys", "create", "--tenant", "default", "--user", "root",
                     "--admin", "--json"},
                    {}, stderr_);
    const int rc = keys.Wait();
    auto j = nlohmann::json::parse(keys.out(), nullptr, false);
    if (rc != 0 || j.is_discarded() || !j.contains("key")) return Fail("keys create failed: " + Tail(stderr_, 600));
    admin_key_ = j["key"].get<std::string>();
  }
  fs::remove(trace_);
  const KillPlan plan = PlanKill(span_);
  // --embed-min-chunks 60: the background thread trains a model within the first rounds, and
  // builds vector files after each batch from then on.
  CrashChild server({o_.binary, "--data", data_.string(), "--threads", "2", "--embed-min-chunks", "60", "serve",
                     "--port", "0", "--workers", "2", "--answer-workers", "1", "--bulk-workers", "1"},
                    Env(plan), stderr_);
  uint16_t port = 0;
  const std::string marker = "listening on http://127.0.0.1:";
  for (auto until = Clock::now() + std::chrono::seconds(60); port == 0 && server.Running() && Clock::now() < until;) {
    server.Poll();
    const size_t at = server.out().find(marker);
    if (at != std::string::npos) {
      port = static_cast<uint16_t>(std::atoi(server.out().c_str() + at + marker.size()));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  const Clock::time_point listening = Clock::now();

  // The client: batches of 8 documents; every batch gives its documents a new version (the batch
  // number), so a document's versions only grow. The ledger is the client's until it is joined.
  std::atomic<bool> stop{false};
  std::atomic<int> batches{0};
  std::vector<std::string> client_errors;
  std::thread client([&] {
    std::mt19937_64 rng(o_.seed * 7919 + report_.rounds);
    while (port != 0 && !stop.load()) {
      const int version = ++server_batch_;
      nlohmann::json docs = nlohmann::json::array();
      std::vector<std::string> ids;
      for (int k = 0; k < 8; ++k) {
        const int doc = int(rng() % CrashCorpus::kDocuments);
        const std::string id = CrashCorpus::Id(doc);
        if (std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
        ids.push_back(id);
        const DocumentSpec spec = CrashCorpus::Spec(doc, version);
        ledger_.Sent(id, CrashCorpus::Token(doc), version, oracle_.FromSpec(spec));
        docs.push_back({{"id", spec.id}, {"title", spec.title}, {"text", spec.text}});
      }
      HttpCall call = MakeCall("POST", "/v1/documents:batch", {{"Authorization", "Bearer " + admin_key_}},
                               nlohmann::json{{"documents", docs}}.dump());
      call.timeout = std::chrono::milliseconds(30000);
      HttpReply reply = HttpRequest(port, call);
      if (reply.status == 0) break;  // the server is gone
      if (reply.status / 100 == 2) {
        for (const auto& id : ids) {
          ledger_.Acknowledged(id, version);
          ++report_.acknowledged;
        }
      } else if (reply.status != 503) {
        client_errors.push_back("POST /v1/documents:batch answered " + std::to_string(reply.status) + ": " +
                                reply.body.substr(0, 300));
      }
      ++batches;
    }
  });

  // A delay kill lands within `span_` seconds of posting; a named kill waits for its point, for at
  // most 60 batches, after which the server is stopped normally (SIGTERM).
  const auto kill_at = listening + plan.delay;
  bool terminated = false;
  while (server.Running() && port != 0) {
    server.Poll();
    if (plan.point.empty() && Clock::now() >= kill_at) {
      server.Signal(SIGKILL);
      break;
    }
    if (!plan.point.empty() && batches.load() >= 60 && !terminated) {
      server.Signal(SIGTERM);
      terminated = true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  const int rc = server.Wait();
  stop = true;
  client.join();
  RunResult r;
  r.killed = rc == -SIGKILL;
  r.clean = rc == 0;
  // A named point can be reached before the server listens (it finishes vector work a kill left
  // undone, or trains, at open): that is a kill point like any other. Anything else is a failure.
  if (port == 0 && !(r.killed && !plan.point.empty())) {
    return Fail("the server did not start (exit status " + std::to_string(rc) + "): " + Tail(stderr_, 1500));
  }
  for (const auto& e : client_errors) Fail(e);

  if (!r.killed && !r.clean) Fail("server exit status " + std::to_string(rc) + ": " + Tail(stderr_, 1500));
  Record(r, plan);
  Check(/*clean=*/false);  // a stopped server may leave vector work unfinished: debris is allowed
}

}  // namespace attest::testing_support::crash_internal
