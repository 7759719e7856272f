// Chunk spans in the catalog (docs/store_format.md, "Chunk spans"): the blob encoding, its round
// trip through commits, reads, merges and re-indexing, the upgrade of a schema-5 catalog (old rows
// keep their checksums and have no spans), and blobs that are edited or malformed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <mutex>
#include <random>

#include "store/catalog.h"
#include "store/row_checksum.h"
#include "store/span_codec.h"
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

std::string Hex(std::string_view bytes) {
  static const char* kDigits = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// "core.eol\n\nSets the line ending. The default is native." with a term span and a description.
std::vector<ChunkSpan> EolSpans() {
  return {ChunkSpan{0, 8, SpanRole::kDefinition, "core.eol"}, ChunkSpan{10, 54, SpanRole::kDefinition, "core.eol"}};
}
const char* kEolText = "core.eol\n\nSets the line ending. The default is native.";

// --- the encoding ---

TEST(SpanCodec, RoundTripsRandomSpans) {
  std::mt19937 rng(5);
  for (int round = 0; round < 500; ++round) {
    std::vector<ChunkSpan> spans;
    uint32_t at = rng() % 3;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      ChunkSpan s;
      s.begin = at + rng() % 4;
      s.end = s.begin + 1 + rng() % 300;
      s.role = static_cast<SpanRole>(rng() % 6);
      const int pick = static_cast<int>(rng() % 3);
      s.subject = pick == 0 ? "" : pick == 1 && !spans.empty() ? spans.back().subject : "t" + std::to_string(rng() % 5);
      at = s.end;
      spans.push_back(s);
    }
    const std::string blob = EncodeSpans(spans);
    ASSERT_EQ(static_cast<uint8_t>(blob[0]), kSpanBlobMagic);
    auto back = DecodeSpans(blob, at);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(*back == spans);
    EXPECT_FALSE(DecodeSpans(blob, at - 1).ok());  // the last span would end past the text
  }
  EXPECT_EQ(EncodeSpans({}), "");
}

TEST(SpanCodec, RejectsMalformedBlobsWithAReason) {
  const std::string good = EncodeSpans(EolSpans());
  ASSERT_TRUE(DecodeSpans(good, 54).ok());
  auto reason = [](std::string_view blob, size_t size) {
    auto r = DecodeSpans(blob, size);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(reason("", 54).find("magic"), std::string::npos);
  EXPECT_NE(reason("X" + good.substr(1), 54).find("magic"), std::string::npos);
  std::string v2 = good;
  v2[1] = 2;
  EXPECT_NE(reason(v2, 54).find("unknown version 2"), std::string::npos);
  for (size_t cut = 0; cut < good.size(); ++cut) reason(good.substr(0, cut), 54);  // every truncation
  EXPECT_NE(reason(good + "x", 54).find("after the last span"), std::string::npos);
  EXPECT_NE(reason(good, 20).find("outside the chunk text"), std::string::npos);
  // Hand-built: magic, version, count, then (gap, length, role, tag).
  auto blob = [](std::initializer_list<int> bytes) {
    std::string s{static_cast<char>(kSpanBlobMagic), static_cast<char>(kSpanBlobVersion)};
    for (int b : bytes) s.push_back(static_cast<char>(b));
    return s;
  };
  EXPECT_NE(reason(blob({1, 0, 0, 0, 0}), 10).find("outside"), std::string::npos);   // empty span
  EXPECT_NE(reason(blob({1, 0, 3, 9, 0}), 10).find("unknown role 9"), std::string::npos);
  EXPECT_NE(reason(blob({1, 0, 3, 0, 1}), 10).find("no span"), std::string::npos);  // nothing to repeat
  EXPECT_NE(reason(blob({1, 0, 3, 0, 50, 'a'}), 10).find("subject past the end"), std::string::npos);
  EXPECT_NE(reason(blob({0}), 10).find("count"), std::string::npos);
  EXPECT_NE(reason(blob({0x7f, 0, 1, 0, 0}), 10).find("count"), std::string::npos);
  // Huge varints do not wrap around the bounds checks.
  EXPECT_FALSE(DecodeSpans(blob({1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 3, 0, 0}), 10).ok());
  EXPECT_FALSE(DecodeSpans(blob({1, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0}), 10).ok());
}

// Random corruption of a valid blob is an error or spans inside the text, never a crash.
TEST(SpanCodec, MutatedBlobsNeverEscapeTheText) {
  std::mt19937 rng(9);
  const std::string good = EncodeSpans(EolSpans());
  for (int round = 0; round < 20000; ++round) {
    std::string b = good;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) b[rng() % b.size()] = static_cast<char>(rng());
    auto r = DecodeSpans(b, 54);
    if (!r.ok()) continue;
    uint32_t at = 0;
    for (const ChunkSpan& s : *r) {
      ASSERT_LE(at, s.begin);
      ASSERT_LT(s.begin, s.end);
      ASSERT_LE(s.end, 54u);
      at = s.end;
    }
  }
}

