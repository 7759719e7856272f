#include "cluster/shard_service.h"

#include "cluster/answer_contract.h"
#include "cluster/document_contract.h"
#include "cluster/shard_contract.h"

namespace attest {

Result<ShardService> ShardService::Open(ShardServiceOptions options) {
  if (options.engine == nullptr) return Status::InvalidArgument("shard service: no engine");
  if (options.credential.size() < 16) {
    return Status::InvalidArgument("shard service: the service credential must be at least 16 bytes");
  }
  return ShardService(std::move(options));
}

bool ShardService::Authorized(std::string_view authorization) const {
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.substr(0, kBearer.size()) != kBearer) return false;
  const std::string_view given = authorization.substr(kBearer.size());
  const std::string& want = options_.credential;
  // Constant time in the credential's length: every byte is compared whatever differs first.
  unsigned diff = given.size() == want.size() ? 0u : 1u;
  for (size_t i = 0; i < want.size(); ++i) {
    diff |= static_cast<unsigned char>(want[i]) ^ static_cast<unsigned char>(i < given.size() ? given[i] : 0);
  }
  return diff == 0;
}

Result<std::string> ShardService::Statistics(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(SearchOptions options, DecodeStatisticsRequest(body));
  ATTEST_ASSIGN_OR_RETURN(ShardStatistics s, options_.engine->QueryStatistics(options));
  return EncodeStatisticsReply(s);
}

Result<std::string> ShardService::Search(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(ShardSearchRequest r, DecodeSearchRequest(body));
  ATTEST_ASSIGN_OR_RETURN(SearchResult result, options_.engine->ShardSearch(r.options, r.statistics, r.snapshot));
  return EncodeSearchReply(result);
}

Result<std::string> ShardService::Document(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(ShardDocumentRequest r, DecodeDocumentRequest(body));
  ATTEST_ASSIGN_OR_RETURN(DocumentInfo d, options_.engine->GetDocument(r.filter, r.id));
  return EncodeDocumentReply(d);
}

Result<std::string> ShardService::Documents(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(ListDocumentsOptions o, DecodeListingRequest(body));
  ATTEST_ASSIGN_OR_RETURN(DocumentListing l, options_.engine->ListDocuments(o));
  return EncodeListingReply(l);
}

Result<std::string> ShardService::TermStatistics(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(TermStatisticsRequest r, DecodeTermStatisticsRequest(body));
  ATTEST_ASSIGN_OR_RETURN(ShardStatistics s, options_.engine->TermStatistics(r.filter, r.terms));
  return EncodeStatisticsReply(s);
}

Result<std::string> ShardService::Chunks(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(ChunksRequest r, DecodeChunksRequest(body));
  ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkContent> chunks, options_.engine->ReadChunks(r.filter, r.ids));
  return EncodeChunksReply(chunks);
}

Result<std::string> ShardService::Citations(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(CitationsRequest r, DecodeCitationsRequest(body));
  ATTEST_ASSIGN_OR_RETURN(std::vector<CitationState> states, options_.engine->CheckCitations(r.filter, r.cited));
  return EncodeCitationsReply(states);
}

Result<std::string> ShardService::Sources(std::string_view body) const {
  ATTEST_ASSIGN_OR_RETURN(SourcesRequest r, DecodeSourcesRequest(body));
  ATTEST_ASSIGN_OR_RETURN(std::vector<SourceInfo> sources, options_.engine->ReadSources(r.filter, r.ids));
  return EncodeSourcesReply(sources);
}

}  // namespace attest
