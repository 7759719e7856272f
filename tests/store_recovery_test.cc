// Recovery and failure handling: orphan/temp cleanup, failed commits and merges roll back,
// simulated crashes around the commit point, corrupted segments, read-only opens beside a writer.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "common/file_util.h"
#include "store/store.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

using store_test::MakeDoc;
using store_test::OpenOrDie;
using store_test::Options;
using store_test::Search;
using store_test::SegmentFiles;
using store_test::TempDir;
using store_test::Texts;

WriteBatch OneDoc(const std::string& id, const std::string& text) {
  WriteBatch b;
  b.upserts.push_back(MakeDoc(id, {text}));
  return b;
}

void Seed(const std::filesystem::path& dir) {
  auto store = OpenOrDie(Options(dir));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->Commit(OneDoc("a", "alpha one")).ok());
  ASSERT_TRUE(store->Commit(OneDoc("b", "beta two")).ok());
}

TEST(StoreRecovery, OrphanSegmentsAndTempFilesAreRemovedOnWriterOpen) {
  TempDir tmp;
  Seed(tmp.path());
  auto live = SegmentFiles(tmp.path());
  ASSERT_EQ(live.size(), 2u);
  const auto stray = tmp.path() / "segments" / "seg-00000000000000ff.ats";
  const auto temp = tmp.path() / "segments" / "seg-0000000000000003.ats.tmp-99-1234";
  const auto root_temp = tmp.path() / "ATTEST.tmp-99-1";
  const auto unrelated = tmp.path() / "segments" / "notes.txt";
  for (const auto& p : {stray, temp, root_temp, unrelated}) std::ofstream(p) << "junk";

  {  // A read-only open cleans nothing.
    StoreOptions ro = Options(tmp.path());
    ro.read_only = true;
    auto r = OpenOrDie(ro);
    ASSERT_NE(r, nullptr);
    EXPECT_TRUE(std::filesystem::exists(stray));
  }
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_NE(store, nullptr);
  EXPECT_FALSE(std::filesystem::exists(stray));
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_FALSE(std::filesystem::exists(root_temp));
  EXPECT_TRUE(std::filesystem::exists(unrelated)) << "only files named like segments are ours to remove";
  EXPECT_EQ(SegmentFiles(tmp.path()).size(), 3u);  // 2 live + notes.txt
  EXPECT_EQ(Search(*store->Pin(), "alpha").size(), 1u);
  EXPECT_EQ(Search(*store->Pin(), "beta").size(), 1u);
}

class FailingCommit : public ::testing::TestWithParam<const char*> {};

TEST_P(FailingCommit, LeavesStoreReadableAndUnchanged) {
  TempDir tmp;
  Seed(tmp.path());
  std::string fail_at = GetParam();
  StoreOptions o = Options(tmp.path());
  bool armed = true;
  o.fault_hook = [&](std::string_view point) {
    return armed && point == fail_at ? Status::IOError("injected failure at " + std::string(point)) : Status::Ok();
  };
  auto store = OpenOrDie(o);
  ASSERT_NE(store, nullptr);
  auto files_before = SegmentFiles(tmp.path());

  WriteBatch b = OneDoc("a", "alpha replaced");
  b.upserts.push_back(MakeDoc("c", {"gamma three"}));
  b.deletes.push_back({"", "b"});
  auto r = store->Commit(std::move(b));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_NE(r.status().message().find("injected"), std::string::npos);

  auto check_unchanged = [&](const Store& s) {
    auto snap = s.Pin();
    EXPECT_EQ(snap->version(), SnapshotVersion(2));
    auto alpha = snap->GetChunks(Search(*snap, "alpha"));
    ASSERT_TRUE(alpha.ok());
    EXPECT_EQ(Texts(*alpha), (std::vector<std::string>{"alpha one"}));
    EXPECT_EQ(Search(*snap, "beta").size(), 1u);
    EXPECT_TRUE(Search(*snap, "gamma").empty());
    EXPECT_TRUE(snap->FindDocument({"", "b"}).ok());
    EXPECT_EQ(snap->FindDocument({"", "c"}).status().code(), StatusCode::kNotFound);
  };
  check_unchanged(*store);
  EXPECT_EQ(SegmentFiles(tmp.path()), files_before) << "the new segment file must be unlinked";

  // The store remains usable: the same batch now succeeds as version 3.
  armed = false;
  WriteBatch again = OneDoc("a", "alpha replaced");
  again.deletes.push_back({"", "b"});
  auto ok = store->Commit(std::move(again));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->version, SnapshotVersion(3));
  EXPECT_EQ(ok->replaced, 1u);
  EXPECT_EQ(ok->deleted, 1u);
  auto alpha = store->Pin()->GetChunks(Search(*store->Pin(), "alpha"));
  ASSERT_TRUE(alpha.ok());
  EXPECT_EQ(Texts(*alpha), (std::vector<std::string>{"alpha replaced"}));
}

