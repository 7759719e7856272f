// JSON-RPC 2.0 as MCP uses it (docs/mcp.md, "Messages"): the strict reader of one transport
// message and the writers of responses. Input is untrusted: the reader accepts valid UTF-8 JSON
// only (no duplicate keys, bounded nesting), and every refusal is a JSON-RPC error whose message
// names what was wrong ("params must be an object", "id must be a string or an integer").
//
// MCP narrows JSON-RPC: a request id is a string or an integer, never null; `params`, when present,
// is an object. A batch (a JSON array) exists only in protocol version 2025-03-26; the reader
// returns its elements and the caller decides (McpServer).
//
// Thread-safety: all functions are pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace attest::mcp {

// Standard JSON-RPC codes and the codes the MCP specification defines (2026-07-28 basic/index,
// "Error Codes"; -32002 is the 2025-11-25 resource-not-found code, used only for those versions).
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kLegacyResourceNotFound = -32002;
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kMissingRequiredClientCapability = -32021;
inline constexpr int kUnsupportedProtocolVersion = -32022;
// Attest's own codes, outside the JSON-RPC reserved range (-32768..-32000) as the specification
// asks of application errors: the credential was refused, or is over its rate.
inline constexpr int kUnauthorizedCode = -31001;
inline constexpr int kForbiddenCode = -31003;
inline constexpr int kRateLimitedCode = -31029;
inline constexpr int kUnavailableCode = -31503;

struct RpcError {
  int code = kInternalError;
  std::string message;
  nlohmann::json data;  // null = no `data` member
};

// One message as read. Exactly one of the kinds; `id` is null for notifications and when the id
// could not be read.
struct Message {
  enum class Kind { kRequest, kNotification, kResponse };
  Kind kind = Kind::kRequest;
  nlohmann::json id;             // string or integer (requests and responses)
  std::string method;            // requests and notifications
  nlohmann::json params;         // object, or null when absent
};

// A transport message: one message, a batch of parsed elements (each a message or the error for
// that element), or an error for the whole text (parse error, empty batch).
struct ParsedElement {
  std::optional<Message> message;
  RpcError error;                // when !message
  nlohmann::json id;             // the element's id when it could be read (for the error response)
};
struct Parsed {
  bool batch = false;
  std::vector<ParsedElement> elements;  // one element when !batch
  std::optional<RpcError> whole_error;  // set: nothing else is valid
};

Parsed ParseTransportMessage(std::string_view text);

// Validates one already-decoded JSON value as a message (used for the elements of a batch).
ParsedElement ParseMessageValue(const nlohmann::json& value);

// Response writers (one line of JSON, no trailing newline). `id` null writes an error without id.
std::string ResultResponse(const nlohmann::json& id, const nlohmann::json& result);
std::string ErrorResponse(const nlohmann::json& id, const RpcError& error);
nlohmann::json ErrorResponseJson(const nlohmann::json& id, const RpcError& error);

}  // namespace attest::mcp
