// Tiering, escalation and per-stage cost accounting through Engine::Ask with injected chat models
// (docs/models.md, "Tiering and escalation"; docs/cost.md): the fakes count the calls they see, and
// the answer's stage_costs must count the same calls and price them by the configured prices.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "answer/answer_pipeline.h"  // AnswerToJson
#include "attest/answer.h"
#include "attest/engine.h"
#include "llm/chat_model.h"
#include "rerank/reranker.h"
#include "support/chat_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::TempDir;
using testing_support::WriteFile;

const char* kCorpus =
    R"J({"_id":"autovacuum","title":"Autovacuum","text":"Autovacuum reclaims storage occupied by dead tuples. It runs in the background and is started by the autovacuum launcher."})J"
    "\n"
    R"J({"_id":"wal","title":"Write-ahead log","text":"The write-ahead log records every change before it reaches the data files. The max_wal_senders setting limits concurrent WAL sender processes; its default value is 10."})J"
    "\n"
    R"J({"_id":"indexes","title":"Index types","text":"B-tree indexes handle equality and range queries. Hash indexes handle only equality comparisons. GIN indexes suit full-text search and arrays."})J"
    "\n";

// The passages of a writer request's <evidence> block: (id, text).
std::vector<std::pair<std::string, std::string>> Evidence(const ChatRequest& request) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ChatMessage& m : request.messages) {
    const size_t b = m.content.find("<evidence>\n"), e = m.content.find("</evidence>");
    if (m.role != "user" || b == std::string::npos || e == std::string::npos) continue;
    size_t pos = b + 11;
    while (pos < e) {
      const size_t nl = m.content.find('\n', pos);
      json line = json::parse(m.content.substr(pos, nl - pos), nullptr, false);
      if (line.is_object()) out.emplace_back(line.value("id", ""), line.value("text", ""));
      pos = nl + 1;
    }
    break;
  }
  return out;
}

// A writer model: a structured draft of one claim citing the first passage, quoting its first
// sentence (grounded) or a sentence no passage contains (not grounded). Counts its calls and
// reports 100 prompt and 20 completion tokens per call.
class DraftingChat final : public ChatModel {
 public:
  DraftingChat(std::string name, bool grounded) : name_(std::move(name)), grounded_(grounded) {}
  Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo*) const override {
    ++calls;
    return Reply(request);
  }
  Result<ChatResponse> Stream(const ChatRequest& request, const ChatDeltaCallback& on_delta,
                              ChatCallInfo*) const override {
    ++calls;
    ChatResponse r = Reply(request);
    if (!on_delta(r.content)) return Status::Cancelled("stopped");
    return r;
  }
  const std::string& model() const override { return name_; }
  mutable std::atomic<int> calls{0};

 private:
  ChatResponse Reply(const ChatRequest& request) const {
    const auto passages = Evidence(request);
    std::string id = "S1", sentence = "Nothing.";
    if (!passages.empty()) {
      id = passages.front().first;
      const std::string& text = passages.front().second;
      const size_t end = text.find(". ");
      sentence = end == std::string::npos ? text : text.substr(0, end + 1);
    }
    if (!grounded_) sentence = "The moon is made of green cheese and stores dead tuples.";
    json draft = {{"answer", sentence},
                  {"claims", {{{"id", "c1"}, {"text", sentence}, {"cites", {{{"source", id}, {"quote", sentence}}}}}}}};
    ChatResponse r;
    r.content = request.response_format_json.empty() ? sentence + " [1]" : draft.dump();
    r.finish_reason = "stop";
    r.prompt_tokens = 100;
    r.completion_tokens = 20;
    r.model = name_;
    return r;
  }
  std::string name_;
  bool grounded_;
};

