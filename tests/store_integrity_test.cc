// A segment file swapped for another valid one (its own checksum intact) is caught at open: the
// store reopens files shallowly only when their checksum is the one its catalog recorded.
#include <gtest/gtest.h>

#include "store_test_helpers.h"

namespace attest {
namespace {

using namespace store_test;

TEST(StoreIntegrity, SwappedSegmentFileIsReportedAsCorruption) {
  TempDir a, b;
  for (const auto* dir : {&a, &b}) {
    auto store = Store::Open(Options(dir->path()));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    WriteBatch batch;
    batch.upserts.push_back(MakeDoc("d1", {dir == &a ? "alpha" : "bravo"}));
    ASSERT_TRUE((*store)->Commit(std::move(batch)).ok());
  }
  // Both stores named their first segment the same; copy b's over a's.
  auto files_a = SegmentFiles(a.path());
  auto files_b = SegmentFiles(b.path());
  ASSERT_EQ(files_a.size(), 1u);
  ASSERT_EQ(files_b.size(), 1u);
  auto sa = Segment::Open(files_a[0]);
  auto sb = Segment::Open(files_b[0]);
  ASSERT_TRUE(sa.ok() && sb.ok());
  ASSERT_NE((*sa)->content_crc(), (*sb)->content_crc());
  std::filesystem::copy_file(files_b[0], files_a[0], std::filesystem::copy_options::overwrite_existing);

  auto reopened = Store::Open(Options(a.path()));
  ASSERT_FALSE(reopened.ok());
  EXPECT_EQ(reopened.status().code(), StatusCode::kCorruption);
  EXPECT_NE(reopened.status().message().find("not the file the catalog recorded"), std::string::npos)
      << reopened.status().ToString();
}

TEST(StoreIntegrity, UntouchedStoreReopensAndSearches) {
  TempDir dir;
  {
    auto store = Store::Open(Options(dir.path()));
    ASSERT_TRUE(store.ok());
    WriteBatch batch;
    batch.upserts.push_back(MakeDoc("d1", {"alpha beta", "gamma"}));
    ASSERT_TRUE((*store)->Commit(std::move(batch)).ok());
  }
  auto store = Store::Open(Options(dir.path()));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(Search(*(*store)->Pin(), "gamma").size(), 1u);
}

}  // namespace
}  // namespace attest
