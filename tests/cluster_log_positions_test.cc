// Change-log positions committed with the documents (docs/store_format.md, "Log positions";
// Engine::ApplyChanges): one transaction holds both, a pinned snapshot names its positions, they
// survive reopening, a failed commit applies neither, the last change of a document wins, and
// giving up virtual shards deletes exactly their documents and positions.
#include <gtest/gtest.h>

#include <deque>
#include <set>

#include "attest/engine.h"
#include "cluster/change_log.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::TempDir;

EngineOptions Options(const std::string& dir) {
  EngineOptions o;
  o.data_dir = dir;
  o.embedder.kind = EmbedderKind::kNone;
  o.threads = 1;
  return o;
}

DocumentSpec Doc(const std::string& id, const std::string& text, const std::string& tenant = "") {
  DocumentSpec d;
  d.id = id;
  d.tenant = tenant;
  d.title = "Title of " + id;
  d.text = text;
  return d;
}

// Builds a batch whose documents live in `docs` (LogChange points at them).
struct BatchBuilder {
  std::deque<DocumentSpec> docs;
  ChangeBatch batch;
  void Upsert(DocumentSpec d, uint32_t vshard, uint64_t seq) {
    docs.push_back(std::move(d));
    batch.changes.push_back(LogChange{LogChange::Kind::kUpsert, &docs.back(), vshard, seq});
    batch.log_positions[vshard] = std::max(batch.log_positions[vshard], seq);
  }
  void Delete(const std::string& tenant, const std::string& id, uint32_t vshard, uint64_t seq) {
    DocumentSpec d;
    d.tenant = tenant;
    d.id = id;
    docs.push_back(std::move(d));
    batch.changes.push_back(LogChange{LogChange::Kind::kDelete, &docs.back(), vshard, seq});
    batch.log_positions[vshard] = std::max(batch.log_positions[vshard], seq);
  }
};

std::set<std::string> LiveIds(const Engine& e, const std::string& tenant = "") {
  ListDocumentsOptions lo;
  lo.tenant = tenant;
  lo.limit = 1000;
  auto page = e.ListDocuments(lo);
  std::set<std::string> out;
  if (!page.ok()) return out;
  for (const auto& d : page->documents) out.insert(d.id);
  return out;
}

TEST(LogPositionsTest, CommittedWithTheDocumentsAndSurviveReopen) {
  TempDir dir;
  {
    auto engine = Engine::Open(Options(dir.str("data")));
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    EXPECT_TRUE((*engine)->LogPositions().empty());
    BatchBuilder b;
    b.Upsert(Doc("a", "alpha text about rivers"), 3, 10);
    b.Upsert(Doc("b", "beta text about mountains"), 5, 12);
    auto r = (*engine)->ApplyChanges(b.batch);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->added, 2u);
    EXPECT_EQ((*engine)->LogPositions(), (std::map<uint32_t, uint64_t>{{3, 10}, {5, 12}}));
    // Only positions move (messages skipped): a new snapshot still records them.
    ChangeBatch only;
    only.log_positions = {{3, 11}};
    auto r2 = (*engine)->ApplyChanges(only);
    ASSERT_TRUE(r2.ok()) << r2.status().ToString();
    EXPECT_GT(r2->snapshot_version, r->snapshot_version);
    // The same positions again change nothing.
    auto r3 = (*engine)->ApplyChanges(only);
    ASSERT_TRUE(r3.ok());
    EXPECT_EQ(r3->snapshot_version, r2->snapshot_version);
  }
  auto reopened = Engine::Open(Options(dir.str("data")));
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ((*reopened)->LogPositions(), (std::map<uint32_t, uint64_t>{{3, 11}, {5, 12}}));
  EXPECT_EQ(LiveIds(**reopened), (std::set<std::string>{"a", "b"}));
  // A read-only open (another process) reads them too.
  EngineOptions ro = Options(dir.str("data"));
  ro.read_only = true;
  auto reader = Engine::Open(ro);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->LogPositions(), (std::map<uint32_t, uint64_t>{{3, 11}, {5, 12}}));
}

TEST(LogPositionsTest, APinnedSnapshotKeepsItsPositions) {
  TempDir dir;
  StoreOptions so;
  so.dir = dir.str("store");
  auto store = Store::Open(so);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  WriteBatch first;
  first.log_positions = {{1, 5}};
  ASSERT_TRUE((*store)->Commit(std::move(first)).ok());
  auto pinned = (*store)->Pin();
  WriteBatch second;
  second.log_positions = {{1, 9}, {2, 4}};
  ASSERT_TRUE((*store)->Commit(std::move(second)).ok());
  EXPECT_EQ(pinned->log_positions(), (std::map<uint32_t, uint64_t>{{1, 5}}));
  EXPECT_EQ((*store)->Pin()->log_positions(), (std::map<uint32_t, uint64_t>{{1, 9}, {2, 4}}));
  WriteBatch forget;
  forget.log_positions = {{1, 0}};
  ASSERT_TRUE((*store)->Commit(std::move(forget)).ok());
  EXPECT_EQ((*store)->Pin()->log_positions(), (std::map<uint32_t, uint64_t>{{2, 4}}));
}

