// The document routes of the shard contract (docs/cluster.md, "Service contracts"): reading one
// document and listing a tenant's documents, so a coordinator can serve GET /v1/documents/{id} and
// GET /v1/documents over its nodes. Same rules as shard_contract.h: versioned bodies, strict
// readers naming the refused field, both directions untrusted.
//
//   POST /internal/v1/document   {"contract":"attest.shard/1","filter":{...},"id":"a.md"}
//        -> {"contract":"attest.shard/1","document":{"id":..,"text":..,"chunk_ids":[..],...}}
//        (404 when the node does not hold it or the filter does not admit it)
//   POST /internal/v1/documents  {"contract":"attest.shard/1","listing":{"tenant":..,"limit":20,...}}
//        -> {"contract":"attest.shard/1","listing":{"documents":[..],"corrupt":[..],"total":..,...}}
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "attest/engine.h"

namespace attest {

struct ShardDocumentRequest {
  SearchFilter filter;  // the caller's: what it may read
  std::string id;
};

std::string EncodeDocumentRequest(const SearchFilter& filter, const std::string& id);
Result<ShardDocumentRequest> DecodeDocumentRequest(std::string_view body);
std::string EncodeDocumentReply(const DocumentInfo& doc);
Result<DocumentInfo> DecodeDocumentReply(std::string_view body);

std::string EncodeListingRequest(const ListDocumentsOptions& options);
Result<ListDocumentsOptions> DecodeListingRequest(std::string_view body);
std::string EncodeListingReply(const DocumentListing& listing);
Result<DocumentListing> DecodeListingReply(std::string_view body);

}  // namespace attest
