// The equivalence bar of a cluster (issue 18; docs/cluster.md, "Equivalence"): the same BEIR
// corpus in one store and split over N shard stores by virtual shard (the split the change log
// makes), every judged query searched in both (the cluster through the scatter-gather search of
// cluster/scatter_search.h), and the rankings and BM25 scores compared.
#pragma once

#include <string>

#include "attest/engine.h"
#include "cluster/scatter_search.h"
#include "eval/beir.h"
#include "eval/metrics.h"

namespace attest {

struct ShardEquivalenceArgs {
  const Engine* single = nullptr;  // the one store, already holding the corpus
  std::string corpus_path;         // the corpus.jsonl it was ingested from
  const BeirSplit* split = nullptr;
  SearchOptions options;           // k, weights (mode BM25); the query is each judged query's
  uint32_t shards = 3;
  uint32_t vshards = 64;           // virtual shards; shard of a document = VirtualShardOf % shards
  unsigned threads = 0;
};

struct ShardEquivalenceReport {
  uint32_t shards = 0;
  uint64_t documents_per_shard_min = 0, documents_per_shard_max = 0;
  size_t queries = 0;
  size_t identical = 0;         // the same ids in the same order
  size_t equal_up_to_ties = 0;  // the same, except the order among exactly equal scores
  size_t different = 0;
  double max_score_diff = 0;    // over hits at the same rank
  EvalSummary summary;          // the cluster's run, scored
  std::string first_difference; // a description of the first differing query ("" when none)
};

Result<ShardEquivalenceReport> CompareWithShards(const ShardEquivalenceArgs& args);

// A BEIR corpus split over `shards` stores under `dir` by virtual shard (the split the change log
// makes), each ingested and reachable as an in-process shard (EngineShard), BM25 only.
struct ShardStores {
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<std::unique_ptr<EngineShard>> clients;
  uint64_t documents_min = 0, documents_max = 0;  // documents seen per shard
};
Result<ShardStores> BuildShardStores(const std::string& corpus_path, uint32_t shards, uint32_t vshards,
                                     unsigned threads, const std::string& dir);

}  // namespace attest
