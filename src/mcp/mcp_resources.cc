// The documents as MCP resources (mcp/mcp_resources.h).
#include "mcp/mcp_resources.h"

#include <map>

#include "service/contracts.h"

namespace attest::mcp {
namespace {

using nlohmann::json;

constexpr uint32_t kResourcePage = 100;

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

RpcError NotFound(const std::string& uri, const std::string& why, bool legacy) {
  return RpcError{legacy ? kLegacyResourceNotFound : kInvalidParams, "Resource not found: " + why, json{{"uri", uri}}};
}

RpcError ServiceFailure(const service::ApiError& e) {
  return RpcError{kInternalError, std::string(service::ApiErrorCodeName(e.code)) + ": " + e.message, nullptr};
}

}  // namespace

std::string DocumentUri(std::string_view id) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out = kDocumentUriPrefix;
  for (unsigned char c : id) {
    if (Unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::optional<std::string> DocumentIdOfUri(std::string_view uri) {
  const std::string_view prefix = kDocumentUriPrefix;
  if (uri.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = uri.substr(prefix.size());
  if (rest.empty()) return std::nullopt;
  std::string id;
  for (size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '%') {
      if (i + 2 >= rest.size()) return std::nullopt;
      const int hi = HexValue(rest[i + 1]), lo = HexValue(rest[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      id.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '/' || c == '?' || c == '#' || static_cast<unsigned char>(c) <= 0x20) {
      return std::nullopt;  // one path segment; a '/' of an id is written %2F
    } else {
      id.push_back(c);
    }
  }
  return id;
}

json ResourceTemplates() {
  return json{{"resourceTemplates",
               json::array({{{"uriTemplate", std::string(kDocumentUriPrefix) + "{id}"},
                             {"name", "document"},
                             {"title", "Document"},
                             {"description", "A document of the caller's tenant, as plain text, if the caller may read "
                                             "it (the id percent-encoded)."},
                             {"mimeType", "text/plain"}}})}};
}

ResourceAnswer ListResources(service::Service& svc, const json& params, const service::Identity& who,
                             const service::RequestContext& ctx) {
  std::map<std::string, std::string> query = {{"limit", std::to_string(kResourcePage)}};
  if (params.is_object() && params.contains("cursor")) {
    if (!params["cursor"].is_string()) return RpcError{kInvalidParams, "cursor must be a string", nullptr};
    query["cursor"] = params["cursor"].get<std::string>();
  }
  // Listing a tenant's documents is an admin's or the operator's right (GET /v1/documents); a
  // reader's list is empty and it reaches documents through search and the template.
  if (!who.admin && !who.deployment_operator) {
    if (query.count("cursor")) return RpcError{kInvalidParams, "invalid cursor: this server made no such cursor", nullptr};
    return json{{"resources", json::array()}};
  }
  auto req = service::ParseDocumentListQuery(query);
  if (!req.ok()) return RpcError{kInvalidParams, "invalid cursor: " + req.error().message, nullptr};
  auto r = svc.ListDocuments(who, req.value(), ctx);
  if (!r.ok()) return ServiceFailure(r.error());
  json body = json::parse(r.value(), nullptr, false);
  if (!body.is_object()) return RpcError{kInternalError, "the document list could not be read", nullptr};
  json resources = json::array();
  for (const json& d : body.value("documents", json::array())) {
    const std::string id = d.value("id", "");
    json res = {{"uri", DocumentUri(id)}, {"name", id}, {"mimeType", "text/plain"}};
    if (!d.value("title", "").empty()) res["title"] = d.value("title", "");
    resources.push_back(std::move(res));
  }
  json out = {{"resources", std::move(resources)}};
  if (body.contains("next_cursor") && body["next_cursor"].is_string()) out["nextCursor"] = body["next_cursor"];
  return out;
}

ResourceAnswer ReadResource(service::Service& svc, const json& params, const service::Identity& who,
                            const service::RequestContext& ctx, bool legacy_not_found) {
  if (!params.is_object() || !params.contains("uri") || !params["uri"].is_string()) {
    return RpcError{kInvalidParams, "resources/read needs params.uri, a string", nullptr};
  }
  const std::string uri = params["uri"].get<std::string>();
  std::optional<std::string> id = DocumentIdOfUri(uri);
  if (!id) return NotFound(uri, "not an attest://documents/{id} URI", legacy_not_found);
  if (!service::ParseDocumentId(*id).ok()) return NotFound(uri, "not a valid document id", legacy_not_found);
  auto r = svc.GetDocument(who, *id, "", ctx);
  if (!r.ok()) {
    const auto code = r.error().code;
    if (code == service::ApiErrorCode::kNotFound || code == service::ApiErrorCode::kForbidden ||
        code == service::ApiErrorCode::kInvalidRequest) {
      return NotFound(uri, "no document '" + *id + "' that you can read", legacy_not_found);
    }
    return ServiceFailure(r.error());
  }
  json body = json::parse(r.value(), nullptr, false);
  if (!body.is_object()) return RpcError{kInternalError, "the document could not be read", nullptr};
  return json{{"contents", json::array({{{"uri", uri}, {"mimeType", "text/plain"}, {"text", body.value("text", "")}}})}};
}

}  // namespace attest::mcp
