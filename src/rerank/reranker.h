// Rerankers: score (query, passage) pairs jointly, after retrieval and the built-in passage
// features (src/answer/evidence_builder.h). The answer pipeline reorders its evidence by them and
// skips them under a deadline (the answer is then marked degraded).
//
// Implementations: HttpReranker (src/rerank/http_reranker.h): cross-encoder `/rerank` APIs of
// Text Embeddings Inference, Jina / Cohere style `/v1/rerank`, llama.cpp's server `/v1/rerank`.
//
// Thread-safety: Score() may be called concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

class Reranker {
 public:
  virtual ~Reranker() = default;
  // One relevance score per passage, in the order given (higher = more relevant). Scores are only
  // compared among the passages of one call.
  virtual Result<std::vector<double>> Score(std::string_view query, const std::vector<std::string>& passages) const = 0;
  virtual std::string name() const = 0;  // e.g. "tei:BAAI/bge-reranker-base"
};

}  // namespace attest
