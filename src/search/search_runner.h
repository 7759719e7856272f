// Runs one search on a pinned snapshot: parse the query, translate the caller's filter, run the
// lexical leg (exact BM25 top-k, filters inside the traversal) and, in vector and hybrid modes, the
// vector leg (filters inside the vector index search) concurrently on a task pool; collapse chunks
// to documents, fuse (search/fusion.h), and attach metadata, highlighted snippets and each hit's
// explanation (leg ranks and scores).
//
// Query operators and the vector leg: `-x` excludes documents from both legs. `+x` and quoted
// phrases are lexical constraints; in hybrid mode the vector leg then only re-ranks documents that
// satisfy them (its candidates are restricted to the lexical leg's), and vector mode ignores them.
#pragma once

#include <functional>

#include "attest/engine.h"
#include "common/task_pool.h"
#include "lexical/lexical_plan.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {

struct ChunkFilter;
struct VectorView;

struct VectorLegInput {
  const VectorView* view = nullptr;  // null: no embedder is active at this snapshot
  // Embeds the query with the view's embedder (may be slow for a remote one).
  std::function<Result<std::vector<float>>(const std::string& text)> embed_query;
  TaskPool* pool = nullptr;          // runs the vector leg; null = on the calling thread
  std::string unavailable;           // why `view` is null although an embedder is active ("" = none is)
};

// Translates the public filter; fails with kInvalidArgument naming the bad field (e.g. a date).
Result<ChunkFilter> TranslateFilter(const SearchFilter& filter);

// The text the vector leg embeds for a query: the query without its operators. Excluded words
// and phrases (`-x`, `-"a b"`) are dropped (they must not pull results toward x); `+` signs and
// quotes are removed, keeping the words.
std::string VectorQueryText(std::string_view query);

// True for a name query: one to three words, none of them a stopword or an operator, and no
// question mark ("git rebase", "sqlite3_prepare_v2", "CREATE INDEX"; not "what is a slot?").
bool IsNameQuery(std::string_view query);

// How a shard of a cluster runs a search (docs/cluster.md, "Global statistics"): scored with the
// cluster's statistics instead of its own, and ranked raw: k + FoldingMargin(k) documents, format
// siblings not folded and name queries' titled documents not moved first, because the coordinator
// does both over the merged ranking (MergeShardRankings).
struct ShardScoring {
  const CorpusCounts* global = nullptr;  // null = the snapshot's own statistics
  bool raw_ranking = false;
};

Result<SearchResult> RunSearch(const Snapshot& snapshot, const Analyzer& analyzer, const SearchOptions& options,
                               const VectorLegInput& vector = {}, const ShardScoring& shard = {});

// Extra document candidates kept past k so that folding format siblings still fills k hits.
size_t FoldingMargin(size_t k);

// A title or a name query as words: lower case, groups in parentheses dropped ("git-commit(1)"
// -> "git commit"), split at every character that is not a letter, digit or '_'.
std::string NameWords(std::string_view text);

}  // namespace attest
