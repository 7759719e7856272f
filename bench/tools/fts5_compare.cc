// The SQLite FTS5 side of the comparison benchmark (Debian's libsqlite3 3.40).
//   Build: fts5(title, body, acl UNINDEXED, tokenize='porter unicode61', detail=full); every row
//          inserted in one transaction with journal_mode=OFF, synchronous=OFF and a 1 GiB page
//          cache; then INSERT INTO t(t) VALUES('optimize') (one b-tree per index) and VACUUM so the
//          file holds no free pages. rowid = document number + 1 (ids.txt maps it back).
//   Query: MATCH '"a" OR "b" OR ...' of the lower-cased query words (repeats kept: bm25() sums
//          per phrase, so a repeated word weighs by its query frequency) minus the same 33
//          Lucene stopwords Attest and Xapian drop (FTS5 indexes stopwords; leaving them in an OR
//          query would only add noise), ORDER BY bm25(t) LIMIT k. FTS5's bm25() has fixed
//          k1=1.2, b=0.75 (sqlite ext/fts5/fts5_aux.c); they cannot be set to Attest's 0.9/0.4.
//   ACL:   FTS5 cannot restrict a MATCH inside its index traversal. The best available plan is the
//          UNINDEXED `acl` column tested per matching row (`AND acl = ?`) before ORDER BY/LIMIT:
//          every document matching the OR is still visited and scored.
// Usage: see bench/common/bench_driver.h and bench/README.md.
#include <sqlite3.h>

#include <cctype>
#include <chrono>
#include <unordered_set>

#include "common/bench_driver.h"
#include "common/corpus_reader.h"

namespace attest::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kDbFile = "fts5.db";

Status SqlError(sqlite3* db, const std::string& what) {
  return Status::IOError(what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = std::string(sql) + ": " + (err ? err : "?");
    sqlite3_free(err);
    return Status::IOError(msg);
  }
  return Status::Ok();
}

class Stmt {
 public:
  ~Stmt() { sqlite3_finalize(s_); }
  Status Prepare(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr) != SQLITE_OK) {
      return SqlError(db, std::string("prepare ") + sql);
    }
    return Status::Ok();
  }
  sqlite3_stmt* get() const { return s_; }

 private:
  sqlite3_stmt* s_ = nullptr;
};

Status ApplyPragmas(sqlite3* db) {
  ATTEST_RETURN_IF_ERROR(Exec(db, "PRAGMA journal_mode=OFF"));
  ATTEST_RETURN_IF_ERROR(Exec(db, "PRAGMA synchronous=OFF"));
  ATTEST_RETURN_IF_ERROR(Exec(db, "PRAGMA cache_size=-1048576"));  // KiB: 1 GiB
  ATTEST_RETURN_IF_ERROR(Exec(db, "PRAGMA mmap_size=17179869184"));
  ATTEST_RETURN_IF_ERROR(Exec(db, "PRAGMA temp_store=MEMORY"));
  return Status::Ok();
}

