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

  // The in-memory chunk -> document map survives merges and a reopen, and agrees with the catalog.
  auto check_map = [](const Snapshot& s) {
    std::vector<ChunkId> ids = Search(s, "common");
    auto docs = s.DocumentsOf(ids);
    ASSERT_TRUE(docs.ok()) << docs.status().ToString();
    auto rows = s.GetChunks(ids);
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(rows->size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ((*docs)[i], (*rows)[i].doc) << ids[i].get();
    std::vector<ChunkId> absent{ChunkId(999999)};
    EXPECT_EQ(s.DocumentsOf(absent).status().code(), StatusCode::kNotFound);
  };
  check_map(*snap);
  snap.reset();
  store->reset();
  auto reopened = Store::Open(o);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  check_map(*(*reopened)->Pin());
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

namespace attest {
namespace {

using namespace store_test;

TEST(StoreMergePolicy, BulkLoadMergesOnceAtTheEnd) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.merge_factor = 4;
  o.max_segments = 12;
  int reindexed = 0;
  o.reindex = [&](const ChunkRecord& c, const DocumentRecord& d) {
    ++reindexed;
    return Reindex(c, d);
  };
  auto store = Store::Open(o);
  ASSERT_TRUE(store.ok());
  {  // an existing segment outside the bulk load stays as it is
    WriteBatch b;
    b.upserts.push_back(MakeDoc("old", {"common old"}));
    ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
  }
  const SegmentId first = (*store)->NextSegmentId();
  for (int i = 0; i < 10; ++i) {
    WriteBatch b;
    b.bulk_first_segment = first;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"common t" + std::to_string(i)}));
    ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
  }
  EXPECT_EQ((*store)->Pin()->lexical().segments().size(), 11u) << "no tiered merge during a bulk load";
  EXPECT_EQ(reindexed, 0);
  for (int i = 10; i < 13; ++i) {  // past the cap of 12: the bulk's segments merge into one
    WriteBatch b;
    b.bulk_first_segment = first;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"common t" + std::to_string(i)}));
    ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
  }
  // 13 > 12: the 13 - 12/2 + 1 = 8 smallest bulk segments became one (6 left), then one more commit.
  EXPECT_EQ((*store)->Pin()->lexical().segments().size(), 7u);
  ASSERT_TRUE((*store)->FinishBulk(first).ok());
  auto snap = (*store)->Pin();
  EXPECT_EQ(snap->lexical().segments().size(), 2u) << "the old segment and one for the bulk load";
  // The cap merge at commit 12 re-indexed the smallest bulk segments once; FinishBulk once more.
  EXPECT_LE(reindexed, 2 * 13) << "each bulk chunk re-indexed at most about twice";
  EXPECT_EQ(Search(*snap, "common").size(), 14u);
  EXPECT_EQ(Search(*snap, "old").size(), 1u);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

using namespace store_test;

// Merges re-index on several threads; the merged segment must be the same as a serial merge's.
TEST(StoreMergePolicy, ParallelReindexingMergesLikeSerial) {
  std::vector<std::vector<ChunkId>> results[2];
  for (int variant = 0; variant < 2; ++variant) {
    TempDir tmp;
    StoreOptions o = Options(tmp.path());
    o.merge_threads = variant == 0 ? 1 : 3;
    auto store = Store::Open(o);
    ASSERT_TRUE(store.ok());
    for (int i = 0; i < 40; ++i) {
      WriteBatch b;
      // Two chunks per document; each merge run is split across the threads by chunk index.
      b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"common t" + std::to_string(i), "common u" + std::to_string(i % 7)}));
      ASSERT_TRUE((*store)->Commit(std::move(b)).ok());
    }
    ASSERT_TRUE((*store)->Compact().ok());
    auto snap = (*store)->Pin();
    EXPECT_EQ(snap->lexical().segments().size(), 1u);
    for (const std::string term : {"common", "t3", "u2", "u6"}) results[variant].push_back(Search(*snap, term));
    std::vector<ChunkId> all = Search(*snap, "common");
    auto docs = snap->DocumentsOf(all);
    ASSERT_TRUE(docs.ok());
    auto rows = snap->GetChunks(all);
    ASSERT_TRUE(rows.ok());
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ((*docs)[i], (*rows)[i].doc);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(results[1][0].size(), 80u);
}

}  // namespace
}  // namespace attest
