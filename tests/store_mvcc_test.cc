// MVCC: pinned snapshots keep seeing exactly their version across replacements, deletes, merges
// and purges; merged-away files live until the last pin goes; concurrent readers during commits.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

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

void CommitOrDie(Store& store, WriteBatch b) {
  auto r = store.Commit(std::move(b));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

// Texts of the chunks matching `term`, sorted.
std::vector<std::string> MatchingTexts(const Snapshot& snap, const std::string& term) {
  auto ids = Search(snap, term);
  auto chunks = snap.GetChunks(ids);
  EXPECT_TRUE(chunks.ok()) << chunks.status().ToString();
  if (!chunks.ok()) return {};
  EXPECT_EQ(chunks->size(), ids.size()) << "search hit without visible catalog row for '" << term << "'";
  auto texts = Texts(*chunks);
  std::sort(texts.begin(), texts.end());
  return texts;
}

int64_t CountRows(const std::filesystem::path& dir, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2((dir / "catalog.db").c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int64_t n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

TEST(StoreMvcc, PinnedSnapshotIsStableAcrossReplaceDeleteAndMerge) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.max_segments = 2;
  auto store = OpenOrDie(o);
  CommitOrDie(*store, [] {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("a", {"apple original", "common a"}));
    return b;
  }());
  CommitOrDie(*store, [] {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("b", {"banana original", "common b"}));
    return b;
  }());
  auto pinned = store->Pin();
  ASSERT_EQ(pinned->version(), SnapshotVersion(2));
  const auto apple_ids = Search(*pinned, "apple");
  const auto common_before = MatchingTexts(*pinned, "common");
  ASSERT_EQ(common_before, (std::vector<std::string>{"common a", "common b"}));
  auto b_doc = pinned->FindDocument({"", "b"});
  ASSERT_TRUE(b_doc.ok());
  auto stats_before = pinned->Stats();
  ASSERT_TRUE(stats_before.ok());

  // Replace a, delete b, add c and d (three more segments: merges kick in), then compact.
  CommitOrDie(*store, [] {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("a", {"apple revised", "common a2"}));
    return b;
  }());
  CommitOrDie(*store, [] {
    WriteBatch b;
    b.deletes.push_back({"", "b"});
    b.upserts.push_back(MakeDoc("c", {"cherry", "common c"}));
    return b;
  }());
  CommitOrDie(*store, [] {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d", {"date fruit", "common d"}));
    return b;
  }());
  ASSERT_TRUE(store->Compact().ok());

  auto now = store->Pin();
  EXPECT_EQ(now->version(), SnapshotVersion(5));
  EXPECT_EQ(now->lexical().segments().size(), 1u);
  EXPECT_EQ(MatchingTexts(*now, "common"), (std::vector<std::string>{"common a2", "common c", "common d"}));
  EXPECT_EQ(MatchingTexts(*now, "original"), (std::vector<std::string>{}));
  EXPECT_EQ(now->FindDocument({"", "b"}).status().code(), StatusCode::kNotFound);

  // The pinned snapshot still sees version 2 exactly: same hits, same texts, same documents.
  EXPECT_EQ(pinned->version(), SnapshotVersion(2));
  EXPECT_EQ(Search(*pinned, "apple"), apple_ids);
  EXPECT_EQ(MatchingTexts(*pinned, "common"), common_before);
  EXPECT_EQ(MatchingTexts(*pinned, "original"), (std::vector<std::string>{"apple original", "banana original"}));
  EXPECT_TRUE(Search(*pinned, "cherry").empty());
  auto b_again = pinned->FindDocument({"", "b"});
  ASSERT_TRUE(b_again.ok()) << b_again.status().ToString();
  EXPECT_EQ(b_again->num, b_doc->num);
  auto stats_after = pinned->Stats();
  ASSERT_TRUE(stats_after.ok());
  EXPECT_EQ(stats_after->documents, stats_before->documents);
  EXPECT_EQ(stats_after->chunks, stats_before->chunks);
}

