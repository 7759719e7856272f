// Store::Commit: the commit protocol (docs/store_format.md, "Commit").
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <spdlog/spdlog.h>

#include "common/checksum.h"
#include "lexical/segment_writer.h"
#include "store/store_impl.h"

namespace attest {
namespace {

// Unlinks a newly written segment file unless the commit that references it succeeded.
class NewFileGuard {
 public:
  NewFileGuard() = default;
  ~NewFileGuard() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  void Arm(std::filesystem::path p) { path_ = std::move(p); }
  void Disarm() { path_.clear(); }

 private:
  std::filesystem::path path_;
};

std::string KeyText(const std::string& tenant, const std::string& id) {
  return "'" + id + "'" + (tenant.empty() ? std::string() : " (tenant '" + tenant + "')");
}

Status ValidateBatch(const WriteBatch& batch) {
  for (size_t i = 0; i < batch.upserts.size(); ++i) {
    const PreparedDocument& d = batch.upserts[i];
    std::string where = "upsert #" + std::to_string(i);
    if (d.record.id.empty()) return Status::InvalidArgument(where + ": the document id is empty");
    where += " " + KeyText(d.record.tenant, d.record.id);
    if (d.record.sha256.empty()) return Status::InvalidArgument(where + ": sha256 is empty");
    if (d.indexed.size() != d.chunks.size()) {
      return Status::InvalidArgument(where + ": " + std::to_string(d.chunks.size()) + " chunks but " +
                                     std::to_string(d.indexed.size()) + " indexed chunks");
    }
    if (d.chunks.size() > UINT32_MAX) return Status::ResourceExhausted(where + ": too many chunks");
  }
  for (size_t i = 0; i < batch.deletes.size(); ++i) {
    if (batch.deletes[i].id.empty()) {
      return Status::InvalidArgument("delete #" + std::to_string(i) + ": the document id is empty");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<CommitResult> StoreImpl::Commit(WriteBatch batch) {
  if (options_.read_only) return Status::InvalidArgument("commit: the store was opened read-only");
  ATTEST_RETURN_IF_ERROR(ValidateBatch(batch));
  MutexLock lock(commit_mu_);
  ATTEST_ASSIGN_OR_RETURN(CommitResult result, CommitLocked(batch));
  if (result.added + result.replaced + result.deleted > 0) {
    Status merged;
    if (!batch.bulk_first_segment) {
      merged = MaybeMergeLocked();
    } else if (MaxSegmentsOfATenant() > std::max<size_t>(1, options_.max_segments)) {
      merged = MergeBulkLocked(*batch.bulk_first_segment, /*all=*/false);
      // Segments of earlier bulk loads that never reached FinishBulk (killed) are not this load's:
      // when its own could not bring a tenant back under the cap, merge that tenant's smallest.
      if (merged.ok() && MaxSegmentsOfATenant() > std::max<size_t>(1, options_.max_segments)) {
        merged = MergeOverCapLocked();
      }
    }
    // The commit is durable and published; a failed merge only leaves more segments behind.
    if (!merged.ok()) spdlog::warn("store: merge after commit {} failed: {}", result.version.get(), merged.ToString());
  }
  return result;
}

Result<CommitResult> StoreImpl::CommitLocked(WriteBatch& batch) {
  std::shared_ptr<const StoreState> current = Current();
  Catalog cat(*writer_);
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/true));
  ATTEST_RETURN_IF_ERROR(Fault("commit.begin"));
  ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
  if (meta.snapshot_version != current->version.get()) {
    return Status::Internal("catalog is at version " + std::to_string(meta.snapshot_version) +
                            " but the store published " + std::to_string(current->version.get()));
  }
  const SnapshotVersion v(meta.snapshot_version + 1);
  CommitResult result;
  result.version = current->version;
  std::vector<ChunkLocation> tombstones;

  auto delete_live = [&](DocNum num) -> Status {
    ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkLocation> locs, cat.LiveChunksOfDoc(num));
    tombstones.insert(tombstones.end(), locs.begin(), locs.end());
    return cat.MarkDocumentDeleted(num, v);
  };

  for (const DocumentKey& key : batch.deletes) {
    ATTEST_ASSIGN_OR_RETURN(std::optional<LiveDocRef> live, cat.FindLive(key.tenant, key.id));
    if (!live) {
      ++result.not_found;
      continue;
    }
    ATTEST_RETURN_IF_ERROR(delete_live(live->num));
    ++result.deleted;
  }

  // The last upsert of a key wins.
  std::map<std::pair<std::string, std::string>, size_t> last;
  for (size_t i = 0; i < batch.upserts.size(); ++i) {
    last[{batch.upserts[i].record.tenant, batch.upserts[i].record.id}] = i;
  }

  // Each tenant's chunks go to a segment of their own: a tenant's segments, and so its statistics,
  // merges and vector indexes, never depend on what other tenants store.
  struct NewSegment {
    SegmentId id;
    SegmentWriter writer;
    std::vector<DocNum> docs;  // document of each chunk added to `writer`
  };
  std::map<std::string, NewSegment> by_tenant;
  for (size_t i = 0; i < batch.upserts.size(); ++i) {
    PreparedDocument& doc = batch.upserts[i];
    DocumentRecord& rec = doc.record;
    if (last[{rec.tenant, rec.id}] != i) continue;
    ATTEST_ASSIGN_OR_RETURN(std::optional<LiveDocRef> live, cat.FindLive(rec.tenant, rec.id));
    if (live && live->sha256 == rec.sha256) {
      ++result.unchanged;
      continue;
    }
    if (live) {
      ATTEST_RETURN_IF_ERROR(delete_live(live->num));
      ++result.replaced;
    } else {
      ++result.added;
    }
    rec.num = DocNum(meta.next_doc_num++);
    rec.created = v;
    rec.chunk_count = static_cast<uint32_t>(doc.chunks.size());
    ATTEST_RETURN_IF_ERROR(cat.InsertDocument(rec, v));
    for (size_t j = 0; j < doc.chunks.size(); ++j) {
      IndexedChunk& ic = doc.indexed[j];
      ic.id = ChunkId(meta.next_chunk_id++);
      ic.doc = rec.num.get();
      ApplyDocumentAttributes(rec, &ic.attrs);
      auto seg = by_tenant.find(rec.tenant);
      if (seg == by_tenant.end()) {
        seg = by_tenant.try_emplace(rec.tenant).first;
        seg->second.id = SegmentId(meta.next_segment_id++);
      }
      const TextChunk& tc = doc.chunks[j];
      ATTEST_RETURN_IF_ERROR(
          cat.InsertChunk(ChunkRecord{ic.id, rec.num, tc.ordinal, tc.section_path, tc.text, tc.spans}, seg->second.id, v));
      Status added = seg->second.writer.Add(ic);
      if (!added.ok()) return added.WithContext("indexing " + KeyText(rec.tenant, rec.id));
      seg->second.docs.push_back(rec.num);
      ++result.chunks_added;
    }
  }

  // Positions travel with the documents they brought (docs/store_format.md, "Log positions").
  bool positions_change = false;
  for (const auto& [vshard, sequence] : batch.log_positions) {
    auto it = current->log_positions.find(vshard);
    positions_change = positions_change || (sequence == 0 ? it != current->log_positions.end()
                                                          : it == current->log_positions.end() || it->second != sequence);
  }
  if (result.added + result.replaced + result.deleted == 0 && !positions_change) return result;  // rolls back
  if (positions_change) ATTEST_RETURN_IF_ERROR(cat.WriteLogPositions(batch.log_positions, v));

  std::vector<NewFileGuard> guards(by_tenant.size());
  std::vector<std::shared_ptr<SegmentFile>> new_files;
  if (!by_tenant.empty()) ATTEST_RETURN_IF_ERROR(Fault("commit.before_segment_write"));
  for (auto& [tenant, seg] : by_tenant) {
    std::string image = seg.writer.Serialize();
    std::filesystem::path path = dir_.segment_path(seg.id);
    guards[new_files.size()].Arm(path);
    ATTEST_RETURN_IF_ERROR(WriteFileAtomically(path, image));
    ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<SegmentFile> file, SegmentFile::Open(seg.id, path, std::move(seg.docs)));
    ATTEST_RETURN_IF_ERROR(cat.InsertSegment(SegmentRow{seg.id, DataDir::SegmentFileName(seg.id), seg.writer.num_chunks(),
                                                        image.size(), file->raw().content_crc(), v}));
    new_files.push_back(std::move(file));
  }
  ATTEST_RETURN_IF_ERROR(cat.InsertSnapshot(v, by_tenant.empty() && result.deleted == 0 ? "log positions" : "commit"));
  meta.snapshot_version = v.get();
  ATTEST_RETURN_IF_ERROR(cat.WriteMeta(meta));
  ATTEST_RETURN_IF_ERROR(Fault("commit.before_catalog_commit"));
  Status committed = txn->Commit();  // the commit point
  if (!committed.ok()) {
    // SQLite reports a failed COMMIT as not applied, but after an I/O error the only trustworthy
    // answer is the catalog itself: roll back, then look at the version it holds.
    txn.reset();
    auto now = cat.ReadMeta();
    if (!now.ok() || now->snapshot_version != v.get()) return committed;
    spdlog::warn("store: COMMIT reported '{}' but version {} is in the catalog", committed.ToString(), v.get());
  }
  for (NewFileGuard& g : guards) g.Disarm();
  result.version = v;
  (void)Fault("commit.after_catalog_commit");  // crash tests only: the commit is already durable