// A planner model whose reply is never a plan (the deterministic plan stands); 50 + 10 tokens.
class BrokenPlanner final : public ChatModel {
 public:
  Result<ChatResponse> Complete(const ChatRequest&, ChatCallInfo*) const override {
    ++calls;
    ChatResponse r;
    r.content = "not json";
    r.finish_reason = "stop";
    r.prompt_tokens = 50;
    r.completion_tokens = 10;
    return r;
  }
  Result<ChatResponse> Stream(const ChatRequest& q, const ChatDeltaCallback&, ChatCallInfo* i) const override {
    return Complete(q, i);
  }
  const std::string& model() const override { return name_; }
  mutable std::atomic<int> calls{0};

 private:
  std::string name_ = "planner";
};

class PairCountingReranker final : public Reranker {
 public:
  Result<std::vector<double>> Score(std::string_view, const std::vector<std::string>& passages) const override {
    pairs += static_cast<int>(passages.size());
    std::vector<double> s(passages.size());
    for (size_t i = 0; i < s.size(); ++i) s[i] = 1.0 / double(i + 1);
    return s;
  }
  std::string name() const override { return "fake:pairs"; }
  mutable std::atomic<int> pairs{0};
};

class EngineTiering : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_.path() / "c.jsonl", kCorpus);
    auto engine = Engine::Open(Options());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    IngestOptions io;
    io.paths = {tmp_.str("c.jsonl")};
    ASSERT_TRUE((*engine)->Ingest(io).ok());
  }

  EngineOptions Options() const {
    EngineOptions eo;
    eo.data_dir = tmp_.str("data");
    eo.embedder.kind = EmbedderKind::kNone;
    return eo;
  }

  AnswerResult Ask(const EngineOptions& eo, const std::string& question, WriterKind writer = WriterKind::kLlm,
                   bool llm_judge = false) {
    auto engine = Engine::Open(eo);
    EXPECT_TRUE(engine.ok()) << engine.status().ToString();
    if (!engine.ok()) return {};
    AskOptions ao;
    ao.question = question;
    ao.writer = writer;
    ao.llm_judge = llm_judge;
    ao.today = "2026-03-01";
    auto r = (*engine)->Ask(ao);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : AnswerResult{};
  }

  TempDir tmp_;
};

TEST_F(EngineTiering, SingleHopWithStrongEvidenceGoesToTheSmallModel) {
  auto small = std::make_shared<DraftingChat>("small", true);
  auto large = std::make_shared<DraftingChat>("large", true);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?");
  EXPECT_EQ(r.outcome, AnswerOutcome::kAnswer) << AnswerToJson(r);
  EXPECT_EQ(r.tier, "small") << r.tier_reason;
  EXPECT_EQ(r.tier_reason, "strong_evidence");
  EXPECT_EQ(small->calls.load(), 1);
  EXPECT_EQ(large->calls.load(), 0);
  const json j = json::parse(AnswerToJson(r));
  EXPECT_EQ(j["tier"], "small");
  EXPECT_EQ(j["mode"], "standard");
  EXPECT_EQ(j["stage_costs"]["write"]["model_calls"], 1);
}

TEST_F(EngineTiering, ComparisonGoesToTheLargeModel) {
  auto small = std::make_shared<DraftingChat>("small", true);
  auto large = std::make_shared<DraftingChat>("large", true);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  const AnswerResult r = Ask(eo, "B-tree vs hash indexes");
  EXPECT_EQ(r.tier, "large") << AnswerToJson(r);
  EXPECT_EQ(r.tier_reason, "comparison");
  EXPECT_EQ(small->calls.load(), 0);
  EXPECT_GE(large->calls.load(), 1);
}

TEST_F(EngineTiering, AProfileCanKeepComparisonsOnTheSmallModel) {
  auto small = std::make_shared<DraftingChat>("small", true);
  auto large = std::make_shared<DraftingChat>("large", true);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  eo.tier_profile_json = R"({"large_for_comparison": false, "max_subqueries_small": 16, "min_coverage_small": 0})";
  const AnswerResult r = Ask(eo, "B-tree vs hash indexes");
  EXPECT_EQ(r.tier, "small") << AnswerToJson(r);
  EXPECT_EQ(large->calls.load(), 0);
  eo.tier_profile_json = R"({"large_for_comparisons": false})";
  auto bad = Engine::Open(eo);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("large_for_comparisons"), std::string::npos) << bad.status().ToString();
}

