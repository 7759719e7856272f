// The parts of the OpenAPI document (service/contracts.h, OpenApiJson) that tie it to the routes:
// the operationIds, the pruning of unused error responses, and OpenApiOperations (the (method,
// path) pairs tests compare with the router's table).
#include <cctype>

#include "service/contracts.h"
#include "service/openapi_parts.h"

namespace attest::service {
namespace openapi {
namespace {

// The operationId of every operation: stable lowerCamelCase names a generated client uses as its
// function names (openapi_routes_test checks each operation has one and that they are unique).
struct OperationName {
  const char* path;
  const char* method;
  const char* id;
};
constexpr OperationName kOperationIds[] = {
    {"/v1/documents", "post", "putDocument"},
    {"/v1/documents:batch", "post", "putDocuments"},
    {"/v1/documents", "get", "listDocuments"},
    {"/v1/documents/{id}", "get", "getDocument"},
    {"/v1/documents/{id}", "delete", "deleteDocument"},
    {"/v1/search", "post", "search"},
    {"/v1/answer", "post", "answer"},
    {"/v1/threads", "post", "createThread"},
    {"/v1/threads/{id}/messages", "post", "askInThread"},
    {"/v1/feedback", "post", "sendFeedback"},
    {"/v1/me", "get", "getMe"},
    {"/v1/events", "post", "pushEvents"},
    {"/v1/events/{seq}", "get", "getEvent"},
    {"/healthz", "get", "getHealth"},
    {"/readyz", "get", "getReadiness"},
    {"/metrics", "get", "getMetrics"},
    {"/v1/openapi.json", "get", "getOpenApi"},
    {"/mcp", "post", "mcp"},
    {"/v1/chat/completions", "post", "createChatCompletion"},
    {"/v1/models", "get", "listModels"},
};

}  // namespace

void AddOperationIds(json* paths) {
  for (const OperationName& op : kOperationIds) (*paths)[op.path][op.method]["operationId"] = op.id;
}

// Drops the error response components no operation refers to (405 method_not_allowed belongs to no
// operation, 499 cancelled is never read by its client) and lists their codes in the Error schema's
// description instead, so every code of the table stays documented.
void MoveUnusedErrorResponses(const json& paths, json* components) {
  const std::string used = paths.dump();
  json& responses = (*components)["responses"];
  std::string unused_text;
  for (auto it = responses.begin(); it != responses.end();) {
    if (used.find("\"#/components/responses/" + it.key() + "\"") != std::string::npos) {
      ++it;
      continue;
    }
    unused_text += " HTTP " + it.key().substr(5) + ": " + (*it)["description"].get<std::string>();
    it = responses.erase(it);
  }
  (*components)["schemas"]["Error"]["description"] =
      "The body of every error response. Codes no operation lists (answered by the router or "
      "transport, or never read by the client):" + unused_text;
}

}  // namespace openapi

std::vector<std::pair<std::string, std::string>> OpenApiOperations(const std::string& document) {
  std::vector<std::pair<std::string, std::string>> out;
  const nlohmann::json doc = nlohmann::json::parse(document, nullptr, false);
  if (!doc.is_object() || !doc.contains("paths")) return out;
  for (const auto& [path, item] : doc["paths"].items()) {
    for (const auto& [method, op] : item.items()) {
      std::string upper = method;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      out.emplace_back(upper, path);
    }
  }
  return out;
}

}  // namespace attest::service
