#include "store/catalog.h"

#include <chrono>

#include <nlohmann/json.hpp>

namespace attest {
namespace {

// Schema version 4 (1 lacked the embedders table, 2 documents.feed, 3 documents.access_label and
// embedders.tenant; see the MigrateFrom functions). Run once on an empty database.
constexpr const char* kSchemaSql = R"sql(
CREATE TABLE meta(
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE snapshots(
  version              INTEGER PRIMARY KEY,
  committed_at_unix_ms INTEGER NOT NULL,
  note                 TEXT NOT NULL
);
CREATE TABLE documents(
  num              INTEGER PRIMARY KEY,
  tenant           TEXT NOT NULL,
  id               TEXT NOT NULL,
  url              TEXT NOT NULL,
  title            TEXT NOT NULL,
  site             TEXT NOT NULL,
  published        INTEGER,
  updated          INTEGER,
  version          TEXT NOT NULL,
  source_type      TEXT NOT NULL,
  language         TEXT NOT NULL,
  acl_json         TEXT NOT NULL,
  feed             TEXT NOT NULL DEFAULT '',
  access_label     TEXT NOT NULL DEFAULT '',
  sha256           TEXT NOT NULL,
  bytes            INTEGER NOT NULL,
  chunk_count      INTEGER NOT NULL,
  created_snapshot INTEGER NOT NULL,
  deleted_snapshot INTEGER
);
CREATE UNIQUE INDEX documents_live_key ON documents(tenant, id) WHERE deleted_snapshot IS NULL;
CREATE INDEX documents_key ON documents(tenant, id, created_snapshot);
CREATE TABLE segments(
  id               INTEGER PRIMARY KEY,
  file             TEXT NOT NULL,
  num_docs         INTEGER NOT NULL,
  bytes            INTEGER NOT NULL,
  crc              INTEGER NOT NULL,
  created_snapshot INTEGER NOT NULL,
  dropped_snapshot INTEGER
);
CREATE TABLE chunks(
  id               INTEGER PRIMARY KEY,
  doc_num          INTEGER NOT NULL REFERENCES documents(num),
  ordinal          INTEGER NOT NULL,
  section_path     TEXT NOT NULL,
  text             TEXT,
  segment_id       INTEGER NOT NULL REFERENCES segments(id) DEFERRABLE INITIALLY DEFERRED,
  created_snapshot INTEGER NOT NULL,
  deleted_snapshot INTEGER
);
CREATE INDEX chunks_by_doc ON chunks(doc_num);
CREATE TABLE embedders(
  activated_snapshot INTEGER PRIMARY KEY,
  key                TEXT NOT NULL,
  name               TEXT NOT NULL,
  dim                INTEGER NOT NULL,
  version            TEXT NOT NULL,
  model_file         TEXT NOT NULL,
  config_json        TEXT NOT NULL,
  trained_chunks     INTEGER NOT NULL,
  tenant             TEXT
);
CREATE INDEX chunks_by_segment ON chunks(segment_id);
CREATE INDEX embedders_by_tenant ON embedders(tenant, activated_snapshot);
INSERT INTO meta(key, value) VALUES
  ('schema_version', 4), ('next_chunk_id', 1), ('next_doc_num', 1), ('next_segment_id', 1),
  ('snapshot_version', 0);
INSERT INTO snapshots(version, committed_at_unix_ms, note) VALUES (0, 0, 'created');
)sql";

constexpr const char* kDocColumns =
    "num, tenant, id, url, title, site, published, updated, version, source_type, language, acl_json, "
    "sha256, bytes, chunk_count, created_snapshot, ";

constexpr const char* kVisible = "created_snapshot <= ?%1 AND (deleted_snapshot IS NULL OR deleted_snapshot > ?%1)";

std::string Visible(int param) {
  std::string s = kVisible;
  std::string p = "?" + std::to_string(param);
  for (size_t pos; (pos = s.find("?%1")) != std::string::npos;) s.replace(pos, 3, p);
  return s;
}

// Reads the kDocColumns starting at column `c`.
Result<DocumentRecord> ReadDocument(const SqliteStmt& st, int c) {
  DocumentRecord d;
  d.num = DocNum(st.ColumnU64(c + 0));
  d.tenant = st.ColumnText(c + 1);
  d.id = st.ColumnText(c + 2);
  d.url = st.ColumnText(c + 3);
  d.title = st.ColumnText(c + 4);
  d.site = st.ColumnText(c + 5);
  if (!st.ColumnIsNull(c + 6)) d.published = static_cast<DayNumber>(st.ColumnInt(c + 6));
  if (!st.ColumnIsNull(c + 7)) d.updated = static_cast<DayNumber>(st.ColumnInt(c + 7));
  d.version = st.ColumnText(c + 8);
  d.source_type = st.ColumnText(c + 9);
  d.language = st.ColumnText(c + 10);
  std::string acl = st.ColumnText(c + 11);
  nlohmann::json j = nlohmann::json::parse(acl, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) {
    return Status::Corruption("catalog: document " + std::to_string(d.num.get()) + " has a malformed acl_json");
  }
  for (const auto& g : j) {
    if (!g.is_string()) {
      return Status::Corruption("catalog: document " + std::to_string(d.num.get()) +
                                " has a non-string ACL group");
    }
    d.acl_groups.push_back(g.get<std::string>());
  }
  d.sha256 = st.ColumnText(c + 12);
  d.bytes = st.ColumnU64(c + 13);
  d.chunk_count = static_cast<uint32_t>(st.ColumnU64(c + 14));
  d.created = SnapshotVersion(st.ColumnU64(c + 15));
  d.feed = st.ColumnText(c + 16);
  d.access_label = st.ColumnText(c + 17);
  return d;
}

ChunkRecord ReadChunk(const SqliteStmt& st, int c) {
  ChunkRecord r;
  r.id = ChunkId(st.ColumnU64(c + 0));
  r.doc = DocNum(st.ColumnU64(c + 1));
  r.ordinal = static_cast<uint32_t>(st.ColumnU64(c + 2));
  r.section_path = st.ColumnText(c + 3);
  r.text = st.ColumnText(c + 4);
  return r;
}

std::string JsonIds(std::span<const SegmentId> ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(ids[i].get());
  }
  return s + "]";
}

}  // namespace

