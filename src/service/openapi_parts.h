// Builders of the OpenAPI document (service/contracts.h, OpenApiJson) shared by its parts:
// openapi.cc (the document, paths and most schemas), openapi_events.cc (POST /v1/events) and
// openapi_routes.cc (operationIds, unused error responses).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/api_error.h"
#include "service/contracts.h"

namespace attest::service::openapi {

using nlohmann::json;

inline json Ref(const std::string& name) { return {{"$ref", "#/components/schemas/" + name}}; }
inline json Str(const char* description) { return {{"type", "string"}, {"description", description}}; }
inline json Int(const char* description) { return {{"type", "integer"}, {"description", description}}; }
inline json Num(const char* description) { return {{"type", "number"}, {"description", description}}; }
inline json Bool(const char* description) { return {{"type", "boolean"}, {"description", description}}; }
inline json ArrayOf(json items, const char* description) {
  return {{"type", "array"}, {"items", std::move(items)}, {"description", description}};
}
inline json Object(json properties, std::vector<std::string> required = {}) {
  json o = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) o["required"] = required;
  return o;
}

// Sets the operationId of every operation (openapi_routes.cc: one table of stable names).
void AddOperationIds(json* paths);

// Drops the error response components no operation refers to and describes their codes in the
// Error schema instead (openapi_routes.cc).
void MoveUnusedErrorResponses(const json& paths, json* components);

// POST /mcp, the MCP endpoint (openapi_mcp.cc).
void AddMcpOperation(json* paths);

// The schemas of POST /v1/events and GET /v1/events/{seq} (docs/events.md).
void AddEventSchemas(json* out);

// The OpenAI-compatible routes (openapi_openai.cc): their schemas and operations.
void AddOpenAiSchemas(json* schemas);
void AddOpenAiPaths(ErrorStatusTable status_of, json* paths);

}  // namespace attest::service::openapi
