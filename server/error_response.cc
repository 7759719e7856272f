// The one place where API errors become HTTP responses.
#include <nlohmann/json.hpp>

#include "server/routes.h"

namespace attest::server {

int HttpStatusOf(const std::string& code) {
  static const std::map<std::string, int> kStatus = {
      {"invalid_json", 400},      {"invalid_request", 400}, {"bad_http", 400},       {"unauthorized", 401},
      {"forbidden", 403},         {"not_found", 404},       {"method_not_allowed", 405}, {"timeout", 408},
      {"conflict", 409},          {"payload_too_large", 413}, {"unsupported_media_type", 415},
      {"rate_limited", 429},      {"quota_exceeded", 429},  {"headers_too_large", 431}, {"cancelled", 499},
      {"not_implemented", 501},   {"overloaded", 503},      {"unavailable", 503},     {"storage_full", 503},
      {"audit_unavailable", 503}, {"vector_leg_unavailable", 503},                    {"deadline_exceeded", 504},
      {"internal", 500},          {"corrupt_document", 500}};
  auto it = kStatus.find(code);
  return it == kStatus.end() ? 500 : it->second;
}

http::Response ErrorResponse(const service::ApiError& error, const std::string& request_id,
                             const std::string& version_header) {
  http::Response r;
  r.status = HttpStatusOf(error.code);
  nlohmann::json body = {{"error", {{"code", error.code}, {"message", error.message}, {"field", error.field}}}};
  if (!request_id.empty()) body["request_id"] = request_id;
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (!request_id.empty()) r.headers.emplace_back("X-Request-Id", request_id);
  if (!version_header.empty()) r.headers.emplace_back("X-Attest-Version", version_header);
  if (r.status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
  // The audit log drains as soon as its disk takes writes (retries back off to 1 s).
  if (error.retry_after_seconds > 0) {
    r.headers.emplace_back("Retry-After", std::to_string(error.retry_after_seconds));
  } else if (error.code == "audit_unavailable") {
    r.headers.emplace_back("Retry-After", "1");
  }
  return r;
}

}  // namespace attest::server
