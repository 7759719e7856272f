// Create/open/reopen, add, no-op re-ingest, replace, delete, versions, validation, stats.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "common/file_util.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

using store_test::MakeDoc;
using store_test::OpenOrDie;
using store_test::Options;
using store_test::Search;
using store_test::TempDir;
using store_test::Texts;

TEST(StoreBasic, CreateOpenReopenKeepsData) {
  TempDir tmp;
  {
    auto store = OpenOrDie(Options(tmp.path()));
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->Pin()->version(), SnapshotVersion(0));
    WriteBatch b;
    b.upserts.push_back(MakeDoc("a", {"alpha beta", "gamma delta"}));
    auto r = store->Commit(std::move(b));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->version, SnapshotVersion(1));
    EXPECT_EQ(r->added, 1u);
    EXPECT_EQ(r->chunks_added, 2u);
  }
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "ATTEST"));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "catalog.db"));
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_NE(store, nullptr);
  auto snap = store->Pin();
  EXPECT_EQ(snap->version(), SnapshotVersion(1));
  auto hits = Search(*snap, "gamma");
  ASSERT_EQ(hits.size(), 1u);
  auto chunks = snap->GetChunks(hits);
  ASSERT_TRUE(chunks.ok());
  ASSERT_EQ(chunks->size(), 1u);
  EXPECT_EQ((*chunks)[0].text, "gamma delta");
  EXPECT_EQ((*chunks)[0].ordinal, 1u);
  EXPECT_EQ((*chunks)[0].section_path, "Intro");
  auto doc = snap->GetDocument((*chunks)[0].doc);
  ASSERT_TRUE(doc.ok()) << doc.status().ToString();
  EXPECT_EQ(doc->id, "a");
  EXPECT_EQ(doc->chunk_count, 2u);
  EXPECT_EQ(doc->created, SnapshotVersion(1));
  auto found = snap->FindDocument({"", "a"});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->num, doc->num);
  EXPECT_EQ(found->url, "https://example.test/a");
}

// GetDocuments reads several records in one pass: the same records as GetDocument, in the order
// asked (repeats included), and kNotFound naming a document the snapshot cannot see.
TEST(StoreBasic, GetDocumentsEqualsGetDocumentInTheOrderAsked) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b;
  for (const char* id : {"a", "b", "c"}) b.upserts.push_back(MakeDoc(id, {std::string("text of ") + id}));
  ASSERT_TRUE(store->Commit(std::move(b)).ok());
  auto snap = store->Pin();
  std::vector<DocNum> nums;
  for (const char* id : {"c", "a", "b", "a"}) {
    auto d = snap->FindDocument({"", id});
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    nums.push_back(d->num);
  }
  auto got = snap->GetDocuments(nums);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), nums.size());
  for (size_t i = 0; i < nums.size(); ++i) {
    auto one = snap->GetDocument(nums[i]);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ((*got)[i].num, nums[i]);
    EXPECT_EQ((*got)[i].id, one->id);
    EXPECT_EQ((*got)[i].title, one->title);
    EXPECT_EQ((*got)[i].url, one->url);
  }
  EXPECT_EQ((*got)[0].id, "c");
  EXPECT_TRUE(snap->GetDocuments({})->empty());
  const DocNum missing[] = {nums[1], DocNum(nums[0].get() + 1000)};
  auto bad = snap->GetDocuments(missing);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kNotFound);
  EXPECT_NE(bad.status().message().find("#" + std::to_string(nums[0].get() + 1000)), std::string::npos)
      << bad.status().ToString();
}

TEST(StoreBasic, CreateIfMissingFalseReportsNotFound) {
  TempDir tmp;
  StoreOptions o = Options(tmp.path());
  o.create_if_missing = false;
  auto s = Store::Open(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kNotFound);
}

TEST(StoreBasic, RefusesForeignNonEmptyDirectory) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path());
  std::ofstream(tmp.path() / "thesis.tex") << "precious";
  auto s = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("not an attest data directory"), std::string::npos) << s.status().message();
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "thesis.tex"));
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "catalog.db"));
}

