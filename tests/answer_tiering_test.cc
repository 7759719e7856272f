// ChooseTier, ShouldEscalate and the tier profile's JSON (src/answer/tiering.h; docs/models.md,
// "Tiering and escalation").
#include <gtest/gtest.h>

#include "answer/tiering.h"

namespace attest {
namespace {

TierInputs Single(double coverage = 1.0) {
  TierInputs in;
  in.intent = Intent::kFact;
  in.subqueries = 0;
  in.best_coverage = coverage;
  return in;
}

TEST(ChooseTier, SingleHopWithStrongEvidenceGoesToTheSmallModel) {
  const TierChoice c = ChooseTier(Single(), TierPolicy{});
  EXPECT_FALSE(c.large);
  EXPECT_EQ(c.reason, "strong_evidence");
  EXPECT_FALSE(ChooseTier(Single(0.75), TierPolicy{}).large);  // the threshold itself is strong enough
}

TEST(ChooseTier, ComparisonsMultiHopResearchAndSplitQuestionsGoToTheLargeModel) {
  TierInputs cmp = Single();
  cmp.intent = Intent::kComparison;
  EXPECT_EQ(ChooseTier(cmp, TierPolicy{}).reason, "comparison");
  TierInputs model_cmp = Single();
  model_cmp.complexity = "comparison";  // the model planner's classification counts as well
  EXPECT_EQ(ChooseTier(model_cmp, TierPolicy{}).reason, "comparison");
  TierInputs hop = Single();
  hop.intent = Intent::kMultiHop;
  EXPECT_EQ(ChooseTier(hop, TierPolicy{}).reason, "multi_hop");
  TierInputs steps = Single();
  steps.complexity = "multi_step";
  EXPECT_EQ(ChooseTier(steps, TierPolicy{}).reason, "multi_hop");
  TierInputs research = Single();
  research.mode = AnswerMode::kResearch;
  EXPECT_EQ(ChooseTier(research, TierPolicy{}).reason, "research");
  TierInputs split = Single();
  split.subqueries = 3;
  EXPECT_EQ(ChooseTier(split, TierPolicy{}).reason, "subqueries=3");
  for (const TierInputs& in : {cmp, model_cmp, hop, steps, research, split}) EXPECT_TRUE(ChooseTier(in, {}).large);
}

TEST(ChooseTier, WeakEvidenceGoesToTheLargeModel) {
  const TierChoice c = ChooseTier(Single(0.4), TierPolicy{});
  EXPECT_TRUE(c.large);
  EXPECT_EQ(c.reason, "coverage=0.40<0.75");
}

TEST(ChooseTier, EveryRuleCanBeTurnedOff) {
  TierPolicy off;
  off.large_for_comparison = off.large_for_multi_hop = off.large_for_research = false;
  off.max_subqueries_small = 8;
  off.min_coverage_small = 0;
  TierInputs in = Single(0.1);
  in.intent = Intent::kComparison;
  in.complexity = "multi_step";
  in.mode = AnswerMode::kResearch;
  in.subqueries = 8;
  EXPECT_FALSE(ChooseTier(in, off).large);
  in.subqueries = 9;
  EXPECT_TRUE(ChooseTier(in, off).large);
}

TEST(SplitCount, CountsThePartsNotTheQuestionOrItsRewrite) {
  QueryPlan plan;
  plan.subqueries = {{"q0", "What does autovacuum reclaim?", "original"}, {"q1", "autovacuum reclaim", "rewrite"}};
  EXPECT_EQ(SplitCount(plan), 0u);
  plan.subqueries.push_back({"q2", "B-tree", "side: B-tree"});
  plan.subqueries.push_back({"q3", "hash indexes", "side: hash indexes"});
  EXPECT_EQ(SplitCount(plan), 2u);
}

TEST(ShouldEscalate, NoKeptClaimOrTooFewKeptEscalates) {
  const TierPolicy p;
  EXPECT_EQ(ShouldEscalate(3, 0, p), "claims_unsupported");
  EXPECT_EQ(ShouldEscalate(0, 0, p), "claims_unsupported");  // nothing drafted: nothing to show
  EXPECT_EQ(ShouldEscalate(4, 1, p), "kept=1/4<0.50");
  EXPECT_EQ(ShouldEscalate(4, 2, p), "");  // half kept is enough at the default share
  EXPECT_EQ(ShouldEscalate(1, 1, p), "");
  TierPolicy only_empty;
  only_empty.min_kept_share = 0;
  EXPECT_EQ(ShouldEscalate(10, 1, only_empty), "");
  TierPolicy never;
  never.escalate = false;
  EXPECT_EQ(ShouldEscalate(3, 0, never), "");
}

TEST(TierPolicyFromJson, ReadsEveryFieldAndKeepsDefaultsForTheRest) {
  auto p = TierPolicyFromJson(R"({"large_for_comparison": false, "max_subqueries_small": 2,
                                  "min_coverage_small": 0.5, "escalate": true, "min_kept_share": 0.25})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_FALSE(p->large_for_comparison);
  EXPECT_TRUE(p->large_for_multi_hop);
  EXPECT_TRUE(p->large_for_research);
  EXPECT_EQ(p->max_subqueries_small, 2u);
  EXPECT_DOUBLE_EQ(p->min_coverage_small, 0.5);
  EXPECT_DOUBLE_EQ(p->min_kept_share, 0.25);
  auto defaults = TierPolicyFromJson("");
  ASSERT_TRUE(defaults.ok());
  EXPECT_DOUBLE_EQ(defaults->min_coverage_small, TierPolicy{}.min_coverage_small);
}

TEST(TierPolicyFromJson, RejectsUnknownFieldsWrongTypesAndRanges) {
  for (const char* bad : {"[]", "{", R"({"large_for_code": true})", R"({"escalate": "yes"})",
                          R"({"min_coverage_small": 1.5})", R"({"min_kept_share": -0.1})",
                          R"({"max_subqueries_small": 0})", R"({"max_subqueries_small": 1.5})",
                          R"({"min_coverage_small": "0.5"})"}) {
    auto p = TierPolicyFromJson(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(p.status().message().find("tier profile"), std::string::npos) << p.status().message();
  }
}

}  // namespace
}  // namespace attest
