// The embedded store: a SQLite catalog (WAL mode) of documents and chunks, plus immutable lexical
// segment files, published as MVCC snapshots.
//
// Commit protocol (docs/store_format.md, "Commit"): the new segment is written to a temporary file,
// fsynced and renamed to its final name; then one SQLite transaction registers the segment, the
// documents, the chunks, the tombstones of replaced/deleted chunks and the new snapshot version.
// The SQLite commit is the commit point: a crash before it leaves an unreferenced segment file that
// the next writer open removes; a crash after it leaves a complete snapshot.
//
// Snapshots: every commit yields version v+1. Pin() returns the latest snapshot; a pinned snapshot
// keeps its segment files and catalog rows readable until released, while later commits land.
// Segments replaced by a merge are unlinked when the last snapshot holding them is released.
//
// Thread-safety: Store is safe for concurrent use. Commits are serialized internally; Pin() and
// reads on pinned snapshots run concurrently with commits. One process at a time may open a data
// directory for writing (an flock on LOCK); read-only opens take no lock.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "lexical/lexical_searcher.h"
#include "store/records.h"

namespace attest {

struct StoreOptions {
  std::filesystem::path dir;
  bool read_only = false;
  bool create_if_missing = true;
  // Size-tiered merging: segments fall in tiers by floor(log_F(live chunks)) with F = merge_factor;
  // when F segments share a tier they are merged into one, so every chunk is rewritten about
  // log_F(n) times over a long ingestion (not once per commit). Values below 2 disable tiering.
  size_t merge_factor = 4;
  // Hard cap: when more than this many segments exist after a commit, the smallest are merged
  // until half the cap remains (values below 1 act as 1).
  size_t max_segments = 32;
  // Re-analyzes a stored chunk for merging and compaction: builds the IndexedChunk of `chunk`
  // (title from `doc.title`, section from `chunk.section_path`, body from `chunk.text`). The store
  // sets the id and the filter attributes itself. When empty, segments are never merged and
  // Compact() only purges rows. Called with the commit mutex held; must not call back into the store.
  std::function<IndexedChunk(const ChunkRecord& chunk, const DocumentRecord& doc)> reindex;
  // Threads that call `reindex` concurrently during a merge (it must then be thread-safe).
  unsigned merge_threads = 1;
  // Tests only: called at named points of a commit, merge or embedder switch ("commit.begin",
  // "commit.before_segment_write", "commit.before_catalog_commit", "bulk.finish", "merge.begin",
  // "merge.before_segment_write", "merge.before_catalog_commit", "embedder.before_catalog_commit");
  // a non-OK Status makes the operation fail there as if the operating system had refused.
  // "commit.after_catalog_commit", "merge.after_catalog_commit" and "embedder.after_catalog_commit"
  // are also called (their Status is ignored: the change is durable) so crash tests can stop there.
  std::function<Status(std::string_view point)> fault_hook;
};

struct DocumentKey {
  std::string tenant;
  std::string id;
};

struct WriteBatch {
  std::vector<PreparedDocument> upserts;
  std::vector<DocumentKey> deletes;
  // Bulk loading: when set, the tiered merge policy is deferred for segments numbered from this id
  // on (the ones this bulk load writes); only past the segment cap are they merged, all into one.
  // FinishBulk() then merges them into one segment: every chunk is re-indexed once per bulk load
  // instead of once per tier it climbs.
  std::optional<SegmentId> bulk_first_segment;
  // The change-log positions this batch brings the store to (docs/store_format.md, "Log
  // positions"): virtual shard -> the last stream sequence applied; 0 forgets the shard's position.
  // Written in the same transaction as the documents; a batch that changes only positions still
  // commits a new snapshot version.
  std::map<uint32_t, uint64_t> log_positions;
};

struct CommitResult {
  SnapshotVersion version;
  uint32_t added = 0;       // documents new to the store
  uint32_t replaced = 0;    // documents whose content changed
  uint32_t unchanged = 0;   // identical re-ingests (no-ops)
  uint32_t deleted = 0;
  uint32_t not_found = 0;   // deletes naming no live document
  uint64_t chunks_added = 0;
};

struct StoreStats {
  SnapshotVersion version;
  uint64_t documents = 0;
  uint64_t chunks = 0;
  uint64_t segments = 0;
  uint64_t segment_bytes = 0;
  uint64_t catalog_bytes = 0;
  uint64_t source_bytes = 0;
};

// A pinned, immutable view of the store at one version.
class Snapshot {
 public:
  virtual ~Snapshot() = default;
  virtual SnapshotVersion version() const = 0;
  virtual const LexicalSearcher& lexical() const = 0;
  // Chunks by id, in the order asked; ids not visible in this snapshot are skipped.
  virtual Result<std::vector<ChunkRecord>> GetChunks(std::span<const ChunkId> ids) const = 0;
  // The document of each chunk, in the order asked, from memory (no catalog read); kNotFound when a
  // chunk is in none of this snapshot's segments.
  virtual Result<std::vector<DocNum>> DocumentsOf(std::span<const ChunkId> ids) const = 0;
  virtual Result<DocumentRecord> GetDocument(DocNum num) const = 0;
  // Chunks per document over this snapshot's segments (from memory; >= 1, an estimate when a
  // document's chunks are not adjacent in their segment).
  virtual double chunks_per_document() const = 0;
  // GetDocument of each number, in the order asked, with one catalog connection and statement;
  // kNotFound (naming the first) when one is not visible in this snapshot.
  virtual Result<std::vector<DocumentRecord>> GetDocuments(std::span<const DocNum> nums) const = 0;
  // The chunks of document `num` visible in this snapshot, in ordinal order.
  virtual Result<std::vector<ChunkRecord>> ChunksOfDocument(DocNum num) const = 0;
  // The live document with this key in this snapshot.
  virtual Result<DocumentRecord> FindDocument(const DocumentKey& key) const = 0;
  // One page of a tenant's live documents in this snapshot, in id order (records.h); a row that
  // fails its checksum comes without its record.
  virtual Result<DocumentPage> ListDocuments(const DocumentListQuery& query) const = 0;
  virtual Result<StoreStats> Stats() const = 0;
  // When this snapshot was committed (Unix milliseconds): the "as of" time of answers read from it.
  virtual Result<int64_t> CommittedAtUnixMs() const = 0;
  // When snapshot `v` (at or before this one) was committed: a document version's "fetched at"
  // is the commit of DocumentRecord::created (docs/answer.md, "Freshness").
  virtual Result<int64_t> VersionCommittedAtUnixMs(SnapshotVersion v) const = 0;
  // The embedders whose vectors this snapshot's vector leg uses, by tenant (docs/store_format.md,
  // "embedders"): each tenant's chunks are embedded by its own model. A tenant without one has no
  // vector leg yet.
  virtual const std::map<std::string, EmbedderRecord>& embedders() const = 0;
  // The embedder of `tenant` at this snapshot, or null.
  const EmbedderRecord* embedder(const std::string& tenant) const {
    auto it = embedders().find(tenant);
    return it == embedders().end() ? nullptr : &it->second;
  }
  // The change-log positions this snapshot holds (WriteBatch::log_positions): virtual shard -> the
  // last stream sequence applied. Empty for a store that never applied the log.
  virtual const std::map<uint32_t, uint64_t>& log_positions() const = 0;
  // Every live document's key in this snapshot, in (tenant, id) order.
  virtual Result<std::vector<DocumentKey>> LiveDocumentKeys() const = 0;
  // The segments of this snapshot with their deletions (the lexical searcher's views).
  const std::vector<SegmentView>& segments() const { return lexical().segments(); }
};

class Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);
  virtual ~Store() = default;

  virtual std::shared_ptr<const Snapshot> Pin() const = 0;
  // Atomically applies the batch; returns the new snapshot version (unchanged when nothing changed).
  // Deletes apply before upserts (so a batch can delete a key and add it again); when several
  // upserts name the same key, the last one wins and the earlier ones are ignored (not counted).
  // The filter attributes of each IndexedChunk (tenant, ACL, access label, source type, site,
  // version, date) are overwritten from its document's record, which is their single source of truth.
  // Each tenant's chunks go to segments of their own (merges never mix tenants), so what one tenant
  // stores never changes another tenant's segments, statistics or vector indexes.
  // Fails with kInvalidArgument for a malformed batch (empty id or sha256, chunks/indexed size
  // mismatch) and on a read-only store; on any failure nothing is applied.
  virtual Result<CommitResult> Commit(WriteBatch batch) = 0;
  // Merges all segments into one, dropping deleted chunks and purging unreferenced rows.
  virtual Status Compact() = 0;
  // Ends a bulk load begun with WriteBatch::bulk_first_segment: merges the segments numbered from
  // `first` on into one, then applies the normal merge policy.
  virtual Status FinishBulk(SegmentId first) = 0;
  // An id at or below that of every segment written from now on and above every current one (the
  // start of a bulk load).
  virtual SegmentId NextSegmentId() const = 0;
  // Commits a snapshot that switches the vector leg of `record.tenant` to `record` (its `activated`
  // is set here). The caller has written the vector files of that tenant's live segments beforehand.
  virtual Result<SnapshotVersion> ActivateEmbedder(EmbedderRecord record) = 0;
  // The data directory (vector files and models live beside the catalog).
  virtual const std::filesystem::path& dir() const = 0;
};

}  // namespace attest
