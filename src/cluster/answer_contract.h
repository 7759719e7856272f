// The routes of the shard contract that a coordinator's answers read (docs/cluster.md, "Answers
// through a coordinator"). Same rules as shard_contract.h: versioned bodies, strict readers naming
// the refused field, both directions untrusted.
//
//   POST /internal/v1/term_statistics {"contract":"attest.shard/1","filter":{...},"terms":["stem",..]}
//        -> the statistics reply of shard_contract.h (num_docs and doc_freq of those analyzed terms)
//   POST /internal/v1/chunks          {"contract":"attest.shard/1","filter":{...},"ids":[17,..]}
//        -> {"contract":"attest.shard/1","chunks":{"items":[{"id","ordinal","section_path","text","spans"}..]}}
//   POST /internal/v1/sources         {"contract":"attest.shard/1","filter":{...},"ids":["a.md",..]}
//        -> {"contract":"attest.shard/1","sources":{"items":[{"id","url","license","feed","published","updated","fetched_at_ms"}..]}}
//   POST /internal/v1/citations       {"contract":"attest.shard/1","filter":{...},"cited":[{"doc_id","chunk_id"}..]}
//        -> {"contract":"attest.shard/1","citations":{"states":["current"|"changed"|"deleted"|"forbidden",..]}}
//
// Chunk ids here are the node's own (a coordinator strips its shard tag before asking).
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "attest/engine.h"

namespace attest {

inline constexpr size_t kMaxContractItems = 10000;  // terms, chunk ids or citations in one call

struct TermStatisticsRequest {
  SearchFilter filter;
  std::vector<std::string> terms;
};
std::string EncodeTermStatisticsRequest(const SearchFilter& filter, const std::vector<std::string>& terms);
Result<TermStatisticsRequest> DecodeTermStatisticsRequest(std::string_view body);

struct ChunksRequest {
  SearchFilter filter;
  std::vector<ChunkId> ids;
};
std::string EncodeChunksRequest(const SearchFilter& filter, const std::vector<ChunkId>& ids);
Result<ChunksRequest> DecodeChunksRequest(std::string_view body);
std::string EncodeChunksReply(const std::vector<ChunkContent>& chunks);
Result<std::vector<ChunkContent>> DecodeChunksReply(std::string_view body);

struct SourcesRequest {
  SearchFilter filter;
  std::vector<std::string> ids;
};
std::string EncodeSourcesRequest(const SearchFilter& filter, const std::vector<std::string>& ids);
Result<SourcesRequest> DecodeSourcesRequest(std::string_view body);
std::string EncodeSourcesReply(const std::vector<SourceInfo>& sources);
Result<std::vector<SourceInfo>> DecodeSourcesReply(std::string_view body);

struct CitationsRequest {
  SearchFilter filter;
  std::vector<CitedChunk> cited;
};
std::string EncodeCitationsRequest(const SearchFilter& filter, const std::vector<CitedChunk>& cited);
Result<CitationsRequest> DecodeCitationsRequest(std::string_view body);
std::string EncodeCitationsReply(const std::vector<CitationState>& states);
Result<std::vector<CitationState>> DecodeCitationsReply(std::string_view body);

}  // namespace attest
