// Catalog rows edited behind the store's back (docs/store_format.md, "Row checksums and the two
// copies of access"): every documents and chunks row carries a checksum checked on every read; the
// upgrade from schema 4 records them; and where a row decides who reads a document, its copy of the
// access attributes is compared with the segments' copy, the stricter one deciding.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <functional>

#include "attest/engine.h"
#include "index/document_api.h"
#include "store/access_attributes.h"
#include "store/catalog.h"
#include "store/row_checksum.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

using namespace store_test;

// Runs `sql` on the catalog of `dir` the way an operator's sqlite3 shell would.
void Sql(const std::filesystem::path& dir, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "catalog.db").c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

int64_t SqlInt(const std::filesystem::path& dir, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open((dir / "catalog.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  int64_t v = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    v = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

void ExpectCorruptionNaming(const Status& s, const std::string& what) {
  EXPECT_EQ(s.code(), StatusCode::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find(what), std::string::npos) << s.ToString();
}

class StoreRowChecksumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(Options(dir_.path()));
    ASSERT_TRUE(store_);
    WriteBatch batch;
    batch.upserts.push_back(MakeDoc("d1", {"alpha beta", "gamma delta"}, "acme"));
    batch.upserts.back().record.acl_groups = {"sales"};
    batch.upserts.push_back(MakeDoc("d2", {"epsilon"}, "acme"));
    ASSERT_TRUE(store_->Commit(std::move(batch)).ok());
    auto d1 = store_->Pin()->FindDocument({"acme", "d1"});
    ASSERT_TRUE(d1.ok()) << d1.status().ToString();
    d1_ = *d1;
  }
  std::vector<ChunkId> ChunkIds(DocNum num) {
    std::vector<ChunkId> ids;
    auto chunks = store_->Pin()->ChunksOfDocument(num);
    EXPECT_TRUE(chunks.ok());
    if (chunks.ok()) for (const auto& c : *chunks) ids.push_back(c.id);
    return ids;
  }
  std::string Where() const { return " WHERE num = " + std::to_string(d1_.num.get()); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  DocumentRecord d1_;
};

TEST_F(StoreRowChecksumTest, EditedChunkRowsFailTheirChecksumOnEveryRead) {
  const std::vector<ChunkId> ids = ChunkIds(d1_.num);
  ASSERT_EQ(ids.size(), 2u);
  const std::string first = "UPDATE chunks SET %s WHERE id = " + std::to_string(ids[0].get());
  auto edit = [&](const std::string& set) {
    std::string sql = first;
    sql.replace(sql.find("%s"), 2, set);
    return sql;
  };
  for (const auto& [change, undo] : std::vector<std::pair<std::string, std::string>>{
           {"text = 'alpha BETA'", "text = 'alpha beta'"},
           {"section_path = 'Outro'", "section_path = 'Intro'"},
           {"ordinal = 7", "ordinal = 0"},
           {"doc_num = doc_num + 1", "doc_num = doc_num - 1"},
           {"checksum = NULL", ""}}) {
    SCOPED_TRACE(change);
    const int64_t saved = SqlInt(dir_.path(), "SELECT checksum FROM chunks WHERE id = " + std::to_string(ids[0].get()));
    Sql(dir_.path(), edit(change));
    auto snap = store_->Pin();
    auto got = snap->GetChunks(std::span<const ChunkId>(&ids[0], 1));
    ASSERT_FALSE(got.ok());
    ExpectCorruptionNaming(got.status(), "row checksum");
    ExpectCorruptionNaming(got.status(), "of tenant 'acme'");
    if (change.rfind("doc_num", 0) != 0) {  // the chunk still names d1
      ExpectCorruptionNaming(got.status(), "document 'd1'");
      ExpectCorruptionNaming(snap->ChunksOfDocument(d1_.num).status(), "document 'd1'");
    }
    EXPECT_TRUE(snap->GetChunks(std::span<const ChunkId>(&ids[1], 1)).ok());  // its neighbour is intact
    Sql(dir_.path(), edit(undo.empty() ? "checksum = " + std::to_string(saved) : undo));
    auto restored = store_->Pin()->GetChunks(std::span<const ChunkId>(&ids[0], 1));
    EXPECT_TRUE(restored.ok()) << restored.status().ToString();  // the original content checks again
  }
}

TEST_F(StoreRowChecksumTest, EditedDocumentRowsFailTheirChecksumOnEveryRead) {
  for (const auto& [change, undo] : std::vector<std::pair<std::string, std::string>>{
           {"acl_json = '[]'", "acl_json = '[\"sales\"]'"},
           {"acl_json = '[\"eng\"]'", "acl_json = '[\"sales\"]'"},
           {"access_label = 'public'", "access_label = ''"},
           {"tenant = 'globex'", "tenant = 'acme'"},
           {"title = 'Title'", "title = 'title'"},
           {"sha256 = upper(sha256)", "sha256 = lower(sha256)"},
           {"chunk_count = 1", "chunk_count = 2"},
           {"acl_json = 'not json'", "acl_json = '[\"sales\"]'"}}) {
    SCOPED_TRACE(change);
    Sql(dir_.path(), "UPDATE documents SET " + change + Where());
    auto snap = store_->Pin();
    ExpectCorruptionNaming(snap->GetDocument(d1_.num).status(), "document 'd1'");
    if (change.rfind("tenant", 0) != 0) {
      ExpectCorruptionNaming(snap->FindDocument({"acme", "d1"}).status(), "row checksum");
    }
    EXPECT_TRUE(snap->FindDocument({"acme", "d2"}).ok());
    Sql(dir_.path(), "UPDATE documents SET " + undo + Where());
    EXPECT_TRUE(store_->Pin()->GetDocument(d1_.num).ok());
  }
  Sql(dir_.path(), "UPDATE documents SET checksum = NULL" + Where());
  ExpectCorruptionNaming(store_->Pin()->GetDocument(d1_.num).status(), "row checksum");
  // The batched read checks every row the same way.
  auto d2 = store_->Pin()->FindDocument({"acme", "d2"});
  ASSERT_TRUE(d2.ok());
  const DocNum both[] = {d2->num, d1_.num};
  ExpectCorruptionNaming(store_->Pin()->GetDocuments(both).status(), "row checksum");
}

// A merge rebuilds segments from the rows: an edited row (even one whose checksum was recomputed)
// must not be copied into the new segment. The merge is refused; the store keeps serving.
TEST_F(StoreRowChecksumTest, MergeRefusesARowWhoseAccessDisagreesWithItsSegment) {
  DocumentRecord widened = d1_;
  widened.acl_groups = {};
  Sql(dir_.path(), "UPDATE documents SET acl_json = '[]', checksum = " +
                       std::to_string(DocumentRowChecksum(widened, "[]")) + Where());
  ASSERT_TRUE(store_->Pin()->GetDocument(d1_.num).ok());  // the row checks: only the copies disagree
  const size_t segments = store_->Pin()->segments().size();
  {
    WriteBatch more;
    more.upserts.push_back(MakeDoc("d3", {"zeta"}, "acme"));
    ASSERT_TRUE(store_->Commit(std::move(more)).ok());
  }
  Status compacted = store_->Compact();
  ExpectCorruptionNaming(compacted, "ACL groups [] in the catalog row, [sales] in the segment");
  auto snap = store_->Pin();
  EXPECT_EQ(snap->segments().size(), segments + 1) << "a merge copied the edited row into a segment";
  auto ids = ChunkIds(d1_.num);
  ASSERT_FALSE(ids.empty());
  auto attrs = SegmentAttributesOf(snap->segments(), ids[0]);
  ASSERT_TRUE(attrs.has_value());
  EXPECT_EQ(attrs->acl_groups, std::vector<std::string>{"sales"});
  EXPECT_EQ(Search(*snap, "zeta").size(), 1u);
}

// The upgrade from schema 4 records the checksum of every existing row (trusting them as they are);
// from then on an edit is caught.
TEST(StoreRowChecksumUpgrade, UpgradeFromSchema4RecordsTheChecksumsOfExistingRows) {
  TempDir dir;
  {
    auto store = OpenOrDie(Options(dir.path()));
    ASSERT_TRUE(store);
    WriteBatch batch;
    batch.upserts.push_back(MakeDoc("d1", {"alpha beta", "gamma"}, "acme"));
    batch.upserts.push_back(MakeDoc("d2", {"delta"}));
    ASSERT_TRUE(store->Commit(std::move(batch)).ok());
    WriteBatch del;
    del.deletes.push_back({"", "d2"});
    ASSERT_TRUE(store->Commit(std::move(del)).ok());
  }
  Sql(dir.path(),
      "ALTER TABLE documents DROP COLUMN checksum; ALTER TABLE chunks DROP COLUMN checksum; "
      "DROP TABLE log_positions; ALTER TABLE chunks DROP COLUMN spans; "
      "ALTER TABLE documents DROP COLUMN license; ALTER TABLE documents DROP COLUMN fetched_at; "
      "UPDATE meta SET value = 4 WHERE key = 'schema_version'; PRAGMA user_version = 4;");
  {
    StoreOptions ro = Options(dir.path(), false);
    ro.read_only = true;
    auto reader = OpenOrDie(ro);  // a reader of a catalog no writer has upgraded reads it unchecked
    ASSERT_TRUE(reader);
    EXPECT_TRUE(reader->Pin()->FindDocument({"acme", "d1"}).ok());
  }
  auto store = OpenOrDie(Options(dir.path()));
  ASSERT_TRUE(store);
  EXPECT_EQ(SqlInt(dir.path(), "PRAGMA user_version"), kCatalogSchemaVersion);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT count(*) FROM documents WHERE checksum IS NULL"), 0);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT count(*) FROM chunks WHERE checksum IS NULL"), 0);
  auto d1 = store->Pin()->FindDocument({"acme", "d1"});
  ASSERT_TRUE(d1.ok()) << d1.status().ToString();
  auto chunks = store->Pin()->ChunksOfDocument(d1->num);
  ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
  EXPECT_EQ(Texts(*chunks), (std::vector<std::string>{"alpha beta", "gamma"}));
  Sql(dir.path(), "UPDATE chunks SET text = 'gamma!' WHERE text = 'gamma'");
  ExpectCorruptionNaming(store->Pin()->ChunksOfDocument(d1->num).status(), "document 'd1'");
}