Status Catalog::CreateSchema() {
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(kSchemaSql));
  ATTEST_RETURN_IF_ERROR(db_.Exec("PRAGMA user_version = " + std::to_string(kCatalogSchemaVersion)));
  return txn->Commit();
}

Status Catalog::InitializeOrCheck() {
  ATTEST_ASSIGN_OR_RETURN(int64_t tables, QueryInt(db_, "SELECT count(*) FROM sqlite_master", 0));
  if (tables == 0) return CreateSchema();
  ATTEST_RETURN_IF_ERROR(CheckSchema());
  ATTEST_ASSIGN_OR_RETURN(int64_t uv, QueryInt(db_, "PRAGMA user_version", 0));
  if (uv == 1) ATTEST_RETURN_IF_ERROR(MigrateFrom1());
  if (uv <= 2) ATTEST_RETURN_IF_ERROR(MigrateFrom2());
  if (uv <= 3) return MigrateFrom3();
  return Status::Ok();
}

Status Catalog::MigrateFrom3() {
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
ALTER TABLE documents ADD COLUMN access_label TEXT NOT NULL DEFAULT '';
ALTER TABLE embedders ADD COLUMN tenant TEXT;
CREATE INDEX embedders_by_tenant ON embedders(tenant, activated_snapshot);
UPDATE meta SET value = 4 WHERE key = 'schema_version';
PRAGMA user_version = 4;)sql"));
  schema_ = 0;
  return txn->Commit();
}

Status Catalog::MigrateFrom1() {
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
CREATE TABLE embedders(
  activated_snapshot INTEGER PRIMARY KEY,
  key                TEXT NOT NULL,
  name               TEXT NOT NULL,
  dim                INTEGER NOT NULL,
  version            TEXT NOT NULL,
  model_file         TEXT NOT NULL,
  config_json        TEXT NOT NULL,
  trained_chunks     INTEGER NOT NULL
);
UPDATE meta SET value = 2 WHERE key = 'schema_version';
PRAGMA user_version = 2;)sql"));
  return txn->Commit();
}

Status Catalog::MigrateFrom2() {
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
ALTER TABLE documents ADD COLUMN feed TEXT NOT NULL DEFAULT '';
UPDATE meta SET value = 3 WHERE key = 'schema_version';
PRAGMA user_version = 3;)sql"));
  return txn->Commit();
}

