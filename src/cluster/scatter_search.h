// A search over a cluster's shards (docs/cluster.md, "Global statistics"), as Elasticsearch's
// dfs_query_then_fetch does it: every shard first reports the statistics of the query's terms
// under the caller's visibility at a snapshot it pins; their sum is sent back with the search, so
// each shard scores with the statistics one store holding every chunk would have; the shards' raw
// rankings are merged (search/shard_merge.h). A document's BM25 score is therefore the same
// whatever shard holds it, and equal to its single-process score.
//
// Deadlines: the statistics phase may take half the time left, the search phase the rest.
// Chunk ids: tagged with their shard (ClusterChunkId below).
// Failures: a shard that fails or misses the deadline in either phase is left out and named in
// `degraded` ("shard_unavailable: <shard>: <why>"); the answer is then partial (its statistics too),
// never late. A shard whose pinned snapshot was released between the phases makes the search start
// again once. Every shard failing is kUnavailable.
//
// Thread-safety: ScatterSearch may run concurrently; clients must be thread-safe.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attest/engine.h"
#include "cluster/shard_contract.h"

namespace attest {

// What travels with every call to a shard (the service contract, docs/cluster.md): the request id,
// the caller (for the shard's audit and logs; the filter carries what it may read) and the time left.
struct ShardCall {
  std::string request_id;
  std::string caller;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

// One shard as the coordinator reaches it: in this process (EngineShard) or over HTTP (shard_http.h).
class ShardClient {
 public:
  virtual ~ShardClient() = default;
  virtual const std::string& name() const = 0;
  virtual Result<ShardStatistics> Statistics(const ShardCall& call, const SearchOptions& options) const = 0;
  virtual Result<SearchResult> Search(const ShardCall& call, const SearchOptions& options,
                                      const ShardStatistics& global, uint64_t shard_snapshot) const = 0;
  virtual Result<ShardHealth> Health(const ShardCall& call) const = 0;
  // One document as `filter` admits it (kNotFound when the shard does not hold it or the filter
  // does not admit it), and one page of a tenant's listing (cluster/document_contract.h).
  virtual Result<DocumentInfo> Document(const ShardCall& call, const SearchFilter& filter,
                                        const std::string& id) const = 0;
  virtual Result<DocumentListing> Documents(const ShardCall& call, const ListDocumentsOptions& options) const = 0;
  // What a coordinator's answer reads (cluster/answer_contract.h), with the node's own chunk ids:
  // statistics of analyzed terms, chunk records, and where cited chunks stand.
  virtual Result<ShardStatistics> TermStatistics(const ShardCall& call, const SearchFilter& filter,
                                                 const std::vector<std::string>& terms) const = 0;
  virtual Result<std::vector<ChunkContent>> Chunks(const ShardCall& call, const SearchFilter& filter,
                                                   const std::vector<ChunkId>& ids) const = 0;
  virtual Result<std::vector<CitationState>> Citations(const ShardCall& call, const SearchFilter& filter,
                                                       const std::vector<CitedChunk>& cited) const = 0;
  // The source rows among `ids` the shard holds and `filter` admits, in the order asked.
  virtual Result<std::vector<SourceInfo>> Sources(const ShardCall& call, const SearchFilter& filter,
                                                  const std::vector<std::string>& ids) const = 0;
};

// A shard that is an Engine of this process (tests, equivalence measurements).
class EngineShard final : public ShardClient {
 public:
  EngineShard(std::string name, const Engine* engine) : name_(std::move(name)), engine_(engine) {}
  const std::string& name() const override { return name_; }
  Result<ShardStatistics> Statistics(const ShardCall& call, const SearchOptions& options) const override;
  Result<SearchResult> Search(const ShardCall& call, const SearchOptions& options, const ShardStatistics& global,
                              uint64_t shard_snapshot) const override;
  Result<ShardHealth> Health(const ShardCall& call) const override;
  Result<DocumentInfo> Document(const ShardCall& call, const SearchFilter& filter,
                                const std::string& id) const override;
  Result<DocumentListing> Documents(const ShardCall& call, const ListDocumentsOptions& options) const override;
  Result<ShardStatistics> TermStatistics(const ShardCall& call, const SearchFilter& filter,
                                         const std::vector<std::string>& terms) const override;
  Result<std::vector<ChunkContent>> Chunks(const ShardCall& call, const SearchFilter& filter,
                                           const std::vector<ChunkId>& ids) const override;
  Result<std::vector<CitationState>> Citations(const ShardCall& call, const SearchFilter& filter,
                                               const std::vector<CitedChunk>& cited) const override;
  Result<std::vector<SourceInfo>> Sources(const ShardCall& call, const SearchFilter& filter,
                                          const std::vector<std::string>& ids) const override;

 private:
  std::string name_;
  const Engine* engine_;
};

struct ScatterArgs {
  std::vector<const ShardClient*> shards;
  SearchOptions options;  // the caller's; its filter already says what the caller may read
  ShardCall call;
};

// Chunk ids in a cluster's results. Every node numbers its own chunks, so two nodes' ids collide;
// the coordinator puts a 16-bit tag of the shard's name (FNV-1a, 1..65535) in the top 16 bits of
// each hit's id and keeps the node's id in the low 48. The tag depends only on the name, so every
// coordinator gives a chunk the same id whatever order its shards are listed in, and the id says
// which shard to ask for the chunk. A node's id beyond 48 bits fails that shard's reply.
inline constexpr int kLocalChunkBits = 48;
uint16_t ShardTag(std::string_view shard);
Result<ChunkId> ClusterChunkId(uint16_t tag, ChunkId local);
std::pair<uint16_t, ChunkId> SplitClusterChunkId(ChunkId id);  // {tag, the node's id}
// kInvalidArgument when two shards share a name or a tag (a coordinator refuses to start).
Status CheckShardTags(const std::vector<const ShardClient*>& shards);

// Runs `fn(i)` for every shard concurrently (one thread each: the calls wait on the network).
template <typename T, typename Fn>
std::vector<Result<T>> ForEachShard(size_t n, Fn fn) {
  std::vector<std::future<Result<T>>> futures;
  futures.reserve(n);
  for (size_t i = 0; i < n; ++i) futures.push_back(std::async(std::launch::async, [&fn, i] { return fn(i); }));
  std::vector<Result<T>> out;
  out.reserve(n);
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

// Sums statistics (the snapshot version of the sum is 0).
void AddStatistics(const ShardStatistics& part, ShardStatistics* sum);

Result<SearchResult> ScatterSearch(const ScatterArgs& args);

}  // namespace attest