// The small model's claim quotes nothing in the sources: the repair round fails as well, so the
// large model writes the answer, once, and the result says so.
TEST_F(EngineTiering, UngroundedSmallDraftEscalatesToTheLargeModelOnce) {
  auto small = std::make_shared<DraftingChat>("small", false);
  auto large = std::make_shared<DraftingChat>("large", true);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?");
  EXPECT_EQ(r.outcome, AnswerOutcome::kAnswer) << AnswerToJson(r);
  EXPECT_EQ(r.tier, "small->large");
  EXPECT_EQ(r.tier_reason, "strong_evidence; escalated: claims_unsupported");
  EXPECT_EQ(small->calls.load(), 2);  // the draft and its repair
  EXPECT_EQ(large->calls.load(), 1);  // one escalation, grounded: no repair
  ASSERT_FALSE(r.claims.empty());
  EXPECT_TRUE(r.claims.front().kept);
  EXPECT_NE(r.text.find("Autovacuum reclaims storage"), std::string::npos) << r.text;
  bool said = false;
  for (const std::string& w : r.warnings) said |= w.find("the large model wrote the answer") != std::string::npos;
  EXPECT_TRUE(said);
  const json j = json::parse(AnswerToJson(r));
  EXPECT_EQ(j["tier"], "small->large");
  EXPECT_EQ(j["tier_reason"], "strong_evidence; escalated: claims_unsupported");
}

// The large model's draft fails as well: its result is kept (a fallback), and nothing escalates again.
TEST_F(EngineTiering, EscalationHappensAtMostOnce) {
  auto small = std::make_shared<DraftingChat>("small", false);
  auto large = std::make_shared<DraftingChat>("large", false);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?");
  EXPECT_EQ(r.tier, "small->large");
  EXPECT_EQ(r.outcome, AnswerOutcome::kFallback);
  EXPECT_EQ(r.fallback_reason, "claims_unsupported");
  EXPECT_EQ(small->calls.load(), 2);
  EXPECT_EQ(large->calls.load(), 2);  // its draft and its repair, once
  EXPECT_EQ(r.stage_costs.at("write").model_calls + r.stage_costs.at("verify").model_calls, 4u);
}

// A large model that fails leaves the small draft (and says so); the answer does not fail.
TEST_F(EngineTiering, AFailedEscalationKeepsTheSmallDraft) {
  class Down final : public ChatModel {
   public:
    Result<ChatResponse> Complete(const ChatRequest&, ChatCallInfo*) const override {
      ++calls;
      return Status::Unavailable("large model down");
    }
    Result<ChatResponse> Stream(const ChatRequest& q, const ChatDeltaCallback&, ChatCallInfo* i) const override {
      return Complete(q, i);
    }
    const std::string& model() const override { return name_; }
    mutable std::atomic<int> calls{0};

   private:
    std::string name_ = "down";
  };
  auto small = std::make_shared<DraftingChat>("small", false);
  auto large = std::make_shared<Down>();
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?");
  EXPECT_EQ(r.tier, "small");
  EXPECT_EQ(large->calls.load(), 1);
  bool said = false;
  for (const std::string& d : r.degraded) said |= d.rfind("escalation_failed: ", 0) == 0;
  EXPECT_TRUE(said) << AnswerToJson(r);
  EXPECT_EQ(r.stage_costs.at("write").model_calls, 2u);  // the small draft and the failed large call
}

TEST_F(EngineTiering, WithOneChatModelNothingIsRoutedOrEscalated) {
  auto small = std::make_shared<DraftingChat>("small", false);
  EngineOptions eo = Options();
  eo.models.chat = small;
  const AnswerResult r = Ask(eo, "B-tree vs hash indexes");
  EXPECT_EQ(r.tier, "small");
  EXPECT_EQ(r.tier_reason, "one_model");
  EXPECT_EQ(r.outcome, AnswerOutcome::kFallback);  // claims_unsupported, with nobody to escalate to
  EXPECT_EQ(r.fallback_reason, "claims_unsupported");
}

