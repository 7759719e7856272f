// TeiPairScorer: a PairScorer over Text Embeddings Inference's POST /predict, which scores a batch
// of (text, text_pair) inputs with a sequence-classification model; a cross-encoder reranker is
// one with a single label. Unlike /rerank (one query, many texts), the pairs of one call may have
// different queries, which is what batching across requests needs (rerank/rerank_batcher.h).
//
//   POST {base}/predict
//   {"inputs": [[q0, p0], [q1, p1], ...], "truncate": true, "raw_scores": false}
//   -> [[{"score": s0, "label": "LABEL_0"}], [{"score": s1, "label": "LABEL_0"}], ...]
//
// The answer has one list per input, in input order. TEI's /rerank computes the same prediction
// for each (query, text) pair and reports its score, so a pair scores the same through both routes
// and scores of different calls and queries are comparable. TEI refuses a request with more inputs
// than its --max-client-batch-size (default 32) with 413: run it with at least the batch size.
// base_url may be given with or without a trailing "/"; a URL already ending in "/predict" is used
// verbatim.
//
// Passages longer than max_passage_chars code points are cut (TruncateUtf8); invalid UTF-8 is
// replaced by U+FFFD. Validation of the answer: a JSON array with one entry per pair, each an array
// of exactly one {"score": finite number} (several labels mean a classifier, not a reranker).
// Failures are the model HTTP client's (src/models/model_http_client.h); a 2xx answer that is not a
// valid one is kUpstreamError.
//
// Thread-safety: ScorePairs() may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/thread_annotations.h"
#include "models/model_http_client.h"
#include "rerank/http_reranker.h"
#include "rerank/pair_scorer.h"

namespace attest {

struct TeiPairScorerOptions {
  ModelEndpoint endpoint = DefaultRerankEndpoint();  // model: a label only (a TEI server serves one model)
  size_t max_pairs = 1024;                           // pairs per call, 1..1024 (more is kInvalidArgument)
  size_t max_passage_chars = 4000;                   // code points per passage; 0 = no cut
};

struct TeiPairScorerStats {
  uint64_t requests = 0;  // HTTP attempts, including retries
  uint64_t retries = 0;
  uint64_t pairs = 0;     // pairs scored
  uint64_t truncated = 0;
};

class TeiPairScorer final : public PairScorer {
 public:
  static Result<std::unique_ptr<TeiPairScorer>> Create(TeiPairScorerOptions options);

  Result<std::vector<double>> ScorePairs(const std::vector<RerankPair>& pairs) const override;
  std::string name() const override;  // "tei-predict:<model>"
  const std::string& endpoint() const { return client_->url(); }
  TeiPairScorerStats stats() const;

 private:
  TeiPairScorer(TeiPairScorerOptions options, std::unique_ptr<ModelHttpClient> client);

  const TeiPairScorerOptions options_;
  const std::unique_ptr<ModelHttpClient> client_;
  mutable Mutex mu_;
  mutable uint64_t pairs_ GUARDED_BY(mu_) = 0;
  mutable uint64_t truncated_ GUARDED_BY(mu_) = 0;
};

// The JSON request body for `pairs` (passages cut to max_passage_chars; 0 = no cut).
std::string BuildPredictRequestBody(const std::vector<RerankPair>& pairs, size_t max_passage_chars);

// Parses a 2xx /predict answer for `count` pairs into one score per pair. kCorruption naming the
// first problem. Exposed for tests and fuzzing.
Result<std::vector<double>> ParsePredictResponse(std::string_view body, size_t count);

}  // namespace attest
