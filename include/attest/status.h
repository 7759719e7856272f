// Errors as values. A Status is one pointer wide when OK; a Result<T> holds a value or a Status.
// Codes are domain codes, never HTTP codes: adapters (CLI, server) map them at their boundary.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace attest {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument,   // the caller's input is wrong (bad query, bad flag, malformed document)
  kNotFound,          // the named thing does not exist
  kAlreadyExists,
  kCorruption,        // stored data failed a magic, version or checksum check
  kIOError,           // the operating system refused a read or write
  kUnsupported,       // a format version or feature this build does not handle
  kResourceExhausted, // a size or count limit was exceeded
  kBusy,              // another process holds the writer lock
  kCancelled,
  kInternal,          // a bug: an invariant of Attest itself was broken
  kNoSpace,           // the device holding the data directory is full (ENOSPC, EDQUOT, SQLITE_FULL)
  // A service Attest depends on (a model server: embeddings, chat, rerank) failed. None of these
  // blame the caller; adapters map them to 5xx (docs/design.md, "Errors").
  kDeadlineExceeded,  // a time limit passed before the work finished (a request deadline, a model timeout)
  kUnavailable,       // a dependency cannot serve now and may later (model 429/503): retry_after_seconds()
  kUpstreamError,     // a dependency answered with an error or a malformed body (model 5xx, 4xx to us)
};
// Number of codes, for exhaustive tables and tests.
inline constexpr int kStatusCodeCount = static_cast<int>(StatusCode::kUpstreamError) + 1;

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
  static Status Busy(std::string m) { return {StatusCode::kBusy, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
  static Status NoSpace(std::string m) { return {StatusCode::kNoSpace, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
  // `retry_after_seconds` > 0: when the dependency said a retry may succeed (Retry-After).
  static Status Unavailable(std::string m, int retry_after_seconds = 0);
  static Status UpstreamError(std::string m) { return {StatusCode::kUpstreamError, std::move(m)}; }

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const;
  // Seconds after which a retry may succeed (kUnavailable from a dependency that said so); 0 = unknown.
  int retry_after_seconds() const { return rep_ ? rep_->retry_after_seconds : 0; }
  // "InvalidArgument: message" or "OK".
  std::string ToString() const;
  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

 private:
  struct Rep {
    StatusCode code;
    std::string message;
    int retry_after_seconds = 0;
  };
  std::shared_ptr<const Rep> rep_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {}   // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace attest

#define ATTEST_CONCAT_INNER_(a, b) a##b
#define ATTEST_CONCAT_(a, b) ATTEST_CONCAT_INNER_(a, b)

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define ATTEST_RETURN_IF_ERROR(expr)              \
  do {                                            \
    ::attest::Status _attest_st = (expr);         \
    if (!_attest_st.ok()) return _attest_st;      \
  } while (0)

// `ATTEST_ASSIGN_OR_RETURN(auto x, MakeX());` unwraps a Result or returns its Status.
#define ATTEST_ASSIGN_OR_RETURN(lhs, rexpr) \
  ATTEST_ASSIGN_OR_RETURN_IMPL_(ATTEST_CONCAT_(_attest_res_, __LINE__), lhs, rexpr)
#define ATTEST_ASSIGN_OR_RETURN_IMPL_(res, lhs, rexpr) \
  auto res = (rexpr);                                  \
  if (!res.ok()) return res.status();                  \
  lhs = std::move(res).value()
