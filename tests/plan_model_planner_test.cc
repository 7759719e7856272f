// The model planner (plan/model_planner.h): its reply is validated like any input, merged under
// rules that keep q0 and the rewrite validator, and any failure leaves the deterministic plan with
// the reason recorded. Unit cases use a scripted ChatModel; wire cases a local chat server.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/chat_client.h"
#include "plan/model_planner.h"
#include "support/chat_test_server.h"
#include "support/fake_clock.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::FakeClock;
using testing_support::OpenAiFault;

QueryPlan Deterministic(const std::string& question) {
  auto p = PlanQuestion(PlanArgs{question, "2026-03-01", nullptr}, PlannerConfig::Defaults());
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : QueryPlan{};
}

json WithoutPlanner(const QueryPlan& p) {
  json j = p.ToJson();
  j.erase("planner");
  return j;
}

json Reply(const std::string& standalone, std::vector<std::string> subqueries = {}) {
  return {{"standalone", standalone}, {"intent", "fact"},        {"freshness", "timeless"},
          {"complexity", "simple"},   {"needs_search", true},   {"subqueries", std::move(subqueries)}};
}

bool HasNote(const QueryPlan& p, const std::string& part) {
  return std::any_of(p.notes.begin(), p.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

bool StartsWith(const std::optional<std::string>& s, const std::string& prefix) {
  return s && s->rfind(prefix, 0) == 0;
}

// A chat model whose answer the test sets; with a clock, each call "takes" `takes_ms` on it.
class ScriptedModel final : public ChatModel {
 public:
  Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo*) const override {
    ++calls;
    last = request;
    if (clock != nullptr) clock->SleepFor(std::chrono::milliseconds(takes_ms));
    return answer;
  }
  Result<ChatResponse> Stream(const ChatRequest&, const ChatDeltaCallback&, ChatCallInfo*) const override {
    return Status::Internal("the planner does not stream");
  }
  const std::string& model() const override { return name_; }

  void SetContent(const std::string& content) {
    ChatResponse r;
    r.content = content;
    r.finish_reason = "stop";
    answer = r;
  }

  Result<ChatResponse> answer = Status::Internal("no answer set");
  const FakeClock* clock = nullptr;
  int takes_ms = 0;
  mutable std::atomic<int> calls{0};
  mutable ChatRequest last;

 private:
  std::string name_ = "planner-small";
};

QueryPlan Ask(const ScriptedModel& model, const QueryPlan& det, const std::string& question,
              ModelPlannerLimits limits = {}, const Clock* clock = nullptr) {
  return PlanWithModel(model, ModelPlanArgs{question, {}, &det, limits, clock});
}

const char* kQuestion = "What does autovacuum reclaim in ExampleDB?";

TEST(ModelPlanner, ValidReplyAddsLegsAfterTheDeterministicOnes) {
  const QueryPlan det = Deterministic(kQuestion);
  ScriptedModel model;
  model.SetContent(Reply(kQuestion, {"autovacuum dead tuples storage", "ExampleDB vacuum settings"}).dump());
  const QueryPlan p = Ask(model, det, kQuestion);
  ASSERT_GE(p.subqueries.size(), det.subqueries.size() + 2);
  for (size_t i = 0; i < det.subqueries.size(); ++i) {  // q0 and every deterministic leg, unchanged
    EXPECT_EQ(p.subqueries[i].id, det.subqueries[i].id);
    EXPECT_EQ(p.subqueries[i].text, det.subqueries[i].text);
  }
  EXPECT_EQ(p.subqueries[0].id, "q0");
  const SubQuery& a = p.subqueries[det.subqueries.size()];
  const SubQuery& b = p.subqueries[det.subqueries.size() + 1];
  EXPECT_EQ(a.purpose, "model: part 1");
  EXPECT_EQ(a.text, "autovacuum dead tuples storage");
  EXPECT_EQ(b.purpose, "model: part 2");
  EXPECT_EQ(a.id, "q" + std::to_string(det.subqueries.size()));
  EXPECT_EQ(p.standalone, det.standalone);  // the model's standalone equals q0's words: no leg
  EXPECT_EQ(p.planner.kind, "model");
  const json j = p.ToJson()["planner"];
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["model"], "planner-small");
  EXPECT_TRUE(j["fallback"].is_null());
  EXPECT_TRUE(j["latency_ms"].is_number());
  EXPECT_EQ(j["classification"]["complexity"], "simple");
  EXPECT_EQ(j["classification"]["needs_search"], true);
  // The request: one call, the schema as response_format, the question as JSON data.
  EXPECT_EQ(model.calls.load(), 1);
  const json format = json::parse(model.last.response_format_json);
  EXPECT_EQ(format["type"], "json_schema");
  EXPECT_EQ(format["json_schema"]["strict"], true);
  EXPECT_EQ(format["json_schema"]["schema"]["additionalProperties"], false);
  EXPECT_EQ(format["json_schema"]["schema"]["properties"]["subqueries"]["maxItems"], 4);
  ASSERT_EQ(model.last.messages.size(), 2u);
  EXPECT_EQ(json::parse(model.last.messages[1].content)["question"], kQuestion);
}