TEST(StoreBasic, RefusesCorruptOrNewerMarker) {
  TempDir tmp;
  { ASSERT_NE(OpenOrDie(Options(tmp.path())), nullptr); }
  auto marker = ReadFileToString(tmp.path() / "ATTEST");
  ASSERT_TRUE(marker.ok());
  ASSERT_EQ(marker->size(), 20u);

  std::string flipped = *marker;
  flipped[9] ^= 0x40;  // version byte, without fixing the CRC
  ASSERT_TRUE(WriteFileAtomically(tmp.path() / "ATTEST", flipped).ok());
  auto s = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kCorruption) << s.status().ToString();

  // A well-formed marker of a newer format version.
  std::string newer = *marker;
  newer[8] = 2;
  uint32_t crc = Crc32c(newer.data(), 16);
  for (int i = 0; i < 4; ++i) newer[16 + i] = static_cast<char>((crc >> (8 * i)) & 0xff);
  ASSERT_TRUE(WriteFileAtomically(tmp.path() / "ATTEST", newer).ok());
  s = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnsupported) << s.status().ToString();
  StoreOptions ro = Options(tmp.path());
  ro.read_only = true;
  s = Store::Open(ro);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnsupported);

  ASSERT_TRUE(WriteFileAtomically(tmp.path() / "ATTEST", *marker).ok());
  EXPECT_TRUE(Store::Open(Options(tmp.path())).ok());
}

TEST(StoreBasic, SecondWriterIsBusy) {
  TempDir tmp;
  auto first = OpenOrDie(Options(tmp.path()));
  ASSERT_NE(first, nullptr);
  auto second = Store::Open(Options(tmp.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy) << second.status().ToString();
}

TEST(StoreBasic, SameShaIsANoOpWithoutNewVersion) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b1;
  b1.upserts.push_back(MakeDoc("a", {"alpha"}));
  ASSERT_TRUE(store->Commit(std::move(b1)).ok());
  auto before = store->Pin();
  WriteBatch b2;
  b2.upserts.push_back(MakeDoc("a", {"alpha"}));
  auto r = store->Commit(std::move(b2));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->unchanged, 1u);
  EXPECT_EQ(r->added + r->replaced, 0u);
  EXPECT_EQ(r->chunks_added, 0u);
  EXPECT_EQ(r->version, SnapshotVersion(1));
  EXPECT_EQ(store->Pin()->version(), SnapshotVersion(1));
  EXPECT_EQ(store_test::SegmentFiles(tmp.path()).size(), 1u);
}

TEST(StoreBasic, ReplaceHidesOldTextFromNextSnapshot) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b1;
  b1.upserts.push_back(MakeDoc("a", {"old words here", "shared"}));
  ASSERT_TRUE(store->Commit(std::move(b1)).ok());
  auto v1 = store->Pin();
  auto old_ids = Search(*v1, "old");
  ASSERT_EQ(old_ids.size(), 1u);

  WriteBatch b2;
  b2.upserts.push_back(MakeDoc("a", {"new words here", "shared"}));
  auto r = store->Commit(std::move(b2));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->replaced, 1u);
  EXPECT_EQ(r->version, SnapshotVersion(2));

  auto v2 = store->Pin();
  EXPECT_TRUE(Search(*v2, "old").empty());
  auto new_ids = Search(*v2, "new");
  ASSERT_EQ(new_ids.size(), 1u);
  EXPECT_GT(new_ids[0], old_ids[0]);  // fresh, larger ids
  EXPECT_EQ(Search(*v2, "shared").size(), 1u);
  auto gone = v2->GetChunks(old_ids);
  ASSERT_TRUE(gone.ok());
  EXPECT_TRUE(gone->empty());
  auto doc = v2->FindDocument({"", "a"});
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->created, SnapshotVersion(2));
  auto stats = v2->Stats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->documents, 1u);
  EXPECT_EQ(stats->chunks, 2u);
  EXPECT_EQ(stats->segments, 2u);

  // Still true after a reopen (tombstones are reloaded from the catalog).
  v1.reset();
  v2.reset();
  store.reset();
  store = OpenOrDie(Options(tmp.path()));
  auto v = store->Pin();
  EXPECT_TRUE(Search(*v, "old").empty());
  EXPECT_EQ(Search(*v, "new").size(), 1u);
  auto still_gone = v->GetChunks(old_ids);
  ASSERT_TRUE(still_gone.ok());
  EXPECT_TRUE(still_gone->empty());
}

