// Rerankers: score (query, passage) pairs jointly, after retrieval and the built-in passage
// features (src/answer/evidence_builder.h). The answer pipeline reorders its evidence by them and
// skips them under a deadline (the answer is then marked degraded).
//
// Implementations: HttpReranker (src/rerank/http_reranker.h): cross-encoder `/rerank` APIs of
// Text Embeddings Inference, Jina / Cohere style `/v1/rerank`, llama.cpp's server `/v1/rerank`.
// RerankBatcher (src/rerank/rerank_batcher.h): pools the pairs of concurrent calls into batches
// for a PairScorer (TEI's `/predict`).
//
// Thread-safety: Score() may be called concurrently.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

// Which queue of a batching reranker a call waits in: interactive calls (answers a user waits for)
// are served before bulk ones (evaluations, batch jobs). Unbatched rerankers ignore it.
enum class RerankPriority { kInteractive, kBulk };

// One Score() call with what a batching reranker needs to know about its caller.
struct RerankRequest {
  std::string_view query;
  const std::vector<std::string>* passages = nullptr;  // not null
  // When the caller's budget ends (steady clock); a batching reranker waits for company at most a
  // fraction of what is left. nullopt = no deadline.
  std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt;
  RerankPriority priority = RerankPriority::kInteractive;
};

class Reranker {
 public:
  virtual ~Reranker() = default;
  // One relevance score per passage, in the order given (higher = more relevant). Scores are only
  // compared among the passages of one call.
  virtual Result<std::vector<double>> Score(std::string_view query, const std::vector<std::string>& passages) const = 0;
  // The same with the caller's deadline and priority; rerankers that do not batch ignore both.
  virtual Result<std::vector<double>> Score(const RerankRequest& request) const {
    return Score(request.query, *request.passages);
  }
  virtual std::string name() const = 0;  // e.g. "tei:BAAI/bge-reranker-base"
};

}  // namespace attest