Status Catalog::InsertEmbedder(const EmbedderRecord& rec) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(
      "INSERT INTO embedders(activated_snapshot, key, name, dim, version, model_file, config_json, trained_chunks, "
      "tenant) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  st->Bind(1, rec.activated.get()).Bind(2, std::string_view(rec.key)).Bind(3, std::string_view(rec.name));
  st->Bind(4, uint64_t{rec.dim}).Bind(5, std::string_view(rec.version)).Bind(6, std::string_view(rec.model_file));
  st->Bind(7, std::string_view(rec.config_json)).Bind(8, rec.trained_chunks).Bind(9, std::string_view(rec.tenant));
  return st->Run();
}

Result<std::map<std::string, EmbedderRecord>> Catalog::ActiveEmbedders(SnapshotVersion v) {
  std::map<std::string, EmbedderRecord> out;
  // A catalog a writer has not migrated yet (opened read-only) has no per-tenant embedders.
  ATTEST_ASSIGN_OR_RETURN(int64_t uv, QueryInt(db_, "PRAGMA user_version", 0));
  if (uv < 4) return out;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(
      "SELECT e.activated_snapshot, e.key, e.name, e.dim, e.version, e.model_file, e.config_json, e.trained_chunks, "
      "e.tenant FROM embedders e WHERE e.tenant IS NOT NULL AND e.activated_snapshot = "
      "(SELECT max(x.activated_snapshot) FROM embedders x WHERE x.tenant = e.tenant AND x.activated_snapshot <= ?1)"));
  st->Bind(1, v.get());
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    EmbedderRecord r;
    r.activated = SnapshotVersion(st->ColumnU64(0));
    r.key = st->ColumnText(1);
    r.name = st->ColumnText(2);
    r.dim = static_cast<uint32_t>(st->ColumnU64(3));
    r.version = st->ColumnText(4);
    r.model_file = st->ColumnText(5);
    r.config_json = st->ColumnText(6);
    r.trained_chunks = st->ColumnU64(7);
    r.tenant = st->ColumnText(8);
    if (r.key.empty() || r.dim == 0 || r.dim > 65536) {
      return Status::Corruption("catalog: embedder activated at snapshot " + std::to_string(r.activated.get()) +
                                " has an empty key or a dimension of " + std::to_string(r.dim));
    }
    out[r.tenant] = std::move(r);
  }
  return out;
}

Status Catalog::CheckSchema() {
  ATTEST_ASSIGN_OR_RETURN(int64_t uv, QueryInt(db_, "PRAGMA user_version", 0));
  if (uv == 0) {
    return Status::Corruption("catalog has no schema version (PRAGMA user_version = 0): not an attest catalog");
  }
  if (uv > kCatalogSchemaVersion) {
    return Status::Unsupported("catalog schema version " + std::to_string(uv) + " is newer than this build (" +
                               std::to_string(kCatalogSchemaVersion) + ")");
  }
  auto sv = QueryInt(db_, "SELECT value FROM meta WHERE key = 'schema_version'", -1);
  if (!sv.ok()) return sv.status().WithContext("catalog meta table unreadable");
  if (*sv != uv) {
    return Status::Corruption("catalog schema version mismatch: user_version " + std::to_string(uv) +
                              ", meta.schema_version " + std::to_string(*sv));
  }
  return Status::Ok();
}

Result<CatalogMeta> Catalog::ReadMeta() {
  CatalogMeta m;
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT key, value FROM meta"));
  int seen = 0;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    std::string key = st->ColumnText(0);
    uint64_t v = st->ColumnU64(1);
    if (key == "next_chunk_id") {
      m.next_chunk_id = v, ++seen;
    } else if (key == "next_doc_num") {
      m.next_doc_num = v, ++seen;
    } else if (key == "next_segment_id") {
      m.next_segment_id = v, ++seen;
    } else if (key == "snapshot_version") {
      m.snapshot_version = v, ++seen;
    }
  }
  if (seen != 4) return Status::Corruption("catalog meta table is missing counters");
  return m;
}

Status Catalog::WriteMeta(const CatalogMeta& m) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE meta SET value = ?2 WHERE key = ?1"));
  const std::pair<const char*, uint64_t> kv[] = {{"next_chunk_id", m.next_chunk_id},
                                                 {"next_doc_num", m.next_doc_num},
                                                 {"next_segment_id", m.next_segment_id},
                                                 {"snapshot_version", m.snapshot_version}};
  for (const auto& [k, v] : kv) {
    st->Reset();
    st->Bind(1, std::string_view(k)).Bind(2, v);
    ATTEST_RETURN_IF_ERROR(st->Run());
    if (db_.changes() != 1) return Status::Corruption(std::string("catalog meta key missing: ") + k);
  }
  return Status::Ok();
}

