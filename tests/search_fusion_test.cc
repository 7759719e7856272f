// Fusion of the lexical and vector rankings (search/fusion.h): RRF, min-max and z-score linear
// fusion, missing candidates, weights at the ends of their range, and deterministic ties.
#include <gtest/gtest.h>

#include <cmath>

#include "search/fusion.h"
#include "search/search_runner.h"

namespace attest {
namespace {

using Leg = std::vector<LegCandidate<DocNum>>;
using Fused = std::vector<FusedCandidate<DocNum>>;

// A leg of documents from (document number, score) pairs, in rank order.
Leg L(std::initializer_list<std::pair<uint64_t, float>> ranked) {
  Leg leg;
  for (const auto& [key, score] : ranked) leg.push_back({DocNum(key), score});
  return leg;
}

std::vector<uint64_t> Keys(const Fused& v) {
  std::vector<uint64_t> k;
  for (const auto& c : v) k.push_back(c.key.get());
  return k;
}

const FusedCandidate<DocNum>& Find(const Fused& v, uint64_t key) {
  for (const auto& c : v) {
    if (c.key.get() == key) return c;
  }
  ADD_FAILURE() << "key " << key << " missing";
  return v.front();
}

TEST(FusionTest, RrfSumsReciprocalRanks) {
  Leg lex = L({{1, 9.0f}, {2, 5.0f}, {3, 1.0f}});
  Leg vec = L({{3, 0.9f}, {4, 0.8f}, {1, 0.1f}});
  FusionOptions o;
  o.method = FusionMethod::kRrf;
  o.rrf_k = 60;
  auto f = Fuse(lex, vec, o);
  ASSERT_EQ(f.size(), 4u);
  EXPECT_NEAR(Find(f, 1).fused, 1.0 / 61 + 1.0 / 63, 1e-6);
  EXPECT_NEAR(Find(f, 3).fused, 1.0 / 63 + 1.0 / 61, 1e-6);
  EXPECT_NEAR(Find(f, 2).fused, 1.0 / 62, 1e-6);
  EXPECT_NEAR(Find(f, 4).fused, 1.0 / 62, 1e-6);
  // 1 and 3 tie, as do 2 and 4: ties go to the smaller key.
  EXPECT_EQ(Keys(f), (std::vector<uint64_t>{1, 3, 2, 4}));
  EXPECT_EQ(Find(f, 4).lexical_rank, 0u);
  EXPECT_EQ(Find(f, 4).vector_rank, 2u);
  EXPECT_FLOAT_EQ(Find(f, 4).vector_score, 0.8f);
}

TEST(FusionTest, LinearMinMaxWeightsNormalizedScores) {
  Leg lex = L({{1, 10.0f}, {2, 6.0f}, {3, 2.0f}});
  Leg vec = L({{3, 0.9f}, {2, 0.5f}, {4, 0.1f}});
  FusionOptions o;  // linear, min-max
  o.vector_weight = 0.25f;
  auto f = Fuse(lex, vec, o);
  // lexical min-max: 1 -> 1, 2 -> 0.5, 3 -> 0; vector: 3 -> 1, 2 -> 0.5, 4 -> 0; missing -> 0.
  EXPECT_NEAR(Find(f, 1).fused, 0.75 * 1.0 + 0.25 * 0.0, 1e-6);
  EXPECT_NEAR(Find(f, 2).fused, 0.75 * 0.5 + 0.25 * 0.5, 1e-6);
  EXPECT_NEAR(Find(f, 3).fused, 0.75 * 0.0 + 0.25 * 1.0, 1e-6);
  EXPECT_NEAR(Find(f, 4).fused, 0.0, 1e-6);
  EXPECT_EQ(Keys(f), (std::vector<uint64_t>{1, 2, 3, 4}));
}

TEST(FusionTest, WeightsAtTheEndsReproduceOneLeg) {
  Leg lex = L({{5, 3.0f}, {6, 2.0f}, {7, 1.0f}});
  Leg vec = L({{7, 0.9f}, {6, 0.8f}, {8, 0.7f}});
  FusionOptions o;
  o.vector_weight = 0.0f;
  std::vector<uint64_t> keys = Keys(Fuse(lex, vec, o));
  EXPECT_EQ(std::vector<uint64_t>(keys.begin(), keys.begin() + 3), (std::vector<uint64_t>{5, 6, 7}));
  o.vector_weight = 1.0f;
  auto f = Fuse(lex, vec, o);
  keys = Keys(f);
  EXPECT_EQ(std::vector<uint64_t>(keys.begin(), keys.begin() + 2), (std::vector<uint64_t>{7, 6}));
  // The vector leg's last candidate normalizes to 0, as does a candidate it lacks: they tie, and
  // the tie goes to the smaller key.
  EXPECT_FLOAT_EQ(Find(f, 8).fused, 0.0f);
  EXPECT_FLOAT_EQ(Find(f, 5).fused, 0.0f);
  EXPECT_EQ(keys[2], 5u);
}

TEST(FusionTest, ZScoreGivesMissingCandidatesTheLegMinimum) {
  Leg lex = L({{1, 4.0f}, {2, 2.0f}, {3, 0.0f}});  // mean 2, sd sqrt(8/3)
  Leg vec = L({{4, 1.0f}});                        // sd 0: scale 0, floor 0
  FusionOptions o;
  o.normalization = ScoreNormalization::kZScore;
  o.vector_weight = 0.5f;
  auto f = Fuse(lex, vec, o);
  const double sd = std::sqrt(8.0 / 3.0);
  EXPECT_NEAR(Find(f, 1).fused, 0.5 * (2.0 / sd), 1e-5);
  EXPECT_NEAR(Find(f, 3).fused, 0.5 * (-2.0 / sd), 1e-5);
  // Key 4 is missing from the lexical leg: it gets that leg's minimum z-score.
  EXPECT_NEAR(Find(f, 4).fused, 0.5 * (-2.0 / sd), 1e-5);
}

TEST(FusionTest, EqualScoresInALegStillRankAboveMissing) {
  Leg lex = L({{1, 2.0f}, {2, 2.0f}});
  Leg vec = L({{3, 0.5f}, {1, 0.4f}});
  FusionOptions o;
  o.vector_weight = 0.2f;
  auto f = Fuse(lex, vec, o);
  EXPECT_NEAR(Find(f, 1).fused, 0.8 * 1.0 + 0.2 * 0.0, 1e-6);
  EXPECT_NEAR(Find(f, 2).fused, 0.8 * 1.0, 1e-6);
  EXPECT_NEAR(Find(f, 3).fused, 0.2 * 1.0, 1e-6);
}

TEST(FusionTest, EmptyLegs) {
  FusionOptions o;
  EXPECT_TRUE(Fuse(Leg{}, Leg{}, o).empty());
  auto f = Fuse(L({{9, 1.0f}}), Leg{}, o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].lexical_rank, 1u);
  EXPECT_EQ(f[0].vector_rank, 0u);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

TEST(VectorQueryTextTest, DropsExclusionsAndOperators) {
  EXPECT_EQ(VectorQueryText("vacuum freeze -autovacuum"), "vacuum freeze");
  EXPECT_EQ(VectorQueryText("+max_wal_senders \"replication slot\" -\"logical decoding\""),
            "max_wal_senders replication slot");
  EXPECT_EQ(VectorQueryText("  plain   words  "), "plain words");
  EXPECT_EQ(VectorQueryText("a - b"), "a - b");  // a lone dash is a word, not an operator
  EXPECT_EQ(VectorQueryText("\"unterminated phrase"), "unterminated phrase");
  EXPECT_EQ(VectorQueryText("-only"), "");
  EXPECT_EQ(VectorQueryText(""), "");
}

}  // namespace
}  // namespace attest
