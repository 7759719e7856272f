// The route table of `attest serve` and the one place that maps API errors to HTTP
// (docs/http_api.md). Every route: request id (accepted from X-Request-Id or assigned) and the
// component versions echoed; authentication, then the per-credential rate limit; a strict body
// parse; the Service call; errors as {"error":{"code","message","field"}} with the status of
// their code.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "server/http_server.h"
#include "service/api_error.h"
#include "service/authenticator.h"
#include "service/contracts.h"
#include "service/metrics.h"
#include "service/rate_limiter.h"
#include "service/service.h"

namespace attest::server {

struct RouteContext {
  service::Service* service = nullptr;
  service::Authenticator* auth = nullptr;
  service::RateLimiter* limiter = nullptr;
  service::Registry* metrics = nullptr;
  service::ParseLimits limits;
  std::function<bool()> ready;                 // readyz: engine open, not shutting down
  std::function<size_t()> open_streams;        // gauges for /metrics
  std::function<size_t()> in_flight;
};

http::Router BuildRoutes(RouteContext* ctx);

// HTTP status of an ApiError code (400 invalid_json/invalid_request/bad_http, 401 unauthorized,
// 403 forbidden, 404 not_found, 405 method_not_allowed, 408 timeout, 409 conflict,
// 413 payload_too_large, 429 rate_limited/quota_exceeded, 431 headers_too_large, 499 cancelled,
// 501 not_implemented, 503 overloaded/unavailable/storage_full/audit_unavailable/vector_leg_unavailable,
// 504 deadline_exceeded, 500 internal/corrupt_document; an unknown code is 500).
int HttpStatusOf(const std::string& code);
// The JSON error response, with the request id and version headers.
http::Response ErrorResponse(const service::ApiError& error, const std::string& request_id,
                             const std::string& version_header);

}  // namespace attest::server