  // Publish: previous views, plus the new segment, with copy-on-write deletion bitmaps for the
  // segments that gained tombstones.
  auto next = std::make_shared<StoreState>();
  next->version = v;
  next->embedders = current->embedders;
  next->log_positions = current->log_positions;
  for (const auto& [vshard, sequence] : batch.log_positions) {
    if (sequence == 0) {
      next->log_positions.erase(vshard);
    } else {
      next->log_positions[vshard] = sequence;
    }
  }
  next->views = current->views;
  next->files = current->files;
  for (const auto& file : new_files) {
    next->views.push_back(SegmentView{file->id(), file->segment(), nullptr});
    next->files[file->id()] = file;
  }
  std::sort(next->views.begin(), next->views.end(),
            [](const SegmentView& a, const SegmentView& b) { return a.id < b.id; });
  std::map<SegmentId, std::vector<ChunkId>> by_segment;
  for (const ChunkLocation& t : tombstones) by_segment[t.segment].push_back(t.id);
  for (SegmentView& view : next->views) {
    auto it = by_segment.find(view.id);
    if (it == by_segment.end()) continue;
    auto bits = view.deleted ? std::make_shared<DeletedDocs>(*view.deleted)
                             : std::make_shared<DeletedDocs>(view.segment->num_docs());
    for (ChunkId id : it->second) {
      std::optional<LocalDoc> local = view.segment->local_of(id);
      if (local) {
        bits->Set(*local);
      } else {
        spdlog::error("store: chunk {} is not in segment {} as the catalog says", id.get(), view.id.get());
      }
    }
    view.deleted = std::move(bits);
  }
  next->Seal();
  Publish(std::move(next));
  return result;
}

}  // namespace attest

