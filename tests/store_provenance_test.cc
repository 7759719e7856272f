// A document's provenance (docs/store_format.md, "Provenance"): its licence and when its text was
// fetched, stored in the catalog from schema 7. The upgrade from schema 6 keeps old rows' checksums;
// the checksum covers both columns when set; the engine checks them as they arrive and shows the
// licence on documents, listings, search hits and answer sources.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <string>
#include <vector>

#include "attest/answer.h"
#include "attest/engine.h"
#include "ingest/provenance.h"
#include "store/catalog.h"
#include "store/row_checksum.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

using namespace store_test;

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

void ExpectInvalidNaming(const Status& s, const std::string& field) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_NE(s.message().find(field + ":"), std::string::npos) << s.ToString();
}

constexpr int64_t kFetchedMs = 1764686156000;  // 2025-12-02T14:35:56Z

PreparedDocument Licensed(const std::string& id, const std::vector<std::string>& texts) {
  PreparedDocument d = MakeDoc(id, texts, "acme");
  d.record.license = "CC BY-SA 4.0";
  d.record.fetched_at_ms = kFetchedMs;
  return d;
}

// ---- the catalog ----------------------------------------------------------------------------------

TEST(StoreProvenance, LicenceAndFetchTimeRoundTripThroughTheCatalogAndMerges) {
  TempDir dir;
  auto store = OpenOrDie(Options(dir.path()));
  ASSERT_TRUE(store);
  WriteBatch batch;
  batch.upserts.push_back(Licensed("lic", {"alpha beta"}));
  ASSERT_TRUE(store->Commit(std::move(batch)).ok());
  WriteBatch second;  // a second segment, for the compaction below
  second.upserts.push_back(MakeDoc("plain", {"gamma"}, "acme"));
  ASSERT_TRUE(store->Commit(std::move(second)).ok());
  auto lic = store->Pin()->FindDocument({"acme", "lic"});
  ASSERT_TRUE(lic.ok()) << lic.status().ToString();
  EXPECT_EQ(lic->license, "CC BY-SA 4.0");
  EXPECT_EQ(lic->fetched_at_ms, kFetchedMs);
  auto plain = store->Pin()->FindDocument({"acme", "plain"});
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->license, "");
  EXPECT_EQ(plain->fetched_at_ms, 0);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT count(*) FROM documents WHERE fetched_at IS NULL"), 1);
  // A compaction re-reads the rows (ForEachLiveChunk) with their checksums.
  ASSERT_TRUE(store->Compact().ok());
  auto after = store->Pin()->FindDocument({"acme", "lic"});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->license, "CC BY-SA 4.0");
}

TEST(StoreProvenance, TheRowChecksumCoversTheNewColumnsWhenSet) {
  DocumentRecord d = MakeDoc("x", {"alpha"}, "acme").record;
  const uint32_t bare = DocumentRowChecksum(d, "[]");
  d.license = "MIT";
  const uint32_t with_license = DocumentRowChecksum(d, "[]");
  EXPECT_NE(with_license, bare);
  d.fetched_at_ms = kFetchedMs;
  EXPECT_NE(DocumentRowChecksum(d, "[]"), with_license);
  d.license.clear();
  d.fetched_at_ms = 0;
  EXPECT_EQ(DocumentRowChecksum(d, "[]"), bare);  // rows written before schema 7 keep their checksums
}

TEST(StoreProvenance, EditsOfLicenceOrFetchTimeFailTheRowChecksum) {
  TempDir dir;
  auto store = OpenOrDie(Options(dir.path()));
  ASSERT_TRUE(store);
  WriteBatch batch;
  batch.upserts.push_back(Licensed("lic", {"alpha beta"}));
  batch.upserts.push_back(MakeDoc("plain", {"gamma"}, "acme"));
  ASSERT_TRUE(store->Commit(std::move(batch)).ok());
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"UPDATE documents SET license = 'Public domain' WHERE id = 'lic'", "lic"},
      {"UPDATE documents SET license = '' WHERE id = 'lic'", "lic"},
      {"UPDATE documents SET fetched_at = fetched_at + 1000 WHERE id = 'lic'", "lic"},
      {"UPDATE documents SET fetched_at = NULL WHERE id = 'lic'", "lic"},
      {"UPDATE documents SET license = 'MIT' WHERE id = 'plain'", "plain"},
      {"UPDATE documents SET fetched_at = 1 WHERE id = 'plain'", "plain"},
  };
  for (const auto& [edit, id] : edits) {
    SCOPED_TRACE(edit);
    TempDir copy;
    std::filesystem::copy(dir.path(), copy.path(), std::filesystem::copy_options::recursive);
    Sql(copy.path(), edit);
    StoreOptions ro = Options(copy.path(), false);
    ro.read_only = true;
    auto reader = OpenOrDie(ro);
    ASSERT_TRUE(reader);
    ExpectCorruptionNaming(reader->Pin()->FindDocument({"acme", id}).status(), "document '" + id + "'");
  }
}

