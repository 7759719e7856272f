// The MCP protocol core (mcp/mcp_server.h).
#include "mcp/mcp_server.h"

#include <algorithm>

#include "mcp/mcp_resources.h"
#include "mcp/mcp_tools.h"

namespace attest::mcp {

using nlohmann::json;

const std::vector<std::string>& SupportedVersions() {
  static const std::vector<std::string> v = {kModernVersion, kLatestLegacyVersion, "2025-06-18", kOldestVersion};
  return v;
}

bool IsSupportedVersion(std::string_view version) {
  const auto& v = SupportedVersions();
  return std::find(v.begin(), v.end(), version) != v.end();
}

bool IsLegacyVersion(std::string_view version) { return IsSupportedVersion(version) && version != kModernVersion; }

struct McpServer::Era {
  std::string version;
  bool modern = false;
};

namespace {

// Caching hints (2026-07-28 server/utilities/caching.mdx): lists and reads vary by credential, so
// they are private; discovery is the same for everyone.
struct CacheHint {
  const char* method;
  int ttl_ms;
  const char* scope;
};
constexpr CacheHint kCacheHints[] = {
    {"server/discover", 300000, "public"}, {"tools/list", 60000, "private"},
    {"resources/templates/list", 300000, "private"}, {"resources/list", 0, "private"},
    {"resources/read", 0, "private"},
};

RpcError UnsupportedVersion(const std::string& requested) {
  return RpcError{kUnsupportedProtocolVersion, "Unsupported protocol version",
                  json{{"supported", SupportedVersions()}, {"requested", requested}}};
}

json Capabilities() { return json{{"tools", {{"listChanged", false}}}, {"resources", json::object()}}; }

Reply Error(Disposition d, const json& id, RpcError e) { return Reply{d, ErrorResponse(id, e), ""}; }

}  // namespace

McpServer::McpServer(service::Service& service, McpServerOptions options)
    : service_(service), options_(std::move(options)) {}

std::optional<std::string> McpServer::MetaVersion(const Message& m) {
  if (!m.params.is_object() || !m.params.contains("_meta") || !m.params["_meta"].is_object()) return std::nullopt;
  const json& meta = m.params["_meta"];
  auto it = meta.find(kMetaProtocolVersion);
  if (it == meta.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<RpcError> McpServer::ResolveEra(const Message& m, const CallContext& ctx, Era* era) const {
  if (m.params.is_object() && m.params.contains("_meta")) {
    const json& meta = m.params["_meta"];
    if (!meta.is_object()) return RpcError{kInvalidParams, "params._meta must be an object", nullptr};
    if (meta.contains(kMetaProtocolVersion)) {
      if (!meta[kMetaProtocolVersion].is_string()) {
        return RpcError{kInvalidParams, std::string("_meta[\"") + kMetaProtocolVersion + "\"] must be a string", nullptr};
      }
      era->version = meta[kMetaProtocolVersion].get<std::string>();
      if (!IsSupportedVersion(era->version)) return UnsupportedVersion(era->version);
      era->modern = era->version == kModernVersion;
      if (era->modern && (!meta.contains(kMetaClientCapabilities) || !meta[kMetaClientCapabilities].is_object())) {
        return RpcError{kInvalidParams,
                        std::string("a 2026-07-28 request needs _meta[\"") + kMetaClientCapabilities + "\"], an object",
                        nullptr};
      }
      return std::nullopt;
    }
  }
  if (IsLegacyVersion(ctx.transport_version)) {
    era->version = ctx.transport_version;
    era->modern = false;
    return std::nullopt;
  }
  if (!ctx.transport_version.empty() && !IsSupportedVersion(ctx.transport_version)) {
    return UnsupportedVersion(ctx.transport_version);
  }
  return RpcError{kInvalidParams,
                  std::string("the request has no _meta[\"") + kMetaProtocolVersion +
                      "\"] (required by protocol version 2026-07-28; clients of older versions send initialize first)",
                  nullptr};
}

json McpServer::Discover(const Era&) const {
  json r = {{"supportedVersions", SupportedVersions()}, {"capabilities", Capabilities()}};
  if (!options_.instructions.empty()) r["instructions"] = options_.instructions;
  return r;
}

json McpServer::Initialize(const json& params, std::string* negotiated, std::optional<RpcError>* error) const {
  if (!params.is_object() || !params.contains("protocolVersion") || !params["protocolVersion"].is_string()) {
    *error = RpcError{kInvalidParams, "initialize needs params.protocolVersion, a string", nullptr};
    return nullptr;
  }
  for (const char* k : {"capabilities", "clientInfo"}) {
    if (params.contains(k) && !params[k].is_object()) {
      *error = RpcError{kInvalidParams, std::string("initialize: params.") + k + " must be an object", nullptr};
      return nullptr;
    }
  }
  const std::string requested = params["protocolVersion"].get<std::string>();
  // 2025-11-25 lifecycle: the same version when supported, else the latest this server supports
  // (of the initialize era: 2026-07-28 has no initialize).
  *negotiated = IsLegacyVersion(requested) ? requested : kLatestLegacyVersion;
  json r = {{"protocolVersion", *negotiated},
            {"capabilities", Capabilities()},
            {"serverInfo", {{"name", options_.name}, {"version", options_.version}}}};
  if (!options_.instructions.empty()) r["instructions"] = options_.instructions;
  return r;
}

Reply McpServer::HandleText(std::string_view text, const CallContext& ctx) const {
  return HandleParsed(ParseTransportMessage(text), ctx);
}

Reply McpServer::HandleParsed(const Parsed& parsed, const CallContext& ctx) const {
  if (parsed.whole_error) return Error(Disposition::kMalformed, nullptr, *parsed.whole_error);
  if (parsed.batch) {
    if (ctx.transport_version != kOldestVersion) {
      return Error(Disposition::kMalformed, nullptr,
                   RpcError{kInvalidRequest,
                            "a batch (JSON array) is only part of protocol version 2025-03-26; this exchange is under " +
                                (ctx.transport_version.empty() ? std::string("no negotiated version")
                                                               : "version " + ctx.transport_version),
                            nullptr});
    }
    json responses = json::array();
    for (const ParsedElement& e : parsed.elements) {
      if (!e.message) {
        responses.push_back(ErrorResponseJson(e.id, e.error));
        continue;
      }
      Reply r = HandleMessage(*e.message, ctx, /*in_batch=*/true);
      if (!r.body.empty()) responses.push_back(json::parse(r.body));
    }
    if (responses.empty()) return Reply{Disposition::kNoResponse, "", ""};
    return Reply{Disposition::kOk, responses.dump(-1, ' ', false, json::error_handler_t::replace), ""};
  }
  const ParsedElement& e = parsed.elements.front();
  if (!e.message) return Error(Disposition::kMalformed, e.id, e.error);
  return HandleMessage(*e.message, ctx, /*in_batch=*/false);
}

Reply McpServer::HandleMessage(const Message& m, const CallContext& ctx, bool in_batch) const {
  if (m.kind != Message::Kind::kRequest) {
    // Notifications (notifications/initialized, notifications/cancelled, any other) and responses
    // need no answer; this server sends no requests, so a response has nothing to complete.
    return Reply{Disposition::kNoResponse, "", ""};
  }
  const service::Identity& who = *ctx.who;
  if (m.method == "initialize") {
    if (in_batch) {
      return Error(Disposition::kOk, m.id,
                   RpcError{kInvalidRequest, "initialize must not be part of a JSON-RPC batch", nullptr});
    }
    std::string negotiated;
    std::optional<RpcError> error;
    json result = Initialize(m.params, &negotiated, &error);
    if (error) return Error(Disposition::kOk, m.id, *error);
    return Reply{Disposition::kOk, ResultResponse(m.id, result), negotiated};
  }
  Era era;
  if (auto bad = ResolveEra(m, ctx, &era)) return Error(Disposition::kMalformed, m.id, *bad);
  const json params = m.params.is_object() ? m.params : json::object();

  json result;
  std::optional<RpcError> error;
  if (m.method == "ping" && !era.modern) {
    result = json::object();
  } else if (m.method == "server/discover") {
    result = Discover(era);
  } else if (m.method == "tools/list") {
    if (params.contains("cursor")) {
      error = RpcError{kInvalidParams, "invalid cursor: tools/list has a single page", nullptr};
    } else {
      result = json{{"tools", ToolDefinitions(who)}};
    }
  } else if (m.method == "tools/call") {
    if (!params.contains("name") || !params["name"].is_string()) {
      error = RpcError{kInvalidParams, "tools/call needs params.name, a string", nullptr};
    } else if (params.contains("arguments") && !params["arguments"].is_object() && !params["arguments"].is_null()) {
      error = RpcError{kInvalidParams, "tools/call: params.arguments must be an object", nullptr};
    } else if (!IsKnownTool(params["name"].get<std::string>())) {
      error = RpcError{kInvalidParams, "Unknown tool: " + params["name"].get<std::string>(), nullptr};
    } else {
      const json args = params.contains("arguments") && params["arguments"].is_object() ? params["arguments"]
                                                                                         : json::object();
      result = CallTool(service_, params["name"].get<std::string>(), args, who, ctx.request);
    }
  } else if (m.method == "resources/templates/list") {
    result = ResourceTemplates();
  } else if (m.method == "resources/list" || m.method == "resources/read") {
    ResourceAnswer a = m.method == "resources/list"
                           ? ListResources(service_, params, who, ctx.request)
                           : ReadResource(service_, params, who, ctx.request, /*legacy_not_found=*/!era.modern);
    if (auto* e = std::get_if<RpcError>(&a)) {
      error = *e;
    } else {
      result = std::get<json>(std::move(a));
    }
  } else {
    RpcError e{kMethodNotFound, "Method not found: " + m.method, nullptr};
    // 2026-07-28 streamable-http.mdx: an unknown method is 404 with -32601. A legacy client reads
    // 404 as "session expired", so under the older versions it is an ordinary error response.
    return Error(era.modern ? Disposition::kUnknownMethod : Disposition::kOk, m.id, std::move(e));
  }
  if (error) return Error(Disposition::kOk, m.id, *error);
  if (era.modern) {
    result["resultType"] = "complete";
    result["_meta"] = {{kMetaServerInfo, {{"name", options_.name}, {"version", options_.version}}}};
    for (const CacheHint& h : kCacheHints) {
      if (m.method == h.method) {
        result["ttlMs"] = h.ttl_ms;
        result["cacheScope"] = h.scope;
      }
    }
  }
  return Reply{Disposition::kOk, ResultResponse(m.id, result), ""};
}

}  // namespace attest::mcp
