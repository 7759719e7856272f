// The internal routes of a shard node (`attest node`; docs/cluster.md, "Service contracts"):
// POST /internal/v1/statistics and POST /internal/v1/search over cluster/shard_service.h, and
// GET /internal/v1/health. Every call must carry the service credential (401 otherwise, before the
// body is read); a call whose X-Attest-Deadline-Ms says no time is left gets 504 without work.
// Errors go through the one table of server/routes.h (ErrorResponse).
#pragma once

#include <functional>
#include <string>

#include "cluster/shard_service.h"
#include "server/http_server.h"

namespace attest::server {

struct ShardRouteContext {
  const ShardService* shard = nullptr;
  std::string version_header;                // the component versions echoed on every reply
  std::function<std::string()> health_json;  // GET /internal/v1/health body (positions, lag)
};

http::Router BuildShardRoutes(const ShardRouteContext* ctx);

}  // namespace attest::server