// A schema-6 catalog (no license, fetched_at): a reader reads it as it is; a writer upgrades it, old
// rows keep their checksums and read without provenance, and new commits record it.
TEST(StoreProvenanceUpgrade, UpgradeFromSchema6KeepsOldRowsAndRecordsNewProvenance) {
  TempDir dir;
  {
    auto store = OpenOrDie(Options(dir.path()));
    ASSERT_TRUE(store);
    WriteBatch batch;
    batch.upserts.push_back(MakeDoc("old", {"alpha beta", "gamma"}, "acme"));
    ASSERT_TRUE(store->Commit(std::move(batch)).ok());
  }
  Sql(dir.path(),
      "DROP TABLE log_positions; "
      "ALTER TABLE documents DROP COLUMN license; ALTER TABLE documents DROP COLUMN fetched_at; "
      "UPDATE meta SET value = 6 WHERE key = 'schema_version'; PRAGMA user_version = 6;");
  const int64_t checksums = SqlInt(dir.path(), "SELECT sum(checksum) FROM documents");
  {
    StoreOptions ro = Options(dir.path(), false);
    ro.read_only = true;
    auto reader = OpenOrDie(ro);
    ASSERT_TRUE(reader);
    auto d = reader->Pin()->FindDocument({"acme", "old"});
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->license, "");
    EXPECT_EQ(SqlInt(dir.path(), "PRAGMA user_version"), 6);
  }
  auto store = OpenOrDie(Options(dir.path()));
  ASSERT_TRUE(store);
  EXPECT_EQ(SqlInt(dir.path(), "PRAGMA user_version"), kCatalogSchemaVersion);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT value FROM meta WHERE key = 'schema_version'"), kCatalogSchemaVersion);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT sum(checksum) FROM documents"), checksums);
  auto old = store->Pin()->FindDocument({"acme", "old"});
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->license, "");
  EXPECT_EQ(old->fetched_at_ms, 0);
  auto chunks = store->Pin()->ChunksOfDocument(old->num);
  ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
  EXPECT_EQ(Texts(*chunks), (std::vector<std::string>{"alpha beta", "gamma"}));
  WriteBatch batch;
  batch.upserts.push_back(Licensed("new", {"delta"}));
  ASSERT_TRUE(store->Commit(std::move(batch)).ok());
  auto fresh = store->Pin()->FindDocument({"acme", "new"});
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(fresh->license, "CC BY-SA 4.0");
  EXPECT_EQ(fresh->fetched_at_ms, kFetchedMs);
  // An old row given a licence behind the store's back fails its checksum.
  Sql(dir.path(), "UPDATE documents SET license = 'MIT' WHERE id = 'old'");
  ExpectCorruptionNaming(store->Pin()->FindDocument({"acme", "old"}).status(), "document 'old'");
}

// ---- the checks -----------------------------------------------------------------------------------

TEST(ProvenanceChecks, LicenceTextIsBoundedUtf8WithoutControls) {
  EXPECT_TRUE(CheckLicense("CC BY-SA 4.0 — © Example contributors", "license").ok());
  EXPECT_TRUE(CheckLicense(std::string(kMaxLicenseBytes, 'a'), "license").ok());
  ExpectInvalidNaming(CheckLicense(std::string(kMaxLicenseBytes + 1, 'a'), "license"), "license");
  ExpectInvalidNaming(CheckLicense("MIT\nor not", "license"), "license");
  ExpectInvalidNaming(CheckLicense("tab\there", "metadata.license"), "metadata.license");
  ExpectInvalidNaming(CheckLicense("del\x7f", "license"), "license");
  ExpectInvalidNaming(CheckLicense("c1 \xc2\x85 next line", "license"), "license");
  ExpectInvalidNaming(CheckLicense("bad \xff utf8", "license"), "license");
}

TEST(ProvenanceChecks, FetchTimesAreIso8601Utc) {
  EXPECT_EQ(ParseUtcTimestamp("2025-12-02T14:35:56Z"), kFetchedMs);
  EXPECT_EQ(ParseUtcTimestamp("2025-12-02T14:35:56.250Z"), kFetchedMs + 250);
  EXPECT_EQ(ParseUtcTimestamp("1970-01-01T00:00:00Z"), 0);
  for (const char* bad : {"", "2025-12-02", "2025-12-02T14:35:56", "2025-12-02T14:35:56+01:00",
                          "2025-02-30T00:00:00Z", "2025-12-02T24:00:00Z", "2025-12-02T14:60:00Z",
                          "2025-12-02 14:35:56Z", "2025-12-02T14:35:56.Z", "1969-12-31T23:59:59Z",
                          "December 2, 2025T14:35:56Z"}) {
    EXPECT_FALSE(ParseUtcTimestamp(bad).has_value()) << bad;
  }
}

// ---- through the engine -------------------------------------------------------------------------

class EngineProvenanceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EngineOptions o;
    o.data_dir = dir_.path().string();
    o.embedder.kind = EmbedderKind::kNone;
    auto e = Engine::Open(o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
  }
  static DocumentSpec Spec(const std::string& id, const std::string& text) {
    DocumentSpec d;
    d.id = id;
    d.title = id;
    d.text = text;
    return d;
  }
  TempDir dir_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineProvenanceTest, ALicenceShowsOnTheDocumentListingSearchHitAndAnswerSource) {
  DocumentSpec doc = Spec("refunds", "Refunds are paid within thirty days of purchase to the original card.");
  doc.license = "CC BY-SA 4.0";
  doc.fetched_at = "2025-12-02T14:35:56.900Z";
  DocumentSpec legacy = Spec("legacy", "Legacy refunds were paid by cheque within ninety days.");
  legacy.metadata["license"] = "Public domain";  // the metadata form, as crawls wrote it before
  DocumentSpec plain = Spec("plain", "Shipping takes five days for refunds of damaged goods.");
  ASSERT_TRUE(engine_->PutDocuments({doc, legacy, plain}).ok());

  SearchFilter admin;
  auto got = engine_->GetDocument(admin, "refunds");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->license, "CC BY-SA 4.0");
  EXPECT_EQ(got->fetched_at, "2025-12-02T14:35:56Z");  // when fetched, not the commit
  auto old = engine_->GetDocument(admin, "legacy");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->license, "Public domain");
  auto bare = engine_->GetDocument(admin, "plain");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->license, "");
  EXPECT_NE(bare->fetched_at, "");  // the commit time
  EXPECT_NE(bare->fetched_at, got->fetched_at);

  ListDocumentsOptions lo;
  auto listed = engine_->ListDocuments(lo);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::map<std::string, std::pair<std::string, std::string>> rows;
  for (const DocumentSummary& d : listed->documents) rows[d.id] = {d.license, d.fetched_at};
  EXPECT_EQ(rows["refunds"], std::make_pair(std::string("CC BY-SA 4.0"), std::string("2025-12-02T14:35:56Z")));
  EXPECT_EQ(rows["legacy"].first, "Public domain");
  EXPECT_EQ(rows["plain"].first, "");

  SearchOptions so;
  so.query = "refunds paid";
  so.k = 10;
  auto hits = engine_->Search(so);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  std::map<std::string, std::string> hit_license;
  for (const SearchHit& h : hits->hits) hit_license[h.doc_id] = h.license;
  ASSERT_TRUE(hit_license.contains("refunds"));
  EXPECT_EQ(hit_license["refunds"], "CC BY-SA 4.0");
  EXPECT_EQ(hit_license["legacy"], "Public domain");

  AskOptions ao;
  ao.question = "Within how many days are refunds paid to the original card?";
  auto answer = engine_->Ask(ao);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  bool seen = false;
  for (const AnswerSource& s : answer->sources) {
    if (s.doc_id == "refunds") {
      seen = true;
      EXPECT_EQ(s.license, "CC BY-SA 4.0");
      EXPECT_EQ(s.fetched_at, "2025-12-02T14:35:56Z");
    }
    if (s.doc_id == "plain") {
      EXPECT_EQ(s.license, "");
    }
  }
  EXPECT_TRUE(seen) << "no source from 'refunds'";

  // The licence is part of what a version is: changing it makes a new version.
  doc.license = "CC BY 4.0";
  auto put = engine_->PutDocuments({doc});
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(put->replaced, 1u);
  EXPECT_EQ(engine_->GetDocument(admin, "refunds")->license, "CC BY 4.0");
}

TEST_F(EngineProvenanceTest, BadLicenceOrFetchTimeIsRefusedNamingTheField) {
  DocumentSpec doc = Spec("d", "Some text about refunds.");
  doc.license = "MIT\x01";
  ExpectInvalidNaming(engine_->PutDocuments({doc}).status(), "license");
  doc.license = std::string(1001, 'x');
  ExpectInvalidNaming(engine_->PutDocuments({doc}).status(), "license");
  doc.license.clear();
  doc.metadata["license"] = "line\nbreak";
  ExpectInvalidNaming(engine_->PutDocuments({doc}).status(), "metadata.license");
  doc.metadata.clear();
  doc.fetched_at = "yesterday";
  ExpectInvalidNaming(engine_->PutDocuments({doc}).status(), "fetched_at");
  EXPECT_FALSE(engine_->GetDocument(SearchFilter{}, "d").ok());  // nothing was written
}

TEST_F(EngineProvenanceTest, IngestRecordsTheLicenceOfItsOptionsAndRefusesABadOne) {
  const auto file = dir_.path().parent_path() / (dir_.path().filename().string() + "_notes.md");
  {
    std::ofstream(file) << "# Notes\n\nRefunds are paid within thirty days.\n";
  }
  IngestOptions io;
  io.paths = {file.string()};
  io.license = "Proprietary, internal use only";
  auto rep = engine_->Ingest(io);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  ASSERT_EQ(rep->added, 1u);
  ListDocumentsOptions lo;
  auto listed = engine_->ListDocuments(lo);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->documents.size(), 1u);
  EXPECT_EQ(listed->documents[0].license, "Proprietary, internal use only");
  // The same file with another licence is a new version.
  io.license = "CC0";
  rep = engine_->Ingest(io);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->replaced, 1u);
  io.license = "bad\tlicence";
  ExpectInvalidNaming(engine_->Ingest(io).status(), "license");
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace attest
