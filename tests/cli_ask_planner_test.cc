// `attest ask` with the model planner flags, end to end against the local chat server: a valid
// plan is merged and shown in the plan (--json, --explain); a planner slower than
// --planner-timeout-ms costs nothing but its plan (the same answer as without it, exit 0).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "support/chat_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::OpenAiFault;
using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

const char* kQuestion = "What does autovacuum reclaim?";

class CliAskPlannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_.path() / "d.jsonl",
              "{\"_id\":\"a\",\"title\":\"Autovacuum\",\"text\":\"Autovacuum reclaims storage occupied by dead "
              "tuples. It runs in the background.\"}\n"
              "{\"_id\":\"b\",\"title\":\"Checkpoints\",\"text\":\"A checkpoint writes all dirty pages to disk.\"}\n");
    ASSERT_EQ(RunAttest({"--data", data_, "--embedder", "none", "ingest", tmp_.str("d.jsonl")}).exit_code, 0);
  }

  json AskJson(const std::vector<std::string>& planner_flags) const {
    std::vector<std::string> args = {"--data", data_, "--embedder", "none"};
    args.insert(args.end(), planner_flags.begin(), planner_flags.end());
    for (const char* a : {"ask", "--json", kQuestion}) args.push_back(a);
    auto r = RunAttest(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out, nullptr, false);
    EXPECT_TRUE(j.is_object()) << r.out;
    return j;
  }

  TempDir tmp_;
  std::string data_ = tmp_.str("data");
};

TEST_F(CliAskPlannerTest, ValidPlanIsMergedAndShown) {
  ChatTestServer planner;
  const json reply = {{"standalone", kQuestion},          {"intent", "fact"},     {"freshness", "timeless"},
                      {"complexity", "simple"},           {"needs_search", true},
                      {"subqueries", {"autovacuum dead tuples storage"}}};
  planner.PushReply(ChatReply{.content = reply.dump()}, 2);
  const json j = AskJson({"--planner-url", planner.base_url(), "--planner-model", "small"});
  EXPECT_EQ(j["outcome"], "answer") << j.dump(2);
  EXPECT_EQ(j["plan"]["planner"]["kind"], "model") << j["plan"].dump(2);
  EXPECT_EQ(j["plan"]["planner"]["model"], "small");
  EXPECT_EQ(j["plan"]["subqueries"].back()["text"], "autovacuum dead tuples storage");
  ASSERT_EQ(planner.chat_requests().size(), 1u);
  EXPECT_EQ(planner.chat_requests()[0]["response_format"]["json_schema"]["name"], "query_plan");

  // --explain prints the plan with its provenance.
  auto r = RunAttest({"--data", data_, "--embedder", "none", "--planner-url", planner.base_url(), "--planner-model",
                      "small", "ask", "--explain", kQuestion});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"planner\":{"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kind\":\"model\""), std::string::npos) << r.out;
}

TEST_F(CliAskPlannerTest, SlowPlannerFallsBackToTheSameAnswer) {
  ChatTestServer planner;
  planner.server().PushFault(OpenAiFault{.delay_ms = 3000});
  json slow = AskJson({"--planner-url", planner.base_url(), "--planner-model", "small", "--planner-timeout-ms", "200"});
  json plain = AskJson({});
  const std::string fallback = slow["plan"]["planner"]["fallback"].is_string()
                                   ? slow["plan"]["planner"]["fallback"].get<std::string>() : "";
  EXPECT_EQ(fallback.rfind("timeout: ", 0), 0u) << slow["plan"].dump(2);
  EXPECT_EQ(slow["plan"]["planner"]["kind"], "deterministic");
  // The call that timed out was made: it is counted (docs/cost.md), and only there do they differ.
  EXPECT_EQ(slow["stage_costs"]["plan"]["model_calls"], 1);
  EXPECT_FALSE(plain["stage_costs"].contains("plan"));
  for (json* j : {&slow, &plain}) {
    j->erase("timings_ms");
    j->erase("manifest");
    j->erase("freshness");
    j->erase("stage_costs");
    (*j)["plan"].erase("planner");
  }
  EXPECT_EQ(slow.dump(2), plain.dump(2));
}

TEST_F(CliAskPlannerTest, PlannerUrlNeedsAModel) {
  auto r = RunAttest({"--data", data_, "--planner-url", "http://127.0.0.1:1", "ask", kQuestion});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--planner-url needs --planner-model"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attest