Status Catalog::InsertSnapshot(SnapshotVersion v, std::string_view note) {
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::system_clock::now().time_since_epoch())
                    .count();
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("INSERT INTO snapshots(version, committed_at_unix_ms, note) "
                                                  "VALUES (?1, ?2, ?3)"));
  st->Bind(1, v.get()).Bind(2, now).Bind(3, note);
  return st->Run();
}

Result<std::optional<LiveDocRef>> Catalog::FindLive(std::string_view tenant, std::string_view id) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT num, sha256 FROM documents "
                                                  "WHERE tenant = ?1 AND id = ?2 AND deleted_snapshot IS NULL"));
  st->Bind(1, tenant).Bind(2, id);
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<LiveDocRef>();
  return std::optional<LiveDocRef>(LiveDocRef{DocNum(st->ColumnU64(0)), st->ColumnText(1)});
}

Result<std::vector<ChunkLocation>> Catalog::LiveChunksOfDoc(DocNum doc) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, segment_id FROM chunks "
                                                  "WHERE doc_num = ?1 AND deleted_snapshot IS NULL ORDER BY id"));
  st->Bind(1, doc.get());
  std::vector<ChunkLocation> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back({ChunkId(st->ColumnU64(0)), SegmentId(st->ColumnU64(1))});
  }
  return out;
}

Status Catalog::MarkDocumentDeleted(DocNum doc, SnapshotVersion v) {
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE documents SET deleted_snapshot = ?2 "
                                                    "WHERE num = ?1 AND deleted_snapshot IS NULL"));
    st->Bind(1, doc.get()).Bind(2, v.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
    if (db_.changes() != 1) {
      return Status::Internal("document " + std::to_string(doc.get()) + " was not live when deleting it");
    }
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE chunks SET deleted_snapshot = ?2 "
                                                  "WHERE doc_num = ?1 AND deleted_snapshot IS NULL"));
  st->Bind(1, doc.get()).Bind(2, v.get());
  return st->Run();
}

Status Catalog::InsertDocument(const DocumentRecord& d, SnapshotVersion created) {
  nlohmann::json acl = nlohmann::json::array();
  for (const auto& g : d.acl_groups) acl.push_back(g);
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st,
      db_.Prepare("INSERT INTO documents(num, tenant, id, url, title, site, published, updated, version, "
                  "source_type, language, acl_json, sha256, bytes, chunk_count, created_snapshot, feed, access_label) "
                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"));
  st->Bind(1, d.num.get()).Bind(2, d.tenant).Bind(3, d.id).Bind(4, d.url).Bind(5, d.title).Bind(6, d.site);
  st->Bind(7, d.published).Bind(8, d.updated).Bind(9, d.version).Bind(10, d.source_type).Bind(11, d.language);
  std::string acl_text = acl.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  st->Bind(12, acl_text).Bind(13, d.sha256).Bind(14, d.bytes);
  st->Bind(15, static_cast<int64_t>(d.chunk_count)).Bind(16, created.get()).Bind(17, d.feed);
  st->Bind(18, d.access_label);
  return st->Run();
}

Status Catalog::InsertChunk(const ChunkRecord& c, SegmentId segment, SnapshotVersion created) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("INSERT INTO chunks(id, doc_num, ordinal, section_path, text, "
                                                  "segment_id, created_snapshot) "
                                                  "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  st->Bind(1, c.id.get()).Bind(2, c.doc.get()).Bind(3, static_cast<int64_t>(c.ordinal));
  st->Bind(4, c.section_path).Bind(5, c.text).Bind(6, segment.get()).Bind(7, created.get());
  return st->Run();
}

Status Catalog::InsertSegment(const SegmentRow& r) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("INSERT INTO segments(id, file, num_docs, bytes, crc, "
                                                  "created_snapshot) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"));
  st->Bind(1, r.id.get()).Bind(2, r.file).Bind(3, r.num_docs).Bind(4, r.bytes);
  st->Bind(5, static_cast<int64_t>(r.crc)).Bind(6, r.created.get());
  return st->Run();
}

