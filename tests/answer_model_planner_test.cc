// Issue 17's bar for the model planner: a planner failure costs quality, never availability. With
// a planner server that always times out, always answers malformed JSON or always fails with HTTP
// 500, every answer is the deterministic planner's answer (the same JSON but for timings, the
// manifest and the plan's "planner" provenance) and no request fails. Loopback servers only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "answer/answer_pipeline.h"  // AnswerToJson
#include "attest/answer.h"
#include "attest/engine.h"
#include "support/chat_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::OpenAiFault;
using testing_support::TempDir;
using testing_support::WriteFile;

const char* kCorpus =
    R"J({"_id":"autovacuum","title":"Autovacuum","text":"Autovacuum reclaims storage occupied by dead tuples. It runs in the background and is started by the autovacuum launcher. The autovacuum_naptime setting is the minimum delay between runs on a database; its default is one minute."})J"
    "\n"
    R"J({"_id":"replication","title":"Logical replication","text":"Logical replication sends row changes from a publisher to subscribers. A subscriber applies the changes in commit order. Subscribers can use parallel apply workers since version 16."})J"
    "\n"
    R"J({"_id":"wal","title":"Write-ahead log","text":"The write-ahead log records every change before it reaches the data files. The max_wal_senders setting limits concurrent WAL sender processes; its default value is 10."})J"
    "\n"
    R"J({"_id":"checkpoints","title":"Checkpoints","text":"A checkpoint writes all dirty pages to disk. The checkpoint_timeout setting is the maximum time between automatic checkpoints; its default is five minutes."})J"
    "\n"
    R"J({"_id":"indexes","title":"Index types","text":"B-tree indexes handle equality and range queries. Hash indexes handle only equality comparisons. GIN indexes suit full-text search and arrays."})J"
    "\n";

struct Question {
  std::string text;
  std::vector<std::string> thread;
};

const std::vector<Question> kQuestions = {
    {"What does autovacuum reclaim?", {}},
    {"What is the default value of max_wal_senders?", {}},
    {"B-tree vs hash indexes", {}},
    {"What do subscribers do in logical replication, not publishers?", {}},
    {"And what is the default of checkpoint_timeout?", {"What is the default of autovacuum_naptime?"}},
    {"Who won the 1998 football world cup?", {}},  // nothing in the corpus answers it
    {"hello", {}},                                  // answered without search: the model is not asked
};

// The answer JSON without what may differ between runs of the same plan: timings, the manifest
// (it seals the plan, provenance included), freshness ages (wall clock), the planner provenance and
// the per-stage costs (the planner's call is counted).
json Comparable(const AnswerResult& r) {
  json j = json::parse(AnswerToJson(r));
  j.erase("timings_ms");
  j.erase("manifest");
  j.erase("freshness");
  j.erase("stage_costs");  // the planner's call is accounted in the "plan" stage (docs/cost.md)
  if (j["plan"].is_object()) j["plan"].erase("planner");
  return j;
}

class ModelPlannerAnswers : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_.path() / "c.jsonl", kCorpus);
    auto engine = Engine::Open(Options());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    IngestOptions io;
    io.paths = {tmp_.str("c.jsonl")};
    auto rep = (*engine)->Ingest(io);
    ASSERT_TRUE(rep.ok()) << rep.status().ToString();
    ASSERT_TRUE(rep->issues.empty());
  }

  EngineOptions Options(const std::string& planner_url = "", uint32_t timeout_ms = 300) const {
    EngineOptions eo;
    eo.data_dir = tmp_.str("data");
    eo.embedder.kind = EmbedderKind::kNone;
    eo.planner_model.base_url = planner_url;
    eo.planner_model.model = planner_url.empty() ? "" : "planner-small";
    eo.planner_model.timeout_ms = timeout_ms;
    return eo;
  }

  // Every question answered by an engine opened with `eo`; each must succeed.
  std::vector<AnswerResult> AnswerAll(const EngineOptions& eo) const {
    std::vector<AnswerResult> out;
    auto engine = Engine::Open(eo);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    if (!engine.ok()) return out;
    for (const Question& q : kQuestions) {
      AskOptions ao;
      ao.question = q.text;
      ao.thread = q.thread;
      ao.today = "2026-03-01";
      auto r = (*engine)->Ask(ao);
      EXPECT_TRUE(r.ok()) << q.text << ": " << r.status().ToString();
      if (r.ok()) out.push_back(std::move(r).value());
    }
    return out;
  }

  // Answers with the failing planner equal the deterministic ones, each saying why it fell back.
  void ExpectSameAsDeterministic(const std::vector<AnswerResult>& with_planner, const std::string& reason) const {
    const std::vector<AnswerResult> plain = AnswerAll(Options());
    ASSERT_EQ(plain.size(), kQuestions.size());
    ASSERT_EQ(with_planner.size(), kQuestions.size());
    for (size_t i = 0; i < kQuestions.size(); ++i) {
      EXPECT_EQ(Comparable(with_planner[i]).dump(2), Comparable(plain[i]).dump(2)) << kQuestions[i].text;
      const json planner = json::parse(with_planner[i].plan_json)["planner"];
      EXPECT_EQ(planner["kind"], "deterministic") << kQuestions[i].text;
      EXPECT_EQ(planner["model"], "planner-small");
      if (kQuestions[i].text == "hello") {
        EXPECT_TRUE(planner["fallback"].is_null());  // not asked
      } else {
        ASSERT_TRUE(planner["fallback"].is_string()) << kQuestions[i].text;
        EXPECT_EQ(planner["fallback"].get<std::string>().rfind(reason, 0), 0u) << planner.dump();
      }
      EXPECT_TRUE(json::parse(plain[i].plan_json)["planner"]["model"].is_null());
    }
    // The deterministic answers are real answers, not a set of empty fallbacks.
    EXPECT_EQ(AnswerOutcomeName(plain[0].outcome), std::string("answer")) << AnswerToJson(plain[0]);
  }

  TempDir tmp_;
};