// ---- through the engine: the documents API, search and render-time authorization ---------------

class EngineAccessCopiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.data_dir = dir_.path().string();
    o.embedder.kind = EmbedderKind::kNone;
    auto e = Engine::Open(o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    DocumentSpec secret;
    secret.id = "secret";
    secret.tenant = "acme";
    secret.title = "Salary bands";
    secret.text = "The salary bands are reviewed every June by the compensation committee.";
    secret.acl_groups = {"sales"};
    DocumentSpec open = secret;
    open.id = "open";
    open.title = "Holidays";
    open.text = "The office is closed on public holidays and the salary is paid the day before.";
    open.acl_groups = {};
    ASSERT_TRUE(engine_->PutDocuments({secret, open}).ok());
  }
  // Gives the row of `id` the ACL `groups` with a checksum that matches: an edit made by someone who
  // knows the row format. Only the segments' copy still tells the truth.
  void RewriteAcl(const std::string& id, const std::vector<std::string>& groups, const std::string& acl_json) {
    StoreOptions ro;
    ro.dir = dir_.path();
    ro.read_only = true;
    auto reader = Store::Open(ro);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto row = (*reader)->Pin()->FindDocument({"acme", id});
    ASSERT_TRUE(row.ok()) << row.status().ToString();
    DocumentRecord edited = *row;
    edited.acl_groups = groups;
    Sql(dir_.path(), "UPDATE documents SET acl_json = '" + acl_json + "', checksum = " +
                         std::to_string(DocumentRowChecksum(edited, acl_json)) +
                         " WHERE num = " + std::to_string(row->num.get()));
  }
  static SearchFilter Reader(std::vector<std::string> groups) {
    SearchFilter f;
    f.tenant = "acme";
    f.groups = std::move(groups);
    return f;
  }
  static SearchFilter Admin() {
    SearchFilter f;
    f.tenant = "acme";
    return f;
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineAccessCopiesTest, WhenTheRowAndTheSegmentDisagreeTheStricterCopyDecides) {
  ASSERT_EQ(engine_->GetDocument(Reader({"eng"}), "secret").status().code(), StatusCode::kNotFound);
  auto before = engine_->GetDocument(Reader({"sales"}), "secret");
  ASSERT_TRUE(before.ok());
  std::vector<CitedChunk> cited = {{"secret", before->chunk_ids[0]}};

  RewriteAcl("secret", {"eng"}, "[\"eng\"]");  // widened to eng, narrowed away from sales

  // eng: admitted by the row only -> not found, as for any hidden document.
  EXPECT_EQ(engine_->GetDocument(Reader({"eng"}), "secret").status().code(), StatusCode::kNotFound);
  // sales: admitted by the segments only -> not found too (the row refuses).
  EXPECT_EQ(engine_->GetDocument(Reader({"sales"}), "secret").status().code(), StatusCode::kNotFound);
  // Both copies admit an admin and a caller in both groups: refused, naming what differs.
  for (const SearchFilter& both : {Admin(), Reader({"eng", "sales"})}) {
    auto got = engine_->GetDocument(both, "secret");
    ASSERT_FALSE(got.ok());
    ExpectCorruptionNaming(got.status(), "ACL groups [eng] in the catalog row, [sales] in the segment");
    ExpectCorruptionNaming(got.status(), "document 'secret'");
  }
  // Search admits by the segments' copy; the hit's row disagrees: the search is refused, not served.
  SearchOptions so;
  so.query = "salary bands";
  so.filter = Admin();
  so.mode = SearchMode::kBm25;
  auto hits = engine_->Search(so);
  ASSERT_FALSE(hits.ok());
  ExpectCorruptionNaming(hits.status(), "document 'secret'");
  so.filter = Reader({"eng"});  // the segments' copy hides it from eng: the search is served
  auto eng_hits = engine_->Search(so);
  ASSERT_TRUE(eng_hits.ok()) << eng_hits.status().ToString();
  for (const SearchHit& h : eng_hits->hits) EXPECT_NE(h.doc_id, "secret");
  // Render-time authorization withdraws a citation of it for everyone.
  for (const SearchFilter& who : {Reader({"eng"}), Reader({"sales"}), Admin()}) {
    auto states = engine_->CheckCitations(who, cited);
    ASSERT_TRUE(states.ok()) << states.status().ToString();
    EXPECT_EQ((*states)[0], CitationState::kForbidden);
  }
  EXPECT_TRUE(engine_->GetDocument(Reader({"eng"}), "open").ok());
}

}  // namespace
}  // namespace attest
