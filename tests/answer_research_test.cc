// Research mode through the engine (docs/research.md): a bridge the standard path does not follow
// is found and its source packed; progress is announced per round; a planner model that times out
// or answers malformed JSON costs nothing but its own call (the deterministic step is used); and
// the property test: over random limits and random planner behaviour (valid steps, "sufficient",
// malformed JSON, timeouts, slow replies, usage reported or not), the loop never exceeds its hop,
// cost or time limit, and no answer fails.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attest/answer.h"
#include "attest/engine.h"
#include "llm/chat_model.h"
#include "support/fake_clock.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::FakeClock;
using testing_support::TempDir;
using testing_support::WriteFile;

// A small world of made-up entities: orchestras founded by people, people born in towns, towns in
// regions. Each entity has its own page, so a question about an orchestra's founder's birthplace
// needs the founder's page, which shares no word with the question.
std::string Corpus() {
  const char* first[] = {"Mira", "Teodor", "Ilse", "Ruben", "Nadia", "Hollis", "Sven", "Odile", "Pavel", "Greta"};
  const char* last[] = {"Okafor", "Vance", "Marchetti", "Aalto", "Korsgaard", "Fenwick", "Lindahl", "Ferrand",
                        "Novak", "Brandt"};
  const char* town_a[] = {"Brevik", "Ossen", "Caravel", "Lind", "Salt", "Tallin", "Hollow", "Amber", "Corran", "Vey"};
  const char* town_b[] = {" Falls", "heim", " Bay", "qvist", "mere", "port", " Ridge", "ton", "wick", " Harbour"};
  const char* groups[] = {"Strings", "Winds", "Consort", "Ensemble", "Philharmonic"};
  const char* places[] = {"Northgate", "Copperfield", "Meadowlark", "Ironbridge", "Quarry Lane", "Harbour Light",
                          "Silverdale", "Foxhollow"};
  std::string out;
  auto add = [&](const std::string& id, const std::string& title, const std::string& text) {
    out += json{{"_id", id}, {"title", title}, {"text", text}}.dump() + "\n";
  };
  int n = 0;
  for (int p = 0; p < 8; ++p) {
    for (int g = 0; g < 5; ++g, ++n) {
      const std::string group = std::string(places[p]) + " " + groups[g];
      const std::string person = std::string(first[n % 10]) + " " + last[(n / 10 + n) % 10];
      const std::string town = std::string(town_a[n % 10]) + town_b[(n / 10 + 3 * n) % 10];
      add("group" + std::to_string(n), group,
          "The " + group + " is a chamber group founded in " + std::to_string(1950 + n) + " by " + person +
              ". It plays in converted barns.");
      add("person" + std::to_string(n), person,
          person + " is a conductor and cellist. " + person + " is a native of " + town + ".");
      add("town" + std::to_string(n), town,
          town + " is a settlement on a tidal river with " + std::to_string(4000 + 350 * n) + " inhabitants.");
    }
  }
  return out;
}

class ResearchAnswers : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_.path() / "c.jsonl", Corpus());
    auto engine = Engine::Open(Options());
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    IngestOptions io;
    io.paths = {tmp_.str("c.jsonl")};
    auto rep = (*engine)->Ingest(io);
    ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  }

  EngineOptions Options() const {
    EngineOptions eo;
    eo.data_dir = tmp_.str("data");
    eo.embedder.kind = EmbedderKind::kNone;
    return eo;
  }

  static AskOptions Ask(const std::string& question, AnswerMode mode) {
    AskOptions ao;
    ao.question = question;
    ao.today = "2026-03-01";
    ao.mode = mode;
    return ao;
  }

  static std::set<std::string> SourceDocs(const AnswerResult& r) {
    std::set<std::string> out;
    for (const AnswerSource& s : r.sources) out.insert(s.doc_id);
    return out;
  }

  TempDir tmp_;
};

constexpr const char* kBridgeQuestion = "Where is the founder of the Northgate Strings a native of?";

