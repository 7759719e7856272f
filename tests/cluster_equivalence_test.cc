// The equivalence bar of issue 18 on the shared datasets, through the real binary: SciFact and
// HotpotQA split over three shard stores by virtual shard and searched through the scatter-gather
// search (global statistics) give the one store's rankings (up to the order of exactly equal
// scores), the same BM25 scores to 1e-6 (in fact exactly) and the same figures.
#include <gtest/gtest.h>

#include <regex>

#include "support/process.h"

namespace attest {
namespace {

using testing_support::DatasetsDir;
using testing_support::RunAttest;

struct Row {
  double ndcg = -1, recall = -1;
};

Row RowOf(const std::string& out, const std::string& mode) {
  std::smatch m;
  const std::regex re("\n" + mode + R"( +\d+ +([0-9.]+) +([0-9.]+))");
  Row r;
  if (std::regex_search(out, m, re)) r = Row{std::stod(m[1]), std::stod(m[2])};
  return r;
}

void ExpectEquivalent(const std::string& dir, size_t queries) {
  auto r = RunAttest({"eval", dir, "--mode", "bm25", "--shards", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::cout << r.out;
  const Row one = RowOf(r.out, "bm25"), cluster = RowOf(r.out, "bm25 3 shards");
  ASSERT_GE(one.ndcg, 0) << r.out;
  EXPECT_EQ(one.ndcg, cluster.ndcg);
  EXPECT_EQ(one.recall, cluster.recall);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"((\d+) queries, (\d+) identical, (\d+) equal up to ties, (\d+) different; max \|score difference\| ([0-9.e+-]+))")))
      << r.out;
  EXPECT_EQ(std::stoul(m[1]), queries);
  EXPECT_EQ(std::stoul(m[4]), 0u) << "rankings differ";
  EXPECT_LE(std::stod(m[5]), 1e-6);
  EXPECT_GT(std::stoul(m[2]), queries / 2);
}

TEST(ClusterEquivalenceTest, SciFactThroughThreeShardsEqualsOneStore) {
  const std::string datasets = DatasetsDir();
  if (datasets.empty()) GTEST_SKIP() << "../shared/datasets is absent: the SciFact equivalence bar is not checked";
  ExpectEquivalent(datasets + "/scifact/beir", 300);
}

TEST(ClusterEquivalenceTest, HotpotQaThroughThreeShardsEqualsOneStore) {
  const std::string datasets = DatasetsDir();
  if (datasets.empty()) GTEST_SKIP() << "../shared/datasets is absent: the HotpotQA equivalence bar is not checked";
  ExpectEquivalent(datasets + "/hotpotqa-dev-250/beir", 250);
}

}  // namespace
}  // namespace attest
