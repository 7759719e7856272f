// The durable event log of POST /v1/events (service/event_log.h; docs/events.md, "The event log").
#include "service/event_log.h"

#include <map>

#include <sqlite3.h>

#include "store/sqlite_util.h"

namespace attest::service {
namespace {

// Schema version 1. `seq` is AUTOINCREMENT: never reused, so a sequence number names one event
// forever. `documents` holds one row per (tenant, document) ever touched by an event: the
// greatest accepted source version and whether that event was a delete (the tombstone).
constexpr char kSchemaV1[] = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE deliveries(
  connector TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  body_sha256 BLOB NOT NULL,
  pending INTEGER NOT NULL,
  response TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  PRIMARY KEY(connector, webhook_id)) WITHOUT ROWID;
CREATE INDEX deliveries_by_age ON deliveries(received_ms);
CREATE TABLE events(
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tenant TEXT NOT NULL,
  connector TEXT NOT NULL,
  webhook_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  ce_id TEXT NOT NULL,
  ce_source TEXT NOT NULL,
  kind TEXT NOT NULL,
  document_id TEXT NOT NULL,
  version_kind TEXT NOT NULL,
  version_value INTEGER NOT NULL,
  version_text TEXT NOT NULL,
  data TEXT NOT NULL,
  received_ms INTEGER NOT NULL,
  state TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  snapshot INTEGER NOT NULL DEFAULT 0,
  done_ms INTEGER NOT NULL DEFAULT 0);
CREATE INDEX events_queued ON events(seq) WHERE state = 'queued';
CREATE INDEX events_by_document ON events(tenant, document_id, seq);
CREATE TABLE documents(
  tenant TEXT NOT NULL,
  document_id TEXT NOT NULL,
  version_kind TEXT NOT NULL,
  version_value INTEGER NOT NULL,
  version_text TEXT NOT NULL,
  deleted INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY(tenant, document_id)) WITHOUT ROWID;
)sql";

constexpr char kEventColumns[] =
    "seq, tenant, connector, webhook_id, position, ce_id, ce_source, kind, document_id, version_kind, "
    "version_value, version_text, data, received_ms, state, detail, snapshot, done_ms";

EventKind KindOf(const std::string& s) {
  if (s == "delete") return EventKind::kDelete;
  if (s == "acl") return EventKind::kAcl;
  return EventKind::kUpsert;
}

EventState StateOf(const std::string& s) {
  if (s == "applied") return EventState::kApplied;
  if (s == "stale") return EventState::kStale;
  if (s == "failed") return EventState::kFailed;
  return EventState::kQueued;
}

EventRecord ReadEvent(const SqliteStmt& st) {
  EventRecord r;
  r.seq = st.ColumnU64(0);
  r.tenant = st.ColumnText(1);
  r.connector = st.ColumnText(2);
  r.webhook_id = st.ColumnText(3);
  r.position = static_cast<uint32_t>(st.ColumnInt(4));
  r.ce_id = st.ColumnText(5);
  r.ce_source = st.ColumnText(6);
  r.kind = KindOf(st.ColumnText(7));
  r.document_id = st.ColumnText(8);
  r.version.is_time = st.ColumnText(9) == "time";
  r.version.value = st.ColumnInt(10);
  r.version.text = st.ColumnText(11);
  r.data = st.ColumnText(12);
  r.received_ms = st.ColumnInt(13);
  r.state = StateOf(st.ColumnText(14));
  r.detail = st.ColumnText(15);
  r.snapshot = st.ColumnU64(16);
  r.done_ms = st.ColumnInt(17);
  return r;
}

Status EnsureSchema(SqliteDb& db) {
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("PRAGMA journal_mode = WAL"));
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row || st->ColumnText(0) != "wal") return Status::IOError("cannot switch to WAL mode");
  }
  ATTEST_RETURN_IF_ERROR(db.Exec("PRAGMA synchronous = FULL"));
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(db, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(int64_t app_id, QueryInt(db, "PRAGMA application_id", 0));
  ATTEST_ASSIGN_OR_RETURN(int64_t version, QueryInt(db, "PRAGMA user_version", 0));
  if (app_id != 0 && app_id != kEventLogApplicationId) {
    return Status::Corruption("not an attest event log (application_id " + std::to_string(app_id) + ")");
  }
  if (version > kEventLogSchemaVersion) {
    return Status::Unsupported("schema version " + std::to_string(version) + ", newer than this build (" +
                               std::to_string(kEventLogSchemaVersion) + ")");
  }
  if (app_id == 0) {
    ATTEST_ASSIGN_OR_RETURN(int64_t tables, QueryInt(db, "SELECT count(*) FROM sqlite_schema", 0));
    if (version != 0 || tables != 0) return Status::Corruption("not an attest event log (unexpected schema)");
    ATTEST_RETURN_IF_ERROR(db.Exec(kSchemaV1));
    ATTEST_RETURN_IF_ERROR(db.Exec("INSERT INTO meta VALUES('schema_version', '" +
                                   std::to_string(kEventLogSchemaVersion) + "')"));
    ATTEST_RETURN_IF_ERROR(db.Exec("PRAGMA application_id = " + std::to_string(kEventLogApplicationId)));
    ATTEST_RETURN_IF_ERROR(db.Exec("PRAGMA user_version = " + std::to_string(kEventLogSchemaVersion)));
  } else {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("SELECT value FROM meta WHERE key = 'schema_version'"));
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row || st->ColumnText(0) != std::to_string(version)) {
      return Status::Corruption("the meta table's schema_version disagrees with PRAGMA user_version");
    }
  }
  return tx->Commit();
}

