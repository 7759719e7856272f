#include "store/snapshot_impl.h"

#include <system_error>

#include "store/catalog.h"

namespace attest {

SnapshotImpl::SnapshotImpl(std::shared_ptr<const StoreState> state, std::shared_ptr<ConnectionPool> pool,
                           std::shared_ptr<PinRegistry> pins, DataDir dir)
    : state_(std::move(state)), pool_(std::move(pool)), pins_(std::move(pins)), dir_(std::move(dir)) {
  pins_->Add(state_->version);
}

SnapshotImpl::~SnapshotImpl() { pins_->Remove(state_->version); }

Result<std::vector<ChunkRecord>> SnapshotImpl::GetChunks(std::span<const ChunkId> ids) const {
  std::vector<ChunkRecord> out;
  if (ids.empty()) return out;
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  return cat.GetChunks(ids, state_->version);
}

Result<std::vector<ChunkRecord>> SnapshotImpl::ChunksOfDocument(DocNum num) const {
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  return cat.ChunksOfDocument(num, state_->version);
}

Result<std::vector<DocNum>> SnapshotImpl::DocumentsOf(std::span<const ChunkId> ids) const {
  std::vector<DocNum> out;
  out.reserve(ids.size());
  for (ChunkId id : ids) {
    bool found = false;
    for (const SegmentView& view : state_->views) {
      if (std::optional<LocalDoc> local = view.segment->local_of(id)) {
        out.push_back(state_->files.at(view.id)->doc_of(*local));
        found = true;
        break;
      }
    }
    if (!found) {
      return Status::NotFound("chunk " + std::to_string(id.get()) + " is in no segment of snapshot " +
                              std::to_string(state_->version.get()));
    }
  }
  return out;
}

Result<DocumentRecord> SnapshotImpl::GetDocument(DocNum num) const {
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  ATTEST_ASSIGN_OR_RETURN(std::optional<DocumentRecord> d, cat.GetDocument(num, state_->version));
  if (!d) {
    return Status::NotFound("document #" + std::to_string(num.get()) + " is not visible in snapshot " +
                            std::to_string(state_->version.get()));
  }
  return std::move(*d);
}

double SnapshotImpl::chunks_per_document() const {
  uint64_t chunks = 0, runs = 0;
  for (const SegmentView& view : state_->views) {
    auto it = state_->files.find(view.id);
    if (it == state_->files.end()) continue;
    chunks += view.segment->num_docs();
    runs += it->second->document_runs();
  }
  return runs == 0 || chunks <= runs ? 1.0 : static_cast<double>(chunks) / static_cast<double>(runs);
}

Result<std::vector<DocumentRecord>> SnapshotImpl::GetDocuments(std::span<const DocNum> nums) const {
  std::vector<DocumentRecord> out;
  if (nums.empty()) return out;
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  ATTEST_ASSIGN_OR_RETURN(std::vector<std::optional<DocumentRecord>> found, cat.GetDocuments(nums, state_->version));
  out.reserve(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    if (!found[i]) {
      return Status::NotFound("document #" + std::to_string(nums[i].get()) + " is not visible in snapshot " +
                              std::to_string(state_->version.get()));
    }
    out.push_back(std::move(*found[i]));
  }
  return out;
}

Result<int64_t> SnapshotImpl::CommittedAtUnixMs() const {
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  return cat.CommittedAt(state_->version);
}

Result<int64_t> SnapshotImpl::VersionCommittedAtUnixMs(SnapshotVersion v) const {
  if (v.get() > state_->version.get()) {
    return Status::InvalidArgument("snapshot " + std::to_string(v.get()) + " is after snapshot " +
                                   std::to_string(state_->version.get()));
  }
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  return cat.CommittedAt(v);
}

Result<DocumentRecord> SnapshotImpl::FindDocument(const DocumentKey& key) const {
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  ATTEST_ASSIGN_OR_RETURN(std::optional<DocumentRecord> d, cat.FindDocument(key.tenant, key.id, state_->version));
  if (!d) {
    return Status::NotFound("no document with id '" + key.id + "' in tenant '" + key.tenant + "' at snapshot " +
                            std::to_string(state_->version.get()));
  }
  return std::move(*d);
}

Result<DocumentPage> SnapshotImpl::ListDocuments(const DocumentListQuery& query) const {
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  return cat.ListDocuments(query, state_->version);
}

Result<StoreStats> SnapshotImpl::Stats() const {
  StoreStats s;
  s.version = state_->version;
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  ATTEST_ASSIGN_OR_RETURN(CatalogCounts c, cat.Counts(state_->version));
  s.documents = c.documents;
  s.chunks = c.chunks;
  s.source_bytes = c.source_bytes;
  s.segments = state_->views.size();
  for (const auto& v : state_->views) s.segment_bytes += v.segment->file_size();
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    auto p = dir_.catalog_path();
    p += suffix;
    uintmax_t n = std::filesystem::file_size(p, ec);
    if (!ec) s.catalog_bytes += n;
  }
  return s;
}

}  // namespace attest

namespace attest {

Result<std::vector<DocumentKey>> SnapshotImpl::LiveDocumentKeys() const {
  ATTEST_ASSIGN_OR_RETURN(ConnectionPool::Lease lease, pool_->Acquire());
  Catalog cat(lease.db());
  ATTEST_ASSIGN_OR_RETURN(auto keys, cat.LiveKeys(state_->version));
  std::vector<DocumentKey> out;
  out.reserve(keys.size());
  for (auto& [tenant, id] : keys) out.push_back(DocumentKey{std::move(tenant), std::move(id)});
  return out;
}

}  // namespace attest
