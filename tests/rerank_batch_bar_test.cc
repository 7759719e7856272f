// Issue 17's bar for reranker micro-batching, against the local rerank server over HTTP (TEI's
// /predict, which counts calls and their sizes): 8 concurrent answers x 40 candidates -> exactly 5
// calls of 64 pairs, and every request's latency within the window plus one call. Also: a lone
// request leaves when its window ends, and `serve`'s engine options route answers through it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "attest/answer.h"
#include "attest/engine.h"
#include "rerank/rerank_batcher.h"
#include "rerank/tei_pair_scorer.h"
#include "support/process.h"
#include "support/rerank_test_server.h"

namespace attest {
namespace {

using namespace std::chrono_literals;
using testing_support::RerankTestServer;
using testing_support::TempDir;
using testing_support::WriteFile;

constexpr int kCallMs = 50;  // the server's time per call (a model's compute time)

double MsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// Candidates of answer `a`: words shared with its question in some passages, not in others.
std::vector<std::string> Candidates(int a, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    out.push_back("passage " + std::to_string(i) + (i % 3 == 0 ? " topic" + std::to_string(a) : " other") +
                  (i % 4 == 0 ? " winter" : " summer"));
  }
  return out;
}

struct Harness {
  explicit Harness(std::chrono::milliseconds window) {
    server.set_max_client_batch(64);
    server.set_model_delay_ms(kCallMs);
    TeiPairScorerOptions so;
    so.endpoint.base_url = server.base_url();
    so.endpoint.model = "test-reranker";
    so.endpoint.timeout_ms = 5000;
    auto scorer = TeiPairScorer::Create(so);
    EXPECT_TRUE(scorer.ok()) << scorer.status().ToString();
    RerankBatcherOptions bo;
    bo.max_pairs = 64;
    bo.window = window;
    bo.observer = [this](const RerankBatchEvent& e) {
      if (e.kind != RerankBatchEvent::Kind::kCall) return;
      std::lock_guard<std::mutex> lock(mu);
      longest_call_ms = std::max(longest_call_ms, e.seconds * 1000.0);
    };
    auto b = RerankBatcher::Create(std::move(scorer).value(), bo);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    batcher = std::move(b).value();
  }
  double longest_call() {
    std::lock_guard<std::mutex> lock(mu);
    return longest_call_ms;
  }