TEST_F(EngineTiering, ExtractiveAnswersHaveNoTierAndNoModelCost) {
  auto small = std::make_shared<DraftingChat>("small", true);
  auto large = std::make_shared<DraftingChat>("large", true);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  eo.prices.per_search = 0.005;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?", WriterKind::kExtractive);
  EXPECT_EQ(r.tier, "");
  EXPECT_EQ(small->calls.load() + large->calls.load(), 0);
  ASSERT_TRUE(r.stage_costs.count("retrieve"));
  EXPECT_GE(r.stage_costs.at("retrieve").searches, 1u);
  EXPECT_EQ(r.stage_costs.at("write").model_calls, 0u);
  EXPECT_DOUBLE_EQ(r.cost, 0.005 * r.stage_costs.at("retrieve").searches);
}

// Every stage's counts equal the calls the fakes saw, and cost = prices x counts, stage by stage
// and in total.
TEST_F(EngineTiering, StageCostsCountWhatTheModelsSawAndPriceIt) {
  auto small = std::make_shared<DraftingChat>("small", false);
  auto large = std::make_shared<DraftingChat>("large", true);
  auto planner = std::make_shared<BrokenPlanner>();
  auto reranker = std::make_shared<PairCountingReranker>();
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  eo.models.planner = planner;
  eo.models.reranker = reranker;
  eo.llm.prompt_price_per_mtok = 1;
  eo.llm.completion_price_per_mtok = 5;
  eo.llm_large.prompt_price_per_mtok = 10;
  eo.llm_large.completion_price_per_mtok = 30;
  eo.planner_model.prompt_price_per_mtok = 0.5;
  eo.planner_model.completion_price_per_mtok = 1.5;
  eo.prices.per_search = 0.005;
  eo.prices.per_rerank_pair = 0.00001;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?");
  ASSERT_EQ(r.tier, "small->large") << AnswerToJson(r);

  ASSERT_TRUE(r.stage_costs.count("plan"));
  const StageCost& plan = r.stage_costs.at("plan");
  EXPECT_EQ(plan.model_calls, uint32_t(planner->calls.load()));
  EXPECT_EQ(plan.model_calls, 1u);
  EXPECT_EQ(plan.prompt_tokens, 50u);
  EXPECT_EQ(plan.completion_tokens, 10u);
  EXPECT_DOUBLE_EQ(plan.cost, (50 * 0.5 + 10 * 1.5) / 1e6);

  const StageCost& retrieve = r.stage_costs.at("retrieve");
  EXPECT_GE(retrieve.searches, 1u);
  EXPECT_DOUBLE_EQ(retrieve.cost, 0.005 * retrieve.searches);

  ASSERT_TRUE(r.stage_costs.count("rerank"));
  const StageCost& rerank = r.stage_costs.at("rerank");
  EXPECT_EQ(rerank.rerank_pairs, uint32_t(reranker->pairs.load()));
  EXPECT_GT(rerank.rerank_pairs, 0u);
  EXPECT_DOUBLE_EQ(rerank.cost, 0.00001 * rerank.rerank_pairs);

  // write: the small draft and the large one; verify: the small draft's repair.
  const StageCost& write = r.stage_costs.at("write");
  const StageCost& verify = r.stage_costs.at("verify");
  EXPECT_EQ(write.model_calls + verify.model_calls, uint32_t(small->calls.load() + large->calls.load()));
  EXPECT_EQ(write.model_calls, 2u);
  EXPECT_EQ(verify.model_calls, 1u);
  EXPECT_EQ(write.prompt_tokens, 200u);
  EXPECT_EQ(write.completion_tokens, 40u);
  EXPECT_DOUBLE_EQ(write.cost, (100 * 1 + 20 * 5) / 1e6 + (100 * 10 + 20 * 30) / 1e6);
  EXPECT_DOUBLE_EQ(verify.cost, (100 * 1 + 20 * 5) / 1e6);
  EXPECT_EQ(r.prompt_tokens, 300u);  // the writer's tokens, escalation included
  EXPECT_EQ(r.completion_tokens, 60u);

  double sum = 0;
  for (const auto& [stage, c] : r.stage_costs) sum += c.cost;
  EXPECT_DOUBLE_EQ(r.cost, sum);
  const json j = json::parse(AnswerToJson(r));
  EXPECT_DOUBLE_EQ(j["cost"].get<double>(), sum);
  EXPECT_EQ(j["stage_costs"]["rerank"]["rerank_pairs"], rerank.rerank_pairs);
}