TEST(ModelPlanner, DeterministicPlanSaysDeterministicWithoutAModel) {
  const json j = Deterministic(kQuestion).ToJson()["planner"];
  EXPECT_EQ(j["kind"], "deterministic");
  EXPECT_TRUE(j["model"].is_null());
  EXPECT_TRUE(j["fallback"].is_null());
  EXPECT_FALSE(j.contains("classification"));
}

TEST(ModelPlanner, ModelLegsPassTheRewriteValidator) {
  const std::string q = "latest ExampleDB logical replication changes that affect subscribers, not publishers";
  const QueryPlan det = Deterministic(q);
  ScriptedModel model;
  model.SetContent(Reply(q, {"ExampleDB publisher replication settings"}).dump());
  const QueryPlan p = Ask(model, det, q);
  ASSERT_EQ(p.subqueries.size(), det.subqueries.size() + 1) << p.ToJson().dump(2);
  const std::string& leg = p.subqueries.back().text;
  EXPECT_EQ(leg.find("publisher"), std::string::npos) << leg;
  EXPECT_NE(leg.find("subscriber"), std::string::npos) << leg;
  EXPECT_TRUE(HasNote(p, "validator: removed excluded term 'publisher'"));
}

TEST(ModelPlanner, LegsAreSanitizedAndDeduplicated) {
  const QueryPlan det = Deterministic(kQuestion);
  ScriptedModel model;
  // q0's words in another order and case repeat q0; operator syntax and placeholders are words.
  model.SetContent(Reply("autovacuum reclaim EXAMPLEDB what", {"+vacuum -freeze \"dead rows\" {q1}",
                                                               "Reclaim autovacuum, ExampleDB?", "autovacuum workers"})
                       .dump());
  const QueryPlan p = Ask(model, det, kQuestion);
  ASSERT_EQ(p.subqueries.size(), det.subqueries.size() + 2) << p.ToJson().dump(2);
  EXPECT_EQ(p.subqueries[det.subqueries.size()].text, "vacuum freeze dead rows q1");
  EXPECT_EQ(p.subqueries[det.subqueries.size()].purpose, "model: part 1");
  EXPECT_EQ(p.subqueries[det.subqueries.size() + 1].text, "autovacuum workers");
  EXPECT_EQ(p.subqueries[det.subqueries.size() + 1].purpose, "model: part 3");
  EXPECT_TRUE(HasNote(p, "model planner: 2 leg(s) added"));
  for (const SubQuery& sq : p.subqueries) EXPECT_EQ(sq.text.find('{'), std::string::npos);
}

TEST(ModelPlanner, LegCapCountsEveryModelLeg) {
  const QueryPlan det = Deterministic(kQuestion);
  ScriptedModel model;
  ModelPlannerLimits limits;
  limits.max_subqueries = 2;
  model.SetContent(Reply("ExampleDB autovacuum reclaimed space", {"autovacuum workers", "autovacuum naptime"}).dump());
  const QueryPlan p = Ask(model, det, kQuestion, limits);
  ASSERT_EQ(p.subqueries.size(), det.subqueries.size() + 2);
  EXPECT_EQ(p.subqueries[det.subqueries.size()].purpose, "model: standalone");
  EXPECT_TRUE(HasNote(p, "leg 'autovacuum naptime' dropped"));
}

