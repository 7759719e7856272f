// The one place where API errors become HTTP responses: the table from ApiErrorCode to status.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "server/routes.h"
#include "service/openai_chat.h"

namespace attest::server {

// The table. A switch without a default: a code added to ApiErrorCode and not given a status here
// is a -Wswitch warning, and error_response_test fails (it checks every code has a status).
int HttpStatusOf(service::ApiErrorCode code) {
  using C = service::ApiErrorCode;
  switch (code) {
    case C::kInvalidJson:
    case C::kInvalidRequest:
    case C::kBadHttp: return 400;
    case C::kUnauthorized: return 401;
    case C::kForbidden: return 403;
    case C::kNotFound: return 404;
    case C::kMethodNotAllowed: return 405;
    case C::kTimeout: return 408;
    case C::kConflict: return 409;
    case C::kPayloadTooLarge: return 413;
    case C::kUnsupportedMediaType: return 415;
    case C::kUnsupportedEventType:
    case C::kIdempotencyConflict: return 422;
    case C::kRateLimited:
    case C::kQuotaExceeded: return 429;
    case C::kHeadersTooLarge: return 431;
    case C::kCancelled: return 499;
    case C::kInternal:
    case C::kCorruptDocument: return 500;
    case C::kNotImplemented: return 501;
    case C::kUpstreamError: return 502;
    case C::kOverloaded:
    case C::kUnavailable:
    case C::kStorageFull:
    case C::kAuditUnavailable:
    case C::kVectorLegUnavailable:
    case C::kModelUnavailable: return 503;
    case C::kDeadlineExceeded: return 504;
  }
  return 0;  // not a code of the enum (a cast from an integer): ErrorResponse answers 500
}

http::Response ErrorResponse(const service::ApiError& error, const std::string& request_id,
                             const std::string& version_header, ErrorShape shape) {
  http::Response r;
  r.status = HttpStatusOf(error.code);
  if (r.status == 0) {
    spdlog::error("no HTTP status for API error code {}", static_cast<int>(error.code));
    r.status = 500;
  }
  nlohmann::json body;
  if (shape == ErrorShape::kOpenAi) {
    body = service::ChatErrorJson(error, r.status);
  } else {
    body = {{"error",
             {{"code", service::ApiErrorCodeName(error.code)}, {"message", error.message}, {"field", error.field}}}};
    if (!request_id.empty()) body["request_id"] = request_id;
  }
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!request_id.empty()) r.headers.emplace_back("X-Request-Id", request_id);
  if (!version_header.empty()) r.headers.emplace_back("X-Attest-Version", version_header);
  if (r.status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
  // The audit log drains as soon as its disk takes writes (retries back off to 1 s).
  if (error.retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After", std::to_string(error.retry_after_seconds));
  } else if (error.code == service::ApiErrorCode::kAuditUnavailable) {
    r.headers.emplace_back("Retry-After", "1");
  }
  return r;
}

http::Response TransportErrorResponse(std::string_view code, std::string message, std::string field,
                                      const std::string& request_id, const std::string& version_header) {
  std::optional<service::ApiErrorCode> typed = service::ApiErrorCodeFromName(code);
  if (!typed) spdlog::error("the HTTP transport raised an error code the API does not know: {}", code);
  return ErrorResponse(service::ApiError{typed.value_or(service::ApiErrorCode::kInternal), std::move(message),
                                         std::move(field)},
                       request_id, version_header);
}

}  // namespace attest::server