struct DocumentVersion {
  bool is_time = false;
  int64_t value = 0;
  bool deleted = false;
};

}  // namespace

const char* EventStateName(EventState s) {
  switch (s) {
    case EventState::kQueued: return "queued";
    case EventState::kApplied: return "applied";
    case EventState::kStale: return "stale";
    case EventState::kFailed: return "failed";
  }
  return "queued";
}

EventLog::EventLog(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
EventLog::~EventLog() = default;

Result<std::unique_ptr<EventLog>> EventLog::Open(const std::filesystem::path& path) {
  SqliteOpenArgs oa;
  oa.path = path;
  oa.create = true;
  auto db = SqliteDb::Open(oa);
  if (!db.ok()) return db.status().WithContext(path.string());
  if (Status s = EnsureSchema(**db); !s.ok()) return s.WithContext(path.string());
  return std::unique_ptr<EventLog>(new EventLog(std::move(db).value()));
}

Result<AppendResult> EventLog::Append(const NewDelivery& d,
                                      const std::function<StoredResponse(const std::vector<EventRecord>&)>& render) {
  MutexLock lock(mu_);
  SqliteDb& db = *db_;
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(db, /*immediate=*/true));
  AppendResult out;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("SELECT body_sha256, pending, response FROM deliveries "
                                                   "WHERE connector = ? AND webhook_id = ?"));
    st->Bind(1, d.connector).Bind(2, d.webhook_id);
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row) {
      if (st->ColumnBlob(0) != d.body_sha256) {
        out.kind = AppendResult::Kind::kConflict;
        return out;
      }
      out.kind = AppendResult::Kind::kReplay;
      out.response.pending = st->ColumnInt(1) != 0;
      out.response.body = st->ColumnText(2);
      return out;
    }
  }
  // The documents' versions as this delivery advances them (an event may follow another of the
  // same document in one batch).
  std::map<std::string, std::optional<DocumentVersion>> versions;
  for (size_t i = 0; i < d.events.size(); ++i) {
    const EventInput& e = d.events[i];
    auto [at, fresh] = versions.try_emplace(e.document_id);
    if (fresh) {
      ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("SELECT version_kind, version_value, deleted FROM documents "
                                                     "WHERE tenant = ? AND document_id = ?"));
      st->Bind(1, d.tenant).Bind(2, e.document_id);
      ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
      if (row) at->second = DocumentVersion{st->ColumnText(0) == "time", st->ColumnInt(1), st->ColumnInt(2) != 0};
    }
    EventRecord r;
    r.tenant = d.tenant;
    r.connector = d.connector;
    r.webhook_id = d.webhook_id;
    r.position = static_cast<uint32_t>(i);
    r.ce_id = e.ce_id;
    r.ce_source = e.source;
    r.kind = e.kind;
    r.document_id = e.document_id;
    r.version = e.version;
    r.data = e.data.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    r.received_ms = d.received_ms;
    r.state = EventState::kQueued;
    std::optional<DocumentVersion>& prev = at->second;
    if (prev && prev->is_time != e.version.is_time) {
      out.kind = AppendResult::Kind::kRejected;
      out.rejected_index = i;
      out.rejected_message = std::string("document '") + e.document_id + "' has " +
                             (prev->is_time ? "time" : "integer") + " source versions; this one is " +
                             e.version.kind() + ": one document's versions must be of one kind";
      return out;  // the transaction rolls back: nothing of the delivery is stored
    }
    if (prev && e.version.value <= prev->value) {
      r.state = EventState::kStale;
      r.done_ms = d.received_ms;
      r.detail = std::string("source_version ") + e.version.text + " is not newer than the document's " +
                 (prev->deleted ? "deletion" : "version") + " already accepted";
    } else {
      const bool deleted = e.kind == EventKind::kDelete || (e.kind == EventKind::kAcl && prev && prev->deleted);
      prev = DocumentVersion{e.version.is_time, e.version.value, deleted};
    }
    ATTEST_ASSIGN_OR_RETURN(
        StmtRef ins, db.Prepare(std::string("INSERT INTO events(") + kEventColumns +
                                ") VALUES(NULL,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,?)"));
    ins->Bind(1, r.tenant).Bind(2, r.connector).Bind(3, r.webhook_id).Bind(4, int64_t(r.position));
    ins->Bind(5, r.ce_id).Bind(6, r.ce_source).Bind(7, std::string_view(EventKindName(r.kind)));
    ins->Bind(8, r.document_id).Bind(9, std::string_view(r.version.kind())).Bind(10, r.version.value);
    ins->Bind(11, r.version.text).Bind(12, r.data).Bind(13, r.received_ms);
    ins->Bind(14, std::string_view(EventStateName(r.state))).Bind(15, r.detail).Bind(16, r.done_ms);
    ATTEST_RETURN_IF_ERROR(ins->Run());
    r.seq = static_cast<uint64_t>(sqlite3_last_insert_rowid(db.raw()));
    if (r.state == EventState::kQueued) {
      ATTEST_ASSIGN_OR_RETURN(
          StmtRef up, db.Prepare("INSERT INTO documents VALUES(?,?,?,?,?,?,?) ON CONFLICT(tenant, document_id) DO "
                                 "UPDATE SET version_kind = excluded.version_kind, version_value = "
                                 "excluded.version_value, version_text = excluded.version_text, deleted = "
                                 "excluded.deleted, seq = excluded.seq"));
      up->Bind(1, r.tenant).Bind(2, r.document_id).Bind(3, std::string_view(r.version.kind()));
      up->Bind(4, r.version.value).Bind(5, r.version.text).Bind(6, int64_t(prev->deleted ? 1 : 0)).Bind(7, r.seq);
      ATTEST_RETURN_IF_ERROR(up->Run());
    }
    out.events.push_back(std::move(r));
  }
  out.response = render(out.events);
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db.Prepare("INSERT INTO deliveries VALUES(?,?,?,?,?,?)"));
    st->Bind(1, d.connector).Bind(2, d.webhook_id).BindBlob(3, d.body_sha256);
    st->Bind(4, int64_t(out.response.pending ? 1 : 0)).Bind(5, out.response.body).Bind(6, d.received_ms);
    ATTEST_RETURN_IF_ERROR(st->Run());
  }
  ATTEST_RETURN_IF_ERROR(tx->Commit());
  return out;
}

