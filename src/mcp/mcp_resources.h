// The MCP resources (docs/mcp.md, "Resources"): the caller's documents as
// `attest://documents/{id}` (the id percent-encoded as a URI path segment), listed a page at a
// time and read as text/plain. Reads go through service::Service::GetDocument with the caller's
// Identity: a document the caller may not read is "not found", exactly as a missing one.
//
// Thread-safety: all functions are safe to call concurrently.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "mcp/json_rpc.h"
#include "service/identity.h"
#include "service/service.h"

namespace attest::mcp {

inline constexpr const char* kDocumentUriPrefix = "attest://documents/";

// The URI of a document id, and back (nullopt: not an attest://documents/ URI or a bad encoding).
std::string DocumentUri(std::string_view id);
std::optional<std::string> DocumentIdOfUri(std::string_view uri);

// Each returns the result object (without resultType and caching hints) or the JSON-RPC error.
// `legacy_not_found`: the version in use is 2025-11-25 or older, whose resource-not-found code is
// -32002 (2026-07-28 uses -32602).
using ResourceAnswer = std::variant<nlohmann::json, RpcError>;
nlohmann::json ResourceTemplates();
ResourceAnswer ListResources(service::Service& svc, const nlohmann::json& params, const service::Identity& who,
                             const service::RequestContext& ctx);
ResourceAnswer ReadResource(service::Service& svc, const nlohmann::json& params, const service::Identity& who,
                            const service::RequestContext& ctx, bool legacy_not_found);

}  // namespace attest::mcp