  RerankTestServer server;
  std::unique_ptr<RerankBatcher> batcher;
  std::mutex mu;
  double longest_call_ms = 0;
};

TEST(RerankBatchBar, EightAnswersOfFortyCandidatesTakeFiveCallsOfSixtyFourPairs) {
  // A window long enough that 8 threads released together on a loaded 2-core machine all arrive
  // within it; the answers then never wait for it: every batch fills.
  const auto window = 250ms;
  Harness h(window);
  constexpr int kAnswers = 8, kCandidates = 40;
  std::latch start(kAnswers);
  std::vector<double> latency_ms(kAnswers, 0);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int a = 0; a < kAnswers; ++a) {
    threads.emplace_back([&, a] {
      const std::string question = "which topic" + std::to_string(a) + " passages mention winter";
      const std::vector<std::string> candidates = Candidates(a, kCandidates);
      start.arrive_and_wait();
      const auto t0 = std::chrono::steady_clock::now();
      auto scores = h.batcher->Score(question, candidates);
      latency_ms[a] = MsSince(t0);
      if (!scores.ok() || scores->size() != candidates.size()) {
        ++wrong;
        return;
      }
      for (size_t i = 0; i < candidates.size(); ++i) {
        wrong += (*scores)[i] != RerankTestServer::OverlapScore(question, candidates[i]);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0) << "a score came back to the wrong answer or passage";

  std::vector<size_t> sizes = h.server.predict_batch_sizes();
  EXPECT_EQ(sizes, std::vector<size_t>(5, 64)) << "320 pairs in calls of at most 64";
  const RerankBatcherStats s = h.batcher->stats();
  EXPECT_EQ(s.calls, 5u);
  EXPECT_EQ(s.pairs, 320u);
  EXPECT_EQ(s.requests, 8u);

  // Latency: within the window plus one call (the longest call seen, the server's 50 ms plus
  // HTTP), with 100 ms for scheduling on a busy machine.
  const double bound = double(window.count()) + h.longest_call() + 100.0;
  std::sort(latency_ms.begin(), latency_ms.end());
  for (double ms : latency_ms) EXPECT_LE(ms, bound);
  std::printf("8 x 40 candidates: %zu calls, latency ms min %.1f median %.1f max %.1f; longest call %.1f ms; "
              "bound %.1f ms\n",
              sizes.size(), latency_ms.front(), latency_ms[kAnswers / 2], latency_ms.back(), h.longest_call(), bound);
}

TEST(RerankBatchBar, ALoneAnswerLeavesWhenItsWindowEnds) {
  const auto window = 40ms;
  Harness h(window);
  for (int round = 0; round < 3; ++round) {
    const std::vector<std::string> candidates = Candidates(round, 10);
    const auto t0 = std::chrono::steady_clock::now();
    auto scores = h.batcher->Score("topic winter", candidates);
    const double ms = MsSince(t0);
    ASSERT_TRUE(scores.ok()) << scores.status().ToString();
    EXPECT_GE(ms, double(window.count()) - 1.0) << "left before its window ended";
    EXPECT_LE(ms, double(window.count()) + h.longest_call() + 100.0);
  }
  EXPECT_EQ(h.server.predict_batch_sizes(), std::vector<size_t>(3, 10));
}

const char* kCorpus =
    R"J({"_id":"a","title":"Autovacuum","text":"Autovacuum reclaims storage occupied by dead tuples. It runs in the background."})J"
    "\n"
    R"J({"_id":"b","title":"Replication","text":"Logical replication slots keep WAL until the subscriber confirms it."})J"
    "\n";

TEST(RerankBatchEngine, AnswersGoThroughPredictWhenBatching) {
  RerankTestServer server;
  TempDir tmp;
  WriteFile(tmp.path() / "c.jsonl", kCorpus);
  std::mutex mu;
  std::vector<RerankBatchEvent> events;
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kNone;
  eo.rerank.base_url = server.base_url();
  eo.rerank.model = "test-reranker";
  eo.rerank.api = "tei";
  eo.rerank.batch_pairs = 16;
  eo.rerank.batch_window_ms = 5;
  eo.rerank.batch_observer = [&](const RerankBatchEvent& e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(e);
  };
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  IngestOptions io;
  io.paths = {tmp.str("c.jsonl")};
  ASSERT_TRUE((*engine)->Ingest(io).ok());
  AskOptions ao;
  ao.question = "What does autovacuum reclaim?";
  ao.deadline_ms = 5000;
  auto got = (*engine)->Ask(ao);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (const std::string& d : got->degraded) EXPECT_EQ(d.find("rerank"), std::string::npos) << d;
  const auto reqs = server.rerank_requests();
  ASSERT_FALSE(reqs.empty());
  for (const auto& r : reqs) EXPECT_EQ(r.path, "/predict");
  std::lock_guard<std::mutex> lock(mu);
  size_t calls = 0, answers = 0;
  for (const RerankBatchEvent& e : events) {
    if (e.kind == RerankBatchEvent::Kind::kCall) {
      ++calls;
      EXPECT_TRUE(e.ok);
    } else {
      ++answers;
      EXPECT_FALSE(e.bulk);
    }
  }
  EXPECT_EQ(calls, reqs.size());
  EXPECT_GE(answers, 1u);
}

TEST(RerankBatchEngine, BatchingNeedsTheTeiApi) {
  TempDir tmp;
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kNone;
  eo.rerank.base_url = "http://127.0.0.1:9";
  eo.rerank.model = "m";
  eo.rerank.api = "jina";
  eo.rerank.batch_pairs = 64;
  auto engine = Engine::Open(eo);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(engine.status().message(), ::testing::HasSubstr("tei"));
}

}  // namespace
}  // namespace attest