TEST(StoreBasic, DeleteByKeyAndNotFound) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b1;
  b1.upserts.push_back(MakeDoc("a", {"apple"}));
  b1.upserts.push_back(MakeDoc("b", {"banana"}));
  b1.upserts.push_back(MakeDoc("a", {"apple"}, "tenant2"));
  ASSERT_TRUE(store->Commit(std::move(b1)).ok());

  WriteBatch b2;
  b2.deletes.push_back({"", "a"});
  b2.deletes.push_back({"", "zzz"});
  auto r = store->Commit(std::move(b2));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->deleted, 1u);
  EXPECT_EQ(r->not_found, 1u);
  EXPECT_EQ(r->version, SnapshotVersion(2));
  auto snap = store->Pin();
  EXPECT_EQ(snap->FindDocument({"", "a"}).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(snap->FindDocument({"tenant2", "a"}).ok());
  EXPECT_TRUE(snap->FindDocument({"", "b"}).ok());
  EXPECT_EQ(Search(*snap, "apple").size(), 1u);  // the tenant2 copy
  EXPECT_EQ(Search(*snap, "banana").size(), 1u);

  // Deleting only unknown keys changes nothing and makes no version.
  WriteBatch b3;
  b3.deletes.push_back({"", "a"});
  auto r3 = store->Commit(std::move(b3));
  ASSERT_TRUE(r3.ok());
  EXPECT_EQ(r3->not_found, 1u);
  EXPECT_EQ(r3->version, SnapshotVersion(2));
}

TEST(StoreBasic, VersionsIncreaseMonotonicallyAndChunkIdsNeverRepeat) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  uint64_t last_version = 0;
  std::vector<ChunkId> all;
  for (int i = 0; i < 12; ++i) {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("d" + std::to_string(i % 4), {"word" + std::to_string(i), "common"}));
    if (i % 5 == 4) b.deletes.push_back({"", "d" + std::to_string((i + 1) % 4)});
    auto r = store->Commit(std::move(b));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_GT(r->version.get(), last_version);
    last_version = r->version.get();
    EXPECT_EQ(store->Pin()->version(), r->version);
    auto hits = Search(*store->Pin(), "word" + std::to_string(i));
    ASSERT_EQ(hits.size(), 1u);
    for (ChunkId prev : all) EXPECT_GT(hits[0], prev);
    all.push_back(hits[0]);
  }
  store.reset();
  store = OpenOrDie(Options(tmp.path()));
  WriteBatch b;
  b.upserts.push_back(MakeDoc("after", {"afterreopen"}));
  auto r = store->Commit(std::move(b));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->version.get(), last_version + 1);
  auto hits = Search(*store->Pin(), "afterreopen");
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_GT(hits[0], all.back());
}

TEST(StoreBasic, BatchSemanticsDeleteThenAddAndLastUpsertWins) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b1;
  b1.upserts.push_back(MakeDoc("a", {"first"}));
  b1.upserts.push_back(MakeDoc("a", {"second"}));
  auto r1 = store->Commit(std::move(b1));
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_EQ(r1->added, 1u);
  EXPECT_EQ(r1->chunks_added, 1u);
  auto s1 = store->Pin();
  EXPECT_TRUE(Search(*s1, "first").empty());
  EXPECT_EQ(Search(*s1, "second").size(), 1u);

  WriteBatch b2;
  b2.deletes.push_back({"", "a"});
  b2.upserts.push_back(MakeDoc("a", {"second"}));  // same content, but deleted first: added again
  auto r2 = store->Commit(std::move(b2));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->deleted, 1u);
  EXPECT_EQ(r2->added, 1u);
  EXPECT_EQ(Search(*store->Pin(), "second").size(), 1u);
}

