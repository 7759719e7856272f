#pragma GCC diagnostic ignored "-Wmissing-field-initializers"  // designated initializers name only the fields a case needs
// The stages of the answer path one at a time, with fake models (answer/answer_stages.h): verify
// (judge downgrades and failures, the repair round), claims (dropped and kept claims, markers,
// version labels, overruled conflicts), cross-encoder fusion, hop sentences first, the abstain
// decision, the writer's passages, and the streaming sentence gate (answer/sentence_gate.h).
#include <gtest/gtest.h>

#include "answer/answer_stages.h"
#include "answer/sentence_gate.h"
#include "rerank/reranker.h"
#include "verify/verifier.h"

namespace attest {
namespace {

std::vector<EvidencePassage> Pack() {
  return {
      EvidencePassage{.id = "S1", .doc_id = "d1", .chunk_id = ChunkId(11), .title = "Notes 17", .version = "17",
                      .source_type = "official", .text = "Parallel apply is on by default in release 17.", .score = 1.0},
      EvidencePassage{.id = "S2", .doc_id = "d2", .chunk_id = ChunkId(22), .title = "Notes 16", .version = "16",
                      .source_type = "official", .text = "Release 16 added row filters for publications.", .score = 0.8},
  };
}

DraftClaim Claim(const std::string& id, const std::string& source, const std::string& text) {
  return DraftClaim{id, text, {Citation{source, text}}};
}

class FakeJudge final : public ClaimJudge {
 public:
  explicit FakeJudge(std::optional<Verdict> downgrade_to, std::string fail = "") : to_(downgrade_to), fail_(fail) {}
  Result<std::vector<ClaimVerdict>> Judge(const std::vector<EvidencePassage>&, const std::vector<DraftClaim>& claims,
                                          const std::vector<ClaimVerdict>& mechanical, ModelUsage*) const override {
    ++calls;
    if (!fail_.empty()) return Status::IOError(fail_);
    std::vector<ClaimVerdict> out = mechanical;
    for (ClaimVerdict& v : out) {
      if (to_) v = ClaimVerdict{v.claim_id, *to_, "judge: not what the passage says"};
    }
    EXPECT_EQ(claims.size(), out.size());
    return out;
  }
  mutable int calls = 0;

