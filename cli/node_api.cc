#include "cli/node_api.h"

#include <charconv>

#include "server/routes.h"

namespace attest {

Result<std::unique_ptr<NodeApi>> NodeApi::Start(const Engine& engine, const std::string& listen,
                                                const std::string& credential, std::function<ShardHealth()> health) {
  const size_t colon = listen.rfind(':');
  unsigned port = 0;
  const char* end = listen.data() + listen.size();
  if (colon == std::string::npos || colon == 0 ||
      std::from_chars(listen.data() + colon + 1, end, port).ptr != end || port == 0 || port > 65535) {
    return Status::InvalidArgument("--listen '" + listen + "' is not HOST:PORT");
  }
  ATTEST_ASSIGN_OR_RETURN(ShardService service, ShardService::Open({&engine, credential}));
  std::unique_ptr<NodeApi> api(new NodeApi());
  api->service_ = std::make_unique<ShardService>(std::move(service));
  api->ctx_.shard = api->service_.get();
  api->ctx_.version_header = "attest/" ATTEST_VERSION;
  api->ctx_.health_json = [health = std::move(health)] { return EncodeHealthReply(health()); };
  http::ServerOptions so;
  so.host = listen.substr(0, colon);
  so.port = static_cast<uint16_t>(port);
  const std::string version = api->ctx_.version_header;
  auto errors = [version](int, std::string code, std::string message, std::string field) {
    return server::TransportErrorResponse(code, std::move(message), std::move(field), "", version);
  };
  ATTEST_ASSIGN_OR_RETURN(api->server_, http::Server::Create(so, server::BuildShardRoutes(&api->ctx_), errors));
  ATTEST_RETURN_IF_ERROR(api->server_->Start());
  http::Server* server = api->server_.get();
  api->thread_ = std::thread([server] { server->Run(); });
  return api;
}

NodeApi::~NodeApi() {
  if (server_) server_->Stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace attest
