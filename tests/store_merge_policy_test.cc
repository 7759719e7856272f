// The size-tiered merge policy: many small commits keep few segments and rewrite each chunk only
// about log_F(n) times, and search results stay those of the committed documents.
#include <gtest/gtest.h>

#include "store_test_helpers.h"

namespace attest {
namespace {

using namespace store_test;

TEST(StoreMergePolicy, ManySmallCommitsStayInFewTieredSegments) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.merge_factor = 4;
  o.max_segments = 32;
  int reindexed = 0;
  o.reindex = [&](const ChunkRecord& c, const DocumentRecord& d) {
    ++reindexed;
    return Reindex(c, d);
  };
  auto store = Store::Open(o);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const int kCommits = 64;
  for (int i = 0; i < kCommits; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"common t" + std::to_string(i)}));
    ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
  }
  auto snap = (*store)->Pin();
  // 64 one-chunk commits with factor 4 collapse into a single tier-3 segment.
  EXPECT_LE(snap->lexical().segments().size(), 3u);
  // Each chunk is rewritten once per tier it climbs: log4(64) = 3 times, not once per commit.
  EXPECT_LE(reindexed, kCommits * 3);
  EXPECT_EQ(Search(*snap, "common").size(), static_cast<size_t>(kCommits));
  for (int i = 0; i < kCommits; ++i) EXPECT_EQ(Search(*snap, "t" + std::to_string(i)).size(), 1u) << i;
}

TEST(StoreMergePolicy, FactorBelowTwoOnlyMergesAtTheCap) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.merge_factor = 0;
  o.max_segments = 6;
  auto store = Store::Open(o);
  ASSERT_TRUE(store.ok());
  for (int i = 0; i < 6; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"x"}));
    ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
  }
  EXPECT_EQ((*store)->Pin()->lexical().segments().size(), 6u);
  WriteBatch b;
  b.upserts.push_back(MakeDoc("d6", {"x"}));
  ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
  // 7 > 6: the smallest 7 - 6/2 = 4 merge into one, leaving 4.
  EXPECT_EQ((*store)->Pin()->lexical().segments().size(), 4u);
  EXPECT_EQ(Search(*(*store)->Pin(), "x").size(), 7u);
}

}  // namespace
}  // namespace attest
