// The retrieval rounds of one answer share their work (issue 16, "fewer, cheaper retrieval rounds"):
// the sub-queries, the bridge hop and the hop chain all search the same corpus (a pinned snapshot, or a cluster) with the
// same filter, so
//   - a search asked twice (the same query text, k and mode: a rewrite equal to a sub-query) runs
//     once; a search without snippets reuses one with snippets, its snippet fields cleared, so the
//     hits are exactly those a search without snippets returns;
//   - a chunk's record (text, spans, section) is read from the catalog at most once per answer.
// Only what the corpus gives is remembered: the answer is the same with or without it.
//
// Thread-safety: none; one answer uses it from one thread.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "answer/answer_pipeline.h"

namespace attest {

class AnswerRounds {
 public:
  // Remembers searches of `ctx`'s corpus with `filter` (every round of one answer uses it).
  AnswerRounds(const AnswerContext& ctx, const SearchFilter& filter);

  // ctx.corpus->Search(*ctx.analyzer, options with the filter, ctx.vector), once per query
  // text, k, mode and with_snippets (a search with snippets also serves the same one without). An
  // error is remembered as well. The result lives as long as this object.
  Result<const SearchResult*> Search(SearchOptions options);

  // Reads the records of `ids` not read yet; ids the corpus does not have (no longer visible)
  // stay without a record.
  Status LoadChunks(std::span<const ChunkId> ids);
  // The record of a chunk LoadChunks read, or null.
  const ChunkRecord* Chunk(ChunkId id) const;

  size_t searches_run() const { return searches_run_; }
  size_t searches_reused() const { return searches_reused_; }

 private:
  using Key = std::tuple<std::string, size_t, int, bool>;  // query, k, mode, with_snippets

  const AnswerContext& ctx_;
  SearchFilter filter_;
  std::map<Key, std::unique_ptr<Result<SearchResult>>> searches_;
  std::unordered_map<uint64_t, std::unique_ptr<ChunkRecord>> chunks_;  // null: asked, not visible
  size_t searches_run_ = 0;
  size_t searches_reused_ = 0;
};

}  // namespace attest