TEST(StoreBasic, RejectsMalformedBatchesWithoutApplyingAnything) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  {
    WriteBatch b;
    b.upserts.push_back(MakeDoc("ok", {"fine"}));
    b.upserts.push_back(MakeDoc("", {"no id"}));
    auto r = store->Commit(std::move(b));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("upsert #1"), std::string::npos) << r.status().message();
  }
  {
    WriteBatch b;
    auto d = MakeDoc("x", {"one", "two"});
    d.indexed.pop_back();
    b.upserts.push_back(std::move(d));
    auto r = store->Commit(std::move(b));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("'x'"), std::string::npos) << r.status().message();
  }
  {
    WriteBatch b;
    auto d = MakeDoc("y", {"one"});
    d.record.sha256.clear();
    b.upserts.push_back(std::move(d));
    EXPECT_EQ(store->Commit(std::move(b)).status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(store->Pin()->version(), SnapshotVersion(0));
  EXPECT_TRUE(Search(*store->Pin(), "fine").empty());
}

TEST(StoreBasic, AttributesComeFromTheDocumentRecord) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b;
  auto d = MakeDoc("a", {"secret plan"}, "acme");
  d.record.acl_groups = {"staff", "admins"};
  d.record.published = 19000;
  d.record.version = "15";
  d.indexed[0].attrs.tenant = "someone-else";  // must be overridden by the record
  b.upserts.push_back(std::move(d));
  ASSERT_TRUE(store->Commit(std::move(b)).ok());
  auto snap = store->Pin();
  const auto& views = snap->lexical().segments();
  ASSERT_EQ(views.size(), 1u);
  ChunkAttributes a = views[0].segment->attributes(0);
  EXPECT_EQ(a.tenant, "acme");
  std::vector<std::string> groups = a.acl_groups;
  std::sort(groups.begin(), groups.end());  // the segment may normalize the order
  EXPECT_EQ(groups, (std::vector<std::string>{"admins", "staff"}));
  EXPECT_EQ(a.date, 19000);
  EXPECT_EQ(a.version, "15");
  auto doc = snap->FindDocument({"acme", "a"});
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->acl_groups, (std::vector<std::string>{"staff", "admins"}));
  ASSERT_TRUE(doc->published.has_value());
  EXPECT_EQ(*doc->published, 19000);
  EXPECT_FALSE(doc->updated.has_value());
}

TEST(StoreBasic, ReadOnlyStoreRefusesWrites) {
  TempDir tmp;
  {
    auto w = OpenOrDie(Options(tmp.path()));
    WriteBatch b;
    b.upserts.push_back(MakeDoc("a", {"alpha"}));
    ASSERT_TRUE(w->Commit(std::move(b)).ok());
  }
  StoreOptions o = Options(tmp.path());
  o.read_only = true;
  auto ro = OpenOrDie(o);
  ASSERT_NE(ro, nullptr);
  EXPECT_EQ(ro->Pin()->version(), SnapshotVersion(1));
  EXPECT_EQ(Search(*ro->Pin(), "alpha").size(), 1u);
  WriteBatch b;
  b.upserts.push_back(MakeDoc("b", {"beta"}));
  EXPECT_EQ(ro->Commit(std::move(b)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ro->Compact().code(), StatusCode::kInvalidArgument);
}

TEST(StoreBasic, StatsCountLiveRowsAndBytes) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  WriteBatch b;
  b.upserts.push_back(MakeDoc("a", {"one two", "three"}));
  b.upserts.push_back(MakeDoc("b", {"four"}));
  ASSERT_TRUE(store->Commit(std::move(b)).ok());
  auto st = store->Pin()->Stats();
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->version, SnapshotVersion(1));
  EXPECT_EQ(st->documents, 2u);
  EXPECT_EQ(st->chunks, 3u);
  EXPECT_EQ(st->segments, 1u);
  EXPECT_EQ(st->source_bytes, std::string("one twothreefour").size());
  EXPECT_GT(st->segment_bytes, 0u);
  EXPECT_GT(st->catalog_bytes, 0u);
}

// The catalog reads its schema version once per connection, not once per query: the cached value
// must follow the connection's own migrations (PRAGMA user_version set through Exec), and a new
// connection reads what others committed.
TEST(SqliteDb, UserVersionIsCachedPerConnectionAndFollowsItsOwnMigrations) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path());
  const auto path = tmp.path() / "uv.db";
  auto a = SqliteDb::Open({.path = path, .create = true});
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE((*a)->Exec("CREATE TABLE t(x)").ok());
  EXPECT_EQ(*(*a)->UserVersion(), 0);
  ASSERT_TRUE((*a)->Exec("BEGIN; ALTER TABLE t ADD COLUMN y; PRAGMA user_version = 9; COMMIT;").ok());
  EXPECT_EQ(*(*a)->UserVersion(), 9);
  auto b = SqliteDb::Open({.path = path});
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(*(*b)->UserVersion(), 9);
  ASSERT_TRUE((*b)->Exec("INSERT INTO t VALUES (1, 2)").ok());
  EXPECT_EQ(*(*b)->UserVersion(), 9);
}

}  // namespace
}  // namespace attest
