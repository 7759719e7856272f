// An answer's corpus over a cluster's shard nodes (answer/answer_corpus.h; docs/cluster.md,
// "Answers through a coordinator"), so a coordinator answers as one process holding every
// document would:
// - searches are scattered with global statistics (scatter_search.h), BM25 only;
// - chunk records are asked of the shard each cluster chunk id's tag names, one call per shard for
//   all the chunks of a round, and come back under their cluster ids;
// - term statistics are summed over every shard for analyzed terms, one call per shard for the
//   terms the pack names at once (Prefetch), remembered for the answer;
// - source rows are read once per answer: the pack's sources in one /internal/v1/sources call per
//   shard (PrefetchSources; the first shard in order that has a document answers for it, as
//   scatter_documents.h reads documents), any other as a document is read;
// - "as of" is the newest commit among the shards (one store's latest commit is its latest write).
// A shard that fails a chunk or statistics call is left out and named in degraded(); its chunks
// are then missing, as a chunk that is no longer visible is.
//
// Thread-safety: safe for concurrent calls (one answer's parallel research rounds).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "answer/answer_corpus.h"
#include "cluster/scatter_search.h"
#include "common/thread_annotations.h"

namespace attest {

struct ClusterCorpusArgs {
  std::vector<const ShardClient*> shards;  // kept alive by the caller for the answer
  std::string request_id;
  std::string caller;
  uint32_t call_deadline_ms = 10000;  // each scatter's time (the search's, a chunk read's)
};

class ClusterCorpus final : public AnswerCorpus {
 public:
  explicit ClusterCorpus(ClusterCorpusArgs args) : args_(std::move(args)) {}
  uint64_t version() const override { return 0; }
  Result<int64_t> CommittedAtUnixMs() const override;
  Result<SearchResult> Search(const Analyzer& analyzer, const SearchOptions& options,
                              const VectorLegInput& vector) const override;
  Result<std::vector<ChunkRecord>> GetChunks(const SearchFilter& who, std::span<const ChunkId> ids) const override;
  std::shared_ptr<const CorpusTermStats> TermStats(const SearchFilter& who) const override;
  Result<SourceRow> Source(const SearchFilter& who, const std::string& id) const override;
  void PrefetchSources(const SearchFilter& who, std::span<const std::string> ids) const override;

  // "shard_unavailable: <shard>: <why>" for each shard a chunk or statistics call left out.
  std::vector<std::string> degraded() const;
  // The cluster snapshot of the last search (shard@version, ...).
  std::string cluster_snapshot() const;

  ShardCall Call() const;
  const std::vector<const ShardClient*>& shards() const { return args_.shards; }
  void NoteDegraded(const std::string& shard, const Status& why) const;

 private:
  ClusterCorpusArgs args_;
  mutable Mutex mu_;
  mutable std::optional<int64_t> committed_ GUARDED_BY(mu_);
  mutable std::map<std::string, std::string> degraded_ GUARDED_BY(mu_);  // shard -> why
  mutable std::string cluster_snapshot_ GUARDED_BY(mu_);
  // Source rows read, by (tenant, id): the source cards and the freshness report ask for the same.
  mutable std::map<std::pair<std::string, std::string>, SourceRow> sources_ GUARDED_BY(mu_);
};

}  // namespace attest
