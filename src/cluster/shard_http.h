// A shard node reached over HTTP (docs/cluster.md, "Service contracts"): every call carries the
// service credential, the request id, the caller and the milliseconds left before the deadline
// (the call's own timeout too). Replies are read as untrusted input (cluster/shard_contract.h).
// Errors: the shard's 400 is kInvalidArgument (the query or filter), 404 kNotFound (its pinned
// snapshot was released), a timeout kDeadlineExceeded, anything else (refused connection, 401, 5xx,
// a malformed reply) kUnavailable naming the shard.
//
// Thread-safety: const members may be called concurrently.
#pragma once

#include <memory>
#include <string>

#include "cluster/scatter_search.h"
#include "net/http_client.h"

namespace attest {

struct HttpShardOptions {
  std::string name;        // as it appears in degraded results and cluster snapshots
  std::string base_url;    // http://host:port of the node's internal API
  std::string credential;  // the service credential
  int64_t default_timeout_ms = 10000;  // when the call has no deadline
};

class HttpShard final : public ShardClient {
 public:
  HttpShard(HttpShardOptions options, std::shared_ptr<const HttpClient> client);
  const std::string& name() const override { return options_.name; }
  const std::string& base_url() const { return options_.base_url; }
  Result<ShardStatistics> Statistics(const ShardCall& call, const SearchOptions& options) const override;
  Result<DocumentInfo> Document(const ShardCall& call, const SearchFilter& filter,
                                const std::string& id) const override;
  Result<DocumentListing> Documents(const ShardCall& call, const ListDocumentsOptions& options) const override;
  Result<SearchResult> Search(const ShardCall& call, const SearchOptions& options, const ShardStatistics& global,
                              uint64_t shard_snapshot) const override;
  Result<ShardHealth> Health(const ShardCall& call) const override;
  Result<ShardStatistics> TermStatistics(const ShardCall& call, const SearchFilter& filter,
                                         const std::vector<std::string>& terms) const override;
  Result<std::vector<ChunkContent>> Chunks(const ShardCall& call, const SearchFilter& filter,
                                           const std::vector<ChunkId>& ids) const override;
  Result<std::vector<CitationState>> Citations(const ShardCall& call, const SearchFilter& filter,
                                               const std::vector<CitedChunk>& cited) const override;
  Result<std::vector<SourceInfo>> Sources(const ShardCall& call, const SearchFilter& filter,
                                          const std::vector<std::string>& ids) const override;

 private:
  // POST with a body; GET without one.
  Result<std::string> Call(const ShardCall& call, const std::string& route, std::string body) const;

  HttpShardOptions options_;
  std::shared_ptr<const HttpClient> client_;
};

}  // namespace attest
