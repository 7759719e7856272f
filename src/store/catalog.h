// The SQLite catalog: schema, versioning and every SQL statement of the store
// (docs/store_format.md, "Catalog"). Schema and upgrades: catalog_schema.cc.
//
// Integrity: from schema 5 every documents and chunks row carries a checksum of its content
// (store/row_checksum.h), written with the row; every read of a row checks it and fails with
// kCorruption naming the document when the row was changed behind the store's back. Readers of a
// catalog no writer has upgraded yet (schema 4 and older) read without the check.
//
// Structure: from schema 6 a chunks row may carry its spans (chunks.spans, store/span_codec.h);
// NULL = none (rows of older schemas, documents without markup). A row's checksum covers the spans
// blob only when there is one, so rows written before schema 6 keep their checksums. A blob that
// does not decode is kCorruption naming the chunk.
//
// Provenance: from schema 7 a documents row carries its licence (documents.license, "" = none) and
// when its text was fetched (documents.fetched_at, Unix ms, NULL = the commit time). A row's
// checksum covers each only when set, so rows written before schema 7 keep their checksums.
//
// Log positions: from schema 8 the log_positions table holds, per virtual shard, the last
// change-log sequence the store applied (docs/cluster.md), written in the transaction of the
// documents it brought; only the current positions are kept (a snapshot carries its own in memory).
//
// Visibility rule: a row with created_snapshot c and deleted_snapshot d (NULL = never) is visible at
// snapshot version v when c <= v AND (d IS NULL OR d > v).
//
// Thread-safety: a Catalog is a view over one SqliteDb and has that connection's contract: one
// thread at a time. The store uses one Catalog on the writer connection (under its commit mutex) and
// short-lived Catalogs over pooled read connections.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attest/status.h"
#include "common/strong_id.h"
#include "store/records.h"
#include "store/sqlite_util.h"

namespace attest {

inline constexpr int kCatalogSchemaVersion = 8;

// Counters kept in the meta table.
struct CatalogMeta {
  uint64_t next_chunk_id = 1;
  uint64_t next_doc_num = 1;
  uint64_t next_segment_id = 1;
  uint64_t snapshot_version = 0;
};

struct SegmentRow {
  SegmentId id;
  std::string file;  // file name inside segments/
  uint64_t num_docs = 0;
  uint64_t bytes = 0;
  uint32_t crc = 0;  // CRC-32C of the whole file
  SnapshotVersion created;
};

struct LiveDocRef {
  DocNum num;
  std::string sha256;
};

struct ChunkLocation {
  ChunkId id;
  SegmentId segment;
};

struct CatalogCounts {
  uint64_t documents = 0;
  uint64_t chunks = 0;
  uint64_t source_bytes = 0;
};

class Catalog {
 public:
  explicit Catalog(SqliteDb& db) : db_(db) {}

  // Writer: creates the schema in an empty database, or checks the version of an existing one.
  Status InitializeOrCheck();
  // Readers: checks the schema version only.
  Status CheckSchema();

  Result<CatalogMeta> ReadMeta();
  Status WriteMeta(const CatalogMeta& meta);
  Status InsertSnapshot(SnapshotVersion v, std::string_view note);

  // --- writer: commit ---
  Result<std::optional<LiveDocRef>> FindLive(std::string_view tenant, std::string_view id);
  // Live chunks of a document (deleted_snapshot IS NULL).
  Result<std::vector<ChunkLocation>> LiveChunksOfDoc(DocNum doc);
  // Sets deleted_snapshot on the document and its live chunks.
  Status MarkDocumentDeleted(DocNum doc, SnapshotVersion v);
  Status InsertDocument(const DocumentRecord& rec, SnapshotVersion created);
  Status InsertChunk(const ChunkRecord& chunk, SegmentId segment, SnapshotVersion created);
  Status InsertSegment(const SegmentRow& row);
  // Records `rec` as active from rec.activated on.
  Status InsertEmbedder(const EmbedderRecord& rec);
  // The embedder of each tenant active at `v` (per tenant, the latest activated at or before it).
  // Rows of schema 3 and older name no tenant: they are history and never active.
  Result<std::map<std::string, EmbedderRecord>> ActiveEmbedders(SnapshotVersion v);

  // Sets the position of each shard (committed at `v`); a sequence of 0 deletes the shard's row.
  Status WriteLogPositions(const std::map<uint32_t, uint64_t>& positions, SnapshotVersion v);

