// The strict JSON-RPC reader and the response writers (mcp/json_rpc.h).
#include "mcp/json_rpc.h"

#include <limits>

#include "service/schema.h"

namespace attest::mcp {
namespace {

using nlohmann::json;

const char* TypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a fractional number";
    default: return "an integer";
  }
}

// An id MCP accepts: a string (1..256 bytes) or an integer that fits in 53 bits (what every
// client's JSON numbers can carry exactly).
bool ValidId(const json& id) {
  constexpr int64_t kSafe = (int64_t{1} << 53) - 1;
  if (id.is_string()) return !id.get_ref<const std::string&>().empty() && id.get_ref<const std::string&>().size() <= 256;
  if (id.is_number_unsigned()) return id.get<uint64_t>() <= static_cast<uint64_t>(kSafe);
  if (id.is_number_integer()) return id.get<int64_t>() >= -kSafe && id.get<int64_t>() <= kSafe;
  return false;
}

RpcError Invalid(std::string message) { return RpcError{kInvalidRequest, std::move(message), nullptr}; }

}  // namespace

ParsedElement ParseMessageValue(const json& v) {
  ParsedElement out;
  if (!v.is_object()) {
    out.error = Invalid(std::string("a JSON-RPC message must be an object, got ") + TypeName(v));
    return out;
  }
  const bool has_id = v.contains("id");
  if (has_id && ValidId(v["id"])) out.id = v["id"];
  for (const auto& [key, value] : v.items()) {
    if (key != "jsonrpc" && key != "id" && key != "method" && key != "params" && key != "result" && key != "error") {
      out.error = Invalid("unknown member '" + key + "' in a JSON-RPC message");
      return out;
    }
  }
  if (!v.contains("jsonrpc") || !v["jsonrpc"].is_string() || v["jsonrpc"] != "2.0") {
    out.error = Invalid("jsonrpc must be the string \"2.0\"");
    return out;
  }
  if (has_id && !ValidId(v["id"])) {
    out.error = Invalid(std::string("id must be a non-empty string (at most 256 bytes) or an integer within 2^53, got ") +
                        (v["id"].is_string() ? "an empty or oversized string" : TypeName(v["id"])));
    return out;
  }
  Message m;
  if (v.contains("method")) {
    if (v.contains("result") || v.contains("error")) {
      out.error = Invalid("a message with a method must not carry result or error");
      return out;
    }
    if (!v["method"].is_string() || v["method"].get_ref<const std::string&>().empty()) {
      out.error = Invalid(std::string("method must be a non-empty string, got ") + TypeName(v["method"]));
      return out;
    }
    if (v.contains("params") && !v["params"].is_object()) {
      // MCP params are always named (an object); JSON-RPC's by-position arrays are not used.
      out.error = RpcError{kInvalidParams, std::string("params must be an object, got ") + TypeName(v["params"]), nullptr};
      return out;
    }
    m.kind = has_id ? Message::Kind::kRequest : Message::Kind::kNotification;
    m.method = v["method"].get<std::string>();
    m.params = v.contains("params") ? v["params"] : json(nullptr);
    m.id = has_id ? v["id"] : json(nullptr);
    out.message = std::move(m);
    return out;
  }
  const bool result = v.contains("result"), error = v.contains("error");
  if (result == error) {
    out.error = Invalid(result ? "a response must not carry both result and error"
                               : "a JSON-RPC message needs a method (request or notification) or a result or error "
                                 "(response)");
    return out;
  }
  if (!has_id) {
    out.error = Invalid("a response needs an id");
    return out;
  }
  m.kind = Message::Kind::kResponse;
  m.id = v["id"];
  out.message = std::move(m);
  return out;
}

Parsed ParseTransportMessage(std::string_view text) {
  Parsed out;
  auto body = service::ParseJsonBody(text, /*allow_array=*/true);
  if (!body.ok()) {
    const bool parse = body.error().code == service::ApiErrorCode::kInvalidJson;
    std::string message = body.error().message;
    // The body reader speaks of "the request body"; here it is one JSON-RPC message.
    if (const auto at = message.find("the request body"); at != std::string::npos) {
      message.replace(at, 16, "the message");
    }
    out.whole_error = RpcError{parse ? kParseError : kInvalidRequest, std::move(message), nullptr};
    return out;
  }
  const json& root = body.value();
  if (root.is_array()) {
    out.batch = true;
    if (root.empty()) {
      out.whole_error = Invalid("an empty batch (an empty JSON array) is not a valid request");
      return out;
    }
    for (const json& element : root) out.elements.push_back(ParseMessageValue(element));
    return out;
  }
  out.elements.push_back(ParseMessageValue(root));
  return out;
}

json ErrorResponseJson(const json& id, const RpcError& error) {
  json e = {{"code", error.code}, {"message", error.message}};
  if (!error.data.is_null()) e["data"] = error.data;
  json r = {{"jsonrpc", "2.0"}};
  if (!id.is_null()) r["id"] = id;
  r["error"] = std::move(e);
  return r;
}

std::string ResultResponse(const json& id, const json& result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", result}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string ErrorResponse(const json& id, const RpcError& error) {
  return ErrorResponseJson(id, error).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace attest::mcp