TEST_F(ResearchAnswers, FollowsTheBridgeAndPacksItsSource) {
  auto engine = Engine::Open(Options());
  ASSERT_TRUE(engine.ok());
  std::vector<ResearchRound> announced;
  std::vector<std::string> stages;
  AnswerEvents events;
  events.on_research = [&](const ResearchRound& r) { announced.push_back(r); };
  events.on_progress = [&](std::string_view stage, const std::vector<std::string>&) { stages.emplace_back(stage); };
  AskOptions ao = Ask(kBridgeQuestion, AnswerMode::kResearch);
  ao.events = &events;
  auto r = (*engine)->Ask(ao);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->mode, AnswerMode::kResearch);
  ASSERT_TRUE(r->research.ran);
  ASSERT_FALSE(r->research.rounds.empty());
  const ResearchRound& round2 = r->research.rounds.front();
  EXPECT_EQ(round2.round, 2u);
  EXPECT_EQ(round2.decided_by, "deterministic");
  ASSERT_FALSE(round2.queries.empty());
  // group0 "Northgate Strings" was founded by person0.
  EXPECT_EQ(round2.queries.front().rfind("Mira Okafor", 0), 0u) << round2.queries.front();
  EXPECT_NE(round2.reason.find("Northgate Strings"), std::string::npos) << round2.reason;
  // Both links of the chain are in the evidence, and the answer names the town.
  const std::set<std::string> docs = SourceDocs(*r);
  EXPECT_TRUE(docs.count("group0")) << r->text;
  EXPECT_TRUE(docs.count("person0")) << r->text;
  // Progress: every round announced with its queries and the documents read so far.
  ASSERT_EQ(announced.size(), r->research.rounds.size());
  EXPECT_EQ(announced.front().queries, round2.queries);
  EXPECT_GT(announced.front().documents, 0u);
  EXPECT_NE(std::find(stages.begin(), stages.end(), "research"), stages.end());
  // The loop stopped for a reason of its own, within its limits.
  EXPECT_LE(r->research.hops, ao.research.max_hops);
  EXPECT_TRUE(r->research.stop == "no_gap" || r->research.stop == "max_hops") << r->research.stop;
  // Rounds' searches are counted per stage.
  ASSERT_TRUE(r->stage_costs.count("research"));
  EXPECT_GT(r->stage_costs.at("research").searches, 0u);

  // The standard mode does not run the loop.
  auto standard = (*engine)->Ask(Ask(kBridgeQuestion, AnswerMode::kStandard));
  ASSERT_TRUE(standard.ok());
  EXPECT_FALSE(standard->research.ran);
  EXPECT_EQ(standard->mode, AnswerMode::kStandard);
}

TEST_F(ResearchAnswers, OneHopLimitRunsNoRoundAndSaysSo) {
  auto engine = Engine::Open(Options());
  ASSERT_TRUE(engine.ok());
  AskOptions ao = Ask(kBridgeQuestion, AnswerMode::kResearch);
  ao.research.max_hops = 1;
  auto r = (*engine)->Ask(ao);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->research.hops, 1u);
  EXPECT_TRUE(r->research.rounds.empty());
  EXPECT_EQ(r->research.stop, "max_hops");
}

// A planner model for the property test: for the model planner's own call ("query_plan") always a
// malformed reply (the deterministic plan is used); for research steps, behaviour drawn from a
// seeded generator. Latency is slept on the fake clock, never beyond the timeout (a real client's
// transfer timeout ends the call there).
class RandomPlanner final : public ChatModel {
 public:
  RandomPlanner(const FakeClock& clock, int64_t timeout_ms, uint64_t seed)
      : clock_(clock), timeout_ms_(timeout_ms), rng_(seed) {}