// FTS5 MATCH expression: the words (unicode61 token characters: ASCII letters/digits and any
// non-ASCII byte), lower-cased, stopwords removed, each quoted, joined by OR.
std::string MatchExpression(std::string_view text) {
  static const std::unordered_set<std::string> kStop(LuceneEnglishStopwords().begin(),
                                                     LuceneEnglishStopwords().end());
  std::string expr;
  size_t i = 0;
  while (i < text.size()) {
    auto is_word = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
    while (i < text.size() && !is_word(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && is_word(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) {
      std::string w(text.substr(i, j - i));
      for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (!kStop.count(w)) {
        if (!expr.empty()) expr += " OR ";
        expr += '"' + w + '"';
      }
    }
    i = j;
  }
  return expr;
}

class Fts5System final : public BenchSystem {
 public:
  ~Fts5System() override {
    plain_.reset();
    acl_.reset();
    sqlite3_close(db_);
  }
  std::string name() const override { return "fts5"; }

  std::map<std::string, std::string> Describe() const override {
    return {{"weighting", "FTS5 bm25() (fixed k1=1.2 b=0.75), columns title, body weight 1"},
            {"analyzer", "tokenize='porter unicode61' (no stopwords at index time); query drops the 33 stopwords"},
            {"query", "MATCH '\"a\" OR \"b\" ...' ORDER BY bm25(t) LIMIT k"},
            {"acl", "UNINDEXED acl column: AND acl = ? tested per matching row, before ORDER BY/LIMIT"},
            {"sqlite", sqlite3_libversion()},
            {"index", "detail=full, 'optimize' + VACUUM"}};
  }

  Status Build(const BuildArgs& args, BuildStats* stats) override {
    const fs::path path = args.index_dir / kDbFile;
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) return SqlError(db_, "open " + path.string());
    ATTEST_RETURN_IF_ERROR(ApplyPragmas(db_));
    ATTEST_RETURN_IF_ERROR(Exec(db_,
        "CREATE VIRTUAL TABLE t USING fts5(title, body, acl UNINDEXED, "
        "tokenize='porter unicode61', detail=full)"));
    ATTEST_ASSIGN_OR_RETURN(IdMapWriter ids, IdMapWriter::Create(args.index_dir));
    const auto t0 = Clock::now();
    ATTEST_RETURN_IF_ERROR(Exec(db_, "BEGIN"));
    {
      Stmt ins;
      ATTEST_RETURN_IF_ERROR(ins.Prepare(db_, "INSERT INTO t(rowid, title, body, acl) VALUES(?,?,?,?)"));
      sqlite3_int64 rowid = 0;
      ATTEST_RETURN_IF_ERROR(ForEachBenchDoc(args.corpus, [&](BenchDoc&& d) -> Status {
        sqlite3_stmt* s = ins.get();
        sqlite3_bind_int64(s, 1, ++rowid);
        sqlite3_bind_text(s, 2, d.title.data(), static_cast<int>(d.title.size()), SQLITE_STATIC);
        sqlite3_bind_text(s, 3, d.text.data(), static_cast<int>(d.text.size()), SQLITE_STATIC);
        sqlite3_bind_text(s, 4, d.acl.data(), static_cast<int>(d.acl.size()), SQLITE_STATIC);
        if (sqlite3_step(s) != SQLITE_DONE) return SqlError(db_, "insert");
        sqlite3_reset(s);
        ATTEST_RETURN_IF_ERROR(ids.Add(d.id));
        stats->docs += 1;
        stats->raw_text_bytes += d.title.size() + d.text.size();
        return Status::Ok();
      }));
    }
    ATTEST_RETURN_IF_ERROR(Exec(db_, "COMMIT"));
    ATTEST_RETURN_IF_ERROR(ids.Close());
    const auto t1 = Clock::now();
    ATTEST_RETURN_IF_ERROR(Exec(db_, "INSERT INTO t(t) VALUES('optimize')"));
    const auto t2 = Clock::now();
    ATTEST_RETURN_IF_ERROR(Exec(db_, "VACUUM"));
    const auto t3 = Clock::now();
    stats->phases_s["insert"] = std::chrono::duration<double>(t1 - t0).count();
    stats->phases_s["optimize"] = std::chrono::duration<double>(t2 - t1).count();
    stats->phases_s["vacuum"] = std::chrono::duration<double>(t3 - t2).count();
    stats->notes["build_threads"] = "1 (SQLite writes from one thread)";
    sqlite3_close(db_);
    db_ = nullptr;
    return Status::Ok();
  }

  Status Open(const fs::path& index_dir) override {
    ATTEST_ASSIGN_OR_RETURN(ids_, IdMap::Read(index_dir));
    const fs::path path = index_dir / kDbFile;
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      return SqlError(db_, "open " + path.string());
    }
    ATTEST_RETURN_IF_ERROR(Exec(db_, "PRAGMA cache_size=-1048576"));
    ATTEST_RETURN_IF_ERROR(Exec(db_, "PRAGMA mmap_size=17179869184"));
    plain_ = std::make_unique<Stmt>();
    acl_ = std::make_unique<Stmt>();
    ATTEST_RETURN_IF_ERROR(plain_->Prepare(db_, "SELECT rowid FROM t WHERE t MATCH ?1 ORDER BY bm25(t) LIMIT ?2"));
    ATTEST_RETURN_IF_ERROR(
        acl_->Prepare(db_, "SELECT rowid FROM t WHERE t MATCH ?1 AND acl = ?3 ORDER BY bm25(t) LIMIT ?2"));
    return Status::Ok();
  }

  Status Search(const SearchArgs& args, std::vector<std::string>* ids) override {
    const std::string expr = MatchExpression(args.text);
    if (expr.empty()) return Status::Ok();
    sqlite3_stmt* s = args.acl_group ? acl_->get() : plain_->get();
    sqlite3_bind_text(s, 1, expr.data(), static_cast<int>(expr.size()), SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(args.k));
    if (args.acl_group) {
      sqlite3_bind_text(s, 3, args.acl_group->data(), static_cast<int>(args.acl_group->size()), SQLITE_STATIC);
    }
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      const sqlite3_int64 rowid = sqlite3_column_int64(s, 0);
      if (rowid < 1 || static_cast<uint64_t>(rowid) > ids_.size()) {
        sqlite3_reset(s);
        return Status::Internal("rowid out of range: " + std::to_string(rowid));
      }
      ids->push_back(ids_[rowid - 1]);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) return SqlError(db_, "query " + expr);
    return Status::Ok();
  }

  Result<uint64_t> IndexBytes(const fs::path& index_dir) const override { return DirectoryBytesExceptIds(index_dir); }

 private:
  sqlite3* db_ = nullptr;
  std::unique_ptr<Stmt> plain_, acl_;
  IdMap ids_;
};

}  // namespace
}  // namespace attest::bench

int main(int argc, char** argv) {
  return attest::bench::RunBenchMain(argc, argv, [] { return std::make_unique<attest::bench::Fts5System>(); });
}
