// The conversations database's schema, its migrations and its integrity check
// (docs/store_format.md, "conversations.db").
#include "service/conversation_schema.h"

#include <spdlog/spdlog.h>

#include "service/conversation_store.h"

namespace attest::service {
namespace {

// Schema version 1 (docs/store_format.md, "conversations.db"). Rowid tables with AUTOINCREMENT:
// `seq` orders rows by insertion exactly (two rows of one millisecond included) and is never
// reused, so "the oldest" is always well defined.
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE threads(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  user TEXT NOT NULL,
  answer_tenant TEXT NOT NULL,
  title TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  turns INTEGER NOT NULL DEFAULT 0);
CREATE INDEX threads_by_owner ON threads(tenant, user, seq);
CREATE INDEX threads_by_activity ON threads(updated_ms);
CREATE TABLE answers(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  answer_id TEXT NOT NULL UNIQUE,
  tenant TEXT NOT NULL,
  user TEXT NOT NULL,
  answer_tenant TEXT NOT NULL,
  thread_id TEXT,
  turn INTEGER,
  question TEXT NOT NULL,
  cache_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  summary TEXT NOT NULL);
CREATE UNIQUE INDEX answers_by_turn ON answers(thread_id, turn) WHERE thread_id IS NOT NULL;
CREATE INDEX answers_recent ON answers(tenant, seq) WHERE thread_id IS NULL;
CREATE INDEX answers_by_age ON answers(created_ms) WHERE thread_id IS NULL;
CREATE TABLE feedback(
  feedback_id TEXT PRIMARY KEY NOT NULL,
  answer_id TEXT NOT NULL,
  claim_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  tenant TEXT NOT NULL,
  user TEXT NOT NULL,
  kind TEXT NOT NULL,
  comment TEXT NOT NULL,
  request_id TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  UNIQUE(answer_id, claim_id, tenant, user));
CREATE INDEX feedback_by_age ON feedback(created_ms);
CREATE TABLE usage(
  tenant TEXT NOT NULL,
  user TEXT NOT NULL,
  kind TEXT NOT NULL,
  used INTEGER NOT NULL,
  PRIMARY KEY(tenant, user, kind)) WITHOUT ROWID;
CREATE TRIGGER threads_counted AFTER INSERT ON threads BEGIN
  INSERT OR IGNORE INTO usage VALUES (NEW.tenant, NEW.user, 'threads', 0), (NEW.tenant, '', 'tenant_threads', 0);
  UPDATE usage SET used = used + 1 WHERE tenant = NEW.tenant AND user = NEW.user AND kind = 'threads';
  UPDATE usage SET used = used + 1 WHERE tenant = NEW.tenant AND user = '' AND kind = 'tenant_threads';
END;
CREATE TRIGGER threads_uncounted AFTER DELETE ON threads BEGIN
  UPDATE usage SET used = used - 1 WHERE tenant = OLD.tenant AND user = OLD.user AND kind = 'threads';
  UPDATE usage SET used = used - 1 WHERE tenant = OLD.tenant AND user = '' AND kind = 'tenant_threads';
  DELETE FROM usage WHERE tenant = OLD.tenant AND user IN (OLD.user, '') AND used <= 0;
  DELETE FROM answers WHERE thread_id = OLD.thread_id;
END;
CREATE TRIGGER answers_counted AFTER INSERT ON answers WHEN NEW.thread_id IS NULL BEGIN
  INSERT OR IGNORE INTO usage VALUES (NEW.tenant, '', 'tenant_answers', 0);
  UPDATE usage SET used = used + 1 WHERE tenant = NEW.tenant AND user = '' AND kind = 'tenant_answers';
END;
CREATE TRIGGER answers_uncounted AFTER DELETE ON answers WHEN OLD.thread_id IS NULL BEGIN
  UPDATE usage SET used = used - 1 WHERE tenant = OLD.tenant AND user = '' AND kind = 'tenant_answers';
  DELETE FROM usage WHERE tenant = OLD.tenant AND user = '' AND kind = 'tenant_answers' AND used <= 0;
END;
CREATE TRIGGER feedback_counted AFTER INSERT ON feedback BEGIN
  INSERT OR IGNORE INTO usage VALUES (NEW.tenant, NEW.user, 'feedback', 0), (NEW.tenant, '', 'tenant_feedback', 0);
  UPDATE usage SET used = used + 1 WHERE tenant = NEW.tenant AND user = NEW.user AND kind = 'feedback';
  UPDATE usage SET used = used + 1 WHERE tenant = NEW.tenant AND user = '' AND kind = 'tenant_feedback';
END;
CREATE TRIGGER feedback_uncounted AFTER DELETE ON feedback BEGIN
  UPDATE usage SET used = used - 1 WHERE tenant = OLD.tenant AND user = OLD.user AND kind = 'feedback';
  UPDATE usage SET used = used - 1 WHERE tenant = OLD.tenant AND user = '' AND kind = 'tenant_feedback';
  DELETE FROM usage WHERE tenant = OLD.tenant AND user IN (OLD.user, '') AND used <= 0;
END;
)sql";

// Migrations, in order: applying every step whose `to` is above the file's user_version brings it
// to kConversationSchemaVersion. A new version appends a step (ALTER TABLE / CREATE ...), never
// edits an old one.
struct Migration {
  int64_t to;
  const char* sql;
};
constexpr Migration kMigrations[] = {{1, kSchemaV1}};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kConversationSchemaVersion);

}  // namespace

Status EnsureConversationSchema(SqliteDb& db, const std::string& where) {
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("PRAGMA journal_mode = WAL"));
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row || st->ColumnText(0) != "wal") return Status::IOError("cannot switch to WAL mode");
  }
  ATTEST_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL"));
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(db, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(int64_t app_id, QueryInt(db, "PRAGMA application_id", 0));
  ATTEST_ASSIGN_OR_RETURN(int64_t version, QueryInt(db, "PRAGMA user_version", 0));
  if (app_id != 0 && app_id != kConversationApplicationId) {
    return Status::Corruption("not an attest conversations database (application_id " +
                              std::to_string(app_id) + ")");
  }
  if (version > kConversationSchemaVersion) {
    return Status::Unsupported("schema version " + std::to_string(version) +
                               ", newer than this build (" + std::to_string(kConversationSchemaVersion) + ")");
  }
  if (app_id == 0) {
    ATTEST_ASSIGN_OR_RETURN(int64_t tables, QueryInt(db, "SELECT count(*) FROM sqlite_schema", 0));
    if (version != 0 || tables != 0) {
      return Status::Corruption("not an attest conversations database (unexpected schema)");
    }
  }
  if (version == kConversationSchemaVersion) return tx->Commit();
  for (const Migration& m : kMigrations) {
    if (m.to <= version) continue;
    Status s = db.Exec(m.sql);
    if (!s.ok()) return s.WithContext("migration to schema version " + std::to_string(m.to));
    if (m.to > 1) spdlog::info("{}: migrated to schema version {}", where, m.to);
  }
  ATTEST_RETURN_IF_ERROR(db.Exec("PRAGMA application_id = " + std::to_string(kConversationApplicationId)));
  ATTEST_RETURN_IF_ERROR(db.Exec("PRAGMA user_version = " + std::to_string(kConversationSchemaVersion)));
  return tx->Commit();
}

Status QuickCheckConversations(SqliteDb& db) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("PRAGMA quick_check"));
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  const std::string first = row ? st->ColumnText(0) : "no result";
  if (first != "ok") return Status::Corruption("integrity check failed: " + first);
  return Status::Ok();
}

}  // namespace attest::service