 private:
  std::optional<Verdict> to_;
  std::string fail_;
};

class FakeWriter final : public RepairingWriter {
 public:
  Result<Draft> Write(const WriteArgs&) override { return first; }
  Result<Draft> Repair(const WriteArgs& args, const Draft&, const std::vector<ClaimVerdict>& verdicts) override {
    ++repairs;
    repair_streamed = bool(args.on_delta) || bool(args.on_sentence);
    seen = verdicts;
    if (!repair_error.empty()) return Status::IOError(repair_error);
    return repaired;
  }
  Draft first, repaired;
  std::string repair_error;
  int repairs = 0;
  bool repair_streamed = false;
  std::vector<ClaimVerdict> seen;
};

TEST(VerifyStageTest, BuiltInChecksAloneKeepGoodClaimsAndFailQuotesNotInTheSource) {
  const auto pack = Pack();
  Draft d;
  d.claims = {Claim("c1", "S1", "Parallel apply is on by default in release 17."),
              DraftClaim{"c2", "Release 17 removed row filters.", {Citation{"S2", "Release 17 removed row filters."}}}};
  VerifiedAnswer v = VerifyForAnswer(VerifyInput{&pack}, d);
  ASSERT_EQ(v.verdicts.size(), 2u);
  EXPECT_EQ(v.verdicts[0].verdict, Verdict::kSupported);
  EXPECT_EQ(v.verdicts[1].verdict, Verdict::kQuoteNotFound);
  EXPECT_TRUE(v.degraded.empty());
  EXPECT_TRUE(v.warnings.empty());
}

TEST(VerifyStageTest, TheJudgeCanDowngradeAndItsFailureIsDegradedNotFatal) {
  const auto pack = Pack();
  Draft d;
  d.claims = {Claim("c1", "S1", "Parallel apply is on by default in release 17.")};
  FakeJudge strict(Verdict::kUnsupported);
  VerifiedAnswer v = VerifyForAnswer(VerifyInput{&pack, &strict}, d);
  EXPECT_EQ(strict.calls, 1);
  ASSERT_EQ(v.verdicts.size(), 1u);
  EXPECT_EQ(v.verdicts[0].verdict, Verdict::kUnsupported);
  EXPECT_EQ(v.verdicts[0].reason, "judge: not what the passage says");

  FakeJudge broken(std::nullopt, "judge down");
  v = VerifyForAnswer(VerifyInput{&pack, &broken}, d);
  EXPECT_EQ(v.verdicts[0].verdict, Verdict::kSupported) << "the built-in verdicts stand";
  EXPECT_EQ(v.degraded, std::vector<std::string>{"llm_judge_failed: judge down"});
}

TEST(VerifyStageTest, OneRepairRoundReplacesTheDraftUnstreamedAndAddsItsTokens) {
  const auto pack = Pack();
  FakeWriter w;
  w.repaired.claims = {Claim("c1", "S1", "Parallel apply is on by default in release 17.")};
  w.repaired.prompt_tokens = 30;
  w.repaired.completion_tokens = 7;
  Draft bad;
  bad.claims = {DraftClaim{"c1", "Parallel apply is off.", {Citation{"S1", "Parallel apply is off."}}}};
  WriteArgs wa;
  wa.pack = &pack;
  wa.on_delta = [](std::string_view) {};
  wa.on_sentence = [](std::string_view, const std::vector<std::string>&) {};
  VerifiedAnswer v = VerifyForAnswer(VerifyInput{&pack, nullptr, &w, &wa}, bad);
  EXPECT_EQ(w.repairs, 1);
  EXPECT_FALSE(w.repair_streamed) << "the repair is not streamed";
  ASSERT_EQ(w.seen.size(), 1u);
  EXPECT_EQ(w.seen[0].verdict, Verdict::kQuoteNotFound);
  EXPECT_EQ(v.draft.claims[0].text, "Parallel apply is on by default in release 17.");
  EXPECT_EQ(v.verdicts[0].verdict, Verdict::kSupported);
  EXPECT_EQ(v.repair_prompt_tokens, 30u);
  EXPECT_EQ(v.repair_completion_tokens, 7u);
  EXPECT_EQ(v.warnings, std::vector<std::string>{"the model was asked once to repair unsupported claims"});

  // A supported draft is not repaired; a failed repair keeps the draft and says so.
  FakeWriter idle;
  v = VerifyForAnswer(VerifyInput{&pack, nullptr, &idle, &wa}, w.repaired);
  EXPECT_EQ(idle.repairs, 0);
  FakeWriter failing;
  failing.repair_error = "model overloaded";
  v = VerifyForAnswer(VerifyInput{&pack, nullptr, &failing, &wa}, bad);
  EXPECT_EQ(v.draft.claims[0].text, "Parallel apply is off.");
  EXPECT_EQ(v.degraded, std::vector<std::string>{"repair_failed: model overloaded"});
  EXPECT_TRUE(v.warnings.empty());
}

TEST(ClaimsStageTest, KeptClaimsGetMarkersDroppedOnesAreCountedOtherVersionsLabelled) {
  const auto pack = Pack();
  Draft d;
  d.claims = {Claim("c1", "S1", "Parallel apply is on by default in release 17."),
              DraftClaim{"c2", "Release 17 removed row filters.", {Citation{"S2", "Release 17 removed row filters."}}},
              Claim("c3", "S2", "Release 16 added row filters for publications.")};
  std::vector<ClaimVerdict> verdicts = VerifyDraft(pack, d.claims);
  const SourceHierarchy h = SourceHierarchy::Defaults();
  AnswerClaims c = ClaimsForAnswer(ClaimsInput{&pack, &d, &verdicts, &h, "17"});
  ASSERT_EQ(c.claims.size(), 3u);
  EXPECT_TRUE(c.claims[0].kept);
  EXPECT_FALSE(c.claims[1].kept);
  EXPECT_EQ(c.claims[1].verdict, "quote_not_found");
  EXPECT_TRUE(c.claims[2].kept);
  EXPECT_EQ(c.claims[2].version_label, "16");
  EXPECT_EQ(c.dropped, 1u);
  EXPECT_EQ(c.text,
            "Parallel apply is on by default in release 17. [1] "
            "(version 16) Release 16 added row filters for publications. [2]");
  EXPECT_EQ(c.cited, (std::set<std::string>{"S1", "S2"}));
}

TEST(ClaimsStageTest, ActionsNoKeptQuoteContainsDropTheClaim) {
  std::vector<EvidencePassage> pack = {EvidencePassage{.id = "S1", .doc_id = "d1", .source_type = "official",
                                                       .text = "Upgrades keep existing subscriptions."}};
  Draft d;
  d.claims = {DraftClaim{"c1", "Upgrades keep existing subscriptions, see https://evil.example/fix.",
                         {Citation{"S1", "Upgrades keep existing subscriptions."}}}};
  std::vector<ClaimVerdict> verdicts = {ClaimVerdict{"c1", Verdict::kSupported, "fake"}};
  const SourceHierarchy h = SourceHierarchy::Defaults();
  AnswerClaims c = ClaimsForAnswer(ClaimsInput{&pack, &d, &verdicts, &h, ""});
  ASSERT_EQ(c.claims.size(), 1u);
  EXPECT_FALSE(c.claims[0].kept);
  EXPECT_EQ(c.text, "");
  EXPECT_TRUE(c.cited.empty());
}

class FakeReranker final : public Reranker {
 public:
  explicit FakeReranker(std::vector<double> scores) : scores_(std::move(scores)) {}
  Result<std::vector<double>> Score(std::string_view, const std::vector<std::string>& passages) const override {
    texts = passages;
    return scores_;
  }
  std::string name() const override { return "fake"; }
  mutable std::vector<std::string> texts;

