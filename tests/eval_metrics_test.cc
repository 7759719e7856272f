// Hand-computed cases for src/eval/metrics (definitions: trec_eval / pytrec_eval as used by BEIR).
#include "eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace attest {
namespace {

constexpr double kEps = 1e-9;

TEST(EvalMetricsTest, GradedNdcgUsesLinearGainAndLog2Discount) {
  // Judged: d=3, a=2, b=1, c=0. Run: b a x d.
  // DCG  = 1/log2(2) + 2/log2(3) + 0 + 3/log2(5)
  // IDCG = 3/log2(2) + 2/log2(3) + 1/log2(4)
  std::map<std::string, int> judged{{"a", 2}, {"b", 1}, {"c", 0}, {"d", 3}};
  QueryMetrics m = ScoreQuery({"b", "a", "x", "d"}, judged);
  EXPECT_NEAR(m.ndcg_at_10, 0.7463238207746714, kEps);
  EXPECT_NEAR(m.recall_at_100, 1.0, kEps);
  EXPECT_NEAR(m.mrr_at_10, 1.0, kEps);
  EXPECT_NEAR(m.p_at_10, 0.3, kEps);
}

TEST(EvalMetricsTest, ExponentialGainWouldGiveADifferentValue) {
  // Guards against 2^rel - 1 gains: with judged a=3, b=1 and run b a, linear gain gives
  // (1 + 3/log2 3) / (3 + 1/log2 3) = 0.7967...; exponential would give (1 + 7/log2 3)/(7 + 1/log2 3).
  std::map<std::string, int> judged{{"a", 3}, {"b", 1}};
  QueryMetrics m = ScoreQuery({"b", "a"}, judged);
  const double linear = (1 + 3 / std::log2(3.0)) / (3 + 1 / std::log2(3.0));
  const double expo = (1 + 7 / std::log2(3.0)) / (7 + 1 / std::log2(3.0));
  EXPECT_NEAR(m.ndcg_at_10, linear, kEps);
  EXPECT_GT(std::abs(m.ndcg_at_10 - expo), 1e-3);
}

TEST(EvalMetricsTest, TiedGradesGiveTheSameScoreInEitherOrder) {
  std::map<std::string, int> judged{{"a", 1}, {"b", 1}};
  QueryMetrics ab = ScoreQuery({"x", "a", "b"}, judged);
  QueryMetrics ba = ScoreQuery({"x", "b", "a"}, judged);
  // (1/log2 3 + 1/log2 4) / (1 + 1/log2 3)
  EXPECT_NEAR(ab.ndcg_at_10, 0.6934264036172708, kEps);
  EXPECT_NEAR(ba.ndcg_at_10, ab.ndcg_at_10, kEps);
  EXPECT_NEAR(ab.mrr_at_10, 0.5, kEps);
  EXPECT_NEAR(ab.p_at_10, 0.2, kEps);
}

TEST(EvalMetricsTest, EmptyRunScoresZero) {
  std::map<std::string, int> judged{{"a", 1}};
  QueryMetrics m = ScoreQuery({}, judged);
  EXPECT_EQ(m.ndcg_at_10, 0);
  EXPECT_EQ(m.recall_at_100, 0);
  EXPECT_EQ(m.mrr_at_10, 0);
  EXPECT_EQ(m.p_at_10, 0);
}

TEST(EvalMetricsTest, DuplicateIdsAreIgnoredAfterTheFirst) {
  std::map<std::string, int> judged{{"a", 1}};
  // "x x a" dedupes to "x a": a is at rank 2.
  QueryMetrics m = ScoreQuery({"x", "x", "a"}, judged);
  EXPECT_NEAR(m.mrr_at_10, 0.5, kEps);
  EXPECT_NEAR(m.ndcg_at_10, 1 / std::log2(3.0), kEps);
  // A repeated relevant document counts once.
  QueryMetrics twice = ScoreQuery({"a", "a", "a"}, judged);
  EXPECT_NEAR(twice.p_at_10, 0.1, kEps);
  EXPECT_NEAR(twice.ndcg_at_10, 1.0, kEps);
  EXPECT_NEAR(twice.recall_at_100, 1.0, kEps);
}

TEST(EvalMetricsTest, NonPositiveGradesAreNotRelevant) {
  std::map<std::string, int> judged{{"a", -1}, {"z", 0}, {"b", 1}};
  QueryMetrics m = ScoreQuery({"a", "z", "b"}, judged);
  EXPECT_NEAR(m.mrr_at_10, 1.0 / 3, kEps);
  EXPECT_NEAR(m.ndcg_at_10, 1 / std::log2(4.0), kEps);
  EXPECT_NEAR(m.recall_at_100, 1.0, kEps);
  EXPECT_NEAR(m.p_at_10, 0.1, kEps);
}

TEST(EvalMetricsTest, CutOffsAreRespected) {
  std::map<std::string, int> judged{{"r11", 1}, {"r100", 1}, {"r101", 1}};
  std::vector<std::string> run;
  for (int i = 1; i <= 101; ++i) {
    if (i == 11) run.push_back("r11");
    else if (i == 100) run.push_back("r100");
    else if (i == 101) run.push_back("r101");
    else run.push_back("n" + std::to_string(i));
  }
  QueryMetrics m = ScoreQuery(run, judged);
  EXPECT_EQ(m.ndcg_at_10, 0);   // first relevant at rank 11
  EXPECT_EQ(m.mrr_at_10, 0);
  EXPECT_EQ(m.p_at_10, 0);
  EXPECT_NEAR(m.recall_at_100, 2.0 / 3, kEps);  // rank 101 is beyond the cut
}

TEST(EvalMetricsTest, MeanSkipsQueriesWithoutRelevantDocsAndCountsMissingRunsAsZero) {
  Qrels qrels;
  qrels["q1"] = {{"a", 1}};
  qrels["q2"] = {{"b", 1}};
  qrels["q3"] = {{"c", 0}};  // no relevant document: skipped
  EvalRun run;
  run["q1"] = {"a"};        // perfect
  run["q3"] = {"c"};        // not evaluated
  // q2 has no run entry: counts as an empty ranking.
  EvaluateArgs args;
  args.run = &run;
  args.qrels = &qrels;
  args.mode = "test";
  args.keep_per_query = true;
  EvalSummary s = Evaluate(args);
  EXPECT_EQ(s.queries, 2u);
  EXPECT_EQ(s.queries_skipped, 1u);
  EXPECT_NEAR(s.mean.ndcg_at_10, 0.5, kEps);
  EXPECT_NEAR(s.mean.recall_at_100, 0.5, kEps);
  EXPECT_NEAR(s.mean.mrr_at_10, 0.5, kEps);
  EXPECT_NEAR(s.mean.p_at_10, 0.05, kEps);
  ASSERT_EQ(s.per_query.size(), 2u);
  EXPECT_NEAR(s.per_query.at("q1").ndcg_at_10, 1.0, kEps);
  EXPECT_EQ(s.per_query.at("q2").ndcg_at_10, 0);
}

TEST(EvalMetricsTest, NearestRankPercentiles) {
  std::vector<double> hundred;
  for (int i = 100; i >= 1; --i) hundred.push_back(i);  // unsorted on purpose
  LatencySummary s = SummarizeLatencies(hundred);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_EQ(s.p50_ms, 50);
  EXPECT_EQ(s.p95_ms, 95);
  EXPECT_EQ(s.p99_ms, 99);
  EXPECT_NEAR(s.mean_ms, 50.5, kEps);
  // n = 3: p50 -> ceil(1.5) = 2nd smallest; p95, p99 -> 3rd.
  EXPECT_EQ(NearestRankPercentile({5, 1, 3}, 50), 3);
  EXPECT_EQ(NearestRankPercentile({5, 1, 3}, 99), 5);
  EXPECT_EQ(NearestRankPercentile({7}, 50), 7);
  EXPECT_EQ(NearestRankPercentile({}, 50), 0);
  EXPECT_EQ(SummarizeLatencies({}).samples, 0u);
}

TEST(EvalMetricsTest, JsonHasExactlyTheRequiredKeys) {
  EvalSummary s;
  s.mode = "lexical";
  s.queries = 3;
  s.mean = {0.5, 0.75, 0.25, 0.1};
  s.latency = SummarizeLatencies({1.0, 2.0, 3.0, 4.0});
  nlohmann::json j = nlohmann::json::parse(EvalSummaryToJson(s));
  EXPECT_DOUBLE_EQ(j.at("ndcg@10").get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j.at("recall@100").get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(j.at("mrr@10").get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j.at("p@10").get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").at("p50").get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").at("p95").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j.at("latency_ms").at("p99").get<double>(), 4.0);
  EXPECT_EQ(j.at("latency_ms").size(), 3u);
  EXPECT_EQ(j.at("queries").get<int>(), 3);
  EXPECT_EQ(j.at("mode").get<std::string>(), "lexical");
  EXPECT_FALSE(j.contains("per_query"));
  std::set<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.insert(it.key());
  EXPECT_EQ(keys, (std::set<std::string>{"ndcg@10", "recall@100", "mrr@10", "p@10", "latency_ms", "queries",
                                         "queries_skipped", "mode"}));
  EXPECT_EQ(EvalSummaryToJson(s, -1).find('\n'), std::string::npos);
}

TEST(EvalMetricsTest, TableHasHeaderAndOneRowPerSummary) {
  EvalSummary a;
  a.mode = "attest";
  a.queries = 300;
  a.mean = {0.6789, 0.9253, 0.6, 0.09};
  EvalSummary b = a;
  b.mode = "xapian";
  std::string table = FormatEvalTable({a, b});
  EXPECT_NE(table.find("nDCG@10"), std::string::npos);
  EXPECT_NE(table.find("attest"), std::string::npos);
  EXPECT_NE(table.find("xapian"), std::string::npos);
  EXPECT_NE(table.find("0.6789"), std::string::npos);
  EXPECT_EQ(std::count(table.begin(), table.end(), '\n'), 3);
}

}  // namespace
}  // namespace attest
