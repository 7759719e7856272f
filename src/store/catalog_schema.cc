// The catalog's schema: creation, the version check of readers, and the upgrades a writer applies
// to catalogs written by older versions (docs/store_format.md, "Catalog" and "Upgrades").
#include <spdlog/spdlog.h>

#include "store/catalog.h"

namespace attest {
namespace {

// Schema version 8 (1 lacked the embedders table, 2 documents.feed, 3 documents.access_label and
// embedders.tenant, 4 the row checksums, 5 chunks.spans, 6 documents.license and documents.fetched_at,
// 7 the log_positions table; see the MigrateFrom functions). Run once on an empty database.
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
  deleted_snapshot INTEGER,
  checksum         INTEGER,
  license          TEXT NOT NULL DEFAULT '',
  fetched_at       INTEGER
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
  deleted_snapshot INTEGER,
  checksum         INTEGER,
  spans            BLOB
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
CREATE TABLE log_positions(
  vshard             INTEGER PRIMARY KEY,
  sequence           INTEGER NOT NULL,
  committed_snapshot INTEGER NOT NULL
);
INSERT INTO meta(key, value) VALUES
  ('schema_version', 8), ('next_chunk_id', 1), ('next_doc_num', 1), ('next_segment_id', 1),
  ('snapshot_version', 0);
INSERT INTO snapshots(version, committed_at_unix_ms, note) VALUES (0, 0, 'created');
)sql";

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
  if (uv <= 3) ATTEST_RETURN_IF_ERROR(MigrateFrom3());
  if (uv <= 4) ATTEST_RETURN_IF_ERROR(MigrateFrom4());
  if (uv <= 5) ATTEST_RETURN_IF_ERROR(MigrateFrom5());
  if (uv <= 6) ATTEST_RETURN_IF_ERROR(MigrateFrom6());
  if (uv <= 7) return MigrateFrom7();
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

Status Catalog::MigrateFrom4() {
  // Every existing row gets its checksum as it stands now: the upgrade trusts the catalog it finds
  // (docs/store_format.md, "Row checksums"). One transaction: a crash leaves schema 4, redone.
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
ALTER TABLE documents ADD COLUMN checksum INTEGER;
ALTER TABLE chunks ADD COLUMN checksum INTEGER;)sql"));
  ATTEST_ASSIGN_OR_RETURN(uint64_t rows, BackfillChecksums());
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
UPDATE meta SET value = 5 WHERE key = 'schema_version';
PRAGMA user_version = 5;)sql"));
  schema_ = 0;
  ATTEST_RETURN_IF_ERROR(txn->Commit());
  spdlog::info("catalog: upgraded to schema 5: checksums of {} rows recorded", rows);
  return Status::Ok();
}

Status Catalog::MigrateFrom5() {
  // Old rows get no spans (NULL) and keep their checksums: the checksum covers spans only when a
  // row has them (docs/store_format.md, "Chunk spans"). Re-ingesting a document records its spans.
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
ALTER TABLE chunks ADD COLUMN spans BLOB;
UPDATE meta SET value = 6 WHERE key = 'schema_version';
PRAGMA user_version = 6;)sql"));
  schema_ = 0;
  ATTEST_RETURN_IF_ERROR(txn->Commit());
  spdlog::info("catalog: upgraded to schema 6: chunks can record their structure (spans)");
  return Status::Ok();
}

Status Catalog::MigrateFrom6() {
  // Old rows get no licence ('') and no fetch time (NULL: the commit time stands for it) and keep
  // their checksums: the checksum covers each only when set (docs/store_format.md, "Provenance").
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
ALTER TABLE documents ADD COLUMN license TEXT NOT NULL DEFAULT '';
ALTER TABLE documents ADD COLUMN fetched_at INTEGER;
UPDATE meta SET value = 7 WHERE key = 'schema_version';
PRAGMA user_version = 7;)sql"));
  schema_ = 0;
  ATTEST_RETURN_IF_ERROR(txn->Commit());
  spdlog::info("catalog: upgraded to schema 7: documents can record their licence and fetch time");
  return Status::Ok();
}

Status Catalog::MigrateFrom7() {
  // No shard node has applied the change log to an older catalog: the table starts empty.
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(db_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(db_.Exec(R"sql(
CREATE TABLE IF NOT EXISTS log_positions(
  vshard             INTEGER PRIMARY KEY,
  sequence           INTEGER NOT NULL,
  committed_snapshot INTEGER NOT NULL
);
UPDATE meta SET value = 8 WHERE key = 'schema_version';
PRAGMA user_version = 8;)sql"));
  schema_ = 0;
  ATTEST_RETURN_IF_ERROR(txn->Commit());
  spdlog::info("catalog: upgraded to schema 8: the store can record its change-log positions");
  return Status::Ok();
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

}  // namespace attest
