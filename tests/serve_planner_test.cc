// `attest serve` with the model planner flags (the real binary on an ephemeral port): a planner
// server that times out, answers malformed JSON or fails with HTTP 500/429 never fails /v1/answer
// (a planner failure costs quality, never availability); the answer's plan says why it fell back,
// and a valid plan is merged.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

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
using testing_support::OpenAiFault;
using testing_support::RunAttest;
using testing_support::TempDir;

class ServePlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    auto r = RunAttest({"--data", data_, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    key_ = json::parse(r.out).at("key").get<std::string>();
    server_ = std::make_unique<testing_support::ServeProcess>(
        data_,
        std::vector<std::string>{"--planner-url", planner_.base_url(), "--planner-model", "small",
                                 "--planner-timeout-ms", "300"},
        std::vector<std::string>{});
    port_ = server_->port();
    ASSERT_NE(port_, 0) << server_->child().out();
    json doc = {{"id", "deploys"}, {"title", "Deployment procedure"},
                {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the "
                         "platform team before traffic moves."}};
    ASSERT_EQ(Call("/v1/documents", doc.dump()).status, 200);
  }

  HttpReply Call(const std::string& path, const std::string& body) {
    HttpCall c;
    c.method = "POST";
    c.path = path;
    c.body = body;
    c.headers["Authorization"] = "Bearer " + key_;
    return HttpRequest(port_, c);
  }

  // Asks; expects 200 and returns the answer's plan provenance.
  json AskPlanner() {
    HttpReply r = Call("/v1/answer", R"({"query":"How are deployments released and approved?"})");
    EXPECT_EQ(r.status, 200) << r.body;
    json body = json::parse(r.body, nullptr, false);
    if (!body.is_object() || !body.contains("plan") || !body["plan"].is_object()) {
      ADD_FAILURE() << r.body;
      return json::object();
    }
    EXPECT_EQ(body.value("outcome", ""), "answer") << r.body;
    return body["plan"]["planner"];
  }

  static std::string Fallback(const json& planner) {
    return planner.contains("fallback") && planner["fallback"].is_string() ? planner["fallback"].get<std::string>()
                                                                            : "";
  }

  TempDir dir_;
  std::string data_, key_;
  ChatTestServer planner_;
  std::unique_ptr<testing_support::ServeProcess> server_;
  uint16_t port_ = 0;
};

TEST_F(ServePlannerTest, FailingPlannerNeverFailsAnAnswer) {
  planner_.server().PushFault(OpenAiFault{.delay_ms = 3000});
  EXPECT_EQ(Fallback(AskPlanner()).rfind("timeout: ", 0), 0u);
  planner_.PushReply(ChatReply{.content = "{\"standalone\": "});
  EXPECT_EQ(Fallback(AskPlanner()).rfind("malformed_json: ", 0), 0u);
  for (int status : {500, 429}) {
    planner_.server().PushFault(OpenAiFault{.status = status, .retry_after = "1"});
    const std::string why = Fallback(AskPlanner());
    EXPECT_EQ(why.rfind("http_error: ", 0), 0u) << why;
    EXPECT_NE(why.find(std::to_string(status)), std::string::npos) << why;
  }
}

// An answer whose planner fell back is not cached: the same question asks the planner again, and
// its plan is used once it answers. A merged answer is cached as usual.
TEST_F(ServePlannerTest, FallbackAnswersAreNotCached) {
  planner_.server().PushFault(OpenAiFault{.status = 500});
  EXPECT_EQ(Fallback(AskPlanner()).rfind("http_error: ", 0), 0u);
  const json reply = {{"standalone", "How are deployments released and approved?"},
                      {"intent", "how_to"},
                      {"freshness", "timeless"},
                      {"complexity", "simple"},
                      {"needs_search", true},
                      {"subqueries", json::array()}};
  planner_.PushReply(ChatReply{.content = reply.dump()});
  EXPECT_EQ(AskPlanner().value("kind", ""), "model");
  EXPECT_EQ(AskPlanner().value("kind", ""), "model");  // from the cache: the planner is not asked
  EXPECT_EQ(planner_.chat_requests().size(), 2u);
}

TEST_F(ServePlannerTest, ValidPlanIsMerged) {
  const json reply = {{"standalone", "How are deployments released and approved?"},
                      {"intent", "how_to"},
                      {"freshness", "timeless"},
                      {"complexity", "simple"},
                      {"needs_search", true},
                      {"subqueries", {"deployment approval platform team"}}};
  planner_.PushReply(ChatReply{.content = reply.dump()});
  const json planner = AskPlanner();
  EXPECT_EQ(planner.value("kind", ""), "model") << planner.dump();
  EXPECT_EQ(planner.value("model", ""), "small");
}

}  // namespace
}  // namespace attest