TEST(StoreMvcc, MergedAwayFilesAreUnlinkedOnlyAfterLastPinIsReleased) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.max_segments = 2;
  auto store = OpenOrDie(o);
  for (int i = 0; i < 2; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"term" + std::to_string(i) + " shared"}));
    CommitOrDie(*store, std::move(b));
  }
  auto before = SegmentFiles(tmp.path());
  ASSERT_EQ(before.size(), 2u);
  auto pin1 = store->Pin();
  auto pin2 = store->Pin();

  WriteBatch b;
  b.upserts.push_back(MakeDoc("d2", {"term2 shared"}));
  CommitOrDie(*store, std::move(b));  // 3 segments > 2: the two smallest merge
  auto now = store->Pin();
  EXPECT_EQ(now->lexical().segments().size(), 2u);
  EXPECT_EQ(MatchingTexts(*now, "shared"),
            (std::vector<std::string>{"term0 shared", "term1 shared", "term2 shared"}));

  // Pinned: both old files must still exist (4 files on disk: 2 old + new commit + merged).
  for (const auto& p : before) EXPECT_TRUE(std::filesystem::exists(p)) << p;
  EXPECT_EQ(SegmentFiles(tmp.path()).size(), 4u);
  pin1.reset();
  for (const auto& p : before) EXPECT_TRUE(std::filesystem::exists(p)) << p << " removed while still pinned";
  EXPECT_EQ(MatchingTexts(*pin2, "shared"), (std::vector<std::string>{"term0 shared", "term1 shared"}));
  pin2.reset();
  std::set<std::filesystem::path> after_release;
  for (const auto& p : SegmentFiles(tmp.path())) after_release.insert(p);
  EXPECT_EQ(after_release.size(), 2u);
  for (const auto& p : before) EXPECT_FALSE(after_release.count(p)) << p << " not removed after the last pin";
}

TEST(StoreMvcc, MergingIsOffWithoutReindex) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path(), /*with_reindex=*/false);
  o.max_segments = 1;
  auto store = OpenOrDie(o);
  for (int i = 0; i < 3; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i), {"x"}));
    CommitOrDie(*store, std::move(b));
  }
  EXPECT_EQ(store->Pin()->lexical().segments().size(), 3u);
  Status s = store->Compact();
  EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.ToString();
  EXPECT_EQ(store->Pin()->lexical().segments().size(), 3u);
  EXPECT_EQ(Search(*store->Pin(), "x").size(), 3u);
}

TEST(StoreMvcc, MergePreservesSearchResultsAgainstOracle) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.max_segments = 3;
  auto store = OpenOrDie(o);
  // Oracle: live document id -> its chunk texts.
  std::map<std::string, std::vector<std::string>> live;
  uint32_t seed = 12345;
  auto rnd = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 8); };
  for (int round = 0; round < 30; ++round) {
    WriteBatch b;
    for (int k = 0; k < 3; ++k) {
      std::string id = "doc" + std::to_string(rnd() % 12);
      if (rnd() % 4 == 0) {
        b.deletes.push_back({"", id});
        live.erase(id);
        continue;
      }
      std::vector<std::string> texts;
      int n = 1 + rnd() % 3;
      for (int c = 0; c < n; ++c) {
        texts.push_back("w" + std::to_string(rnd() % 7) + " w" + std::to_string(rnd() % 7) + " r" +
                        std::to_string(round));
      }
      // Later upserts of the same key in a batch win; an earlier delete in the batch applies first.
      b.upserts.push_back(MakeDoc(id, texts));
    }
    // Apply the batch to the oracle the way the store does: deletes first, then last upsert wins.
    for (const auto& d : b.upserts) {
      std::vector<std::string> t;
      for (const auto& c : d.chunks) t.push_back(c.text);
      live[d.record.id] = t;
    }
    for (const auto& key : b.deletes) {
      bool readded = false;
      for (const auto& d : b.upserts) readded |= d.record.id == key.id;
      if (!readded) live.erase(key.id);
    }
    CommitOrDie(*store, std::move(b));
    auto snap = store->Pin();
    EXPECT_LE(snap->lexical().segments().size(), 3u);
    for (int w = 0; w < 7; ++w) {
      std::string term = "w" + std::to_string(w);
      std::vector<std::string> expected;
      for (const auto& [id, texts] : live) {
        for (const auto& t : texts) {
          if (t.find(term + " ") == 0 || t.find(" " + term + " ") != std::string::npos) expected.push_back(t);
        }
      }
      std::sort(expected.begin(), expected.end());
      ASSERT_EQ(MatchingTexts(*snap, term), expected) << "round " << round << " term " << term;
    }
  }
  ASSERT_TRUE(store->Compact().ok());
  EXPECT_EQ(store->Pin()->lexical().segments().size(), live.empty() ? 0u : 1u);
  auto st = store->Pin()->Stats();
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->documents, live.size());
}

