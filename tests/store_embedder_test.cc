// The active embedder is part of a snapshot: activating one commits a new version, pinned
// snapshots keep the embedder they were taken with, and the record survives reopening (also of a
// catalog created by schema version 1, which the writer migrates).
#include <gtest/gtest.h>

#include <sqlite3.h>

#include "store/store.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

using store_test::MakeDoc;
using store_test::OpenOrDie;
using store_test::Options;
using store_test::TempDir;

EmbedderRecord Record(const std::string& key, uint32_t dim, const std::string& tenant = "") {
  EmbedderRecord r;
  r.tenant = tenant;
  r.key = key;
  r.name = "lsa-corpus";
  r.dim = dim;
  r.version = "v-" + key;
  r.model_file = key + ".model";
  r.config_json = R"({"kind":"corpus-lsa"})";
  r.trained_chunks = 12;
  return r;
}

TEST(StoreEmbedderTest, ActivationIsASnapshotOfItsOwn) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(store);
  WriteBatch b;
  b.upserts.push_back(MakeDoc("a", {"alpha beta"}));
  ASSERT_TRUE(store->Commit(std::move(b)).ok());
  auto before = store->Pin();
  EXPECT_EQ(before->embedder(""), nullptr);

  auto v = store->ActivateEmbedder(Record("k1", 64));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->get(), before->version().get() + 1);
  auto after = store->Pin();
  ASSERT_NE(after->embedder(""), nullptr);
  EXPECT_EQ(after->embedder("")->key, "k1");
  EXPECT_EQ(after->embedder("")->activated, *v);
  EXPECT_EQ(before->embedder(""), nullptr) << "a pinned snapshot keeps its embedder";
  // Documents are untouched by the switch.
  EXPECT_EQ(store_test::Search(*after, "alpha").size(), 1u);

  // Later commits carry the embedder forward; a second activation replaces it.
  WriteBatch c;
  c.upserts.push_back(MakeDoc("b", {"gamma"}));
  ASSERT_TRUE(store->Commit(std::move(c)).ok());
  EXPECT_EQ(store->Pin()->embedder("")->key, "k1");
  ASSERT_TRUE(store->ActivateEmbedder(Record("k2", 32)).ok());
  EXPECT_EQ(store->Pin()->embedder("")->key, "k2");
  EXPECT_EQ(store->Pin()->embedder("")->dim, 32u);

  store.reset();
  auto reopened = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(reopened);
  ASSERT_NE(reopened->Pin()->embedder(""), nullptr);
  EXPECT_EQ(reopened->Pin()->embedder("")->key, "k2");
  EXPECT_EQ(reopened->Pin()->embedder("")->config_json, R"({"kind":"corpus-lsa"})");
  EXPECT_EQ(reopened->Pin()->embedder("")->trained_chunks, 12u);

  StoreOptions ro = Options(tmp.path(), false);
  ro.read_only = true;
  auto reader = OpenOrDie(ro);
  ASSERT_TRUE(reader);
  EXPECT_EQ(reader->Pin()->embedder("")->key, "k2");
  EXPECT_FALSE(reader->ActivateEmbedder(Record("k3", 8)).ok());
}

TEST(StoreEmbedderTest, RejectsIncompleteRecords) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(store);
  EmbedderRecord r = Record("k", 0);
  auto v = store->ActivateEmbedder(r);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Pin()->embedder(""), nullptr);
}

