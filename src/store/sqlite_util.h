// Thin RAII wrappers over the SQLite C API that report errors as Status values.
//
// Thread-safety: a SqliteDb (and its statements) must be used by one thread at a time; the store
// gives each thread its own connection (ConnectionPool) or guards the writer connection by a mutex.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "attest/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace attest {

class SqliteDb;

// A prepared statement. Bind indices are 1-based as in SQLite; column indices are 0-based.
class SqliteStmt {
 public:
  SqliteStmt(SqliteDb* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStmt();
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  // Resets the statement and clears its bindings; done automatically by the binders' users.
  void Reset();
  SqliteStmt& Bind(int index, int64_t v);
  SqliteStmt& Bind(int index, uint64_t v) { return Bind(index, static_cast<int64_t>(v)); }
  SqliteStmt& Bind(int index, std::string_view v);
  SqliteStmt& BindNull(int index);
  SqliteStmt& BindBlob(int index, std::string_view bytes);
  SqliteStmt& BindDouble(int index, double v);
  SqliteStmt& Bind(int index, const std::optional<int32_t>& v) {
    return v ? Bind(index, static_cast<int64_t>(*v)) : BindNull(index);
  }

  // Steps once: true when a row is available, false when done.
  Result<bool> Step();
  // Steps until done (for statements that return no rows).
  Status Run();

  int64_t ColumnInt(int col) const;
  uint64_t ColumnU64(int col) const { return static_cast<uint64_t>(ColumnInt(col)); }
  std::string ColumnText(int col) const;
  std::string ColumnBlob(int col) const;  // the bytes of a BLOB (or TEXT) column; "" for NULL
  double ColumnDouble(int col) const;
  bool ColumnIsNull(int col) const;

 private:
  Status BindStatus() const;
  SqliteDb* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = 0;
};

struct SqliteOpenArgs {
  std::filesystem::path path;
  bool read_only = false;
  bool create = false;
  int busy_timeout_ms = 10000;
};

// A borrowed cached statement; resets it (ending any implicit read transaction) when it goes away.
class StmtRef {
 public:
  explicit StmtRef(SqliteStmt* s) : s_(s) {}
  StmtRef(StmtRef&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  StmtRef& operator=(StmtRef&&) = delete;
  ~StmtRef() {
    if (s_) s_->Reset();
  }
  SqliteStmt* operator->() const { return s_; }
  SqliteStmt& operator*() const { return *s_; }

 private:
  SqliteStmt* s_;
};

// One connection. Statements handed out by Prepare() are cached per SQL text and reset on reuse.
class SqliteDb {
 public:
  static Result<std::unique_ptr<SqliteDb>> Open(const SqliteOpenArgs& args);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  // Returns a cached statement, reset and with bindings cleared. At most one StmtRef per SQL text
  // may be alive at a time.
  Result<StmtRef> Prepare(const std::string& sql);
  // Status for the connection's last error, prefixed by `what`.
  Status Error(std::string_view what) const;
  bool read_only() const { return read_only_; }
  int64_t changes() const;
  sqlite3* raw() { return db_; }
  // PRAGMA user_version, read once per connection and again after this connection's Exec() sets it
  // (the catalog's migrations). The catalog's schema changes only when a writer opens the store, before
  // its readers' connections exist; a read-only connection opened on a catalog that another process
  // migrates later keeps the schema it first read (the columns it selects still exist).
  Result<int64_t> UserVersion();

 private:
  SqliteDb(sqlite3* db, bool read_only) : db_(db), read_only_(read_only) {}
  sqlite3* db_;
  bool read_only_;
  std::map<std::string, std::unique_ptr<SqliteStmt>, std::less<>> cache_;
  bool user_version_read_ = false;
  int64_t user_version_ = 0;
};

// Reads one integer from a query that yields at most one row and one column; `fallback` when none.
Result<int64_t> QueryInt(SqliteDb& db, const std::string& sql, int64_t fallback);

// Runs BEGIN on construction (IMMEDIATE for writers) and ROLLBACK on destruction unless committed.
class SqliteTransaction {
 public:
  static Result<std::unique_ptr<SqliteTransaction>> Begin(SqliteDb& db, bool immediate);
  ~SqliteTransaction();
  Status Commit();

 private:
  explicit SqliteTransaction(SqliteDb& db) : db_(db) {}
  SqliteDb& db_;
  bool done_ = false;
};

}  // namespace attest