TEST(ModelPlanner, IntentIsAdoptedOnlyOverFactAndOnlyAsALabel) {
  const QueryPlan fact = Deterministic(kQuestion);
  ASSERT_EQ(fact.intent, Intent::kFact);
  ScriptedModel model;
  json r = Reply(kQuestion);
  r["intent"] = "definition";
  model.SetContent(r.dump());
  EXPECT_EQ(Ask(model, fact, kQuestion).intent, Intent::kDefinition);
  r["intent"] = "multi_hop";  // a hop chain is the rules' alone
  model.SetContent(r.dump());
  QueryPlan p = Ask(model, fact, kQuestion);
  EXPECT_EQ(p.intent, Intent::kFact);
  EXPECT_TRUE(HasNote(p, "intent 'multi_hop' not adopted"));
  EXPECT_EQ(p.planner.model_intent, "multi_hop");

  const std::string cmp = "ExampleDB vs OtherDB replication";
  const QueryPlan comparison = Deterministic(cmp);
  ASSERT_EQ(comparison.intent, Intent::kComparison);
  r["intent"] = "fact";
  model.SetContent(r.dump());
  EXPECT_EQ(Ask(model, comparison, cmp).intent, Intent::kComparison);

  r["intent"] = "fact";
  r["needs_search"] = false;  // never skips retrieval
  model.SetContent(r.dump());
  p = Ask(model, fact, kQuestion);
  EXPECT_TRUE(p.needs_search);
  EXPECT_TRUE(HasNote(p, "needs_search=false not adopted"));
}

TEST(ModelPlanner, HopChainGetsNoModelLegs) {
  const std::string q = "What did the CEO of the company behind ExampleDB say about pricing?";
  const QueryPlan det = Deterministic(q);
  ASSERT_EQ(det.intent, Intent::kMultiHop) << det.ToJson().dump(2);
  ScriptedModel model;
  model.SetContent(Reply(q, {"ExampleDB company", "ExampleDB CEO pricing"}).dump());
  const QueryPlan p = Ask(model, det, q);
  EXPECT_EQ(p.ToJson()["subqueries"], det.ToJson()["subqueries"]);
  EXPECT_EQ(p.planner.kind, "model");
}

TEST(ModelPlanner, GreetingsAndCalculationsDoNotAskTheModel) {
  ScriptedModel model;
  model.SetContent(Reply("hello").dump());
  for (const char* q : {"hello", "what is 17 * 23"}) {
    const QueryPlan det = Deterministic(q);
    ASSERT_FALSE(det.needs_search) << q;
    const QueryPlan p = Ask(model, det, q);
    EXPECT_EQ(WithoutPlanner(p)["subqueries"], WithoutPlanner(det)["subqueries"]);
    EXPECT_EQ(p.planner.kind, "deterministic");
    EXPECT_FALSE(p.planner.fallback.has_value());
  }
  EXPECT_EQ(model.calls.load(), 0);
}

TEST(ModelPlanner, EarlierQuestionsAreSentAsDataLastThreeOnly) {
  const QueryPlan det = Deterministic(kQuestion);
  ScriptedModel model;
  model.SetContent(Reply(kQuestion).dump());
  (void)PlanWithModel(model, ModelPlanArgs{kQuestion, {"one?", "two?", "three?", "four?"}, &det, {}, nullptr});
  const json user = json::parse(model.last.messages[1].content);
  EXPECT_EQ(user["earlier_questions"], json::array({"two?", "three?", "four?"}));
}

// Every way a reply can break the schema names the field, and the plan stays the deterministic one.
TEST(ModelPlanner, SchemaViolationsNameTheFieldAndFallBack) {
  const QueryPlan det = Deterministic(kQuestion);
  struct Case {
    const char* field;
    std::function<void(json&)> edit;
  };
  const std::vector<Case> cases = {
      {"standalone", [](json& r) { r.erase("standalone"); }},
      {"extra", [](json& r) { r["extra"] = 1; }},
      {"standalone", [](json& r) { r["standalone"] = 42; }},
      {"standalone", [](json& r) { r["standalone"] = "   "; }},
      {"standalone", [](json& r) { r["standalone"] = std::string(301, 'a'); }},
      {"standalone", [](json& r) { r["standalone"] = "line\nbreak"; }},
      {"intent", [](json& r) { r["intent"] = "opinion"; }},
      {"intent", [](json& r) { r["intent"] = 3; }},
      {"intent", [](json& r) { r.erase("intent"); }},
      {"freshness", [](json& r) { r["freshness"] = "hours"; }},
      {"freshness", [](json& r) { r["freshness"] = nullptr; }},
      {"complexity", [](json& r) { r["complexity"] = "single_hop"; }},
      {"needs_search", [](json& r) { r["needs_search"] = "yes"; }},
      {"needs_search", [](json& r) { r.erase("needs_search"); }},
      {"subqueries", [](json& r) { r["subqueries"] = "a, b"; }},
      {"subqueries", [](json& r) { r["subqueries"] = json::array({"a", "b", "c", "d", "e"}); }},
      {"subqueries[1]", [](json& r) { r["subqueries"] = json::array({"a", ""}); }},
      {"subqueries[0]", [](json& r) { r["subqueries"] = json::array({json::object()}); }},
      {"subqueries[0]", [](json& r) { r["subqueries"] = json::array({std::string(400, 'x')}); }},
  };
  for (const Case& c : cases) {
    json r = Reply(kQuestion, {"autovacuum workers"});
    c.edit(r);
    auto parsed = ParseModelPlanReply(r.dump(), ModelPlannerLimits{});
    ASSERT_FALSE(parsed.ok()) << r.dump();
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(std::string("field '") + c.field + "'"), std::string::npos)
        << parsed.status().message();
    ScriptedModel model;
    model.SetContent(r.dump());
    const QueryPlan p = Ask(model, det, kQuestion);
    EXPECT_TRUE(StartsWith(p.planner.fallback, "schema_violation: ")) << p.planner.fallback.value_or("(none)");
    EXPECT_EQ(p.planner.kind, "deterministic");
    EXPECT_EQ(WithoutPlanner(p), WithoutPlanner(det)) << r.dump();
  }
  // Not an object at all.
  ScriptedModel model;
  model.SetContent("[1, 2]");
  EXPECT_TRUE(StartsWith(Ask(model, det, kQuestion).planner.fallback, "schema_violation: "));
  EXPECT_FALSE(ParseModelPlanReply(std::string(100, '[') + std::string(100, ']'), {}).ok());
}