namespace attest {

Result<SnapshotVersion> StoreImpl::ActivateEmbedder(EmbedderRecord record) {
  if (options_.read_only) return Status::InvalidArgument("activate embedder: the store was opened read-only");
  if (record.key.empty() || record.name.empty() || record.dim == 0) {
    return Status::InvalidArgument("activate embedder: key, name and dimension are required");
  }
  MutexLock lock(commit_mu_);
  std::shared_ptr<const StoreState> current = Current();
  Catalog cat(*writer_);
  ATTEST_ASSIGN_OR_RETURN(auto txn, SqliteTransaction::Begin(*writer_, /*immediate=*/true));
  ATTEST_ASSIGN_OR_RETURN(CatalogMeta meta, cat.ReadMeta());
  SnapshotVersion v(meta.snapshot_version + 1);
  record.activated = v;
  ATTEST_RETURN_IF_ERROR(cat.InsertEmbedder(record));
  ATTEST_RETURN_IF_ERROR(
      cat.InsertSnapshot(v, "embedder " + record.name + " " + record.key + " tenant '" + record.tenant + "'"));
  meta.snapshot_version = v.get();
  ATTEST_RETURN_IF_ERROR(cat.WriteMeta(meta));
  ATTEST_RETURN_IF_ERROR(Fault("embedder.before_catalog_commit"));
  ATTEST_RETURN_IF_ERROR(txn->Commit());
  (void)Fault("embedder.after_catalog_commit");  // crash tests only: the switch is durable

  auto next = std::make_shared<StoreState>();
  next->version = v;
  next->views = current->views;
  next->files = current->files;
  next->embedders = current->embedders;
  next->log_positions = current->log_positions;
  next->embedders[record.tenant] = std::move(record);
  next->Seal();
  Publish(std::move(next));
  return v;
}

}  // namespace attest