Result<std::vector<SegmentRow>> Catalog::LiveSegments() {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, file, num_docs, bytes, crc, created_snapshot "
                                                  "FROM segments WHERE dropped_snapshot IS NULL ORDER BY id"));
  std::vector<SegmentRow> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    SegmentRow r;
    r.id = SegmentId(st->ColumnU64(0));
    r.file = st->ColumnText(1);
    r.num_docs = st->ColumnU64(2);
    r.bytes = st->ColumnU64(3);
    r.crc = static_cast<uint32_t>(st->ColumnU64(4));
    r.created = SnapshotVersion(st->ColumnU64(5));
    out.push_back(std::move(r));
  }
  return out;
}

Result<std::vector<ChunkLocation>> Catalog::TombstonesInLiveSegments() {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare("SELECT c.id, c.segment_id FROM chunks c JOIN segments s ON s.id = c.segment_id "
                              "WHERE s.dropped_snapshot IS NULL AND c.deleted_snapshot IS NOT NULL "
                              "ORDER BY c.segment_id, c.id"));
  std::vector<ChunkLocation> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back({ChunkId(st->ColumnU64(0)), SegmentId(st->ColumnU64(1))});
  }
  return out;
}

Status Catalog::ForEachLiveChunk(std::span<const SegmentId> segments,
                                 const std::function<Status(const ChunkRecord&, const DocumentRecord&)>& fn) {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare(std::string("SELECT c.id, c.doc_num, c.ordinal, c.section_path, c.text, ") +
                              "d.num, d.tenant, d.id, d.url, d.title, d.site, d.published, d.updated, d.version, "
                              "d.source_type, d.language, d.acl_json, d.sha256, d.bytes, d.chunk_count, "
                              "d.created_snapshot, d.feed, d.access_label FROM chunks c JOIN documents d ON d.num = c.doc_num "
                              "WHERE c.segment_id IN (SELECT value FROM json_each(?1)) "
                              "AND c.deleted_snapshot IS NULL ORDER BY c.id"));
  st->Bind(1, JsonIds(segments));
  std::optional<DocumentRecord> doc;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    ChunkRecord c = ReadChunk(*st, 0);
    if (!doc || doc->num != c.doc) {
      ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocument(*st, 5));
      doc = std::move(d);
    }
    ATTEST_RETURN_IF_ERROR(fn(c, *doc));
  }
  return Status::Ok();
}

Status Catalog::MoveLiveChunksOfTenant(std::span<const SegmentId> from, std::string_view tenant, SegmentId to) {
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare("UPDATE chunks SET segment_id = ?2 WHERE segment_id IN (SELECT value FROM json_each(?1)) "
                              "AND deleted_snapshot IS NULL AND doc_num IN (SELECT num FROM documents WHERE tenant = ?3)"));
  st->Bind(1, JsonIds(from)).Bind(2, to.get()).Bind(3, tenant);
  return st->Run();
}

Status Catalog::DropSegments(std::span<const SegmentId> ids, SnapshotVersion v) {
  const std::string json = JsonIds(ids);
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*) FROM chunks WHERE segment_id IN "
                                                    "(SELECT value FROM json_each(?1)) AND deleted_snapshot IS NULL"));
    st->Bind(1, json);
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row && st->ColumnU64(0) != 0) {
      return Status::Internal("merge: " + std::to_string(st->ColumnU64(0)) + " live chunks were not moved out of "
                              "the merged segments");
    }
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE segments SET dropped_snapshot = ?2 WHERE id IN "
                                                  "(SELECT value FROM json_each(?1)) AND dropped_snapshot IS NULL"));
  st->Bind(1, json).Bind(2, v.get());
  ATTEST_RETURN_IF_ERROR(st->Run());
  if (static_cast<size_t>(db_.changes()) != ids.size()) {
    return Status::Internal("merge: some merged segments were not live");
  }
  return Status::Ok();
}

Result<uint64_t> Catalog::Purge(SnapshotVersion horizon) {
  uint64_t n = 0;
  {
    ATTEST_ASSIGN_OR_RETURN(
        StmtRef st, db_.Prepare("DELETE FROM chunks WHERE deleted_snapshot IS NOT NULL AND deleted_snapshot <= ?1 "
                                "AND segment_id NOT IN (SELECT id FROM segments WHERE dropped_snapshot IS NULL)"));
    st->Bind(1, horizon.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
    n += static_cast<uint64_t>(db_.changes());
  }
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("UPDATE chunks SET text = NULL WHERE deleted_snapshot IS NOT "
                                                    "NULL AND deleted_snapshot <= ?1 AND text IS NOT NULL"));
    st->Bind(1, horizon.get());
    ATTEST_RETURN_IF_ERROR(st->Run());
    n += static_cast<uint64_t>(db_.changes());
  }
  ATTEST_ASSIGN_OR_RETURN(
      StmtRef st, db_.Prepare("DELETE FROM segments WHERE dropped_snapshot IS NOT NULL AND dropped_snapshot <= ?1 "
                              "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.segment_id = segments.id)"));
  st->Bind(1, horizon.get());
  ATTEST_RETURN_IF_ERROR(st->Run());
  return n;
}

