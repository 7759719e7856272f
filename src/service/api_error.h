// The error every API boundary returns: a typed code from the wire vocabulary, a message for
// people, and the request field it concerns ("" when none). The HTTP adapter maps each code to one
// status in one table (server/error_response.cc); nothing in src/service knows HTTP status numbers.
// The policy (what maps to what, how to add a code) is docs/design.md, "Errors".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attest::service {

// The API's error vocabulary. Each code has one wire name (the JSON "code" clients see; never
// rename one) and one HTTP status (server/error_response.cc). The numeric values never reach the
// wire; a new code goes before kCorruptDocument, the last one, which kApiErrorCodeCount counts.
enum class ApiErrorCode : int {
  kInvalidJson = 0,          // the body is not JSON / not UTF-8 / empty
  kInvalidRequest,           // a field is wrong: see `field`
  kBadHttp,                  // malformed HTTP (transport)
  kUnauthorized,             // missing, invalid or expired credential
  kForbidden,                // the credential may not do this
  kNotFound,
  kMethodNotAllowed,         // transport
  kTimeout,                  // the client was too slow sending its request (transport)
  kConflict,
  kPayloadTooLarge,          // the caller's input is over a limit
  kUnsupportedMediaType,
  kRateLimited,              // over the credential's rate (Retry-After)
  kQuotaExceeded,            // a thread or feedback quota
  kHeadersTooLarge,          // transport
  kCancelled,                // the client went away
  kNotImplemented,           // transport
  kOverloaded,               // a work queue is full
  kUnavailable,              // not ready, shutting down, the index or a store is busy
  kStorageFull,              // the data directory's device is full
  kAuditUnavailable,         // the request's audit record could not be kept (Retry-After)
  kVectorLegUnavailable,     // the tenant's vector model cannot be loaded
  kModelUnavailable,         // a model server is rate limiting or unavailable (Retry-After; field "model")
  kUpstreamError,            // a model server failed or answered something unusable (field "model")
  kDeadlineExceeded,         // a deadline passed before the work finished (a request's or a model's)
  kInternal,                 // a bug; the detail is logged, not shown
  kUnsupportedEventType,     // POST /v1/events: an event type the server does not know (field names it)
  kIdempotencyConflict,      // POST /v1/events: a webhook-id seen before with another body
  kCorruptDocument,          // stored data failed a check: refused, never served
};
inline constexpr int kApiErrorCodeCount = static_cast<int>(ApiErrorCode::kCorruptDocument) + 1;

// The wire name ("invalid_request"); "" only for a value outside the enum.
std::string_view ApiErrorCodeName(ApiErrorCode code);
// The code of a wire name; nullopt when no code has that name.
std::optional<ApiErrorCode> ApiErrorCodeFromName(std::string_view name);
// One line for people (the OpenAPI document and docs/http_api.md use the same words).
std::string_view ApiErrorCodeDescription(ApiErrorCode code);

struct ApiError {
  ApiErrorCode code = ApiErrorCode::kInternal;
  std::string message;
  std::string field;  // JSON path of the offending field, e.g. "query", "filters.sites[2]"; "model"
  int retry_after_seconds = 0;  // > 0: when a retry may succeed (rate limits, a model's 429), sent as Retry-After
};

inline ApiError InvalidField(std::string field, std::string message) {
  return ApiError{ApiErrorCode::kInvalidRequest, std::move(message), std::move(field)};
}

}  // namespace attest::service

#include <optional>
#include <utility>

namespace attest::service {

// A value or an ApiError (errors as values, like attest::Result but carrying the field).
template <class T>
class ApiResult {
 public:
  ApiResult(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design
  ApiResult(ApiError error) : error_(std::move(error)) {}   // NOLINT
  bool ok() const { return value_.has_value(); }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const ApiError& error() const { return error_; }

 private:
  std::optional<T> value_;
  ApiError error_;
};

}  // namespace attest::service
