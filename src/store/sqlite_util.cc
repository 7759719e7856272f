#include "store/sqlite_util.h"

#include <sqlite3.h>

#include <cerrno>
#include <string>

namespace attest {
namespace {

StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {
    case SQLITE_FULL:
      return StatusCode::kNoSpace;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StatusCode::kBusy;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return StatusCode::kCorruption;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_ERROR:
      return StatusCode::kInternal;
    default:
      return StatusCode::kIOError;
  }
}

// The Status of a failed call on `db`. SQLite reports a full device as SQLITE_FULL from some calls
// and as a plain SQLITE_IOERR_* ("disk I/O error") from others (growing the -shm file, a WAL
// write); the errno it saw tells them apart, so a full disk is always named as such.
Status SqliteError(int rc, sqlite3* db, std::string message) {
  StatusCode code = CodeFor(rc);
  const int sys = db ? sqlite3_system_errno(db) : 0;
  if (code == StatusCode::kIOError && (sys == ENOSPC || sys == EDQUOT)) code = StatusCode::kNoSpace;
  if (code == StatusCode::kNoSpace) message += ": no space left on device (ENOSPC)";
  return Status(code, std::move(message));
}

}  // namespace

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

void SqliteStmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = 0;
}

SqliteStmt& SqliteStmt::Bind(int index, int64_t v) {
  int rc = sqlite3_bind_int64(stmt_, index, v);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStmt& SqliteStmt::Bind(int index, std::string_view v) {
  int rc = sqlite3_bind_text64(stmt_, index, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStmt& SqliteStmt::BindBlob(int index, std::string_view bytes) {
  int rc = sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStmt& SqliteStmt::BindNull(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

SqliteStmt& SqliteStmt::BindDouble(int index, double v) {
  int rc = sqlite3_bind_double(stmt_, index, v);
  if (rc != SQLITE_OK && bind_error_ == 0) bind_error_ = rc;
  return *this;
}

Status SqliteStmt::BindStatus() const {
  if (bind_error_ == 0) return Status::Ok();
  return Status(StatusCode::kInternal, std::string("sqlite bind failed: ") + sqlite3_errstr(bind_error_) +
                                           " in: " + sqlite3_sql(stmt_));
}

Result<bool> SqliteStmt::Step() {
  ATTEST_RETURN_IF_ERROR(BindStatus());
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status s = SqliteError(rc, sqlite3_db_handle(stmt_),
                         std::string("sqlite: ") + sqlite3_errmsg(sqlite3_db_handle(stmt_)) + " (in: " +
                             sqlite3_sql(stmt_) + ")");
  sqlite3_reset(stmt_);
  return s;
}

Status SqliteStmt::Run() {
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

int64_t SqliteStmt::ColumnInt(int col) const { return sqlite3_column_int64(stmt_, col); }

std::string SqliteStmt::ColumnBlob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  if (p == nullptr || n <= 0) return {};
  return std::string(static_cast<const char*>(p), static_cast<size_t>(n));
}

std::string SqliteStmt::ColumnText(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
}

double SqliteStmt::ColumnDouble(int col) const { return sqlite3_column_double(stmt_, col); }

bool SqliteStmt::ColumnIsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const SqliteOpenArgs& args) {
  int flags = SQLITE_OPEN_NOMUTEX;
  if (args.read_only) {
    flags |= SQLITE_OPEN_READONLY;
  } else {
    flags |= SQLITE_OPEN_READWRITE;
    if (args.create) flags |= SQLITE_OPEN_CREATE;
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(args.path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    Status s = SqliteError(rc, raw, "cannot open catalog " + args.path.string() + ": " + msg);
    sqlite3_close(raw);
    if (s.code() == StatusCode::kInternal) return Status::IOError(s.message());
    return s;
  }
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw, args.read_only));
  sqlite3_extended_result_codes(raw, 1);
  if (!args.read_only) {
    // Keep the -wal and -shm files when the last connection closes: a reader opened later finds
    // them and needs no new disk space, so a database stays readable on a full disk (otherwise the
    // reader must create a 32 KiB -shm file, which ENOSPC refuses with "disk I/O error").
    int persist = 1;
    sqlite3_file_control(raw, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
  }
  sqlite3_busy_timeout(raw, args.busy_timeout_ms);
  return db;
}

SqliteDb::~SqliteDb() {
  cache_.clear();  // finalize statements before closing
  sqlite3_close(db_);
}

Status SqliteDb::Exec(std::string_view sql) {
  char* err = nullptr;
  std::string text(sql);
  if (text.find("user_version") != std::string::npos) user_version_read_ = false;  // a migration sets it
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  if (rc == SQLITE_OK) return Status::Ok();
  std::string msg = err ? err : sqlite3_errstr(rc);
  sqlite3_free(err);
  return SqliteError(rc, db_, "sqlite: " + msg + " (in: " + text.substr(0, 120) + ")");
}

Result<int64_t> SqliteDb::UserVersion() {
  if (user_version_read_) return user_version_;
  ATTEST_ASSIGN_OR_RETURN(int64_t v, QueryInt(*this, "PRAGMA user_version", 0));
  user_version_ = v;
  user_version_read_ = true;
  return v;
}

Result<StmtRef> SqliteDb::Prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) {
    it->second->Reset();
    return StmtRef(it->second.get());
  }
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                              &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return SqliteError(rc, db_, std::string("sqlite prepare: ") + sqlite3_errmsg(db_) + " (in: " + sql + ")");
  }
  auto owned = std::make_unique<SqliteStmt>(this, stmt);
  SqliteStmt* p = owned.get();
  cache_.emplace(sql, std::move(owned));
  return StmtRef(p);
}

Status SqliteDb::Error(std::string_view what) const {
  return SqliteError(sqlite3_extended_errcode(db_), db_, std::string(what) + ": " + sqlite3_errmsg(db_));
}

int64_t SqliteDb::changes() const { return sqlite3_changes64(db_); }

Result<int64_t> QueryInt(SqliteDb& db, const std::string& sql, int64_t fallback) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare(sql));
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  return (row && !st->ColumnIsNull(0)) ? st->ColumnInt(0) : fallback;
}

Result<std::unique_ptr<SqliteTransaction>> SqliteTransaction::Begin(SqliteDb& db, bool immediate) {
  ATTEST_RETURN_IF_ERROR(db.Exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN"));
  return std::unique_ptr<SqliteTransaction>(new SqliteTransaction(db));
}

SqliteTransaction::~SqliteTransaction() {
  if (!done_) (void)db_.Exec("ROLLBACK");
}

Status SqliteTransaction::Commit() {
  Status s = db_.Exec("COMMIT");
  if (s.ok()) {
    done_ = true;
    return s;
  }
  // A failed COMMIT may leave the transaction open; the destructor rolls it back.
  return s.WithContext("commit of the catalog transaction failed");
}

}  // namespace attest