  Result<ChatResponse> Complete(const ChatRequest& request, ChatCallInfo* info) const override {
    std::lock_guard<std::mutex> lock(mu_);
    ++calls_;
    ChatResponse out;
    out.model = "random-planner";
    out.finish_reason = "stop";
    if (request.response_format_json.find("research_step") == std::string::npos) {
      out.content = "{";
      return out;
    }
    size_t prompt_bytes = request.response_format_json.size();
    for (const ChatMessage& m : request.messages) prompt_bytes += m.content.size() + m.role.size();
    const int64_t latency = std::uniform_int_distribution<int64_t>(0, timeout_ms_ * 2)(rng_);
    clock_.SleepFor(std::chrono::milliseconds(std::min(latency, timeout_ms_ + 1)));
    if (latency > timeout_ms_) return Status::DeadlineExceeded("random planner: timed out");
    if (std::bernoulli_distribution(0.7)(rng_)) {  // usage reported, within what was sent and asked
      out.prompt_tokens = std::uniform_int_distribution<uint64_t>(1, prompt_bytes)(rng_);
      out.completion_tokens = std::uniform_int_distribution<uint64_t>(1, request.max_tokens.value_or(256))(rng_);
    }
    const char* words[] = {"Ossenheim", "conductor", "Saltmere population", "river warehouses", "Ruben Aalto",
                           "cellist born", "tidal river town", "Lindqvist"};
    switch (std::uniform_int_distribution<int>(0, 4)(rng_)) {
      case 0: out.content = R"({"sufficient": true, "queries": []})"; break;
      case 1: out.content = "not json at all"; break;
      case 2: out.content = R"({"sufficient": false, "queries": ["a", "b", "c", "d", "e", "f", "g"]})"; break;
      default: {
        json q = json::array();
        const int n = std::uniform_int_distribution<int>(1, 3)(rng_);
        for (int i = 0; i < n; ++i) q.push_back(words[std::uniform_int_distribution<int>(0, 7)(rng_)]);
        out.content = json{{"sufficient", false}, {"queries", q}}.dump();
      }
    }
    return out;
  }
  Result<ChatResponse> Stream(const ChatRequest& request, const ChatDeltaCallback&, ChatCallInfo* info) const override {
    return Complete(request, info);
  }
  const std::string& model() const override { return name_; }
  size_t calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }

 private:
  const FakeClock& clock_;
  const int64_t timeout_ms_;
  const std::string name_ = "random-planner";
  mutable std::mutex mu_;
  mutable std::mt19937_64 rng_;
  mutable size_t calls_ = 0;
};

TEST_F(ResearchAnswers, LimitsAreNeverExceededWhateverThePlannerDoes) {
  const char* questions[] = {kBridgeQuestion, "Who founded the Copperfield Winds and where is that person from?",
                             "How many inhabitants has the home town of Ilse Marchetti?",
                             "Which chamber group plays in converted barns?"};
  std::mt19937_64 rng(20261203);
  size_t model_rounds = 0, limited = 0;
  for (int trial = 0; trial < 40; ++trial) {
    FakeClock clock;
    const int64_t timeout_ms = 100;
    auto planner = std::make_shared<RandomPlanner>(clock, timeout_ms, rng());
    EngineOptions eo = Options();
    eo.clock = &clock;
    eo.models.planner = planner;
    eo.planner_model.model = "random-planner";
    eo.planner_model.timeout_ms = timeout_ms;
    eo.planner_model.prompt_price_per_mtok = 2.0;
    eo.planner_model.completion_price_per_mtok = 8.0;
    eo.prices.per_search = 0.0001;
    auto engine = Engine::Open(eo);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    AskOptions ao = Ask(questions[trial % 4], AnswerMode::kResearch);
    ao.research.max_hops = std::uniform_int_distribution<uint32_t>(1, 6)(rng);
    ao.research.max_cost = std::bernoulli_distribution(0.7)(rng) ? std::uniform_real_distribution<double>(0.0002, 0.003)(rng) : 0;
    ao.research.max_ms = std::bernoulli_distribution(0.6)(rng) ? std::uniform_int_distribution<uint32_t>(20, 600)(rng) : 0;
    auto r = (*engine)->Ask(ao);
    ASSERT_TRUE(r.ok()) << "trial " << trial << ": " << r.status().ToString();
    const ResearchReport& rr = r->research;
    SCOPED_TRACE("trial " + std::to_string(trial) + " limits hops " + std::to_string(ao.research.max_hops) + " cost " +
                 std::to_string(ao.research.max_cost) + " ms " + std::to_string(ao.research.max_ms) + "; stop " +
                 rr.stop);
    ASSERT_TRUE(rr.ran);
    EXPECT_LE(rr.hops, ao.research.max_hops);
    EXPECT_EQ(rr.hops, rr.rounds.size() + 1);
    if (ao.research.max_cost > 0) EXPECT_LE(rr.cost, ao.research.max_cost + 1e-12);
    if (ao.research.max_ms > 0) EXPECT_LE(rr.ms, double(ao.research.max_ms));
    // The report adds up: round 1's searches and the rounds' costs make the total.
    double rounds_cost = 0;
    for (const ResearchRound& round : rr.rounds) {
      rounds_cost += round.cost.cost;
      EXPECT_LE(round.queries.size(), 3u);
      model_rounds += round.decided_by == "model";
      EXPECT_TRUE(round.decided_by == "model" || round.decided_by == "deterministic");
      if (round.decided_by == "deterministic" && round.cost.model_calls > 0) EXPECT_FALSE(round.model_fallback.empty());
    }
    // Everything the loop counted is in the answer's stage costs: the planner's call under "plan",
    // round 1 under "retrieve", the rounds and a last model call that found the evidence sufficient
    // under "research".
    ASSERT_TRUE(r->stage_costs.count("retrieve"));
    ASSERT_TRUE(r->stage_costs.count("research"));
    const StageCost& research = r->stage_costs.at("research");
    const double plan = r->stage_costs.count("plan") ? r->stage_costs.at("plan").cost : 0.0;  // the planner's call
    EXPECT_NEAR(rr.cost, plan + r->stage_costs.at("retrieve").cost + research.cost, 1e-12);
    EXPECT_LE(rounds_cost, research.cost + 1e-12);
    // Searches are priced per search; the rest is model calls, each at most its worst case.
    const double model_cost = research.cost - double(research.searches) * eo.prices.per_search;
    EXPECT_GE(model_cost, -1e-12);
    if (research.model_calls == 0) EXPECT_NEAR(model_cost, 0.0, 1e-12);
    limited += rr.stop == "max_cost" || rr.stop == "max_ms" || rr.stop == "max_hops";
  }
  // The draws exercised the model's steps and the limits, not only the easy way out.
  EXPECT_GT(model_rounds, 0u);
  EXPECT_GT(limited, 5u);
}

