#include "service/service_internal.h"

#include <openssl/rand.h>

#include <atomic>

#include <spdlog/spdlog.h>

#include "common/strings.h"
#include "ingest/text_util.h"
#include "text/case_fold.h"

namespace attest::service::internal {

int64_t UnixMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string RandomId(const char* prefix) {
  unsigned char bytes[8];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    // Never a predictable id: fall back to the clock mixed with a counter only if OpenSSL fails.
    static std::atomic<uint64_t> counter{0};
    uint64_t v = static_cast<uint64_t>(UnixMs()) * 1000003u + counter.fetch_add(1);
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(v >> (8 * i));
  }
  static const char* kHex = "0123456789abcdef";
  std::string out = prefix;
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

void ApplyFilters(const RequestFilters& f, SearchFilter* out) {
  out->source_types = f.source_types;
  out->sites = f.sites;
  out->versions = f.versions;
  out->date_from = f.date_from;
  out->date_to = f.date_to;
}

nlohmann::json FiltersJson(const RequestFilters& f) {
  return {f.source_types, f.sites, f.versions, f.date_from.value_or(""), f.date_to.value_or("")};
}

SearchMode ParseMode(const std::string& mode) {
  if (mode == "bm25") return SearchMode::kBm25;
  if (mode == "vector") return SearchMode::kVector;
  if (mode == "hybrid") return SearchMode::kHybrid;
  return SearchMode::kAuto;
}

std::string NormalizeQuery(const std::string& q) {
  std::string folded;
  AppendCaseFolded(q, &folded);
  return CollapseWhitespace(folded, Nbsp::kAsSpace);
}

AuditRecord SearchAudit(const nlohmann::json& body, const std::string& tenant) {
  AuditRecord r;
  r.tenant = tenant;
  r.outcome = "search";
  r.snapshot = body.value("snapshot_version", uint64_t{0});
  for (const auto& h : body["hits"]) r.chunks_given.push_back(h.value("chunk_id", uint64_t{0}));
  return r;
}

// A dependency's own message names its URL and model: logged, not shown.
constexpr std::string_view kUpstreamMessage =
    "a model server failed or answered something unusable (logged with the request id)";

ApiError FromStatus(const Status& status, const std::string& field, LimitsOf limits) {
  using C = ApiErrorCode;
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
      return ApiError{C::kInvalidRequest, status.message(), field};
    case StatusCode::kNotFound:
      return ApiError{C::kNotFound, status.message(), ""};
    case StatusCode::kCorruption:  // stored data failed a check: refused, never served (store_format.md)
      spdlog::error("refused to serve corrupt data: {}", status.ToString());
      return ApiError{C::kCorruptDocument, status.message(), ""};
    case StatusCode::kResourceExhausted:
      if (limits == LimitsOf::kCallerInput) return ApiError{C::kPayloadTooLarge, status.message(), field};
      spdlog::warn("model server over a limit: {}", status.ToString());
      return ApiError{C::kUpstreamError, std::string(kUpstreamMessage), "model"};
    case StatusCode::kBusy:
      return ApiError{C::kUnavailable, "the index is busy; retry", ""};
    case StatusCode::kCancelled:
      return ApiError{C::kCancelled, status.message(), ""};
    case StatusCode::kNoSpace:
      spdlog::error("write refused: {}", status.ToString());
      return ApiError{C::kStorageFull,
                      "no space left on the device of the data directory (ENOSPC): the write was not applied; "
                      "retry once space is freed",
                      ""};
    // A dependency failed: never the caller's fault, never a 4xx (docs/design.md, "Errors").
    case StatusCode::kUnavailable: {
      spdlog::warn("model server unavailable: {}", status.ToString());
      const int after = status.retry_after_seconds() > 0 ? status.retry_after_seconds() : kDefaultRetryAfterSeconds;
      return ApiError{C::kModelUnavailable,
                      "a model server is rate limiting or unavailable; retry after " + std::to_string(after) + " s",
                      "model", after};
    }
    case StatusCode::kUpstreamError:
      spdlog::warn("model server failed: {}", status.ToString());
      return ApiError{C::kUpstreamError, std::string(kUpstreamMessage), "model"};
    case StatusCode::kDeadlineExceeded:
      spdlog::warn("deadline exceeded: {}", status.ToString());
      return ApiError{C::kDeadlineExceeded, "the work did not finish in time (logged with the request id)", ""};
    // No engine call the service makes returns these for a reason of the caller's or a
    // dependency's: they are bugs or failures of this server. The detail is logged, not shown.
    // A feature this build, or this server's mode, does not have (a cluster coordinator's routes
    // that are not built yet, docs/cluster.md): 501 naming it, never the caller's fault.
    case StatusCode::kUnsupported:
      return ApiError{C::kNotImplemented, status.message(), ""};
    // The state moved on under the request: a cluster's change log holds a newer version of the
    // document than the write (docs/cluster.md, "The change log"). 409 with what is newer.
    case StatusCode::kAlreadyExists:
      return ApiError{C::kConflict, status.message(), ""};
    case StatusCode::kOk:
    case StatusCode::kIOError:
    case StatusCode::kInternal:
      break;
  }
  spdlog::error("internal error: {}", status.ToString());
  return ApiError{C::kInternal, "internal error (logged with the request id)", ""};
}

}  // namespace attest::service::internal