Result<std::vector<EventRecord>> EventLog::Queued(size_t limit) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare(std::string("SELECT ") + kEventColumns +
                                                   " FROM events WHERE state = 'queued' ORDER BY seq LIMIT ?"));
  st->Bind(1, static_cast<int64_t>(limit));
  std::vector<EventRecord> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(ReadEvent(*st));
  }
  return out;
}

Status EventLog::Finish(const std::vector<EventOutcome>& outcomes) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  for (const EventOutcome& o : outcomes) {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("UPDATE events SET state = ?, detail = ?, snapshot = ?, "
                                                     "done_ms = ? WHERE seq = ? AND state = 'queued'"));
    st->Bind(1, std::string_view(EventStateName(o.state))).Bind(2, o.detail).Bind(3, o.snapshot);
    st->Bind(4, o.done_ms).Bind(5, o.seq);
    ATTEST_RETURN_IF_ERROR(st->Run());
  }
  return tx->Commit();
}

Status EventLog::NoteRetry(uint64_t seq, const std::string& detail) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("UPDATE events SET detail = ? WHERE seq = ? AND state = 'queued'"));
  st->Bind(1, detail).Bind(2, seq);
  return st->Run();
}

Result<std::optional<EventRecord>> EventLog::Get(uint64_t seq) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st,
                          db_->Prepare(std::string("SELECT ") + kEventColumns + " FROM events WHERE seq = ?"));
  st->Bind(1, seq);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<EventRecord>();
  return std::optional<EventRecord>(ReadEvent(*st));
}

