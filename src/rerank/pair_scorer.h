// PairScorer: a backend that scores arbitrary (query, passage) pairs in one call, the pairs of one
// call possibly of different queries. RerankBatcher (rerank/rerank_batcher.h) sends it the pooled
// pairs of concurrent requests; TeiPairScorer (rerank/tei_pair_scorer.h) is TEI's POST /predict.
//
// Thread-safety: ScorePairs() may be called concurrently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

struct RerankPair {
  std::string_view query;
  std::string_view passage;
};

class PairScorer {
 public:
  virtual ~PairScorer() = default;
  // One score per pair, in order (higher = more relevant). A cross-encoder's scores are per pair,
  // so comparable across calls. `pairs` is never empty; its queries and passages are never blank.
  virtual Result<std::vector<double>> ScorePairs(const std::vector<RerankPair>& pairs) const = 0;
  virtual std::string name() const = 0;
};

}  // namespace attest