 private:
  std::vector<double> scores_;
};

TEST(PackStageTest, CrossEncoderScoresScaleAndReorderThePackOrFailWithoutChangingIt) {
  auto pack = Pack();
  FakeReranker prefers_second({0.1, 0.9});
  EXPECT_EQ(FuseCrossEncoder(prefers_second, "q", &pack), std::nullopt);
  EXPECT_EQ(prefers_second.texts[0], "Notes 17\nParallel apply is on by default in release 17.");
  ASSERT_EQ(pack.size(), 2u);
  EXPECT_EQ(pack[0].doc_id, "d2");
  EXPECT_EQ(pack[0].id, "S1") << "ids follow the new order";
  EXPECT_DOUBLE_EQ(pack[0].score, 0.8 * 1.5);
  EXPECT_DOUBLE_EQ(pack[1].score, 1.0 * 0.5);

  auto unchanged = Pack();
  FakeReranker short_reply({0.3});
  EXPECT_EQ(FuseCrossEncoder(short_reply, "q", &unchanged), "rerank_failed: wrong number of scores");
  EXPECT_EQ(unchanged[0].doc_id, "d1");
}

TEST(PackStageTest, SupportedHopSentencesLeadThePackInHopOrder) {
  auto pack = Pack();
  MultiHopResult hops;
  hops.hops = {HopStep{.id = "q1", .chunk_id = ChunkId(22),
                       .sentence = "Release 16 added row filters for publications.", .supported = true},
               HopStep{.id = "q2", .chunk_id = ChunkId(33), .sentence = "Row filters need replica identity.",
                       .supported = true},
               HopStep{.id = "q3", .chunk_id = ChunkId(44), .sentence = "Not found.", .supported = false}};
  EvidenceCandidate c;
  c.hit.doc_id = "d3";
  c.hit.chunk_id = ChunkId(33);
  c.hit.source_type = "official";
  c.text = "Row filters need replica identity. More text.";
  PutHopsFirst(hops, {c}, SourceHierarchy::Defaults(), &pack);
  ASSERT_EQ(pack.size(), 3u);
  EXPECT_EQ(pack[0].doc_id, "d2");
  EXPECT_EQ(pack[1].doc_id, "d3");
  EXPECT_EQ(pack[1].text, "Row filters need replica identity.");
  EXPECT_EQ(pack[1].subquery, "q2");
  EXPECT_EQ(pack[2].doc_id, "d1");
  EXPECT_DOUBLE_EQ(pack[0].score, 1.0) << "at least the score of the pack's top passage (d1)";
  EXPECT_DOUBLE_EQ(pack[1].score, 1.0);
  for (size_t i = 0; i < pack.size(); ++i) EXPECT_EQ(pack[i].id, "S" + std::to_string(i + 1));
}

TEST(PackStageTest, AbstainsWithoutCoverageOrWithOnlyCommunitySources) {
  const SourceHierarchy h = SourceHierarchy::Defaults();
  std::string warning;
  EXPECT_FALSE(ShouldAbstain(Pack(), 0.8, h, &warning));
  EXPECT_TRUE(ShouldAbstain(Pack(), 0.4, h, &warning));
  EXPECT_EQ(warning, "");
  auto community = Pack();
  for (auto& p : community) p.source_type = "community";
  EXPECT_TRUE(ShouldAbstain(community, 0.9, h, &warning));
  EXPECT_EQ(warning, "only community sources speak to this question");
  auto flagged = Pack();
  for (auto& p : flagged) p.flagged = true;
  warning.clear();
  EXPECT_TRUE(ShouldAbstain(flagged, 0.9, h, &warning));
  EXPECT_EQ(warning, "");
  EXPECT_TRUE(ShouldAbstain({}, 1.0, h, &warning));
}

TEST(PackStageTest, TheWriterSeesTheResolvedVersionAndTheScope) {
  Analyzer analyzer;
  QueryPlan plan;
  plan.resolved_version = "17";
  WriterPack w = SelectWriterPack(analyzer, plan, Pack(), nullptr);
  EXPECT_TRUE(w.version_scoped);
  ASSERT_EQ(w.pack.size(), 1u);
  EXPECT_EQ(w.pack[0].doc_id, "d1");
  plan.resolved_version = "18";
  w = SelectWriterPack(analyzer, plan, Pack(), nullptr);
  EXPECT_FALSE(w.version_scoped);
  EXPECT_EQ(w.pack.size(), 2u);
  plan.constraints.scope = {"publications"};
  w = SelectWriterPack(analyzer, plan, Pack(), nullptr);
  ASSERT_EQ(w.pack.size(), 1u);
  EXPECT_EQ(w.pack[0].doc_id, "d2");
}

std::vector<AnswerSource> Sources() { return SourcesOf(Pack()); }

// The release date a version feed gives a version: the first date after its mention, before the
// next version named; none when the feed dates only other versions.
TEST(PlanStageTest, FeedReleaseDateIsTheDateFollowingTheVersionBeforeTheNextOne) {
  const std::string feed = "Current releases: 18 (released 2026-09-24), 17.6 (released 2026-08-14), 16.10, 15.2";
  EXPECT_EQ(FeedReleaseDate(feed, "18"), "2026-09-24");
  EXPECT_EQ(FeedReleaseDate(feed, "17.6"), "2026-08-14");
  EXPECT_EQ(FeedReleaseDate(feed, "16.10"), "") << "the date before it belongs to 17.6";
  EXPECT_EQ(FeedReleaseDate(feed, "15.2"), "");
  EXPECT_EQ(FeedReleaseDate(feed, "14"), "");
  EXPECT_EQ(FeedReleaseDate("| 15.3 | 2026-12-01 |\n| 15.2 | 2026-11-12 |", "15.2"), "2026-11-12");
  EXPECT_EQ(FeedReleaseDate("15.3 released 2026-02-30", "15.3"), "") << "not a calendar date";
  EXPECT_EQ(VersionsInFeed(feed), (std::vector<std::string>{"18", "17.6", "16.10", "15.2"}));
}

TEST(SentenceGateTest, ReleasesASupportedSentenceWithItsRecoveredQuote) {
  SentenceGate gate;
  gate.SetSources(Sources());
  EXPECT_EQ(gate.NextId(), "c1");
  auto v = gate.Check("Parallel apply is on by default in release 17.", {"S1"});
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->release);
  EXPECT_EQ(v->sentence_id, "c1");
  EXPECT_EQ(v->verified, "supported");
  ASSERT_EQ(v->citations.size(), 1u);
  EXPECT_EQ(v->citations[0].source, "S1");
  EXPECT_EQ(v->citations[0].doc_id, "d1");
  EXPECT_EQ(v->citations[0].chunk_id, ChunkId(11));
  EXPECT_EQ(v->citations[0].quote, "Parallel apply is on by default in release 17.");
  EXPECT_EQ(gate.NextId(), "c2");
  EXPECT_TRUE(gate.Streamed("c1"));
  EXPECT_EQ(gate.StreamedText("c1"), "Parallel apply is on by default in release 17.");
}

TEST(SentenceGateTest, RetractsUncitedAndUnsupportedSentencesAndSkipsPunctuation) {
  SentenceGate gate;
  gate.SetSources(Sources());
  auto uncited = gate.Check("Parallel apply is on by default.", {"S9"});  // not a source given
  ASSERT_TRUE(uncited.has_value());
  EXPECT_FALSE(uncited->release);
  EXPECT_EQ(uncited->reason, "uncited");
  EXPECT_TRUE(uncited->citations.empty());
  EXPECT_EQ(gate.Check(" .", {"S1"}), std::nullopt) << "trailing punctuation is not a sentence";
  auto wrong = gate.Check("The moon is made of cheese and orbits Mars.", {"S2"});
  ASSERT_TRUE(wrong.has_value());
  EXPECT_FALSE(wrong->release);
  EXPECT_EQ(wrong->sentence_id, "c2");
  EXPECT_NE(wrong->reason, "uncited");
  EXPECT_FALSE(wrong->reason.empty());
  EXPECT_EQ(gate.streamed_ids(), (std::vector<std::string>{"c1", "c2"}));
}

}  // namespace
}  // namespace attest
