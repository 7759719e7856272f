// The error every API boundary returns: a stable machine code, a message for people, and the
// request field it concerns ("" when none). The HTTP adapter maps `code` to a status in one place
// (server/error_response.cc); nothing in src/service knows HTTP status numbers.
#pragma once

#include <string>

namespace attest::service {

struct ApiError {
  // invalid_json, invalid_request (a field is wrong: see `field`), unauthorized, forbidden,
  // not_found, conflict, payload_too_large, rate_limited, quota_exceeded, overloaded, unavailable,
  // storage_full (the data directory's device is full), deadline_exceeded, internal
  std::string code;
  std::string message;
  std::string field;  // JSON path of the offending field, e.g. "query", "filters.sites[2]"
  int retry_after_seconds = 0;  // > 0: when a retry may succeed (rate limits), sent as Retry-After
};

inline ApiError InvalidField(std::string field, std::string message) {
  return ApiError{"invalid_request", std::move(message), std::move(field)};
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
