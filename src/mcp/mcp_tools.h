// The MCP tools (docs/mcp.md, "Tools"): their definitions (JSON Schema input and output schemas)
// and their calls, each a thin translation to one service::Service method. No tool accepts answer
// text: `ask` only asks the answer pipeline, whose verifier decides every sentence.
//
// Arguments are checked against the tool's input schema (unknown or missing arguments, wrong JSON
// types), then handed to the HTTP API's own strict parsers (service/contracts.h), so bounds and
// normalization are those of the v1 routes. Every failure after the tool is known is a tool
// result with `isError: true` and a message naming the argument (the 2026-07-28 tools.mdx,
// "Error Handling": input validation and business errors are tool execution errors).
//
// Thread-safety: all functions are safe to call concurrently (Service is).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "service/identity.h"
#include "service/service.h"

namespace attest::mcp {

// The tools `who` may call, in a fixed order (ask, search, get_document, list_documents, then for
// admins add_document, delete_document).
nlohmann::json ToolDefinitions(const service::Identity& who);

// True when `name` is one of this server's tools (for anyone). Unknown names are a protocol error
// (-32602) answered by the caller; a known tool the caller may not use is a tool error.
bool IsKnownTool(std::string_view name);

// Runs a known tool. `arguments` is the object of `params.arguments` (an empty object when absent).
// Returns a CallToolResult without `resultType`: {content, structuredContent?, isError}.
nlohmann::json CallTool(service::Service& svc, const std::string& name, const nlohmann::json& arguments,
                        const service::Identity& who, const service::RequestContext& ctx);

// The structured results and their text blocks, from the service's JSON bodies (mcp_format.cc).
nlohmann::json AskStructured(const nlohmann::json& answer_body);
std::string AskText(const nlohmann::json& structured);
nlohmann::json SearchStructured(const nlohmann::json& search_body);
std::string SearchText(const nlohmann::json& structured);

// A tool execution error: {content: [text], isError: true}.
nlohmann::json ToolError(std::string message);

}  // namespace attest::mcp
