// `attest serve` with two chat models (--llm-url, --llm-large-url) and prices (the real binary on an
// ephemeral port, two local chat servers): an answer whose small draft fails the grounding checks
// is written by the large model; /metrics has the cost and latency histograms by mode and tier and
// the per-stage counters, and the audit record carries mode, tier, cost and per-stage counts
// (numbers only) (docs/cost.md, "Where it appears").
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "support/chat_test_server.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::RunAttest;
using testing_support::TempDir;

std::string Draft(const std::string& sentence) {
  return json{{"answer", sentence},
              {"claims", {{{"id", "c1"}, {"text", sentence}, {"cites", {{{"source", "S1"}, {"quote", sentence}}}}}}}}
      .dump();
}

TEST(ServeTiering, MetricsAndAuditShowCostByModeAndTier) {
  TempDir dir;
  const std::string data = dir.str("data");
  auto keys = RunAttest({"--data", data, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  const std::string key = json::parse(keys.out).at("key").get<std::string>();
  ChatTestServer small, large;
  small.PushReply(ChatReply{.content = Draft("Every deployment is approved by the security team.")}, 2);
  large.PushReply(ChatReply{.content = Draft("Every deployment is approved by the platform team before traffic moves.")});
  testing_support::ServeProcess serve(
      data,
      {"--llm-url", small.base_url(), "--llm-model", "small-m", "--llm-large-url", large.base_url(),
       "--llm-large-model", "large-m", "--llm-prompt-price", "1", "--llm-completion-price", "5",
       "--llm-large-prompt-price", "10", "--llm-large-completion-price", "30", "--price-search", "0.005"},
      {});
  const uint16_t port = serve.port();
  ASSERT_NE(port, 0) << serve.child().out();
  auto call = [&](const std::string& method, const std::string& path, const std::string& body) {
    HttpCall c;
    c.method = method;
    c.path = path;
    c.body = body;
    c.headers["Authorization"] = "Bearer " + key;
    return HttpRequest(port, c);
  };
  json doc = {{"id", "deploys"}, {"title", "Deployment procedure"},
              {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the "
                       "platform team before traffic moves."}};
  ASSERT_EQ(call("POST", "/v1/documents", doc.dump()).status, 200);

  HttpReply r = call("POST", "/v1/answer", R"({"query":"Who approves a deployment?","writer":"llm"})");
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = json::parse(r.body);
  EXPECT_EQ(body.value("tier", ""), "small->large") << r.body;
  EXPECT_EQ(body.value("mode", ""), "standard");
  EXPECT_EQ(body.value("outcome", ""), "answer") << r.body;
  ASSERT_TRUE(body["stage_costs"].is_object()) << r.body;
  EXPECT_EQ(body["stage_costs"]["write"]["model_calls"], 2);
  EXPECT_EQ(body["stage_costs"]["verify"]["model_calls"], 1);
  EXPECT_GT(body["cost"].get<double>(), 0.0);
  EXPECT_EQ(small.chat_requests().size(), 2u);
  EXPECT_EQ(large.chat_requests().size(), 1u);

  const std::string metrics = call("GET", "/metrics", "").body;
  for (const char* series :
       {"attest_answer_cost_bucket{mode=\"standard\",tier=\"small->large\",le=\"0.025\"} 1",
        "attest_answer_cost_count{mode=\"standard\",tier=\"small->large\"} 1",
        "attest_answer_seconds_count{mode=\"standard\",tier=\"small->large\"} 1",
        "attest_stage_model_calls_total{stage=\"write\"} 2", "attest_stage_model_calls_total{stage=\"verify\"} 1",
        "attest_stage_searches_total{stage=\"retrieve\"}", "attest_tier_escalations_total 1"}) {
    EXPECT_NE(metrics.find(series), std::string::npos) << series << "\n" << metrics;
  }

  // The audit record of the answer: mode, tier, cost, per-stage counts; no text.
  json audit;
  for (int attempt = 0; attempt < 100 && audit.is_null(); ++attempt) {
    std::ifstream in(data + "/audit.jsonl");
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object() && j.value("route", "") == "/v1/answer") audit = j;
    }
    if (audit.is_null()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(audit.is_object());
  EXPECT_EQ(audit.value("mode", ""), "standard");
  EXPECT_EQ(audit.value("tier", ""), "small->large");
  EXPECT_DOUBLE_EQ(audit.value("cost", 0.0), body["cost"].get<double>());
  EXPECT_EQ(audit["stages"]["write"]["model_calls"], 2);
  EXPECT_EQ(audit.dump().find("platform team"), std::string::npos) << "no text in the audit log";
}

// Streaming: the small model's sentence was shown; the escalated answer replaces it, and the done
// event says which tier wrote it and what it cost.
TEST(ServeTiering, AStreamedEscalationEndsWithTheLargeModelsAnswer) {
  TempDir dir;
  const std::string data = dir.str("data");
  auto keys = RunAttest({"--data", data, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
  ASSERT_EQ(keys.exit_code, 0) << keys.err;
  const std::string key = json::parse(keys.out).at("key").get<std::string>();
  ChatTestServer small, large;
  small.PushReply(ChatReply{.content = Draft("Every deployment is approved by the security team.")}, 2);
  large.PushReply(ChatReply{.content = Draft("Every deployment is approved by the platform team before traffic moves.")});
  testing_support::ServeProcess serve(data,
                                      {"--llm-url", small.base_url(), "--llm-model", "small-m", "--llm-large-url",
                                       large.base_url(), "--llm-large-model", "large-m"},
                                      {});
  ASSERT_NE(serve.port(), 0) << serve.child().out();
  HttpCall put;
  put.method = "POST";
  put.path = "/v1/documents";
  put.headers["Authorization"] = "Bearer " + key;
  put.body = json{{"id", "deploys"}, {"title", "Deployment procedure"},
                  {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the "
                           "platform team before traffic moves."}}
                 .dump();
  ASSERT_EQ(HttpRequest(serve.port(), put).status, 200);
  HttpCall c;
  c.method = "POST";
  c.path = "/v1/answer";
  c.headers = {{"Authorization", "Bearer " + key}, {"Accept", "text/event-stream"}};
  c.body = R"({"query":"Who approves a deployment?","writer":"llm"})";
  std::vector<testing_support::SseEvent> events;
  ASSERT_EQ(testing_support::SseRequest(serve.port(), c, &events).status, 200);
  json done;
  std::string all;
  for (const auto& e : events) {
    all += e.event + " " + e.data + "\n";
    if (e.event == "done") done = json::parse(e.data, nullptr, false);
  }
  ASSERT_TRUE(done.is_object()) << all;
  EXPECT_EQ(done.value("tier", ""), "small->large") << all;
  EXPECT_NE(done.value("answer", "").find("platform team"), std::string::npos) << all;
  EXPECT_EQ(done.value("answer", "").find("security team"), std::string::npos) << all;
  EXPECT_EQ(done["stage_costs"]["write"]["model_calls"], 2) << all;
  bool replaced = false;  // the sentence the small model streamed is replaced by the large model's
  for (const auto& e : events) replaced |= e.event == "replace" && e.data.find("platform team") != std::string::npos;
  EXPECT_TRUE(replaced) << all;
  EXPECT_EQ(large.chat_requests().size(), 1u);
}

}  // namespace
}  // namespace attest