TEST_F(ModelPlannerAnswers, PlannerThatAlwaysTimesOutGivesTheDeterministicAnswers) {
  ChatTestServer server;
  server.server().PushFault(OpenAiFault{.delay_ms = 3000}, 100);
  const std::vector<AnswerResult> got = AnswerAll(Options(server.base_url(), 200));
  ExpectSameAsDeterministic(got, "timeout: ");
  EXPECT_EQ(server.chat_requests().size(), kQuestions.size() - 1);  // one call per answer, never retried
  for (const AnswerResult& r : got) EXPECT_LT(r.timings_ms.at("plan"), 2500) << r.plan_json;
}

TEST_F(ModelPlannerAnswers, PlannerThatAlwaysAnswersMalformedJsonGivesTheDeterministicAnswers) {
  ChatTestServer server;
  server.PushReply(ChatReply{.content = "{\"standalone\": \"autovacuum\", \"subqueries\": ["}, 100);
  ExpectSameAsDeterministic(AnswerAll(Options(server.base_url())), "malformed_json: ");
}

TEST_F(ModelPlannerAnswers, PlannerThatAlwaysViolatesTheSchemaGivesTheDeterministicAnswers) {
  ChatTestServer server;
  const json bad = {{"standalone", "autovacuum"}, {"intent", "opinion"},  {"freshness", "timeless"},
                    {"complexity", "simple"},     {"needs_search", true}, {"subqueries", json::array()}};
  server.PushReply(ChatReply{.content = bad.dump()}, 100);
  ExpectSameAsDeterministic(AnswerAll(Options(server.base_url())), "schema_violation: ");
}

TEST_F(ModelPlannerAnswers, PlannerThatAlwaysFailsWithHttp500GivesTheDeterministicAnswers) {
  ChatTestServer server;
  server.server().PushFault(OpenAiFault{.status = 500}, 100);
  ExpectSameAsDeterministic(AnswerAll(Options(server.base_url())), "http_error: ");
  EXPECT_EQ(server.chat_requests().size(), kQuestions.size() - 1);  // one call per answer, never retried
}

TEST_F(ModelPlannerAnswers, AValidModelPlanIsMergedAndShownInThePlan) {
  ChatTestServer server;
  const json reply = {{"standalone", "What does autovacuum reclaim?"},
                      {"intent", "fact"},
                      {"freshness", "timeless"},
                      {"complexity", "simple"},
                      {"needs_search", true},
                      {"subqueries", {"autovacuum dead tuples storage"}}};
  server.PushReply(ChatReply{.content = reply.dump()}, 100);
  const std::vector<AnswerResult> got = AnswerAll(Options(server.base_url(), 5000));
  ASSERT_EQ(got.size(), kQuestions.size());
  const json plan = json::parse(got[0].plan_json);
  EXPECT_EQ(plan["planner"]["kind"], "model") << plan.dump(2);
  EXPECT_TRUE(plan["planner"]["fallback"].is_null());
  EXPECT_EQ(plan["subqueries"][0]["id"], "q0");
  EXPECT_EQ(plan["subqueries"].back()["purpose"], "model: part 1");
  EXPECT_EQ(AnswerOutcomeName(got[0].outcome), std::string("answer")) << AnswerToJson(got[0]);
  // The planner got the thread's earlier question as data.
  bool saw_thread = false;
  for (const json& req : server.chat_requests()) {
    const json user = json::parse(req["messages"][1]["content"].get<std::string>());
    if (user["earlier_questions"] == json::array({"What is the default of autovacuum_naptime?"})) saw_thread = true;
  }
  EXPECT_TRUE(saw_thread);
}

TEST_F(ModelPlannerAnswers, APlannerUrlNeedsAModelAndSaneLimits) {
  EngineOptions eo = Options("http://127.0.0.1:1");
  eo.planner_model.model.clear();
  EXPECT_EQ(Engine::Open(eo).status().code(), StatusCode::kInvalidArgument);
  eo = Options("http://127.0.0.1:1");
  eo.planner_model.max_subqueries = 0;
  EXPECT_EQ(Engine::Open(eo).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace attest