// --- the catalog ---

PreparedDocument DocWithSpans(const std::string& id) {
  PreparedDocument d = MakeDoc(id, {kEolText, "plain text without structure"}, "acme");
  d.chunks[0].spans = EolSpans();
  return d;
}

class StoreChunkSpansTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions o = Options(dir_.path());
    o.reindex = [this](const ChunkRecord& c, const DocumentRecord& d) {
      std::lock_guard<std::mutex> lock(mu_);
      reindexed_spans_ += c.spans.size();
      return Reindex(c, d);
    };
    store_ = OpenOrDie(o);
    ASSERT_TRUE(store_);
    WriteBatch batch;
    batch.upserts.push_back(DocWithSpans("d1"));
    ASSERT_TRUE(store_->Commit(std::move(batch)).ok());
    auto d1 = store_->Pin()->FindDocument({"acme", "d1"});
    ASSERT_TRUE(d1.ok()) << d1.status().ToString();
    auto chunks = store_->Pin()->ChunksOfDocument(d1->num);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    for (const auto& c : *chunks) ids_.push_back(c.id);
    ASSERT_EQ(ids_.size(), 2u);
  }
  std::string Row(ChunkId id) const { return " WHERE id = " + std::to_string(id.get()); }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::vector<ChunkId> ids_;
  std::mutex mu_;
  size_t reindexed_spans_ = 0;
};

TEST_F(StoreChunkSpansTest, GetChunksReturnsTheSpansAndChunksWithoutKeepNullAndTheOldChecksum) {
  auto got = store_->Pin()->GetChunks(ids_);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_TRUE((*got)[0].spans == EolSpans());
  EXPECT_TRUE((*got)[1].spans.empty());
  EXPECT_EQ(SqlInt(dir_.path(), "SELECT spans IS NULL FROM chunks" + Row(ids_[1])), 1);
  EXPECT_EQ(SqlInt(dir_.path(), "SELECT checksum FROM chunks" + Row(ids_[1])), ChunkRowChecksum((*got)[1]));
  EXPECT_NE(SqlInt(dir_.path(), "SELECT checksum FROM chunks" + Row(ids_[0])), ChunkRowChecksum((*got)[0]));
  EXPECT_EQ(SqlInt(dir_.path(), "SELECT hex(substr(spans, 1, 2)) = '5301' FROM chunks" + Row(ids_[0])), 1);
}

TEST_F(StoreChunkSpansTest, MergesKeepTheSpansAndReindexSeesThem) {
  for (int i = 0; i < 6; ++i) {
    WriteBatch more;
    more.upserts.push_back(DocWithSpans("more" + std::to_string(i)));
    ASSERT_TRUE(store_->Commit(std::move(more)).ok());
  }
  ASSERT_TRUE(store_->Compact().ok());
  EXPECT_GT(reindexed_spans_, 0u);
  auto got = store_->Pin()->GetChunks(ids_);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE((*got)[0].spans == EolSpans());
  EXPECT_EQ(Search(*store_->Pin(), "native.").size(), 7u);
}

TEST_F(StoreChunkSpansTest, AnEditedOrRemovedBlobFailsTheRowChecksum) {
  std::string edited = EncodeSpans(EolSpans());
  edited.back() = 'X';  // the subject's last byte
  for (const std::string& set : {"spans = X'" + Hex(edited) + "'", std::string("spans = NULL"), std::string("spans = X''")}) {
    SCOPED_TRACE(set);
    const int64_t saved = SqlInt(dir_.path(), "SELECT checksum FROM chunks" + Row(ids_[0]));
    Sql(dir_.path(), "UPDATE chunks SET " + set + Row(ids_[0]));
    auto got = store_->Pin()->GetChunks(std::span<const ChunkId>(&ids_[0], 1));
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
    EXPECT_NE(got.status().message().find("row checksum"), std::string::npos) << got.status().ToString();
    Sql(dir_.path(), "UPDATE chunks SET spans = X'" + Hex(EncodeSpans(EolSpans())) + "', checksum = " +
                         std::to_string(saved) + Row(ids_[0]));
    EXPECT_TRUE(store_->Pin()->GetChunks(std::span<const ChunkId>(&ids_[0], 1)).ok());
  }
  // A blob on a row written without one does not check either.
  Sql(dir_.path(), "UPDATE chunks SET spans = X'" + Hex(EncodeSpans(EolSpans())) + "'" + Row(ids_[1]));
  EXPECT_EQ(store_->Pin()->GetChunks(std::span<const ChunkId>(&ids_[1], 1)).status().code(), StatusCode::kCorruption);
}

