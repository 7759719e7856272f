// The route table of `attest serve` and the one place that maps API errors to HTTP
// (docs/http_api.md). Every route: request id (accepted from X-Request-Id or assigned) and the
// component versions echoed; authentication, then the per-credential rate limit; a strict body
// parse; the Service call; errors as {"error":{"code","message","field"}} with the status of
// their code (HttpStatusOf) and Retry-After when the error says when to retry.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "server/http_server.h"
#include "server/static_site.h"
#include "service/api_error.h"
#include "service/authenticator.h"
#include "service/contracts.h"
#include "service/metrics.h"
#include "service/rate_limiter.h"
#include "service/service.h"

namespace attest::mcp {
class McpServer;
}

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
  const StaticSite* site = nullptr;            // the page at / (nullptr: no page routes)
  const mcp::McpServer* mcp = nullptr;         // POST /mcp (nullptr: it answers 503)
  std::vector<std::string> mcp_allowed_origins;  // browser origins /mcp accepts besides loopback ones
  bool chat_model = false;                     // a chat model is configured: the attest-llm profile exists
};

http::Router BuildRoutes(RouteContext* ctx);
// POST /mcp, the MCP Streamable HTTP endpoint (server/mcp_route.cc, docs/mcp.md); BuildRoutes adds it.
void AddMcpRoute(http::Router* router, RouteContext* ctx);
// The OpenAI-compatible routes (server/openai_routes.cc): POST /v1/chat/completions, GET /v1/models.
void AddOpenAiRoutes(RouteContext* ctx, http::Router* router);

// The HTTP status of each ApiErrorCode: the one table (server/error_response.cc; docs/design.md,
// "Errors"). 400 invalid_json/invalid_request/bad_http, 401 unauthorized, 403 forbidden,
// 404 not_found, 405 method_not_allowed, 408 timeout, 409 conflict, 413 payload_too_large (the
// caller's input only), 415 unsupported_media_type, 422 unsupported_event_type/idempotency_conflict, 429 rate_limited/quota_exceeded,
// 431 headers_too_large, 499 cancelled, 500 internal/corrupt_document, 501 not_implemented,
// 502 upstream_error (a model server failed), 503 overloaded/unavailable/storage_full/
// audit_unavailable/vector_leg_unavailable/model_unavailable (a model server is rate limiting or
// down; Retry-After), 504 deadline_exceeded. Every code has a status (error_response_test); 0 only
// for a value outside the enum, which ErrorResponse answers as 500. The OpenAPI document is
// generated from this function too (service::OpenApiJson).
int HttpStatusOf(service::ApiErrorCode code);
// The body shape of an error: Attest's {"error":{"code","message","field"},"request_id"} or, on the
// OpenAI-compatible routes (docs/openai_api.md), {"error":{"message","type","param","code"}}. The
// status and headers are the same for both (HttpStatusOf).
enum class ErrorShape { kAttest, kOpenAi };
// The JSON error response, with the request id and version headers.
http::Response ErrorResponse(const service::ApiError& error, const std::string& request_id,
                             const std::string& version_header, ErrorShape shape = ErrorShape::kAttest);
// An error the transport raises itself (http::ErrorResponder: 400 bad_http, 404, 405, 408, 413,
// 431, 501, 503 overloaded...) through the same table: the transport names its code, the table
// gives the status. A name that is not an ApiErrorCode is logged and answered as internal (500).
http::Response TransportErrorResponse(std::string_view code, std::string message, std::string field,
                                      const std::string& request_id, const std::string& version_header);

}  // namespace attest::server
