// One API exchange as the route handlers see it (server/routes.cc, server/openai_routes.cc): the
// request id and versions, the error body shape of its route, and admission (authentication, then
// the per-credential rate limit), shared so every route authenticates, limits and audits alike.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/routes.h"

namespace attest::server {

struct Call {
  RouteContext* ctx;
  std::shared_ptr<http::Exchange> ex;
  service::RequestContext rc;
  std::string version;
  ErrorShape shape = ErrorShape::kAttest;

  std::vector<std::pair<std::string, std::string>> Headers() const {
    return {{"X-Request-Id", rc.request_id}, {"X-Attest-Version", version}};
  }
  void Fail(const service::ApiError& e) { ex->Respond(ErrorResponse(e, rc.request_id, version, shape)); }
  void Reply(service::ApiResult<std::string> r, int status = 200) {
    if (!r.ok()) return Fail(r.error());
    http::Response resp;
    resp.status = status;
    resp.body = std::move(r).value();
    resp.headers = Headers();
    ex->Respond(std::move(resp));
  }
};

// The request id (X-Request-Id when valid, else assigned), the route and the arrival time.
Call Begin(RouteContext* ctx, std::shared_ptr<http::Exchange> ex, const char* route,
           ErrorShape shape = ErrorShape::kAttest);

// Authentication and the per-credential rate limit; on refusal the error is answered and nullopt
// returned.
std::optional<service::Identity> Admit(Call& c);

}  // namespace attest::server