TEST(StoreEmbedderTest, MigratesASchemaVersion1Catalog) {
  TempDir tmp;
  {
    auto store = OpenOrDie(Options(tmp.path()));
    ASSERT_TRUE(store);
    WriteBatch b;
    b.upserts.push_back(MakeDoc("a", {"alpha"}));
    ASSERT_TRUE(store->Commit(std::move(b)).ok());
  }
  // Turn the catalog back into what schema version 1 wrote.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((tmp.path() / "catalog.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TABLE embedders; ALTER TABLE documents DROP COLUMN feed; "
                         "ALTER TABLE documents DROP COLUMN access_label; "
                         "ALTER TABLE documents DROP COLUMN checksum; ALTER TABLE chunks DROP COLUMN checksum; "
                         "DROP TABLE log_positions; ALTER TABLE chunks DROP COLUMN spans; "
                         "ALTER TABLE documents DROP COLUMN license; ALTER TABLE documents DROP COLUMN fetched_at; "
                         "UPDATE meta SET value = 1 WHERE key = 'schema_version'; PRAGMA user_version = 1;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  StoreOptions ro = Options(tmp.path(), false);
  ro.read_only = true;
  {
    auto reader = OpenOrDie(ro);  // a reader accepts version 1 and sees no embedder
    ASSERT_TRUE(reader);
    EXPECT_EQ(reader->Pin()->embedder(""), nullptr);
    auto doc = reader->Pin()->FindDocument({"", "a"});  // no `feed` column yet: read as ""
    ASSERT_TRUE(doc.ok()) << doc.status().ToString();
    EXPECT_EQ(doc->feed, "");
  }
  auto store = OpenOrDie(Options(tmp.path()));  // the writer migrates 1 -> 2 -> 3 -> 4 -> 5
  ASSERT_TRUE(store);
  EXPECT_EQ(store_test::Search(*store->Pin(), "alpha").size(), 1u);
  WriteBatch feed;
  feed.upserts.push_back(MakeDoc("releases", {"Current releases: 18, 17"}));
  feed.upserts.back().record.feed = "versions";
  ASSERT_TRUE(store->Commit(std::move(feed)).ok());
  auto got = store->Pin()->FindDocument({"", "releases"});
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->feed, "versions");
  ASSERT_TRUE(store->ActivateEmbedder(Record("k1", 16)).ok());
  EXPECT_EQ(store->Pin()->embedder("")->key, "k1");
}

// Each tenant has an embedder of its own: activating one tenant's leaves the others' as they were.
TEST(StoreEmbedderTest, EmbeddersArePerTenant) {
  TempDir tmp;
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->ActivateEmbedder(Record("ka", 16, "acme")).ok());
  auto one = store->Pin();
  ASSERT_TRUE(store->ActivateEmbedder(Record("kb", 32, "globex")).ok());
  ASSERT_TRUE(store->ActivateEmbedder(Record("ka2", 16, "acme")).ok());
  auto now = store->Pin();
  ASSERT_NE(now->embedder("acme"), nullptr);
  ASSERT_NE(now->embedder("globex"), nullptr);
  EXPECT_EQ(now->embedder("acme")->key, "ka2");
  EXPECT_EQ(now->embedder("globex")->key, "kb");
  EXPECT_EQ(now->embedder(""), nullptr);
  EXPECT_EQ(one->embedder("acme")->key, "ka");
  EXPECT_EQ(one->embedder("globex"), nullptr);
  store.reset();
  auto reopened = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->Pin()->embedders().size(), 2u);
  EXPECT_EQ(reopened->Pin()->embedder("acme")->key, "ka2");
  EXPECT_EQ(reopened->Pin()->embedder("globex")->key, "kb");
}

// A model activated before embedders were per tenant was trained on every tenant's text: after the
// upgrade it is history, never active (each tenant gets a model of its own text).
TEST(StoreEmbedderTest, AnEmbedderOfSchema3IsNotActiveAfterTheUpgrade) {
  TempDir tmp;
  {
    auto store = OpenOrDie(Options(tmp.path()));
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->ActivateEmbedder(Record("shared", 16, "")).ok());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((tmp.path() / "catalog.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP INDEX embedders_by_tenant; ALTER TABLE embedders DROP COLUMN tenant; "
                         "ALTER TABLE documents DROP COLUMN access_label; "
                         "ALTER TABLE documents DROP COLUMN checksum; ALTER TABLE chunks DROP COLUMN checksum; "
                         "DROP TABLE log_positions; ALTER TABLE chunks DROP COLUMN spans; "
                         "ALTER TABLE documents DROP COLUMN license; ALTER TABLE documents DROP COLUMN fetched_at; "
                         "UPDATE meta SET value = 3 WHERE key = 'schema_version'; PRAGMA user_version = 3;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = OpenOrDie(Options(tmp.path()));
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->Pin()->embedders().empty());
}

}  // namespace
}  // namespace attest