TEST(ModelPlanner, MalformedRefusedTruncatedAndLateRepliesFallBack) {
  const QueryPlan det = Deterministic(kQuestion);
  ScriptedModel model;
  for (const char* bad : {"{\"standalone\": ", "```json\n{}\n```", "", "Sure! Here is the plan."}) {
    model.SetContent(bad);
    const QueryPlan p = Ask(model, det, kQuestion);
    EXPECT_TRUE(StartsWith(p.planner.fallback, "malformed_json: ")) << bad;
    EXPECT_EQ(WithoutPlanner(p), WithoutPlanner(det));
  }
  ChatResponse refused;
  refused.refusal = "I cannot help with that.";
  model.answer = refused;
  EXPECT_TRUE(StartsWith(Ask(model, det, kQuestion).planner.fallback, "refusal: "));
  ChatResponse cut;
  cut.content = Reply(kQuestion).dump();
  cut.finish_reason = "length";
  model.answer = cut;
  EXPECT_TRUE(StartsWith(Ask(model, det, kQuestion).planner.fallback, "truncated: "));
  model.answer = Status::Unavailable("connection refused");
  EXPECT_TRUE(StartsWith(Ask(model, det, kQuestion).planner.fallback, "transport_error: "));
  // A valid reply later than the budget is not used (an injected model without its own timeout).
  FakeClock clock;
  model.SetContent(Reply(kQuestion, {"autovacuum workers"}).dump());
  model.clock = &clock;
  model.takes_ms = 2500;
  const QueryPlan late = Ask(model, det, kQuestion, ModelPlannerLimits{}, &clock);
  EXPECT_TRUE(StartsWith(late.planner.fallback, "timeout: ")) << late.planner.fallback.value_or("(none)");
  EXPECT_GE(late.planner.latency_ms.value_or(0), 2500);
  EXPECT_EQ(WithoutPlanner(late), WithoutPlanner(det));
  const json j = late.ToJson()["planner"];
  EXPECT_EQ(j["kind"], "deterministic");
  EXPECT_EQ(j["model"], "planner-small");
  EXPECT_TRUE(j["fallback"].is_string());
}

// --- over the wire: the OpenAI-compatible client against a local server ---

std::unique_ptr<ChatClient> Client(const std::string& base_url, int64_t timeout_ms) {
  ChatClientOptions co;
  co.endpoint.base_url = base_url;
  co.endpoint.model = "planner-small";
  co.endpoint.timeout_ms = timeout_ms;
  co.endpoint.connect_timeout_ms = timeout_ms;
  co.endpoint.max_retries = 0;
  auto c = ChatClient::Create(co);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return std::move(c).value();
}

QueryPlan AskOverHttp(const std::string& base_url, const QueryPlan& det, int64_t timeout_ms = 300) {
  auto client = Client(base_url, timeout_ms);
  ModelPlannerLimits limits;
  limits.timeout_ms = timeout_ms;
  return PlanWithModel(*client, ModelPlanArgs{kQuestion, {}, &det, limits, nullptr});
}

