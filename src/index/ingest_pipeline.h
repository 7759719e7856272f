// The ingestion pipeline: list sources -> parse -> chunk + analyze (N threads) -> ordered batches ->
// atomic store commits. Parsing and analysis run in parallel; commits happen in source order, so
// the same input always yields the same chunk ids.
#pragma once

#include "attest/engine.h"
#include "index/document_indexer.h"
#include "store/store.h"

namespace attest {

struct IngestPipelineArgs {
  const DocumentIndexer* indexer = nullptr;
  Store* store = nullptr;
  unsigned threads = 2;
  uint64_t max_batch_bytes = 64ull << 20;  // commit when a batch holds this much source text
};

Result<IngestReport> RunIngestPipeline(const IngestPipelineArgs& args, const IngestOptions& options);

}  // namespace attest
