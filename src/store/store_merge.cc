// Segment merging, compaction and purging (docs/store_format.md, "Merging").
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include <spdlog/spdlog.h>

#include "common/checksum.h"
#include "lexical/segment_impl.h"
#include "lexical/segment_writer.h"
#include "store/access_attributes.h"
#include "store/store_impl.h"

namespace attest {

SnapshotVersion StoreImpl::PurgeHorizon() const {
  MutexLock lock(state_mu_);
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

// The tenant whose chunks a segment holds; segments the store writes hold one tenant. A segment
// with several (written by a version that did not partition) gets a key of its own that sorts
// first, so that the policies below split it.
std::string TenantKey(const Segment& seg) {
  const SegmentImpl& impl = seg.impl();
  if (impl.num_values(AttrFamily::kTenant) == 1) return std::string(impl.value(AttrFamily::kTenant, 0));
  if (impl.num_docs() == 0) return std::string();
  return std::string("\x01mixed:") + std::to_string(impl.num_values(AttrFamily::kTenant));
}

bool IsMixed(const std::string& key) { return !key.empty() && key[0] == '\x01'; }

// The views of `state` grouped by tenant (ordered by tenant, each group in segment id order).
std::map<std::string, std::vector<const SegmentView*>> ByTenant(const StoreState& state) {
  std::map<std::string, std::vector<const SegmentView*>> out;
  for (const SegmentView& v : state.views) out[TenantKey(*v.segment)].push_back(&v);
  return out;
}

// Segments of one tenant to merge next under the size-tiered policy, or empty when none is due.
std::vector<SegmentId> PickTieredMerge(const std::vector<const SegmentView*>& views, size_t factor) {
  if (factor < 2) return {};
  std::map<int, std::vector<std::pair<uint64_t, SegmentId>>> tiers;
  for (const SegmentView* v : views) {
    uint64_t live = v->segment->num_docs() - (v->deleted ? v->deleted->count() : 0);
    int tier = 0;
    for (uint64_t x = std::max<uint64_t>(live, 1); x >= factor; x /= factor) ++tier;
    tiers[tier].emplace_back(live, v->id);
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

// Over the cap: the smallest segments of one tenant, enough to come back to half the cap.
std::vector<SegmentId> PickOverCap(const std::vector<const SegmentView*>& views, size_t cap) {
  const size_t n = views.size();
  if (n <= cap) return {};
  const size_t take = std::max<size_t>(2, n - cap / 2);
  std::vector<std::pair<uint64_t, SegmentId>> by_size;
  for (const SegmentView* v : views) by_size.emplace_back(v->segment->file_size(), v->id);
  std::sort(by_size.begin(), by_size.end());
  std::vector<SegmentId> ids;
  for (size_t i = 0; i < take && i < by_size.size(); ++i) ids.push_back(by_size[i].second);
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

size_t StoreImpl::MaxSegmentsOfATenant() const {
  size_t most = 0;
  for (const auto& [tenant, views] : ByTenant(*Current())) most = std::max(most, views.size());
  return most;
}

Status StoreImpl::MergeOverCapLocked() {
  if (!options_.reindex) return Status::Ok();
  const size_t cap = std::max<size_t>(1, options_.max_segments);
  bool merged = false;
  for (;;) {
    std::vector<SegmentId> ids;
    {
      std::shared_ptr<const StoreState> current = Current();
      for (const auto& [tenant, views] : ByTenant(*current)) {
        ids = PickOverCap(views, cap);
        if (!ids.empty()) break;
      }
    }
    if (ids.empty()) break;
    ATTEST_RETURN_IF_ERROR(MergeLocked(ids));
    merged = true;
  }
  return merged ? PurgeLocked() : Status::Ok();
}

Status StoreImpl::MaybeMergeLocked() {
  if (!options_.reindex) return Status::Ok();
  bool merged = false;
  // Each merge removes at least one segment, so this ends; cascades (four tier-0 segments making a
  // fourth tier-1 segment) are handled in the same call. Policies apply per tenant: a tenant's
  // segment layout depends on its own writes only.
  for (;;) {
    std::shared_ptr<const StoreState> current = Current();
    const size_t cap = std::max<size_t>(1, options_.max_segments);
    std::vector<SegmentId> ids;
    for (const auto& [tenant, views] : ByTenant(*current)) {
      if (IsMixed(tenant)) {
        for (const SegmentView* v : views) ids.push_back(v->id);  // split by tenant
      } else {
        ids = PickOverCap(views, cap);
        if (ids.empty()) ids = PickTieredMerge(views, options_.merge_factor);
      }
      if (!ids.empty() && (ids.size() >= 2 || IsMixed(tenant))) break;
      ids.clear();
    }
    if (ids.empty()) break;
    current.reset();
    ATTEST_RETURN_IF_ERROR(MergeLocked(ids));
    merged = true;
  }
  return merged ? PurgeLocked() : Status::Ok();
}

Status StoreImpl::MergeBulkLocked(SegmentId first, bool all) {
  if (!options_.reindex) return Status::Ok();
  std::shared_ptr<const StoreState> current = Current();
  const size_t cap = std::max<size_t>(1, options_.max_segments);
  std::vector<std::vector<SegmentId>> merges;
  for (const auto& [tenant, views] : ByTenant(*current)) {
    std::vector<std::pair<uint64_t, SegmentId>> bulk;  // (size, id) of the bulk load's segments
    for (const SegmentView* v : views) {
      if (v->id >= first) bulk.emplace_back(v->segment->file_size(), v->id);
    }
    size_t take = bulk.size();
    if (!all) {
      // Over the cap: merge the smallest of the bulk's segments, enough to come back to half the
      // cap. Earlier merges made the larger ones, so each chunk is rewritten about once here.
      const size_t n = views.size();
      take = n > cap ? std::min(bulk.size(), n - cap / 2 + 1) : 0;
    }
    std::sort(bulk.begin(), bulk.end());
    std::vector<SegmentId> ids;
    for (size_t i = 0; i < take; ++i) ids.push_back(bulk[i].second);
    std::sort(ids.begin(), ids.end());
    if (ids.size() >= 2) merges.push_back(std::move(ids));
  }
  current.reset();
  if (merges.empty()) return Status::Ok();
  for (const auto& ids : merges) ATTEST_RETURN_IF_ERROR(MergeLocked(ids));
  return PurgeLocked();
}

SegmentId StoreImpl::NextSegmentId() const {
  uint64_t next = 1;
  for (const SegmentView& v : Current()->views) next = std::max(next, v.id.get() + 1);
  return SegmentId(next);
}

Status StoreImpl::FinishBulk(SegmentId first) {
  if (options_.read_only) return Status::InvalidArgument("finish bulk: the store was opened read-only");
  MutexLock lock(commit_mu_);
  ATTEST_RETURN_IF_ERROR(Fault("bulk.finish"));
  ATTEST_RETURN_IF_ERROR(MergeBulkLocked(first, /*all=*/true));
  return MaybeMergeLocked();
}

Result<std::vector<std::shared_ptr<SegmentFile>>> StoreImpl::RebuildLocked(Catalog& cat, const std::vector<SegmentId>& ids,
                                                                         CatalogMeta& meta, SnapshotVersion v) {
  if (!options_.reindex) return Status::Unsupported("merging segments needs StoreOptions::reindex");
  // One new segment per tenant among the chunks (segments never mix tenants).
  struct Output {
    SegmentWriter writer;
    std::vector<DocNum> docs;
  };
  std::map<std::string, Output> outputs;
  // Re-analysis is the cost of a merge: chunks are gathered in runs and re-indexed on
  // `merge_threads` threads, then added to the writers in ChunkId order.
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
      ic.doc = doc.num.get();
      ApplyDocumentAttributes(doc, &ic.attrs);
      Output& out = outputs[doc.tenant];
      ATTEST_RETURN_IF_ERROR(out.writer.Add(ic));
      out.docs.push_back(doc.num);
    }
    run_chunks.clear();
    run_doc.clear();
    run_docs.clear();
    return Status::Ok();
  };
  // The new segment takes its access attributes from the row: a row edited behind the store's back
  // must not be copied over the segment's copy (store/access_attributes.h). Not while the store
  // opens and upgrades segments of an older format (no state yet; those are rebuilt from the rows).
  const std::shared_ptr<const StoreState> state = Current();
  ATTEST_RETURN_IF_ERROR(cat.ForEachLiveChunk(ids, [&](const ChunkRecord& chunk, const DocumentRecord& doc) {
    if (state) ATTEST_RETURN_IF_ERROR(CheckAccessAttributes(state->views, doc, std::span<const ChunkId>(&chunk.id, 1)));
    if (run_docs.empty() || run_docs.back().num != doc.num) run_docs.push_back(doc);
    run_chunks.push_back(chunk);
    run_doc.push_back(run_docs.size() - 1);
    return run_chunks.size() >= kRun ? flush() : Status::Ok();
  }));
  ATTEST_RETURN_IF_ERROR(flush());

  std::vector<std::shared_ptr<SegmentFile>> files;
  auto fail = [&](Status s) {
    for (auto& f : files) f->MarkObsolete();  // unlinked as `files` goes
    return s;
  };
  for (auto& [tenant, out] : outputs) {
    const SegmentId new_id(meta.next_segment_id++);
    std::string image = out.writer.Serialize();
    const std::filesystem::path path = dir_.segment_path(new_id);
    Status s = Fault("merge.before_segment_write");
    if (!s.ok()) return fail(s);
    s = WriteFileAtomically(path, image);
    if (!s.ok()) {
      ::unlink(path.c_str());
      return fail(s);
    }
    auto opened = SegmentFile::Open(new_id, path, std::move(out.docs));
    if (!opened.ok()) {
      ::unlink(path.c_str());
      return fail(opened.status());
    }
    files.push_back(std::move(opened).value());
    s = cat.InsertSegment(SegmentRow{new_id, DataDir::SegmentFileName(new_id), out.writer.num_chunks(), image.size(),
                                     files.back()->raw().content_crc(), v});
    if (s.ok()) s = cat.MoveLiveChunksOfTenant(ids, tenant, new_id);
    if (!s.ok()) return fail(s);
  }
  Status s = cat.DropSegments(ids, v);
  if (!s.ok()) return fail(s);
  return files;
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
  ATTEST_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<SegmentFile>> new_files, RebuildLocked(cat, ids, meta, v));
  auto abandon = [&](Status s) {
    for (auto& f : new_files) f->MarkObsolete();  // unlinked as `new_files` goes
    return s;
  };
  Status s = cat.WriteMeta(meta);
  if (s.ok()) s = Fault("merge.before_catalog_commit");
  if (!s.ok()) return abandon(s);
  s = txn->Commit();
  if (!s.ok()) {
    // As in Commit(): trust the catalog over the error code of an interrupted COMMIT.
    txn.reset();
    auto landed = QueryInt(*writer_, "SELECT count(*) FROM segments WHERE id = " + std::to_string(ids.front().get()) +
                                         " AND dropped_snapshot IS NULL", 1);
    if (landed.ok() && *landed == 0) {
      spdlog::warn("store: merge COMMIT reported '{}' but segment {} is dropped", s.ToString(), ids.front().get());
      s = Status::Ok();
    }
  }
  if (!s.ok()) return abandon(s);

  (void)Fault("merge.after_catalog_commit");  // crash tests only: the merge is durable

  // Committed. Mark the merged-away files obsolete before dropping the current state's references,
  // so each is unlinked exactly when its last holder (possibly a pinned snapshot) lets go.
  std::set<SegmentId> merged(ids.begin(), ids.end());
  auto next = std::make_shared<StoreState>();
  next->version = v;
  next->embedders = current->embedders;
  next->log_positions = current->log_positions;
  for (const SegmentView& view : current->views) {
    if (merged.count(view.id)) continue;
    next->views.push_back(view);
    next->files[view.id] = current->files.at(view.id);
  }
  for (const auto& file : new_files) {
    next->views.push_back(SegmentView{file->id(), file->segment(), nullptr});
    next->files[file->id()] = file;
  }
  std::sort(next->views.begin(), next->views.end(),
            [](const SegmentView& a, const SegmentView& b) { return a.id < b.id; });
  for (SegmentId id : ids) current->files.at(id)->MarkObsolete();
  next->Seal();
  current.reset();
  Publish(std::move(next));
  spdlog::debug("store: merged {} segments into {}", ids.size(), new_files.size());
  return Status::Ok();
}

Status StoreImpl::Compact() {
  if (options_.read_only) return Status::InvalidArgument("compact: the store was opened read-only");
  MutexLock lock(commit_mu_);
  std::shared_ptr<const StoreState> current = Current();
  // One segment per tenant, without deleted chunks.
  std::vector<std::vector<SegmentId>> merges;
  for (const auto& [tenant, views] : ByTenant(*current)) {
    bool has_tombstones = false;
    std::vector<SegmentId> ids;
    for (const SegmentView* v : views) {
      ids.push_back(v->id);
      if (v->deleted && v->deleted->count() > 0) has_tombstones = true;
    }
    if (ids.size() > 1 || has_tombstones || IsMixed(tenant)) merges.push_back(std::move(ids));
  }
  current.reset();
  Status merge_status;
  for (const auto& ids : merges) {
    merge_status = options_.reindex ? MergeLocked(ids)
                                    : Status::Unsupported("compact: merging segments needs StoreOptions::reindex; "
                                                          "only unreferenced rows were purged");
    if (!merge_status.ok()) break;
  }
  ATTEST_RETURN_IF_ERROR(PurgeLocked());
  ATTEST_RETURN_IF_ERROR(writer_->Exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  return merge_status;
}

}  // namespace attest
