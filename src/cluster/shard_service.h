// The shard node's side of the service contract (cluster/shard_contract.h; docs/cluster.md,
// "Service contracts"), independent of the transport: the service credential check and the work of
// each internal route, body in and body out. The HTTP adapter (server/shard_routes.cc) maps the
// Status of a failed call to its one error table.
//
// Thread-safety: const members may be called concurrently (the engine is thread-safe).
#pragma once

#include <string>
#include <string_view>

#include "attest/engine.h"

namespace attest {

struct ShardServiceOptions {
  const Engine* engine = nullptr;
  // The service credential every internal call must carry ("Authorization: Bearer <it>"); a shard
  // with none configured refuses every call (Open refuses to build one).
  std::string credential;
};

class ShardService {
 public:
  // kInvalidArgument without an engine or with a credential under 16 bytes.
  static Result<ShardService> Open(ShardServiceOptions options);

  // Whether an Authorization header value carries the credential (compared in constant time).
  bool Authorized(std::string_view authorization) const;
  // POST /internal/v1/statistics and /internal/v1/search: the reply body, or the error.
  Result<std::string> Statistics(std::string_view body) const;
  Result<std::string> Search(std::string_view body) const;
  // POST /internal/v1/document and /internal/v1/documents (cluster/document_contract.h).
  Result<std::string> Document(std::string_view body) const;
  Result<std::string> Documents(std::string_view body) const;
  // POST /internal/v1/term_statistics, /internal/v1/chunks, /internal/v1/citations
  // (cluster/answer_contract.h).
  Result<std::string> TermStatistics(std::string_view body) const;
  Result<std::string> Chunks(std::string_view body) const;
  Result<std::string> Citations(std::string_view body) const;
  Result<std::string> Sources(std::string_view body) const;  // POST /internal/v1/sources

 private:
  explicit ShardService(ShardServiceOptions options) : options_(std::move(options)) {}
  ShardServiceOptions options_;
};

}  // namespace attest
