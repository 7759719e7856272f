// The internal API of `attest node` (docs/cluster.md, "Service contracts"): the shard routes of
// server/shard_routes.h on the node's --listen address, served on their own threads while the node
// applies the change log. Every call needs the service credential.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "attest/engine.h"
#include "cluster/shard_contract.h"
#include "cluster/shard_service.h"
#include "server/http_server.h"
#include "server/shard_routes.h"

namespace attest {

class NodeApi {
 public:
  // Listens on `listen` (HOST:PORT). kInvalidArgument for a bad address or a credential under 16
  // bytes; the server's error when the port cannot be bound.
  static Result<std::unique_ptr<NodeApi>> Start(const Engine& engine, const std::string& listen,
                                                const std::string& credential, std::function<ShardHealth()> health);
  ~NodeApi();  // stops the server and joins it

 private:
  NodeApi() = default;
  std::unique_ptr<ShardService> service_;
  server::ShardRouteContext ctx_;
  std::unique_ptr<http::Server> server_;
  std::thread thread_;
};

}  // namespace attest
