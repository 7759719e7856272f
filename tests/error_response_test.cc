// The error boundary (docs/design.md, "Errors"): every ApiErrorCode has a wire name and exactly one
// HTTP status in the one table (server::HttpStatusOf); every StatusCode is mapped by FromStatus on
// purpose; a dependency's failure (a model server's 429, 5xx, timeout) never becomes a 4xx that
// blames the caller; the OpenAPI document lists the same statuses as the table.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "server/routes.h"
#include "service/api_error.h"
#include "service/contracts.h"
#include "service/service_internal.h"

namespace attest {
namespace {

using nlohmann::json;
using service::ApiError;
using service::ApiErrorCode;
using service::internal::FromStatus;
using service::internal::LimitsOf;

std::string Header(const http::Response& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

// An unmapped code fails here, not in a request.
TEST(ErrorTable, EveryApiErrorCodeHasAWireNameAndAnErrorStatus) {
  std::set<std::string> names;
  for (int i = 0; i < service::kApiErrorCodeCount; ++i) {
    const auto code = static_cast<ApiErrorCode>(i);
    const std::string name(service::ApiErrorCodeName(code));
    EXPECT_FALSE(name.empty()) << "ApiErrorCode " << i << " has no wire name";
    EXPECT_TRUE(names.insert(name).second) << "two codes are named " << name;
    EXPECT_EQ(service::ApiErrorCodeFromName(name), code) << name;
    EXPECT_FALSE(service::ApiErrorCodeDescription(code).empty()) << name;
    const int status = server::HttpStatusOf(code);
    EXPECT_GE(status, 400) << name << " has no HTTP status in server/error_response.cc";
    EXPECT_LE(status, 599) << name;
  }
  EXPECT_FALSE(service::ApiErrorCodeFromName("no_such_code").has_value());
  // A value outside the enum is the one thing without a status; a response still goes out, as 500.
  const auto outside = static_cast<ApiErrorCode>(service::kApiErrorCodeCount);
  EXPECT_EQ(server::HttpStatusOf(outside), 0);
  EXPECT_EQ(server::ErrorResponse(ApiError{outside, "m", ""}, "", "").status, 500);
}

// The wire names clients already know did not change when the codes became an enum.
TEST(ErrorTable, WireNamesAndStatusesClientsKnow) {
  const std::map<std::string, int> known = {
      {"invalid_json", 400},      {"invalid_request", 400},        {"bad_http", 400},
      {"unauthorized", 401},      {"forbidden", 403},              {"not_found", 404},
      {"method_not_allowed", 405}, {"timeout", 408},               {"conflict", 409},
      {"payload_too_large", 413}, {"unsupported_media_type", 415}, {"rate_limited", 429},
      {"quota_exceeded", 429},    {"headers_too_large", 431},      {"cancelled", 499},
      {"not_implemented", 501},   {"overloaded", 503},             {"unavailable", 503},
      {"storage_full", 503},      {"audit_unavailable", 503},      {"vector_leg_unavailable", 503},
      {"deadline_exceeded", 504}, {"internal", 500},               {"corrupt_document", 500},
      // New with typed codes: a model server's failure.
      {"model_unavailable", 503}, {"upstream_error", 502},
      // POST /v1/events.
      {"unsupported_event_type", 422}, {"idempotency_conflict", 422}};
  EXPECT_EQ(known.size(), size_t(service::kApiErrorCodeCount));
  for (const auto& [name, status] : known) {
    auto code = service::ApiErrorCodeFromName(name);
    ASSERT_TRUE(code.has_value()) << name;
    EXPECT_EQ(server::HttpStatusOf(*code), status) << name;
  }
}

// The transport raises its own errors with a code name and a status (server/connection.cc); the
// status that goes out comes from the table, and they agree.
TEST(ErrorTable, TransportErrorCodesAreApiErrorCodesWithTheSameStatus) {
  const std::map<std::string, int> transport = {
      {"bad_http", 400},          {"invalid_request", 400}, {"not_found", 404},       {"method_not_allowed", 405},
      {"timeout", 408},           {"payload_too_large", 413}, {"rate_limited", 429},  {"headers_too_large", 431},
      {"internal", 500},          {"not_implemented", 501}, {"overloaded", 503}};
  for (const auto& [name, status] : transport) {
    http::Response r = server::TransportErrorResponse(name, "m", "", "req_1", "v");
    EXPECT_EQ(r.status, status) << name;
    EXPECT_EQ(json::parse(r.body)["error"]["code"], name);
  }
  EXPECT_EQ(server::TransportErrorResponse("made_up", "m", "", "req_1", "v").status, 500);
}

// Every StatusCode is mapped on purpose (FromStatus is a switch without a default, so -Wswitch flags
// a new one); the domain codes that are the caller's keep their 4xx, a dependency's are 5xx.
TEST(FromStatus, EveryStatusCodeIsMappedDeliberately) {
  const std::map<StatusCode, ApiErrorCode> expected = {
      {StatusCode::kOk, ApiErrorCode::kInternal},
      {StatusCode::kInvalidArgument, ApiErrorCode::kInvalidRequest},
      {StatusCode::kNotFound, ApiErrorCode::kNotFound},
      {StatusCode::kAlreadyExists, ApiErrorCode::kConflict},
      {StatusCode::kCorruption, ApiErrorCode::kCorruptDocument},
      {StatusCode::kIOError, ApiErrorCode::kInternal},
      {StatusCode::kUnsupported, ApiErrorCode::kNotImplemented},
      {StatusCode::kResourceExhausted, ApiErrorCode::kPayloadTooLarge},  // with LimitsOf::kCallerInput
      {StatusCode::kBusy, ApiErrorCode::kUnavailable},
      {StatusCode::kCancelled, ApiErrorCode::kCancelled},
      {StatusCode::kInternal, ApiErrorCode::kInternal},
      {StatusCode::kNoSpace, ApiErrorCode::kStorageFull},
      {StatusCode::kDeadlineExceeded, ApiErrorCode::kDeadlineExceeded},
      {StatusCode::kUnavailable, ApiErrorCode::kModelUnavailable},
      {StatusCode::kUpstreamError, ApiErrorCode::kUpstreamError}};
  for (int i = 0; i < kStatusCodeCount; ++i) {
    const auto sc = static_cast<StatusCode>(i);
    auto it = expected.find(sc);
    ASSERT_NE(it, expected.end()) << "StatusCode " << StatusCodeName(sc)
                                  << " has no deliberate mapping in FromStatus (and in this test)";
    const Status status = sc == StatusCode::kOk ? Status() : Status(sc, "detail");
    const ApiError e = FromStatus(status, "query", LimitsOf::kCallerInput);
    EXPECT_EQ(e.code, it->second) << StatusCodeName(sc);
    EXPECT_FALSE(e.message.empty()) << StatusCodeName(sc);
  }
  EXPECT_EQ(expected.size(), size_t(kStatusCodeCount));
}

// The regression of issue 11: a chat model's 429 reached the client as 413 with field "writer".
TEST(FromStatus, Regression_ResourceExhaustedFromAModelIsNotPayloadTooLarge) {
  const Status from_model = Status::ResourceExhausted("chat client: HTTP 429: slow down");
  const ApiError e = FromStatus(from_model, "writer", LimitsOf::kDependency);
  EXPECT_EQ(e.code, ApiErrorCode::kUpstreamError);
  EXPECT_EQ(e.field, "model");
  EXPECT_EQ(server::HttpStatusOf(e.code), 502);
  // The caller's own input over a limit stays payload_too_large on its field.
  const ApiError input = FromStatus(Status::ResourceExhausted("html: document too large"), "documents",
                                    LimitsOf::kCallerInput);
  EXPECT_EQ(input.code, ApiErrorCode::kPayloadTooLarge);
  EXPECT_EQ(input.field, "documents");
}

// A dependency's failure is never a 4xx, whichever call site it comes through.
TEST(FromStatus, DependencyFailuresAreNever4xx) {
  for (LimitsOf limits : {LimitsOf::kCallerInput, LimitsOf::kDependency}) {
    for (const Status& s : {Status::Unavailable("chat: 429", 7), Status::UpstreamError("chat: HTTP 500"),
                            Status::DeadlineExceeded("chat: timed out")}) {
      const ApiError e = FromStatus(s, "writer", limits);
      EXPECT_GE(server::HttpStatusOf(e.code), 500) << s.ToString();
      EXPECT_NE(e.field, "writer") << s.ToString();
    }
  }
}

// Through the HTTP boundary: 429 from a model -> 503 model_unavailable with Retry-After and field
// "model"; a model's 5xx -> 502 upstream_error; a timeout -> 504 deadline_exceeded.
TEST(FromStatus, UpstreamFailuresAsHttpResponses) {
  http::Response limited =
      server::ErrorResponse(FromStatus(Status::Unavailable("chat: HTTP 429", 7), "writer", LimitsOf::kDependency),
                            "req_1", "v");
  EXPECT_EQ(limited.status, 503);
  EXPECT_EQ(Header(limited, "Retry-After"), "7");
  json body = json::parse(limited.body);
  EXPECT_EQ(body["error"]["code"], "model_unavailable");
  EXPECT_EQ(body["error"]["field"], "model");

  // The model did not say when: the documented default.
  http::Response unsaid =
      server::ErrorResponse(FromStatus(Status::Unavailable("chat: HTTP 503"), "query", LimitsOf::kDependency), "", "");
  EXPECT_EQ(Header(unsaid, "Retry-After"), std::to_string(service::internal::kDefaultRetryAfterSeconds));

  http::Response failed =
      server::ErrorResponse(FromStatus(Status::UpstreamError("chat: HTTP 500"), "writer", LimitsOf::kDependency), "", "");
  EXPECT_EQ(failed.status, 502);
  EXPECT_EQ(json::parse(failed.body)["error"]["code"], "upstream_error");
  EXPECT_EQ(json::parse(failed.body)["error"]["field"], "model");

  http::Response late = server::ErrorResponse(
      FromStatus(Status::DeadlineExceeded("chat: timed out"), "writer", LimitsOf::kDependency), "", "");
  EXPECT_EQ(late.status, 504);
  EXPECT_EQ(json::parse(late.body)["error"]["code"], "deadline_exceeded");
}

// The OpenAPI document is generated from the same table: its Error enum is every wire name, and each
// error response component describes exactly the codes the table gives that status.
TEST(ErrorTable, OpenApiErrorsComeFromTheTable) {
  const json doc = json::parse(service::OpenApiJson("9.9.9", &server::HttpStatusOf));
  std::set<std::string> listed;
  for (const auto& name : doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]["enum"]) {
    listed.insert(name.get<std::string>());
  }
  EXPECT_EQ(listed.size(), size_t(service::kApiErrorCodeCount));
  for (int i = 0; i < service::kApiErrorCodeCount; ++i) {
    const auto code = static_cast<ApiErrorCode>(i);
    const std::string name(service::ApiErrorCodeName(code));
    EXPECT_TRUE(listed.count(name)) << name;
    // Each code is described in its status's response component, or (a code no operation lists, e.g.
    // method_not_allowed) in the Error schema's description.
    const std::string component = "Error" + std::to_string(server::HttpStatusOf(code));
    const std::string described = doc["components"]["responses"].contains(component)
        ? doc["components"]["responses"][component]["description"].get<std::string>()
        : doc["components"]["schemas"]["Error"]["description"].get<std::string>();
    EXPECT_NE(described.find(name + ":"), std::string::npos) << name << " in " << component;
  }
  // The answer route lists the model failures with the table's statuses.
  const json& answer = doc["paths"]["/v1/answer"]["post"]["responses"];
  for (const char* status : {"502", "503", "504"}) EXPECT_TRUE(answer.contains(status)) << status;
}

}  // namespace
}  // namespace attest