TEST(StoreMvcc, PurgeKeepsRowsForPinnedSnapshotsAndDropsDeletedTextOtherwise) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b1;
  b1.upserts.push_back(MakeDoc("a", {"classified zebra"}));
  b1.upserts.push_back(MakeDoc("b", {"public info"}));
  CommitOrDie(*store, std::move(b1));
  auto pinned = store->Pin();
  WriteBatch b2;
  b2.deletes.push_back({"", "a"});
  CommitOrDie(*store, std::move(b2));

  ASSERT_TRUE(store->Compact().ok());
  EXPECT_EQ(MatchingTexts(*pinned, "zebra"), (std::vector<std::string>{"classified zebra"}));
  EXPECT_TRUE(MatchingTexts(*store->Pin(), "zebra").empty());

  pinned.reset();
  ASSERT_TRUE(store->Compact().ok());
  EXPECT_EQ(CountRows(tmp.path(), "SELECT count(*) FROM chunks WHERE text LIKE '%zebra%'"), 0);
  EXPECT_EQ(CountRows(tmp.path(), "SELECT count(*) FROM chunks WHERE text LIKE '%public%'"), 1);
}

TEST(StoreMvcc, WriterOpenPurgesDeletedTextOutsideLiveSegments) {
  TempDir tmp;
  {
    auto store = OpenOrDie(Options(tmp.path(), /*with_reindex=*/false));
    WriteBatch b1;
    b1.upserts.push_back(MakeDoc("a", {"classified zebra"}));
    CommitOrDie(*store, std::move(b1));
    WriteBatch b2;
    b2.upserts.push_back(MakeDoc("a", {"declassified"}));
    CommitOrDie(*store, std::move(b2));
    EXPECT_EQ(CountRows(tmp.path(), "SELECT count(*) FROM chunks WHERE text LIKE '%zebra%'"), 1);
  }
  auto store = OpenOrDie(Options(tmp.path(), /*with_reindex=*/false));
  EXPECT_EQ(CountRows(tmp.path(), "SELECT count(*) FROM chunks WHERE text LIKE '%zebra%'"), 0);
  // The tombstone row itself stays (its segment is live) and still hides the old chunk.
  EXPECT_EQ(CountRows(tmp.path(), "SELECT count(*) FROM chunks WHERE deleted_snapshot IS NOT NULL"), 1);
  EXPECT_TRUE(Search(*store->Pin(), "zebra").empty());
  EXPECT_EQ(MatchingTexts(*store->Pin(), "declassified"), (std::vector<std::string>{"declassified"}));
}

TEST(StoreMvcc, ConcurrentReadersSeeConsistentSnapshotsDuringCommits) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.max_segments = 3;
  auto store = OpenOrDie(o);
  constexpr int kCommits = 40;
  std::atomic<bool> done{false};
  std::atomic<int> checks{0};
  std::atomic<int> failures{0};
  // Commit i (version i) replaces "x" by "xdoc rev<i>" and adds "e<i>" with text "extra e<i>".
  auto reader = [&] {
    while (!done.load()) {
      auto snap = store->Pin();
      uint64_t v = snap->version().get();
      auto x = MatchingTexts(*snap, "xdoc");
      auto extra = Search(*snap, "extra");
      bool ok = extra.size() == v && (v == 0 ? x.empty() : x == std::vector<std::string>{"xdoc rev" + std::to_string(v)});
      if (!ok) failures++;
      checks++;
    }
  };
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) readers.emplace_back(reader);
  for (int i = 1; i <= kCommits; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("x", {"xdoc rev" + std::to_string(i)}));
    b.upserts.push_back(MakeDoc("e" + std::to_string(i), {"extra e" + std::to_string(i)}));
    auto r = store->Commit(std::move(b));
    if (!r.ok() || r->version != SnapshotVersion(i)) {
      ADD_FAILURE() << "commit " << i << ": " << r.status().ToString();
      break;
    }
  }
  // Let the readers look at the final state too.
  for (int spins = 0; checks.load() < 50 && spins < 1000000; ++spins) std::this_thread::yield();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0) << "of " << checks.load() << " checks";
  EXPECT_LE(store->Pin()->lexical().segments().size(), 3u);
}

}  // namespace
}  // namespace attest
