// The named fault points the kill -9 campaign stops at (docs/testing.md) are also failure points: a
// non-OK Status from the hook at any of them fails that operation as an operating-system refusal
// would, and the store must stay at its version, hold no stray file, and succeed once the fault is
// gone. Points whose Status is ignored (the change is already durable) must keep the change.
#include <gtest/gtest.h>

#include "store_test_helpers.h"

namespace attest {
namespace {

using store_test::MakeDoc;
using store_test::OpenOrDie;
using store_test::Options;
using store_test::SegmentFiles;
using store_test::TempDir;

WriteBatch Doc(const std::string& id, const std::string& text, std::optional<SegmentId> bulk = std::nullopt) {
  WriteBatch b;
  b.upserts.push_back(MakeDoc(id, {text}));
  b.bulk_first_segment = bulk;
  return b;
}

struct Armed {
  std::string point;
  bool on = false;
  int seen = 0;
  StoreOptions With(StoreOptions o) {
    o.fault_hook = [this](std::string_view p) {
      if (p != point) return Status::Ok();
      ++seen;
      return on ? Status::IOError("injected at " + std::string(p)) : Status::Ok();
    };
    return o;
  }
};

class FailingCommitPoint : public ::testing::TestWithParam<const char*> {};

TEST_P(FailingCommitPoint, CommitFailsAndTheStoreStaysUsable) {
  TempDir tmp;
  Armed fault{GetParam()};
  auto store = OpenOrDie(fault.With(Options(tmp.path())));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Commit(Doc("a", "alpha")).ok());
  const auto files = SegmentFiles(tmp.path());
  fault.on = true;
  fault.seen = 0;
  auto r = store->Commit(Doc("b", "beta"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_EQ(fault.seen, 1);
  EXPECT_EQ(store->Pin()->version(), SnapshotVersion(1));
  EXPECT_FALSE(store->Pin()->FindDocument({"", "b"}).ok());
  EXPECT_EQ(SegmentFiles(tmp.path()), files) << "a failed commit left a segment file";
  fault.on = false;
  ASSERT_TRUE(store->Commit(Doc("b", "beta")).ok());
  EXPECT_TRUE(store->Pin()->FindDocument({"", "b"}).ok());
}

INSTANTIATE_TEST_SUITE_P(Points, FailingCommitPoint,
                         ::testing::Values("commit.begin", "commit.before_segment_write",
                                           "commit.before_catalog_commit"));

class FailingMergePoint : public ::testing::TestWithParam<const char*> {};

// A bulk load of three segments whose FinishBulk merge fails at the point: the documents stay
// committed in their segments, no merged file is left, and the next FinishBulk merges them.
TEST_P(FailingMergePoint, FinishBulkFailsAndKeepsEveryDocument) {
  TempDir tmp;
  Armed fault{GetParam()};
  auto store = OpenOrDie(fault.With(Options(tmp.path())));
  ASSERT_NE(store, nullptr);
  const SegmentId first = store->NextSegmentId();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(store->Commit(Doc("d" + std::to_string(i), "word", first)).ok());
  const auto files = SegmentFiles(tmp.path());
  ASSERT_EQ(files.size(), 3u);
  fault.on = true;
  fault.seen = 0;
  Status s = store->FinishBulk(first);
  EXPECT_EQ(s.code(), StatusCode::kIOError) << s.ToString();
  EXPECT_EQ(fault.seen, 1);
  EXPECT_EQ(store->Pin()->segments().size(), 3u);
  EXPECT_EQ(SegmentFiles(tmp.path()), files) << "a failed merge left its file";
  EXPECT_EQ(store->Pin()->Stats()->documents, 3u);
  fault.on = false;
  ASSERT_TRUE(store->FinishBulk(first).ok());
  EXPECT_EQ(store->Pin()->segments().size(), 1u);
  EXPECT_EQ(store->Pin()->Stats()->documents, 3u);
}

INSTANTIATE_TEST_SUITE_P(Points, FailingMergePoint,
                         ::testing::Values("bulk.finish", "merge.begin", "merge.before_segment_write",
                                           "merge.before_catalog_commit"));

TEST(FailingEmbedderPoint, SwitchFailsAndNoEmbedderIsActive) {
  TempDir tmp;
  Armed fault{"embedder.before_catalog_commit"};
  auto store = OpenOrDie(fault.With(Options(tmp.path())));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Commit(Doc("a", "alpha")).ok());
  EmbedderRecord rec;
  rec.key = "0123456789abcdef";
  rec.name = "test";
  rec.dim = 4;
  rec.version = "1";
  rec.config_json = "{}";
  fault.on = true;
  EXPECT_FALSE(store->ActivateEmbedder(rec).ok());
  EXPECT_EQ(store->Pin()->embedder(""), nullptr);
  EXPECT_EQ(store->Pin()->version(), SnapshotVersion(1));
  fault.on = false;
  auto v = store->ActivateEmbedder(rec);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_NE(store->Pin()->embedder(""), nullptr);
  EXPECT_EQ(store->Pin()->embedder("")->key, rec.key);
}

// The points after the commit point report nothing: the change is durable whatever the hook says.
TEST(IgnoredFaultPoints, AfterTheCommitPointTheChangeStands) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.fault_hook = [](std::string_view p) {
    return p.find("after_catalog_commit") != std::string_view::npos ? Status::IOError("ignored") : Status::Ok();
  };
  auto store = OpenOrDie(o);
  ASSERT_NE(store, nullptr);
  const SegmentId first = store->NextSegmentId();
  ASSERT_TRUE(store->Commit(Doc("a", "alpha", first)).ok());
  ASSERT_TRUE(store->Commit(Doc("b", "beta", first)).ok());
  ASSERT_TRUE(store->FinishBulk(first).ok());
  EXPECT_EQ(store->Pin()->segments().size(), 1u);
  EmbedderRecord rec;
  rec.key = "0123456789abcdef";
  rec.name = "test";
  rec.dim = 4;
  rec.version = "1";
  rec.config_json = "{}";
  EXPECT_TRUE(store->ActivateEmbedder(rec).ok());
}

}  // namespace
}  // namespace attest
