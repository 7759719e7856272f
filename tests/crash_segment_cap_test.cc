// Regression found by the kill -9 campaign (tests/crash_recovery_test.cc, ingest scenario): bulk
// loads that are interrupted before FinishBulk leave their segments behind, and the merges inside a
// later bulk load only ever took that load's own segments. After 120 interrupted loads a store of
// 192 chunks had 223 segments, and every commit of a new load merged (two segments at a time).
#include <gtest/gtest.h>

#include "store_test_helpers.h"

namespace attest {
namespace {

using store_test::MakeDoc;
using store_test::TempDir;

TEST(CrashSegmentCap, InterruptedBulkLoadsKeepTheSegmentCap) {
  TempDir tmp;
  StoreOptions o;
  o.dir = tmp.path();
  o.max_segments = 4;
  o.reindex = store_test::Reindex;
  auto store = Store::Open(o);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  int doc = 0;
  size_t most = 0;
  for (int load = 0; load < 12; ++load) {
    // A bulk load of three commits that never reaches FinishBulk (the process was killed).
    const SegmentId first = (*store)->NextSegmentId();
    for (int commit = 0; commit < 3; ++commit) {
      WriteBatch b;
      b.bulk_first_segment = first;
      b.upserts.push_back(MakeDoc("d" + std::to_string(doc), {"word" + std::to_string(doc)}));
      ++doc;
      auto r = (*store)->Commit(std::move(b));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      most = std::max(most, (*store)->Pin()->segments().size());
    }
  }
  EXPECT_LE(most, o.max_segments) << "segments of interrupted bulk loads piled up past the cap";
  EXPECT_EQ((*store)->Pin()->Stats()->documents, uint64_t(doc));
}

}  // namespace
}  // namespace attest