  // --- writer: open, merge, purge ---
  Result<std::vector<SegmentRow>> LiveSegments();
  // Deleted chunks that still sit in live segments (the tombstones to load).
  Result<std::vector<ChunkLocation>> TombstonesInLiveSegments();
  // Calls `fn` for each live chunk of `segments`, in ChunkId order, with its document.
  Status ForEachLiveChunk(std::span<const SegmentId> segments,
                          const std::function<Status(const ChunkRecord&, const DocumentRecord&)>& fn);
  // Points the live chunks of `from` whose document belongs to `tenant` at `to`.
  Status MoveLiveChunksOfTenant(std::span<const SegmentId> from, std::string_view tenant, SegmentId to);
  // Marks `ids` dropped at `v`; fails with kInternal when a live chunk still points at one of them.
  Status DropSegments(std::span<const SegmentId> ids, SnapshotVersion v);
  // Forgets rows no snapshot at or after `horizon` can see: deletes deleted chunks (deleted_snapshot
  // <= horizon) outside live segments, clears the text of those inside live segments (their rows
  // remain as tombstones), and deletes dropped segment rows nothing references any more.
  // Document rows are kept as history. Returns the number of chunk rows deleted or cleared.
  Result<uint64_t> Purge(SnapshotVersion horizon);

  // --- readers (any version) ---
  Result<std::optional<ChunkRecord>> GetChunk(ChunkId id, SnapshotVersion v);
  // GetChunk of each id through one prepared statement; ids not visible at `v` are skipped.
  Result<std::vector<ChunkRecord>> GetChunks(std::span<const ChunkId> ids, SnapshotVersion v);
  // The chunks of document `num` visible at `v`, in ordinal order.
  Result<std::vector<ChunkRecord>> ChunksOfDocument(DocNum num, SnapshotVersion v);
  // (chunk id, document) of every chunk row placed in `segment`, deleted ones included.
  Result<std::vector<std::pair<ChunkId, DocNum>>> ChunkDocumentsOfSegment(SegmentId segment);
  Result<std::optional<DocumentRecord>> GetDocument(DocNum num, SnapshotVersion v);
  // GetDocument of each number through one prepared statement, in the order asked (nullopt where
  // the document is not visible at `v`).
  Result<std::vector<std::optional<DocumentRecord>>> GetDocuments(std::span<const DocNum> nums, SnapshotVersion v);
  Result<std::optional<DocumentRecord>> FindDocument(std::string_view tenant, std::string_view id,
                                                     SnapshotVersion v);
  Result<CatalogCounts> Counts(SnapshotVersion v);
  // One page of `q.tenant`'s documents visible at `v` (catalog_listing.cc). A row that fails its
  // checksum is listed without its record (its error instead), never served.
  Result<DocumentPage> ListDocuments(const DocumentListQuery& q, SnapshotVersion v);
  // The current change-log positions (empty before schema 8).
  Result<std::map<uint32_t, uint64_t>> LogPositions();
  // (tenant, id) of every document visible at `v`, in that order.
  Result<std::vector<std::pair<std::string, std::string>>> LiveKeys(SnapshotVersion v);
  // When snapshot `v` was committed (Unix milliseconds); kNotFound for an unknown version.
  Result<int64_t> CommittedAt(SnapshotVersion v);

  // The SQL condition "visible at the snapshot bound to ?param" (created at or before it, not deleted
  // at or before it).
  static std::string VisibleAt(int param);

 private:
  Status CreateSchema();
  Status MigrateFrom1();
  Status MigrateFrom2();
  Status MigrateFrom3();
  Status MigrateFrom4();
  Status MigrateFrom5();
  Status MigrateFrom6();
  Status MigrateFrom7();
  // Records the checksum of every documents and chunks row as it stands; returns the rows done.
  Result<uint64_t> BackfillChecksums();
  int Schema();              // PRAGMA user_version, read on first use
  std::string DocColumns();  // the document columns this catalog's schema has (checksum last)
  std::string ChunkColumns();  // likewise for chunks
  // "document 'id' of tenant 't' (#num)", for errors about a row of document `num`.
  std::string DocumentName(DocNum num);
  // A documents row (DocColumns from column `c`) or a chunks row (ChunkColumns): kCorruption naming
  // the document when, from schema 5, the row fails its checksum or has none.
  Result<DocumentRecord> ReadDocumentRow(const SqliteStmt& st, int c);
  Result<ChunkRecord> ReadChunkRow(const SqliteStmt& st, int c);
  SqliteDb& db_;
  int schema_ = 0;           // PRAGMA user_version, read on first use
};

}  // namespace attest