Result<std::optional<std::string>> EventLog::LastAppliedUpsert(const std::string& tenant,
                                                               const std::string& document_id, uint64_t before_seq) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("SELECT data FROM events WHERE tenant = ? AND document_id = ? "
                                                   "AND seq < ? AND kind = 'upsert' AND state = 'applied' "
                                                   "ORDER BY seq DESC LIMIT 1"));
  st->Bind(1, tenant).Bind(2, document_id).Bind(3, before_seq);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(st->ColumnText(0));
}

Result<uint64_t> EventLog::DoneThrough() {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("SELECT (SELECT min(seq) FROM events WHERE state = 'queued'), "
                                                   "(SELECT max(seq) FROM events)"));
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row || st->ColumnIsNull(1)) return uint64_t{0};
  if (!st->ColumnIsNull(0)) return st->ColumnU64(0) - 1;
  return st->ColumnU64(1);
}

Result<uint64_t> EventLog::QueuedCount() {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(int64_t n, QueryInt(*db_, "SELECT count(*) FROM events WHERE state = 'queued'", 0));
  return static_cast<uint64_t>(n);
}

Result<uint64_t> EventLog::Purge(int64_t cutoff_ms) {
  MutexLock lock(mu_);
  ATTEST_ASSIGN_OR_RETURN(auto tx, SqliteTransaction::Begin(*db_, /*immediate=*/true));
  uint64_t deleted = 0;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_->Prepare("DELETE FROM deliveries WHERE received_ms < ?"));
    st->Bind(1, cutoff_ms);
    ATTEST_RETURN_IF_ERROR(st->Run());
    deleted += static_cast<uint64_t>(db_->changes());
  }
  {
    ATTEST_ASSIGN_OR_RETURN(
        StmtRef st,
        db_->Prepare("DELETE FROM events WHERE state != 'queued' AND received_ms < ? AND seq NOT IN ("
                     "SELECT max(seq) FROM events WHERE kind = 'upsert' AND state = 'applied' "
                     "GROUP BY tenant, document_id)"));
    st->Bind(1, cutoff_ms);
    ATTEST_RETURN_IF_ERROR(st->Run());
    deleted += static_cast<uint64_t>(db_->changes());
  }
  ATTEST_RETURN_IF_ERROR(tx->Commit());
  return deleted;
}

}  // namespace attest::service