INSTANTIATE_TEST_SUITE_P(Points, FailingCommit,
                         ::testing::Values("commit.before_segment_write", "commit.before_catalog_commit"));

TEST(StoreRecovery, FailedMergeKeepsTheCommitAndNoStrayFile) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.max_segments = 2;
  bool fail = true;
  o.fault_hook = [&](std::string_view point) {
    return fail && point == "merge.before_catalog_commit" ? Status::IOError("injected") : Status::Ok();
  };
  auto store = OpenOrDie(o);
  for (int i = 0; i < 3; ++i) {
    auto r = store->Commit(OneDoc("d" + std::to_string(i), "word" + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.status().ToString();  // the merge failure does not fail the commit
    EXPECT_EQ(r->version, SnapshotVersion(i + 1));
  }
  auto snap = store->Pin();
  EXPECT_EQ(snap->lexical().segments().size(), 3u);
  EXPECT_EQ(SegmentFiles(tmp.path()).size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Search(*snap, "word" + std::to_string(i)).size(), 1u);
  fail = false;
  ASSERT_TRUE(store->Commit(OneDoc("d3", "word3")).ok());
  EXPECT_LE(store->Pin()->lexical().segments().size(), 2u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Search(*store->Pin(), "word" + std::to_string(i)).size(), 1u);
}

// Runs in a forked child: commits one document and _exits with `code` at the fault point `at`
// (exit code 1: the store did not open; 2: the point was never reached).
void CommitAndExitAt(const std::filesystem::path& dir, std::string at, int code, const std::string& text) {
  StoreOptions o = Options(dir);
  o.fault_hook = [at, code](std::string_view point) {
    if (point == at) ::_exit(code);
    return Status::Ok();
  };
  auto store = Store::Open(o);
  if (!store.ok()) ::_exit(1);
  (void)(*store)->Commit(OneDoc("a", text));
  ::_exit(2);
}

// A real crash (the child process _exits) just before the catalog COMMIT: the segment file is on
// disk but unreferenced; the next writer open removes it and the store is at its old version.
TEST(StoreRecovery, CrashBeforeCatalogCommitLeavesOldSnapshot) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork: the child must share this test's directory
  TempDir tmp;
  Seed(tmp.path());
  EXPECT_EXIT(CommitAndExitAt(tmp.path(), "commit.before_catalog_commit", 42, "alpha crashed"),
              ::testing::ExitedWithCode(42), "");
  EXPECT_EQ(SegmentFiles(tmp.path()).size(), 3u) << "the crashed commit should have left its segment file";
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(SegmentFiles(tmp.path()).size(), 2u);
  auto snap = store->Pin();
  EXPECT_EQ(snap->version(), SnapshotVersion(2));
  EXPECT_TRUE(Search(*snap, "crashed").empty());
  auto r = store->Commit(OneDoc("a", "alpha after"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->version, SnapshotVersion(3));
}

// A crash right after the catalog COMMIT: the new version is durable.
TEST(StoreRecovery, CrashAfterCatalogCommitKeepsNewSnapshot) {
  GTEST_FLAG_SET(death_test_style, "fast");  // fork: the child must share this test's directory
  TempDir tmp;
  Seed(tmp.path());
  EXPECT_EXIT(CommitAndExitAt(tmp.path(), "commit.after_catalog_commit", 43, "alpha durable"),
              ::testing::ExitedWithCode(43), "");
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_NE(store, nullptr);
  auto snap = store->Pin();
  EXPECT_EQ(snap->version(), SnapshotVersion(3));
  auto hits = snap->GetChunks(Search(*snap, "alpha"));
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(Texts(*hits), (std::vector<std::string>{"alpha durable"}));
}

TEST(StoreRecovery, CorruptedSegmentIsDetectedOnOpenWithAClearError) {
  TempDir tmp;
  Seed(tmp.path());
  auto files = SegmentFiles(tmp.path());
  ASSERT_EQ(files.size(), 2u);
  auto bytes = ReadFileToString(files[1]);
  ASSERT_TRUE(bytes.ok());
  std::string damaged = *bytes;
  damaged[damaged.size() / 2] ^= 0x5a;
  ASSERT_TRUE(WriteFileAtomically(files[1], damaged).ok());
  auto s = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().ToString();
  EXPECT_NE(s.status().message().find(files[1].filename().string()), std::string::npos) << s.status().message();
  StoreOptions ro = Options(tmp.path());
  ro.read_only = true;
  EXPECT_EQ(Store::Open(ro).status().code(), StatusCode::kCorruption);

  // Truncated, then missing.
  ASSERT_TRUE(WriteFileAtomically(files[1], bytes->substr(0, bytes->size() - 7)).ok());
  s = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().ToString();
  std::filesystem::remove(files[1]);
  s = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().ToString();
  EXPECT_NE(s.status().message().find("missing"), std::string::npos) << s.status().message();

  // Restored: opens again.
  ASSERT_TRUE(WriteFileAtomically(files[1], *bytes).ok());
  EXPECT_TRUE(Store::Open(Options(tmp.path())).ok());
}

TEST(StoreRecovery, ReadOnlyOpenWhileAWriterIsOpen) {
  TempDir tmp;
  auto writer = OpenOrDie(Options(tmp.path()));
  ASSERT_NE(writer, nullptr);
  ASSERT_TRUE(writer->Commit(OneDoc("a", "alpha one")).ok());

  StoreOptions ro = Options(tmp.path());
  ro.read_only = true;
  auto reader = OpenOrDie(ro);
  ASSERT_NE(reader, nullptr);
  auto rsnap = reader->Pin();
  EXPECT_EQ(rsnap->version(), SnapshotVersion(1));

  ASSERT_TRUE(writer->Commit(OneDoc("a", "alpha two")).ok());
  ASSERT_TRUE(writer->Commit(OneDoc("b", "beta")).ok());
  // The reader keeps its version while the writer moves on...
  auto old = rsnap->GetChunks(Search(*rsnap, "alpha"));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(Texts(*old), (std::vector<std::string>{"alpha one"}));
  EXPECT_TRUE(Search(*rsnap, "beta").empty());
  // ...and a new read-only open sees the latest commit.
  auto reader2 = OpenOrDie(ro);
  ASSERT_NE(reader2, nullptr);
  auto snap2 = reader2->Pin();
  EXPECT_EQ(snap2->version(), SnapshotVersion(3));
  auto now = snap2->GetChunks(Search(*snap2, "alpha"));
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(Texts(*now), (std::vector<std::string>{"alpha two"}));
  EXPECT_EQ(Search(*snap2, "beta").size(), 1u);

  // Read-only after the writer has closed (clean WAL shutdown) still works.
  writer.reset();
  reader.reset();
  reader2.reset();
  auto reader3 = OpenOrDie(ro);
  ASSERT_NE(reader3, nullptr);
  EXPECT_EQ(reader3->Pin()->version(), SnapshotVersion(3));
}

TEST(StoreRecovery, ReadOnlyOpenOfMissingStoreIsNotFound) {
  TempDir tmp;
  StoreOptions ro = Options(tmp.path());
  ro.read_only = true;
  EXPECT_EQ(Store::Open(ro).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(tmp.path()));
}

}  // namespace
}  // namespace attest