Result<std::vector<std::pair<ChunkId, DocNum>>> Catalog::ChunkDocumentsOfSegment(SegmentId segment) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, doc_num FROM chunks WHERE segment_id = ?1 ORDER BY id"));
  st->Bind(1, segment.get());
  std::vector<std::pair<ChunkId, DocNum>> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.emplace_back(ChunkId(st->ColumnU64(0)), DocNum(st->ColumnU64(1)));
  }
  return out;
}

Result<std::optional<ChunkRecord>> Catalog::GetChunk(ChunkId id, SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, doc_num, ordinal, section_path, text FROM chunks "
                                                  "WHERE id = ?1 AND text IS NOT NULL AND " + Visible(2)));
  st->Bind(1, id.get()).Bind(2, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<ChunkRecord>();
  return std::optional<ChunkRecord>(ReadChunk(*st, 0));
}

Result<std::vector<ChunkRecord>> Catalog::ChunksOfDocument(DocNum num, SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT id, doc_num, ordinal, section_path, text FROM chunks "
                                                  "WHERE doc_num = ?1 AND text IS NOT NULL AND " + Visible(2) +
                                                  " ORDER BY ordinal"));
  st->Bind(1, num.get()).Bind(2, v.get());
  std::vector<ChunkRecord> out;
  while (true) {
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(ReadChunk(*st, 0));
  }
  return out;
}

std::string Catalog::DocColumns() {
  // A reader may open a catalog a writer has not migrated yet: version 2 had no `feed` column,
  // version 3 no `access_label`.
  if (schema_ == 0) {
    auto uv = QueryInt(db_, "PRAGMA user_version", kCatalogSchemaVersion);
    schema_ = uv.ok() ? static_cast<int>(*uv) : kCatalogSchemaVersion;
  }
  return std::string(kDocColumns) + (schema_ >= 3 ? "feed" : "'' AS feed") +
         (schema_ >= 4 ? ", access_label" : ", '' AS access_label");
}

Result<std::optional<DocumentRecord>> Catalog::GetDocument(DocNum num, SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(std::string("SELECT ") + DocColumns() +
                                                  " FROM documents WHERE num = ?1 AND " + Visible(2)));
  st->Bind(1, num.get()).Bind(2, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<DocumentRecord>();
  ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocument(*st, 0));
  return std::optional<DocumentRecord>(std::move(d));
}

Result<std::optional<DocumentRecord>> Catalog::FindDocument(std::string_view tenant, std::string_view id,
                                                            SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare(std::string("SELECT ") + DocColumns() +
                                                  " FROM documents WHERE tenant = ?1 AND id = ?2 AND " + Visible(3) +
                                                  " ORDER BY created_snapshot DESC LIMIT 1"));
  st->Bind(1, tenant).Bind(2, id).Bind(3, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<DocumentRecord>();
  ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, ReadDocument(*st, 0));
  return std::optional<DocumentRecord>(std::move(d));
}

Result<int64_t> Catalog::CommittedAt(SnapshotVersion v) {
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT committed_at_unix_ms FROM snapshots WHERE version = ?1"));
  st->Bind(1, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return Status::NotFound("snapshot " + std::to_string(v.get()) + " is not in the catalog");
  return static_cast<int64_t>(st->ColumnU64(0));
}

Result<CatalogCounts> Catalog::Counts(SnapshotVersion v) {
  CatalogCounts c;
  {
    ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*), coalesce(sum(bytes), 0) FROM documents "
                                                    "WHERE " + Visible(1)));
    st->Bind(1, v.get());
    ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row) c.documents = st->ColumnU64(0), c.source_bytes = st->ColumnU64(1);
  }
  ATTEST_ASSIGN_OR_RETURN(StmtRef st, db_.Prepare("SELECT count(*) FROM chunks WHERE " + Visible(1)));
  st->Bind(1, v.get());
  ATTEST_ASSIGN_OR_RETURN(bool row, st->Step());
  if (row) c.chunks = st->ColumnU64(0);
  return c;
}

}  // namespace attest