// A planner that never answers in time: research rounds are the deterministic ones, the answer the
// same as with no planner at all (the bar "a planner failure costs quality, never availability").
class SlowPlanner final : public ChatModel {
 public:
  explicit SlowPlanner(const FakeClock& clock) : clock_(clock) {}
  Result<ChatResponse> Complete(const ChatRequest&, ChatCallInfo*) const override {
    clock_.SleepFor(std::chrono::milliseconds(101));
    return Status::DeadlineExceeded("slow planner: timed out");
  }
  Result<ChatResponse> Stream(const ChatRequest& r, const ChatDeltaCallback&, ChatCallInfo* i) const override {
    return Complete(r, i);
  }
  const std::string& model() const override { return name_; }

 private:
  const FakeClock& clock_;
  const std::string name_ = "slow-planner";
};

TEST_F(ResearchAnswers, APlannerThatTimesOutLeavesTheDeterministicRounds) {
  Result<AnswerResult> plain = Status::Internal("not asked");
  {
    auto plain_engine = Engine::Open(Options());  // closed before the next one opens the directory
    ASSERT_TRUE(plain_engine.ok());
    plain = (*plain_engine)->Ask(Ask(kBridgeQuestion, AnswerMode::kResearch));
    ASSERT_TRUE(plain.ok());
    ASSERT_FALSE(plain->research.rounds.empty());
  }

  FakeClock clock;
  EngineOptions eo = Options();
  eo.clock = &clock;
  eo.models.planner = std::make_shared<SlowPlanner>(clock);
  eo.planner_model.model = "slow-planner";
  eo.planner_model.timeout_ms = 100;
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  auto r = (*engine)->Ask(Ask(kBridgeQuestion, AnswerMode::kResearch));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, plain->text);
  EXPECT_EQ(SourceDocs(*r), SourceDocs(*plain));
  ASSERT_EQ(r->research.rounds.size(), plain->research.rounds.size());
  for (size_t i = 0; i < r->research.rounds.size(); ++i) {
    EXPECT_EQ(r->research.rounds[i].queries, plain->research.rounds[i].queries);
    EXPECT_EQ(r->research.rounds[i].decided_by, "deterministic");
    EXPECT_EQ(r->research.rounds[i].model_fallback.rfind("timeout", 0), 0u) << r->research.rounds[i].model_fallback;
  }
}

}  // namespace
}  // namespace attest
