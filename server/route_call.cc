// Admission shared by every authenticated route (server/route_call.h).
#include "server/route_call.h"

#include <cmath>

#include "service/service_internal.h"

namespace attest::server {

using service::ApiError;
using service::ApiErrorCode;
using service::ApiResult;
using service::Identity;

Call Begin(RouteContext* ctx, std::shared_ptr<http::Exchange> ex, const char* route, ErrorShape shape) {
  Call c{ctx, std::move(ex), {}, ctx->service->VersionHeader(), shape};
  const std::string given = c.ex->request().Header("x-request-id");
  c.rc.request_id = service::ValidRequestId(given) ? given : service::internal::RandomId("req_");
  c.rc.route = route;
  c.rc.received = c.ex->request().received;
  return c;
}

std::optional<Identity> Admit(Call& c) {
  ApiResult<Identity> who = c.ctx->auth->Authenticate(c.ex->request().headers);
  if (!who.ok()) {
    c.Fail(who.error());
    return std::nullopt;
  }
  const double own = who.value().rate_per_second;
  auto d = own > 0 ? c.ctx->limiter->Acquire(who.value().credential_id, service::RateLimit{own, 0})
                   : c.ctx->limiter->Acquire(who.value().credential_id);
  if (!d.allowed) {
    c.ctx->metrics->GetCounter("attest_rate_limited_total", "Requests refused by the per-credential rate limit")->Add();
    http::Response r = ErrorResponse(ApiError{ApiErrorCode::kRateLimited, "rate limit exceeded for this credential", ""},
                                     c.rc.request_id, c.version, c.shape);
    r.headers.emplace_back("Retry-After", std::to_string(static_cast<int>(std::ceil(d.retry_after_seconds))));
    c.ex->Respond(std::move(r));
    return std::nullopt;
  }
  return std::move(who).value();
}

}  // namespace attest::server