// A malformed blob whose checksum matches (a bug, or a forged row) is a clear error naming the
// chunk, on every read path; its neighbours are served.
TEST_F(StoreChunkSpansTest, AMalformedBlobIsCorruptionNamingTheChunk) {
  auto chunk = store_->Pin()->GetChunks(std::span<const ChunkId>(&ids_[0], 1));
  ASSERT_TRUE(chunk.ok());
  ChunkRecord row = (*chunk)[0];
  std::string bad = EncodeSpans(std::vector<ChunkSpan>{ChunkSpan{0, 500, SpanRole::kText, ""}});
  Sql(dir_.path(), "UPDATE chunks SET spans = X'" + Hex(bad) + "', checksum = " +
                       std::to_string(ChunkRowChecksum(row, bad)) + Row(ids_[0]));
  auto snap = store_->Pin();
  auto got = snap->GetChunks(std::span<const ChunkId>(&ids_[0], 1));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kCorruption);
  const std::string msg = got.status().message();
  EXPECT_NE(msg.find("chunk " + std::to_string(ids_[0].get()) + " (part 1) of document 'd1'"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("outside the chunk text"), std::string::npos) << msg;
  EXPECT_EQ(snap->ChunksOfDocument(row.doc).status().code(), StatusCode::kCorruption);
  EXPECT_TRUE(snap->GetChunks(std::span<const ChunkId>(&ids_[1], 1)).ok());
}

// A schema-5 catalog (no spans column): a reader reads it as it is; a writer upgrades it (to the current version), its
// rows keep their checksums and read without spans, and new commits record spans.
TEST(StoreChunkSpansUpgrade, UpgradeFromSchema5KeepsOldRowsAndRecordsNewSpans) {
  TempDir dir;
  {
    auto store = OpenOrDie(Options(dir.path()));
    ASSERT_TRUE(store);
    WriteBatch batch;
    batch.upserts.push_back(MakeDoc("old", {"alpha beta", "gamma"}, "acme"));
    ASSERT_TRUE(store->Commit(std::move(batch)).ok());
  }
  Sql(dir.path(),
      "DROP TABLE log_positions; ALTER TABLE chunks DROP COLUMN spans; "
      "ALTER TABLE documents DROP COLUMN license; ALTER TABLE documents DROP COLUMN fetched_at; "
      "UPDATE meta SET value = 5 WHERE key = 'schema_version'; PRAGMA user_version = 5;");
  const int64_t checksums = SqlInt(dir.path(), "SELECT sum(checksum) FROM chunks");
  {
    StoreOptions ro = Options(dir.path(), false);
    ro.read_only = true;
    auto reader = OpenOrDie(ro);
    ASSERT_TRUE(reader);
    auto d = reader->Pin()->FindDocument({"acme", "old"});
    ASSERT_TRUE(d.ok());
    auto chunks = reader->Pin()->ChunksOfDocument(d->num);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    EXPECT_EQ(Texts(*chunks), (std::vector<std::string>{"alpha beta", "gamma"}));
  }
  auto store = OpenOrDie(Options(dir.path()));
  ASSERT_TRUE(store);
  EXPECT_EQ(SqlInt(dir.path(), "PRAGMA user_version"), kCatalogSchemaVersion);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT value FROM meta WHERE key = 'schema_version'"), kCatalogSchemaVersion);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT count(*) FROM chunks WHERE spans IS NOT NULL"), 0);
  EXPECT_EQ(SqlInt(dir.path(), "SELECT sum(checksum) FROM chunks"), checksums);
  auto d = store->Pin()->FindDocument({"acme", "old"});
  ASSERT_TRUE(d.ok());
  auto chunks = store->Pin()->ChunksOfDocument(d->num);
  ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
  EXPECT_EQ(Texts(*chunks), (std::vector<std::string>{"alpha beta", "gamma"}));
  for (const auto& c : *chunks) EXPECT_TRUE(c.spans.empty());
  WriteBatch batch;
  batch.upserts.push_back(DocWithSpans("new"));
  ASSERT_TRUE(store->Commit(std::move(batch)).ok());
  auto n = store->Pin()->FindDocument({"acme", "new"});
  ASSERT_TRUE(n.ok());
  auto fresh = store->Pin()->ChunksOfDocument(n->num);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_TRUE((*fresh)[0].spans == EolSpans());
}

}  // namespace
}  // namespace attest