TEST(LogPositionsTest, AFailedCommitAppliesNeitherDocumentsNorPositions) {
  TempDir dir;
  bool fail = false;
  EngineOptions o = Options(dir.str("data"));
  o.fault_hook = [&fail](std::string_view point) {
    return fail && point == "commit.before_catalog_commit" ? Status::IOError("injected") : Status::Ok();
  };
  auto engine = Engine::Open(o);
  ASSERT_TRUE(engine.ok());
  BatchBuilder b;
  b.Upsert(Doc("a", "alpha text"), 0, 1);
  ASSERT_TRUE((*engine)->ApplyChanges(b.batch).ok());
  fail = true;
  BatchBuilder c;
  c.Upsert(Doc("b", "beta text"), 0, 2);
  EXPECT_FALSE((*engine)->ApplyChanges(c.batch).ok());
  fail = false;
  EXPECT_EQ((*engine)->LogPositions(), (std::map<uint32_t, uint64_t>{{0, 1}}));
  EXPECT_EQ(LiveIds(**engine), (std::set<std::string>{"a"}));
}

TEST(LogPositionsTest, TheLastChangeOfADocumentWinsAndBadOnesAreNamed) {
  TempDir dir;
  auto engine = Engine::Open(Options(dir.str("data")));
  ASSERT_TRUE(engine.ok());
  BatchBuilder b;
  b.Upsert(Doc("a", "first version"), 0, 1);
  b.Delete("", "a", 0, 2);                       // upsert then delete: deleted
  b.Delete("", "b", 0, 3);
  b.Upsert(Doc("b", "back again"), 0, 4);        // delete then upsert: live
  DocumentSpec bad_date = Doc("c", "some text");
  bad_date.published = "yesterday";
  b.Upsert(bad_date, 0, 5);                      // does not parse: rejected, named
  auto r = (*engine)->ApplyChanges(b.batch);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(LiveIds(**engine), (std::set<std::string>{"b"}));
  ASSERT_EQ(r->rejected.size(), 1u);
  EXPECT_NE(r->rejected[0].find("0/5 'c'"), std::string::npos) << r->rejected[0];
  EXPECT_EQ((*engine)->LogPositions().at(0), 5u);
  SearchFilter admin;
  auto doc = (*engine)->GetDocument(admin, "b");
  ASSERT_TRUE(doc.ok());
  EXPECT_NE(doc->text.find("back again"), std::string::npos);
  // A null document is a malformed batch.
  ChangeBatch bad;
  bad.changes.push_back(LogChange{});
  EXPECT_EQ((*engine)->ApplyChanges(bad).status().code(), StatusCode::kInvalidArgument);
}

TEST(LogPositionsTest, DroppingVirtualShardsDeletesExactlyTheirDocuments) {
  TempDir dir;
  auto engine = Engine::Open(Options(dir.str("data")));
  ASSERT_TRUE(engine.ok());
  const uint32_t kShards = 64;
  BatchBuilder b;
  std::map<uint32_t, std::set<std::string>> by_shard;
  for (int i = 0; i < 40; ++i) {
    const std::string id = "doc" + std::to_string(i);
    const std::string tenant = i % 2 ? "acme" : "";
    const uint32_t v = VirtualShardOf(tenant, id, kShards);
    b.Upsert(Doc(id, "text number " + std::to_string(i), tenant), v, 100 + i);
    by_shard[v].insert(tenant + "/" + id);
  }
  ASSERT_TRUE((*engine)->ApplyChanges(b.batch).ok());
  const uint32_t victim = by_shard.begin()->first;
  ChangeBatch drop;
  drop.drop_vshards = {victim};
  EXPECT_EQ((*engine)->ApplyChanges(drop).status().code(), StatusCode::kInvalidArgument);  // no count
  drop.vshard_count = kShards;
  auto r = (*engine)->ApplyChanges(drop);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dropped, by_shard[victim].size());
  EXPECT_FALSE((*engine)->LogPositions().contains(victim));
  std::set<std::string> expected;
  for (const auto& [v, keys] : by_shard) {
    if (v != victim) expected.insert(keys.begin(), keys.end());
  }
  std::set<std::string> live;
  for (const std::string& t : {std::string(), std::string("acme")}) {
    for (const std::string& id : LiveIds(**engine, t)) live.insert(t + "/" + id);
  }
  EXPECT_EQ(live, expected);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// A catalog of schema 7 (no log_positions table) is upgraded by a writer open; a reader of it
// before the upgrade sees no positions.
TEST(LogPositionsTest, ASchema7CatalogIsUpgraded) {
  TempDir dir;
  {
    auto engine = Engine::Open(Options(dir.str("data")));
    ASSERT_TRUE(engine.ok());
    ASSERT_TRUE((*engine)->PutDocuments({Doc("a", "alpha text")}).ok());
  }
  {
    auto db = SqliteDb::Open({.path = dir.path() / "data" / "catalog.db", .read_only = false, .create = false});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    ASSERT_TRUE((*db)->Exec("BEGIN; DROP TABLE log_positions; UPDATE meta SET value = 7 WHERE key = 'schema_version'; "
                            "PRAGMA user_version = 7; COMMIT;").ok());
  }
  EngineOptions ro = Options(dir.str("data"));
  ro.read_only = true;
  {
    auto reader = Engine::Open(ro);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_TRUE((*reader)->LogPositions().empty());
  }
  auto engine = Engine::Open(Options(dir.str("data")));
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  BatchBuilder b;
  b.Upsert(Doc("b", "beta text"), 7, 70);
  ASSERT_TRUE((*engine)->ApplyChanges(b.batch).ok());
  EXPECT_EQ((*engine)->LogPositions(), (std::map<uint32_t, uint64_t>{{7, 70}}));
  EXPECT_EQ(LiveIds(**engine), (std::set<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace attest
