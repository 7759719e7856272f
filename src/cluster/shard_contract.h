// The contract between a coordinator and its shard nodes (docs/cluster.md, "Service contracts"):
// versioned JSON bodies of the shard's internal routes and their strict readers. Both directions
// are untrusted input for the reader: a body that is not JSON, nests too deep, names another
// contract, lacks a field or gives one the wrong type is kInvalidArgument naming the field.
//
//   POST /internal/v1/statistics  {"contract":"attest.shard/1","options":{...}}
//        -> {"contract":"attest.shard/1","statistics":{"snapshot":7,"num_docs":..,"total_len":[4],"doc_freq":{..}}}
//   POST /internal/v1/search      {"contract":"attest.shard/1","options":{...},"statistics":{...},"snapshot":7}
//        -> {"contract":"attest.shard/1","result":{"hits":[...],"snapshot":7,"took_ms":..,"notices":[..],"degraded":[..]}}
//
// Headers of every call: Authorization: Bearer <service credential>, X-Request-Id, X-Attest-Caller
// (who asked, for the shard's log), X-Attest-Deadline-Ms (milliseconds left). Errors:
// {"error":{"code","message"}} with the status of api_error.h's table.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "attest/engine.h"

namespace attest {

inline constexpr std::string_view kShardContract = "attest.shard/1";

// GET /internal/v1/health -> {"contract":"attest.shard/1","health":{...}}: how a node stands.
struct ShardHealth {
  std::string node;             // the node's id
  uint64_t snapshot = 0;        // its latest snapshot version
  uint64_t vshards = 0;         // virtual shards it owns
  uint64_t pending = 0;         // messages of its virtual shards in the log that it has not applied
  uint64_t unacknowledged = 0;  // fetched, not yet acknowledged
  uint64_t applied = 0;         // messages applied since it started
  int64_t committed_at_ms = 0;  // when its latest snapshot was committed, Unix ms (0 = unknown)
};

std::string EncodeHealthReply(const ShardHealth& health);
Result<ShardHealth> DecodeHealthReply(std::string_view body);

std::string EncodeStatisticsRequest(const SearchOptions& options);
std::string EncodeSearchRequest(const SearchOptions& options, const ShardStatistics& global, uint64_t snapshot);
std::string EncodeStatisticsReply(const ShardStatistics& statistics);
std::string EncodeSearchReply(const SearchResult& result);

struct ShardSearchRequest {
  SearchOptions options;
  ShardStatistics statistics;
  uint64_t snapshot = 0;
};

Result<SearchOptions> DecodeStatisticsRequest(std::string_view body);
Result<ShardSearchRequest> DecodeSearchRequest(std::string_view body);
Result<ShardStatistics> DecodeStatisticsReply(std::string_view body);
Result<SearchResult> DecodeSearchReply(std::string_view body);

}  // namespace attest
