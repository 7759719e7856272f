// A pinned snapshot: an immutable StoreState plus catalog reads filtered by its version.
//
// Thread-safety: all methods are const and safe to call concurrently; each catalog read leases its
// own read connection from the pool. A snapshot may outlive its Store.
#pragma once

#include <memory>

#include "store/connection_pool.h"
#include "store/data_dir.h"
#include "store/pin_registry.h"
#include "store/store.h"
#include "store/store_state.h"

namespace attest {

class SnapshotImpl final : public Snapshot {
 public:
  // Registers the pin; the caller must hold whatever lock makes `state` current while calling.
  SnapshotImpl(std::shared_ptr<const StoreState> state, std::shared_ptr<ConnectionPool> pool,
               std::shared_ptr<PinRegistry> pins, DataDir dir);
  ~SnapshotImpl() override;

  SnapshotVersion version() const override { return state_->version; }
  const LexicalSearcher& lexical() const override { return *state_->searcher; }
  Result<std::vector<ChunkRecord>> GetChunks(std::span<const ChunkId> ids) const override;
  Result<std::vector<ChunkRecord>> ChunksOfDocument(DocNum num) const override;
  Result<std::vector<DocNum>> DocumentsOf(std::span<const ChunkId> ids) const override;
  Result<DocumentRecord> GetDocument(DocNum num) const override;
  double chunks_per_document() const override;
  Result<std::vector<DocumentRecord>> GetDocuments(std::span<const DocNum> nums) const override;
  Result<DocumentRecord> FindDocument(const DocumentKey& key) const override;
  Result<DocumentPage> ListDocuments(const DocumentListQuery& query) const override;
  Result<StoreStats> Stats() const override;
  Result<int64_t> CommittedAtUnixMs() const override;
  Result<int64_t> VersionCommittedAtUnixMs(SnapshotVersion v) const override;
  const std::map<std::string, EmbedderRecord>& embedders() const override { return state_->embedders; }
  const std::map<uint32_t, uint64_t>& log_positions() const override { return state_->log_positions; }
  Result<std::vector<DocumentKey>> LiveDocumentKeys() const override;

 private:
  std::shared_ptr<const StoreState> state_;
  std::shared_ptr<ConnectionPool> pool_;
  std::shared_ptr<PinRegistry> pins_;
  DataDir dir_;
};

}  // namespace attest
