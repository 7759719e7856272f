// Segment merging, compaction and purging (docs/store_format.md, "Merging").
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/checksum.h"
#include "lexical/segment_writer.h"
#include "store/store_impl.h"

namespace attest {

SnapshotVersion StoreImpl::PurgeHorizon() const {
  std::lock_guard<std::mutex> lock(state_mu_);
  SnapshotVersion horizon = state_->version;
  std::optional<SnapshotVersion> oldest = pins_->Oldest();
  if (oldest && *oldest < horizon) horizon = *oldest;
  return horizon;
}

Status StoreImpl::PurgeLocked() {
  SnapshotVersion horizon = PurgeHorizon();
  Catalog cat(*writer_);
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(cat.Purge(horizon).status());
  return txn->Commit();
}

namespace {

// Segments to merge next under the size-tiered policy, or empty when none is due.
std::vector<SegmentId> PickTieredMerge(const StoreState& state, size_t factor) {
  if (factor < 2) return {};
  std::map<int, std::vector<std::pair<uint64_t, SegmentId>>> tiers;
  for (const SegmentView& v : state.views) {
    uint64_t live = v.segment->num_docs() - (v.deleted ? v.deleted->count() : 0);
    int tier = 0;
    for (uint64_t x = std::max<uint64_t>(live, 1); x >= factor; x /= factor) ++tier;
    tiers[tier].emplace_back(live, v.id);
  }
  for (auto& [tier, members] : tiers) {
    if (members.size() < factor) continue;
    std::sort(members.begin(), members.end());
    std::vector<SegmentId> ids;
    for (size_t i = 0; i < factor; ++i) ids.push_back(members[i].second);
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  return {};
}

}  // namespace

Status StoreImpl::MaybeMergeLocked() {
  if (!options_.reindex) return Status::Ok();
  bool merged = false;
  // Each merge removes at least one segment, so this ends; cascades (four tier-0 segments making a
  // fourth tier-1 segment) are handled in the same call.
  for (;;) {
    std::shared_ptr<const StoreState> current = Current();
    const size_t max_segments = std::max<size_t>(1, options_.max_segments);
    const size_t n = current->views.size();
    std::vector<SegmentId> ids;
    if (n > max_segments) {
      // Over the cap: merge the smallest segments, enough to come back to half the cap.
      size_t take = std::max<size_t>(2, n - max_segments / 2);
      std::vector<std::pair<uint64_t, SegmentId>> by_size;
      for (const SegmentView& v : current->views) by_size.emplace_back(v.segment->file_size(), v.id);
      std::sort(by_size.begin(), by_size.end());
      for (size_t i = 0; i < take && i < by_size.size(); ++i) ids.push_back(by_size[i].second);
      std::sort(ids.begin(), ids.end());
    } else {
      ids = PickTieredMerge(*current, options_.merge_factor);
    }
    if (ids.size() < 2) break;
    current.reset();
    ATTEST_RETURN_IF_ERROR(MergeLocked(ids));
    merged = true;
  }
  return merged ? PurgeLocked() : Status::Ok();
}

Status StoreImpl::MergeBulkLocked(SegmentId first, bool all) {
  if (!options_.reindex) return Status::Ok();
  std::shared_ptr<const StoreState> current = Current();
  std::vector<std::pair<uint64_t, SegmentId>> bulk;  // (size, id) of the bulk load's segments
  for (const SegmentView& v : current->views) {
    if (v.id >= first) bulk.emplace_back(v.segment->file_size(), v.id);
  }
  size_t take = bulk.size();
  if (!all) {
    // Over the cap: merge the smallest of the bulk's segments, enough to come back to half the
    // cap. Earlier merges made the larger ones, so each chunk is rewritten about once here.
    const size_t cap = std::max<size_t>(1, options_.max_segments);
    const size_t n = current->views.size();
    take = n > cap / 2 ? std::min(bulk.size(), n - cap / 2 + 1) : 0;
  }
  std::sort(bulk.begin(), bulk.end());
  std::vector<SegmentId> ids;
  for (size_t i = 0; i < take; ++i) ids.push_back(bulk[i].second);
  std::sort(ids.begin(), ids.end());
  current.reset();
  if (ids.size() < 2) return Status::Ok();
  ATTEST_RETURN_IF_ERROR(MergeLocked(ids));
  return PurgeLocked();
}

SegmentId StoreImpl::NextSegmentId() const {
  uint64_t next = 1;
  for (const SegmentView& v : Current()->views) next = std::max(next, v.id.get() + 1);
  return SegmentId(next);
}

Status StoreImpl::FinishBulk(SegmentId first) {
  if (options_.read_only) return Status::InvalidArgument("finish bulk: the store was opened read-only");
  std::lock_guard<std::mutex> lock(commit_mu_);
  ATTEST_RETURN_IF_ERROR(Fault("bulk.finish"));
  ATTEST_RETURN_IF_ERROR(MergeBulkLocked(first, /*all=*/true));
  return MaybeMergeLocked();
}

Status StoreImpl::MergeLocked(const std::vector<SegmentId>& ids) {
  if (!options_.reindex) return Status::Unsupported("merging segments needs StoreOptions::reindex");
  std::shared_ptr<const StoreState> current = Current();
  Catalog cat(*writer_);
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
  if (meta.snapshot_version != current->version.get()) {
    return Status::Internal("merge: catalog is at version " + std::to_string(meta.snapshot_version) +
                            " but the store published " + std::to_string(current->version.get()));
  }
  const SnapshotVersion v = current->version;  // a merge changes no content: same version
  ATTEST_RETURN_IF_ERROR(Fault("merge.begin"));
  const SegmentId new_id(meta.next_segment_id);
  SegmentWriter writer;
  std::vector<DocNum> new_docs;
  // Re-analysis is the cost of a merge: chunks are gathered in runs and re-indexed on
  // `merge_threads` threads, then added to the writer in ChunkId order.
  constexpr size_t kRun = 4096;
  const unsigned threads = std::max(1u, options_.merge_threads);
  std::vector<ChunkRecord> run_chunks;
  std::vector<size_t> run_doc;             // index into run_docs for each chunk
  std::vector<DocumentRecord> run_docs;
  std::vector<IndexedChunk> run_out;
  auto flush = [&]() -> Status {
    run_out.assign(run_chunks.size(), IndexedChunk{});
    auto work = [&](size_t from, size_t step) {
      for (size_t i = from; i < run_chunks.size(); i += step) {
        run_out[i] = options_.reindex(run_chunks[i], run_docs[run_doc[i]]);
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
    work(0, threads);
    for (auto& th : pool) th.join();
    for (size_t i = 0; i < run_chunks.size(); ++i) {
      IndexedChunk& ic = run_out[i];
      const DocumentRecord& doc = run_docs[run_doc[i]];
      ic.id = run_chunks[i].id;
      ApplyDocumentAttributes(doc, &ic.attrs);
      ATTEST_RETURN_IF_ERROR(writer.Add(ic));
      new_docs.push_back(doc.num);
    }
    run_chunks.clear();
    run_doc.clear();
    run_docs.clear();
    return Status::Ok();
  };
  ATTEST_RETURN_IF_ERROR(cat.ForEachLiveChunk(ids, [&](const ChunkRecord& chunk, const DocumentRecord& doc) {
    if (run_docs.empty() || run_docs.back().num != doc.num) run_docs.push_back(doc);
    run_chunks.push_back(chunk);
    run_doc.push_back(run_docs.size() - 1);
    return run_chunks.size() >= kRun ? flush() : Status::Ok();
  }));
  ATTEST_RETURN_IF_ERROR(flush());

  std::filesystem::path path;
  std::shared_ptr<SegmentFile> new_file;
  if (writer.num_chunks() > 0) {
    meta.next_segment_id++;
    std::string image = writer.Serialize();
    path = dir_.segment_path(new_id);
    ATTEST_RETURN_IF_ERROR(Fault("merge.before_segment_write"));
    ATTEST_RETURN_IF_ERROR(WriteFileAtomically(path, image));
    auto cleanup = [&](Status s) {
      ::unlink(path.c_str());
      return s;
    };
    auto opened = SegmentFile::Open(new_id, path, std::move(new_docs));
    if (!opened.ok()) return cleanup(opened.status());
    new_file = std::move(opened).value();
    Status s = cat.InsertSegment(SegmentRow{new_id, DataDir::SegmentFileName(new_id), writer.num_chunks(),
                                            image.size(), new_file->raw().content_crc(), v});
    if (s.ok()) s = cat.MoveLiveChunksAndDrop(ids, new_id, v);
    if (s.ok()) s = cat.WriteMeta(meta);
    if (s.ok()) s = Fault("merge.before_catalog_commit");
    if (s.ok()) {
      s = txn->Commit();
      if (!s.ok()) {
        // As in Commit(): trust the catalog over the error code of an interrupted COMMIT.
        txn.reset();
        auto landed = QueryInt(*writer_, "SELECT count(*) FROM segments WHERE id = " +
                                             std::to_string(new_id.get()) + " AND dropped_snapshot IS NULL", 0);
        if (landed.ok() && *landed == 1) {
          spdlog::warn("store: merge COMMIT reported '{}' but segment {} is registered", s.ToString(), new_id.get());
          s = Status::Ok();
        }
      }
    }
    if (!s.ok()) {
      new_file->MarkObsolete();  // unlinked as `new_file` goes
      return s;
    }
  } else {
    ATTEST_RETURN_IF_ERROR(cat.MoveLiveChunksAndDrop(ids, new_id, v));
    ATTEST_RETURN_IF_ERROR(Fault("merge.before_catalog_commit"));
    ATTEST_RETURN_IF_ERROR(txn->Commit());
  }

  (void)Fault("merge.after_catalog_commit");  // crash tests only: the merge is durable

  // Committed. Mark the merged-away files obsolete before dropping the current state's references,
  // so each is unlinked exactly when its last holder (possibly a pinned snapshot) lets go.
  std::set<SegmentId> merged(ids.begin(), ids.end());
  auto next = std::make_shared<StoreState>();
  next->version = v;
  next->embedder = current->embedder;
  for (const SegmentView& view : current->views) {
    if (merged.count(view.id)) continue;
    next->views.push_back(view);
    next->files[view.id] = current->files.at(view.id);
  }
  if (new_file) {
    next->views.push_back(SegmentView{new_id, new_file->segment(), nullptr});
    next->files[new_id] = new_file;
  }
  std::sort(next->views.begin(), next->views.end(),
            [](const SegmentView& a, const SegmentView& b) { return a.id < b.id; });
  for (SegmentId id : ids) current->files.at(id)->MarkObsolete();
  next->Seal();
  current.reset();
  Publish(std::move(next));
  spdlog::debug("store: merged {} segments into {}", ids.size(), new_file ? new_id.get() : 0);
  return Status::Ok();
}

Status StoreImpl::Compact() {
  if (options_.read_only) return Status::InvalidArgument("compact: the store was opened read-only");
  std::lock_guard<std::mutex> lock(commit_mu_);
  std::shared_ptr<const StoreState> current = Current();
  bool has_tombstones = false;
  std::vector<SegmentId> ids;
  for (const SegmentView& v : current->views) {
    ids.push_back(v.id);
    if (v.deleted && v.deleted->count() > 0) has_tombstones = true;
  }
  current.reset();
  Status merge_status;
  if (ids.size() > 1 || has_tombstones) {
    merge_status = options_.reindex ? MergeLocked(ids)
                                    : Status::Unsupported("compact: merging segments needs StoreOptions::reindex; "
                                                          "only unreferenced rows were purged");
  }
  ATTEST_RETURN_IF_ERROR(PurgeLocked());
  ATTEST_RETURN_IF_ERROR(writer_->Exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  return merge_status;
}

}  // namespace attest
