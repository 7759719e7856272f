// Helpers shared by the Service's translation units. Not part of any public interface.
#pragma once

#include <chrono>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "attest/engine.h"
#include "attest/status.h"
#include "service/api_error.h"
#include "service/audit_log.h"
#include "service/contracts.h"
#include "service/service.h"

namespace attest::service {

// The thread a message is asked in: the thread, its earlier questions (what the follow-up is
// planned with) and its last turns (shown again in the response, re-checked for the caller).
struct Service::ThreadTurn {
  ThreadInfo info;
  std::vector<std::string> questions;
  std::vector<AnswerRecord> shown;
};

}  // namespace attest::service

namespace attest::service::internal {

// The API names the store's default tenant (stored as "", what `attest ingest` writes without
// --tenant) "default".
inline constexpr const char* kDefaultTenant = "default";
inline std::string StoreTenant(const std::string& api_tenant) { return api_tenant == kDefaultTenant ? "" : api_tenant; }

// Below this much time left, auto search skips the vector leg.
inline constexpr uint32_t kMinVectorBudgetMs = 5;

int64_t UnixMs();
std::string RandomId(const char* prefix);            // prefix + 16 hex from a CSPRNG
void ApplyFilters(const RequestFilters& f, SearchFilter* out);
nlohmann::json FiltersJson(const RequestFilters& f);
SearchMode ParseMode(const std::string& mode);
// Case-folded, whitespace-collapsed: the retrieval and answer caches' query key.
std::string NormalizeQuery(const std::string& q);
AuditRecord SearchAudit(const nlohmann::json& body, const std::string& tenant);
// Whose limit a kResourceExhausted from an engine call is about: the caller's input (a document
// over the HTML limits) or what a dependency sent back (a model server's reply over a limit; until
// the model clients report a model's 413/429 as kUpstreamError/kUnavailable, those too).
enum class LimitsOf { kCallerInput, kDependency };

// Retry-After of model_unavailable when the model server did not say (Status::retry_after_seconds()
// is 0): long enough that a client does not hammer a rate-limited model, short enough for a blip.
inline constexpr int kDefaultRetryAfterSeconds = 2;

// An engine Status as an ApiError; every StatusCode deliberately (docs/design.md, "Errors"):
// kInvalidArgument -> invalid_request on `field`; kNotFound -> not_found; kCorruption ->
// corrupt_document with the message (logged); kResourceExhausted -> payload_too_large on `field`
// when `limits` is kCallerInput, else upstream_error on "model"; kBusy -> unavailable; kCancelled ->
// cancelled; kNoSpace -> storage_full; kUnavailable -> model_unavailable on "model" with
// retry_after_seconds (kDefaultRetryAfterSeconds when the model did not say); kUpstreamError ->
// upstream_error on "model"; kDeadlineExceeded -> deadline_exceeded; anything else (kOk,
// kAlreadyExists, kIOError, kUnsupported, kInternal) -> internal. Internal, dependency and deadline
// errors get a generic message (a model client's names the server's URL): the detail is logged,
// never shown. A dependency's failure is never a 4xx.
ApiError FromStatus(const Status& status, const std::string& field, LimitsOf limits);

}  // namespace attest::service::internal
