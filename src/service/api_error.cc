// The wire vocabulary of ApiErrorCode (service/api_error.h). Switches without a default: a new
// code that is not named here is a -Wswitch warning and fails api_error_test.
#include "service/api_error.h"

namespace attest::service {

std::string_view ApiErrorCodeName(ApiErrorCode code) {
  using C = ApiErrorCode;
  switch (code) {
    case C::kInvalidJson: return "invalid_json";
    case C::kInvalidRequest: return "invalid_request";
    case C::kBadHttp: return "bad_http";
    case C::kUnauthorized: return "unauthorized";
    case C::kForbidden: return "forbidden";
    case C::kNotFound: return "not_found";
    case C::kMethodNotAllowed: return "method_not_allowed";
    case C::kTimeout: return "timeout";
    case C::kConflict: return "conflict";
    case C::kPayloadTooLarge: return "payload_too_large";
    case C::kUnsupportedMediaType: return "unsupported_media_type";
    case C::kRateLimited: return "rate_limited";
    case C::kQuotaExceeded: return "quota_exceeded";
    case C::kHeadersTooLarge: return "headers_too_large";
    case C::kCancelled: return "cancelled";
    case C::kNotImplemented: return "not_implemented";
    case C::kOverloaded: return "overloaded";
    case C::kUnavailable: return "unavailable";
    case C::kStorageFull: return "storage_full";
    case C::kAuditUnavailable: return "audit_unavailable";
    case C::kVectorLegUnavailable: return "vector_leg_unavailable";
    case C::kModelUnavailable: return "model_unavailable";
    case C::kUpstreamError: return "upstream_error";
    case C::kDeadlineExceeded: return "deadline_exceeded";
    case C::kInternal: return "internal";
    case C::kUnsupportedEventType: return "unsupported_event_type";
    case C::kIdempotencyConflict: return "idempotency_conflict";
    case C::kCorruptDocument: return "corrupt_document";
  }
  return "";
}

std::optional<ApiErrorCode> ApiErrorCodeFromName(std::string_view name) {
  for (int i = 0; i < kApiErrorCodeCount; ++i) {
    const auto code = static_cast<ApiErrorCode>(i);
    if (ApiErrorCodeName(code) == name) return code;
  }
  return std::nullopt;
}

std::string_view ApiErrorCodeDescription(ApiErrorCode code) {
  using C = ApiErrorCode;
  switch (code) {
    case C::kInvalidJson: return "the body is empty, not UTF-8 or not JSON";
    case C::kInvalidRequest: return "a request field is wrong; `field` names it";
    case C::kBadHttp: return "malformed HTTP request";
    case C::kUnauthorized: return "missing, invalid or expired credential";
    case C::kForbidden: return "the credential may not do this (e.g. another tenant, not an admin)";
    case C::kNotFound: return "no such route, document, thread or answer that the caller may see";
    case C::kMethodNotAllowed: return "the route exists with other methods (see Allow)";
    case C::kTimeout: return "the client did not send its request in time";
    case C::kConflict: return "the request conflicts with the current state";
    case C::kPayloadTooLarge: return "the caller's input is over a limit (body, field or document size)";
    case C::kUnsupportedMediaType: return "the body's media type is not accepted";
    case C::kRateLimited: return "over the credential's request rate (see Retry-After)";
    case C::kQuotaExceeded: return "a thread or feedback quota, named in the message";
    case C::kHeadersTooLarge: return "the request headers are over the limit";
    case C::kCancelled: return "the client went away";
    case C::kNotImplemented: return "an HTTP feature the server does not implement";
    case C::kOverloaded: return "a work queue is full; retry later";
    case C::kUnavailable: return "not ready, shutting down, or the index or a store is busy; retry later";
    case C::kStorageFull: return "the device of the data directory is full; the write was not applied";
    case C::kAuditUnavailable: return "not run: its audit record could not be kept (see Retry-After)";
    case C::kVectorLegUnavailable:
      return "mode vector or hybrid while the tenant's vector model cannot be loaded (mode auto still works)";
    case C::kModelUnavailable:
      return "a model server (embeddings, chat, rerank) is rate limiting or unavailable; field \"model\", "
             "see Retry-After";
    case C::kUpstreamError:
      return "a model server failed or answered something unusable; field \"model\"; not the caller's fault";
    case C::kDeadlineExceeded: return "a deadline passed before the work finished (the request's or a model's)";
    case C::kInternal: return "a bug in the server; the detail is logged with the request id";
    case C::kUnsupportedEventType: return "an event's type is not one the server knows; `field` names it";
    case C::kIdempotencyConflict:
      return "the webhook-id was already used with another body: a repeat must resend the same bytes";
    case C::kCorruptDocument: return "stored data failed a check and was not served";
  }
  return "";
}

}  // namespace attest::service