// The judge is the small model's: its call is counted in the verify stage at the small model's
// prices, also when its reply is unusable (this fake answers with a draft, not verdicts).
TEST_F(EngineTiering, TheJudgesCallsAreCountedInVerify) {
  auto small = std::make_shared<DraftingChat>("small", true);
  auto large = std::make_shared<DraftingChat>("large", true);
  EngineOptions eo = Options();
  eo.models.chat = small;
  eo.models.chat_large = large;
  eo.llm.prompt_price_per_mtok = 1;
  eo.llm.completion_price_per_mtok = 5;
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?", WriterKind::kLlm, /*llm_judge=*/true);
  EXPECT_EQ(r.tier, "small") << AnswerToJson(r);
  EXPECT_EQ(small->calls.load(), 2);  // the draft and the judge
  const StageCost& verify = r.stage_costs.at("verify");
  EXPECT_EQ(verify.model_calls, 1u);
  EXPECT_EQ(verify.prompt_tokens, 100u);
  EXPECT_DOUBLE_EQ(verify.cost, (100 * 1 + 20 * 5) / 1e6);
  bool failed = false;
  for (const std::string& d : r.degraded) failed |= d.rfind("llm_judge_failed", 0) == 0;
  EXPECT_TRUE(failed);
}

// The same escalation against two local OpenAI-compatible servers (the HTTP clients the engine
// builds from EngineOptions::llm and llm_large).
TEST_F(EngineTiering, EscalationOverHttpAsksTheLargeServerOnce) {
  ChatTestServer small, large;
  const std::string bad = json{{"answer", "x"},
                               {"claims", {{{"id", "c1"},
                                            {"text", "Autovacuum deletes whole tables."},
                                            {"cites", {{{"source", "S1"}, {"quote", "Autovacuum deletes whole tables."}}}}}}}}
                              .dump();
  const std::string good = json{{"answer", "x"},
                                {"claims", {{{"id", "c1"},
                                             {"text", "Autovacuum reclaims storage occupied by dead tuples."},
                                             {"cites", {{{"source", "S1"},
                                                         {"quote", "Autovacuum reclaims storage occupied by dead tuples."}}}}}}}}
                               .dump();
  small.PushReply(ChatReply{.content = bad}, 2);
  large.PushReply(ChatReply{.content = good});
  EngineOptions eo = Options();
  eo.llm.base_url = small.base_url();
  eo.llm.model = "small-m";
  eo.llm_large.base_url = large.base_url();
  eo.llm_large.model = "large-m";
  const AnswerResult r = Ask(eo, "What does autovacuum reclaim?");
  EXPECT_EQ(r.tier, "small->large") << AnswerToJson(r);
  EXPECT_EQ(small.chat_requests().size(), 2u);
  ASSERT_EQ(large.chat_requests().size(), 1u);
  EXPECT_EQ(large.chat_requests().front().value("model", ""), "large-m");
  EXPECT_EQ(r.outcome, AnswerOutcome::kAnswer);
  EXPECT_EQ(r.stage_costs.at("write").model_calls, 2u);
  EXPECT_EQ(r.stage_costs.at("write").prompt_tokens, 22u);  // the test server reports 11 + 7 per call
}

}  // namespace
}  // namespace attest
