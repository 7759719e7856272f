// The coordinator's half of a cluster search (docs/cluster.md, "Global statistics"): the raw
// rankings of the shards (RunSearch with ShardScoring::raw_ranking, every shard scoring with the
// same summed statistics, so a chunk's BM25 score is the one it has in a single store) merged into
// the result one store holding all their chunks returns.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "attest/engine.h"
#include "lexical/lexical_plan.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {

struct ShardRanking {
  std::string shard;    // the shard's name
  SearchResult result;  // its raw ranking, best first
};

// Hits by score, best first (equal scores: by document id, so the order does not depend on which
// shard holds what; one store breaks such ties by ingestion order instead);
// lexical ranks renumbered over the merged list; then, when hits are documents, format siblings
// folded and a name query's titled documents moved first exactly as RunSearch does in one store;
// k hits kept. Notices and degradations are gathered (each once); took_ms is the slowest shard's.
SearchResult MergeShardRankings(const SearchOptions& options, std::vector<ShardRanking> shards);

// The statistics of `options.query`'s terms under `options.filter`'s visibility at `snapshot`: a
// shard's part of a cluster's global statistics. kInvalidArgument for a query that does not parse.
Result<CorpusCounts> QueryCounts(const Snapshot& snapshot, const Analyzer& analyzer, const SearchOptions& options);

}  // namespace attest
