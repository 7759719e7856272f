// POST /mcp in the OpenAPI document (docs/mcp.md): the MCP Streamable HTTP endpoint. Its bodies are
// JSON-RPC 2.0 messages, described here by their envelope; the MCP schema
// (modelcontextprotocol.io, revision 2026-07-28) defines the methods.
#include "service/openapi_parts.h"

namespace attest::service::openapi {
namespace {

json JsonRpc(const char* description) {
  json error = Object({{"code", Int("JSON-RPC error code (docs/mcp.md, \"Errors\").")},
                       {"message", Str("What was wrong.")},
                       {"data", {{"description", "More detail, e.g. the supported versions."}}}},
                      {"code", "message"});
  json message = Object({{"jsonrpc", {{"type", "string"}, {"enum", {"2.0"}}}},
                         {"id", {{"description", "The request's id (string or integer); absent when it could not be read."}}},
                         {"result", {{"type", "object"}, {"description", "The method's result."}}},
                         {"error", error}},
                        {"jsonrpc"});
  return {{"description", description}, {"content", {{"application/json", {{"schema", message}}}}}};
}

json Header(const char* name, const char* description) {
  return {{"name", name}, {"in", "header"}, {"required", false}, {"schema", {{"type", "string"}}},
          {"description", description}};
}

}  // namespace

void AddMcpOperation(json* paths) {
  json op = {
      {"summary", "MCP (Model Context Protocol) over Streamable HTTP: one JSON-RPC message per POST, answered with "
                  "one JSON body (docs/mcp.md)."},
      {"tags", json::array({"mcp"})},
      {"parameters",
       json::array({{{"$ref", "#/components/parameters/RequestId"}},
                    Header("MCP-Protocol-Version", "2026-07-28, 2025-11-25, 2025-06-18 or 2025-03-26 (absent: 2025-03-26)."),
                    Header("Mcp-Method", "The body's method (required under 2026-07-28)."),
                    Header("Mcp-Name", "The body's params.name or params.uri for tools/call and resources/read."),
                    Header("Origin", "A browser origin: loopback ones and those of --mcp-allow-origin are accepted.")})},
      {"requestBody",
       {{"required", true},
        {"content", {{"application/json",
                      {{"schema", Object({{"jsonrpc", {{"type", "string"}, {"enum", {"2.0"}}}},
                                          {"id", {{"description", "String or integer; absent for a notification."}}},
                                          {"method", Str("The MCP method, e.g. tools/call.")},
                                          {"params", {{"type", "object"}}}},
                                         {"jsonrpc", "method"})}}}}}}},
      {"responses",
       {{"200", JsonRpc("The JSON-RPC response (a result, or an error such as an unknown tool).")},
        {"202", {{"description", "A notification or response was accepted; no body."}}},
        {"400", JsonRpc("Malformed JSON-RPC, a missing _meta field, an unsupported protocol version (-32022) or "
                        "headers that do not match the body (-32020).")},
        {"401", JsonRpc("No valid credential; WWW-Authenticate names the Bearer scheme.")},
        {"403", JsonRpc("An Origin that is not allowed, or a disabled principal.")},
        {"404", JsonRpc("An unknown method under protocol version 2026-07-28 (-32601).")},
        {"406", JsonRpc("The Accept header excludes application/json.")},
        {"415", JsonRpc("The body is not application/json.")},
        {"429", JsonRpc("Over the credential's rate limit (Retry-After).")},
        {"503", JsonRpc("Overloaded or shutting down.")}}},
  };
  (*paths)["/mcp"]["post"] = std::move(op);
}

}  // namespace attest::service::openapi
