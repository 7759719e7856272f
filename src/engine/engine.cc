// Engine: the public face of the retrieval core. Wires the analyzer, the document indexer, the
// ingestion pipeline, the store and the search runner together.
#include "attest/engine.h"

#include <thread>

#include "engine/document_indexer.h"
#include "engine/ingest_pipeline.h"
#include "search/search_runner.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {
namespace {

class EngineImpl final : public Engine {
 public:
  explicit EngineImpl(const EngineOptions& options)
      : options_(options), indexer_(analyzer_, ChunkerOptions{}) {}

  Status Init() {
    StoreOptions so;
    so.dir = options_.data_dir;
    so.read_only = options_.read_only;
    // DocumentIndexer::Reindex is thread-safe (the Analyzer keeps per-thread state).
    so.reindex = [this](const ChunkRecord& c, const DocumentRecord& d) { return indexer_.Reindex(c, d); };
    so.merge_threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    ATTEST_ASSIGN_OR_RETURN(store_, Store::Open(so));
    return Status::Ok();
  }

  Result<IngestReport> Ingest(const IngestOptions& options) override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    if (options.batch_documents == 0) return Status::InvalidArgument("batch_documents must be at least 1");
    IngestPipelineArgs args;
    args.indexer = &indexer_;
    args.store = store_.get();
    args.threads = options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
    return RunIngestPipeline(args, options);
  }

  Result<SearchResult> Search(const SearchOptions& options) const override {
    std::shared_ptr<const Snapshot> snap = store_->Pin();
    return RunSearch(*snap, analyzer_, options);
  }

  Result<uint64_t> Delete(const std::string& tenant, const std::string& id) override {
    if (options_.read_only) return Status::InvalidArgument("engine was opened read-only");
    WriteBatch batch;
    batch.deletes.push_back({tenant, id});
    ATTEST_ASSIGN_OR_RETURN(CommitResult cr, store_->Commit(std::move(batch)));
    if (cr.deleted == 0) {
      return Status::NotFound("no document '" + id + "'" + (tenant.empty() ? "" : " in tenant '" + tenant + "'"));
    }
    return cr.version.get();
  }

  Result<EngineStats> Stats() const override {
    ATTEST_ASSIGN_OR_RETURN(StoreStats s, store_->Pin()->Stats());
    EngineStats out;
    out.snapshot_version = s.version.get();
    out.documents = s.documents;
    out.chunks = s.chunks;
    out.segments = s.segments;
    out.segment_bytes = s.segment_bytes;
    out.catalog_bytes = s.catalog_bytes;
    out.source_bytes = s.source_bytes;
    return out;
  }

 private:
  EngineOptions options_;
  Analyzer analyzer_;
  DocumentIndexer indexer_;
  std::unique_ptr<Store> store_;
};

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  if (options.data_dir.empty()) return Status::InvalidArgument("data directory is empty");
  auto engine = std::make_unique<EngineImpl>(options);
  ATTEST_RETURN_IF_ERROR(engine->Init());
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace attest