TEST(ModelPlannerOverHttp, ValidReplyIsMerged) {
  ChatTestServer server;
  server.PushReply(ChatReply{.content = Reply(kQuestion, {"autovacuum workers"}).dump()});
  const QueryPlan det = Deterministic(kQuestion);
  const QueryPlan p = AskOverHttp(server.base_url(), det, 5000);
  EXPECT_EQ(p.planner.kind, "model") << p.planner.fallback.value_or("");
  EXPECT_EQ(p.subqueries.back().text, "autovacuum workers");
  const std::vector<json> sent = server.chat_requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["response_format"]["type"], "json_schema");
  EXPECT_EQ(sent[0]["model"], "planner-small");
}

TEST(ModelPlannerOverHttp, SlowServerIsATimeout) {
  ChatTestServer server;
  server.server().PushFault(OpenAiFault{.delay_ms = 3000});
  const QueryPlan det = Deterministic(kQuestion);
  const auto t0 = std::chrono::steady_clock::now();
  const QueryPlan p = AskOverHttp(server.base_url(), det, 300);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(2500));
  EXPECT_TRUE(StartsWith(p.planner.fallback, "timeout: ")) << p.planner.fallback.value_or("(none)");
  EXPECT_EQ(WithoutPlanner(p), WithoutPlanner(det));
}

TEST(ModelPlannerOverHttp, AfterATimeoutTheNextCallIsAnsweredAgain) {
  ChatTestServer server;
  server.server().PushFault(OpenAiFault{.delay_ms = 3000});
  server.PushReply(ChatReply{.content = Reply(kQuestion, {"autovacuum workers"}).dump()});
  const QueryPlan det = Deterministic(kQuestion);
  auto client = Client(server.base_url(), 300);
  ModelPlannerLimits limits;
  limits.timeout_ms = 300;
  const QueryPlan first = PlanWithModel(*client, ModelPlanArgs{kQuestion, {}, &det, limits, nullptr});
  EXPECT_TRUE(StartsWith(first.planner.fallback, "timeout: ")) << first.planner.fallback.value_or("(none)");
  const QueryPlan second = PlanWithModel(*client, ModelPlanArgs{kQuestion, {}, &det, limits, nullptr});
  EXPECT_EQ(second.planner.kind, "model") << second.planner.fallback.value_or("(none)");
}

TEST(ModelPlannerOverHttp, HttpErrorsFallBackWithTheStatus) {
  const QueryPlan det = Deterministic(kQuestion);
  for (int status : {500, 429, 400}) {
    ChatTestServer server;
    server.server().PushFault(OpenAiFault{.status = status});
    const QueryPlan p = AskOverHttp(server.base_url(), det);
    EXPECT_TRUE(StartsWith(p.planner.fallback, "http_error: ")) << p.planner.fallback.value_or("(none)");
    EXPECT_NE(p.planner.fallback.value_or("").find(std::to_string(status)), std::string::npos)
        << p.planner.fallback.value_or("");
    EXPECT_EQ(WithoutPlanner(p), WithoutPlanner(det));
  }
}

TEST(ModelPlannerOverHttp, BrokenBodiesAndMalformedContentFallBack) {
  const QueryPlan det = Deterministic(kQuestion);
  ChatTestServer server;
  server.PushReply(ChatReply{.raw_body = "{\"choices\": [{\"message\": "});
  QueryPlan p = AskOverHttp(server.base_url(), det);
  EXPECT_TRUE(StartsWith(p.planner.fallback, "malformed_response: ")) << p.planner.fallback.value_or("(none)");
  server.PushReply(ChatReply{.content = "{\"standalone\": \"x\", "});
  p = AskOverHttp(server.base_url(), det);
  EXPECT_TRUE(StartsWith(p.planner.fallback, "malformed_json: ")) << p.planner.fallback.value_or("(none)");
  EXPECT_EQ(WithoutPlanner(p), WithoutPlanner(det));
}

TEST(ModelPlannerOverHttp, NothingListeningIsATransportError) {
  const QueryPlan det = Deterministic(kQuestion);
  int port = 0;
  {
    ChatTestServer gone;  // a port that was just free again
    port = gone.server().port();
  }
  const QueryPlan p = AskOverHttp("http://127.0.0.1:" + std::to_string(port), det);
  EXPECT_TRUE(StartsWith(p.planner.fallback, "transport_error: ")) << p.planner.fallback.value_or("(none)");
  EXPECT_EQ(WithoutPlanner(p), WithoutPlanner(det));
}

}  // namespace
}  // namespace attest
