// The Store implementation: open/recovery, commit, merge, compaction and snapshot publication.
// Files: store_impl.cc (open, pin, publish), store_commit.cc (Commit), store_merge.cc (merge,
// compaction, purge).
//
// Thread-safety: Commit() and Compact() serialize on commit_mu_, which guards the writer
// connection. state_mu_ guards the current state pointer and makes "read the state + register a
// pin" atomic against the purge horizon computation. Lock order: commit_mu_ before state_mu_.
// Pin() takes only state_mu_ and so never waits for a commit.
#pragma once

#include <memory>
#include <vector>

#include "common/file_util.h"
#include "common/thread_annotations.h"
#include "store/catalog.h"
#include "store/connection_pool.h"
#include "store/data_dir.h"
#include "store/pin_registry.h"
#include "store/sqlite_util.h"
#include "store/store.h"
#include "store/store_state.h"

namespace attest {

class StoreImpl final : public Store {
 public:
  static Result<std::unique_ptr<Store>> OpenImpl(const StoreOptions& options);
  ~StoreImpl() override;

  std::shared_ptr<const Snapshot> Pin() const override;
  Result<CommitResult> Commit(WriteBatch batch) override;
  Status Compact() override;
  Status FinishBulk(SegmentId first) override;
  SegmentId NextSegmentId() const override;
  Result<SnapshotVersion> ActivateEmbedder(EmbedderRecord record) override;
  const std::filesystem::path& dir() const override { return options_.dir; }

 private:
  explicit StoreImpl(const StoreOptions& options);

  // --- open (store_impl.cc) ---
  // Runs inside Open, before any other thread can reach the store: writer_ is not locked there.
  Status OpenWriter() NO_THREAD_SAFETY_ANALYSIS;
  Status OpenReader();
  Status ConfigureWriterConnection() REQUIRES(commit_mu_);
  // Reads live segments and tombstones from `cat` and builds the initial state.
  Status LoadState(Catalog& cat, SnapshotVersion version);

  std::shared_ptr<const StoreState> Current() const;
  void Publish(std::shared_ptr<const StoreState> next);
  Status Fault(std::string_view point) const;

  // --- commit (store_commit.cc) ---
  Result<CommitResult> CommitLocked(WriteBatch& batch) REQUIRES(commit_mu_);

  // --- merge (store_merge.cc); all require commit_mu_ ---
  Status MaybeMergeLocked() REQUIRES(commit_mu_);
  // The most segments any one tenant has (the cap applies per tenant).
  size_t MaxSegmentsOfATenant() const;
  // Merges the smallest segments of every tenant over the cap, nothing else (no tiered merges).
  Status MergeOverCapLocked() REQUIRES(commit_mu_);
  // Merges segments numbered `first` or above (a bulk load's): all of them into one, or, when
  // `all` is false, the smallest ones, enough to come back to half the segment cap.
  Status MergeBulkLocked(SegmentId first, bool all) REQUIRES(commit_mu_);
  // Rebuilds `ids` into one segment per tenant of their live chunks (none when nothing is live).
  Status MergeLocked(const std::vector<SegmentId>& ids) REQUIRES(commit_mu_);
  // Inside the caller's catalog transaction: re-indexes the live chunks of `ids` into new segment
  // files (one per tenant), registers them, moves the chunk rows and drops `ids` at `v`. The new
  // files are unlinked when the returned handles go unless the caller commits and keeps them.
  Result<std::vector<std::shared_ptr<SegmentFile>>> RebuildLocked(Catalog& cat, const std::vector<SegmentId>& ids,
                                                                 CatalogMeta& meta, SnapshotVersion v)
      REQUIRES(commit_mu_);
  // Writer open: rewrites segments of an older format (version 1: no access labels or visibility
  // classes) from the catalog's text, one segment per tenant (docs/store_format.md, "Migration").
  Status MigrateOldSegments(Catalog& cat) REQUIRES(commit_mu_);
  // Purges catalog rows no pinned or current snapshot can see.
  Status PurgeLocked() REQUIRES(commit_mu_);
  SnapshotVersion PurgeHorizon() const;

  const StoreOptions options_;
  const DataDir dir_;
  std::unique_ptr<FileLock> lock_;  // writer only

  Mutex commit_mu_;
  std::unique_ptr<SqliteDb> writer_ GUARDED_BY(commit_mu_);  // null when read-only

  mutable Mutex state_mu_;
  std::shared_ptr<const StoreState> state_ GUARDED_BY(state_mu_);

  std::shared_ptr<ConnectionPool> pool_;
  std::shared_ptr<PinRegistry> pins_;
};

// Sets the filter attributes of a chunk from its document (the record is their source of truth).
void ApplyDocumentAttributes(const DocumentRecord& doc, ChunkAttributes* attrs);

}  // namespace attest
