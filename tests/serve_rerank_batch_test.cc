// Black-box test of `attest serve --rerank-batch-pairs` (the real binary on an ephemeral port)
// against the local rerank server: concurrent answers share /predict calls of at most the batch
// size, /metrics counts the calls, pairs and waits, and batching with a non-TEI API is refused at
// startup.
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve_ops_util.h"
#include "support/http_test_client.h"
#include "support/process.h"
#include "support/rerank_test_server.h"

namespace attest {
namespace {

using nlohmann::json;
using ops_test::Call;
using ops_test::CreateKey;
using testing_support::HttpReply;
using testing_support::RerankTestServer;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::TempDir;
using testing_support::WriteFile;

std::string Corpus() {
  std::string jsonl;
  const char* topics[] = {"glacier", "sourdough", "satellite", "harbour"};
  for (int t = 0; t < 4; ++t) {
    for (int n = 0; n < 6; ++n) {
      const std::string text = std::string("The ") + topics[t] + " note " + std::to_string(n) + " says the " +
                               topics[t] + " changes in winter. A " + topics[t] + " needs care in spring.";
      jsonl += json{{"_id", std::string(topics[t]) + std::to_string(n)}, {"title", topics[t]}, {"text", text}}.dump() +
               "\n";
    }
  }
  return jsonl;
}

// The value of the series `series` (name and labels as rendered) in a /metrics text; -1 if absent.
double MetricValue(const std::string& text, const std::string& series) {
  const std::string line = "\n" + series + " ";
  const size_t at = text.find(line);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + line.size()));
}

TEST(ServeRerankBatch, ConcurrentAnswersShareBatchedPredictCalls) {
  RerankTestServer reranker;
  reranker.set_max_client_batch(64);
  reranker.set_model_delay_ms(20);
  TempDir dir;
  const std::string data = dir.str("data");
  WriteFile(dir.path() / "c.jsonl", Corpus());
  auto ingest = RunAttest({"--data", data, "ingest", "--tenant", "acme", dir.str("c.jsonl")});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err << ingest.out;
  const std::string key = CreateKey(data, {"--tenant", "acme", "--user", "alice"});

  ServeProcess server(data, {"--rerank-url", reranker.base_url(), "--rerank-model", "m", "--rerank-api", "tei"},
                      {"--rerank-batch-pairs", "64", "--rerank-batch-window-ms", "50"});
  ASSERT_NE(server.port(), 0) << server.child().out();
  const uint16_t port = server.port();

  const std::vector<std::string> questions = {"What happens to the glacier in winter?",
                                              "What does sourdough need in spring?",
                                              "How does the satellite change in winter?",
                                              "What care does a harbour need?"};
  std::vector<HttpReply> replies(questions.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < questions.size(); ++i) {
    threads.emplace_back([&, i] {
      replies[i] = Call(port, "POST", "/v1/answer", key, json{{"query", questions[i]}}.dump());
    });
  }
  for (std::thread& t : threads) t.join();
  for (const HttpReply& r : replies) {
    ASSERT_EQ(r.status, 200) << r.body;
    const json body = json::parse(r.body, nullptr, false);
    for (const auto& d : body.value("degraded", json::array())) {
      EXPECT_EQ(d.get<std::string>().find("rerank"), std::string::npos) << d;
    }
  }
  const auto requests = reranker.rerank_requests();
  ASSERT_FALSE(requests.empty());
  for (const auto& r : requests) EXPECT_EQ(r.path, "/predict");
  size_t pairs = 0;
  for (size_t n : reranker.predict_batch_sizes()) {
    EXPECT_LE(n, 64u);
    pairs += n;
  }
  EXPECT_LE(requests.size(), questions.size());
  std::printf("4 concurrent answers: %zu /predict calls, %zu pairs\n", requests.size(), pairs);

  const std::string metrics = Call(port, "GET", "/metrics", "").body;
  EXPECT_EQ(MetricValue(metrics, "attest_rerank_batch_calls_total{result=\"ok\"}"), double(requests.size()))
      << metrics;
  EXPECT_EQ(MetricValue(metrics, "attest_rerank_batch_calls_total{result=\"error\"}"), 0);
  EXPECT_EQ(MetricValue(metrics, "attest_rerank_batch_pairs_total"), double(pairs));
  EXPECT_EQ(MetricValue(metrics, "attest_rerank_batch_size_count"), double(requests.size()));
  // Every answer reranks (at least) once.
  EXPECT_GE(MetricValue(metrics, "attest_rerank_batch_wait_seconds_count{queue=\"interactive\"}"), 4);
  EXPECT_EQ(MetricValue(metrics, "attest_rerank_batch_wait_seconds_count{queue=\"bulk\"}"), 0);
}

TEST(ServeRerankBatch, BatchingWithoutTheTeiApiIsRefusedAtStartup) {
  TempDir dir;
  auto r = RunAttest({"--data", dir.str("data"), "--rerank-url", "http://127.0.0.1:9", "--rerank-model", "m",
                      "--rerank-api", "jina", "serve", "--port", "0", "--rerank-batch-pairs", "64"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--rerank-api tei"), std::string::npos) << r.err;
  auto no_url = RunAttest({"--data", dir.str("data"), "serve", "--port", "0", "--rerank-batch-pairs", "64"});
  EXPECT_NE(no_url.exit_code, 0);
  EXPECT_NE(no_url.err.find("--rerank-batch-pairs needs --rerank-url"), std::string::npos) << no_url.err;
}

}  // namespace
}  // namespace attest
