// POST /mcp: the MCP Streamable HTTP transport (docs/mcp.md, "HTTP"), a thin adapter from HTTP
// exchanges to mcp::McpServer. Stateless: no Mcp-Session-Id is issued or read, and every
// response is one application/json body (never a stream). GET and DELETE get 405 from the router
// (no standalone stream, no sessions to end).
//
// Order of the checks: Origin (403), the credential (401 with WWW-Authenticate), the
// per-credential rate limit (429), Content-Type (415) and Accept (406), the JSON-RPC body (400),
// the MCP-Protocol-Version header (400 UnsupportedProtocolVersion), the Mcp-Method / Mcp-Name
// headers against the body (400 HeaderMismatch). Then the message runs on the lane its work
// needs: `ask` on the answer lane, `add_document` / `delete_document` on the bulk lane under the
// caller's tenant, everything else where it is.
#include <cmath>

#include <nlohmann/json.hpp>

#include "mcp/mcp_server.h"
#include "server/routes.h"
#include "service/service_internal.h"
#include "service/webhook_signature.h"

namespace attest::server {
namespace {

using nlohmann::json;
using service::ApiErrorCode;

struct McpCall {
  RouteContext* ctx;
  std::shared_ptr<http::Exchange> ex;
  service::RequestContext rc;
  std::string version;

  void Send(int status, std::string body, std::vector<std::pair<std::string, std::string>> extra = {}) {
    http::Response r;
    r.status = status;
    r.body = std::move(body);
    if (r.body.empty()) r.content_type.clear();
    r.headers = {{"X-Request-Id", rc.request_id}, {"X-Attest-Version", version}};
    for (auto& h : extra) r.headers.push_back(std::move(h));
    ex->Respond(std::move(r));
  }
  void SendError(int status, const json& id, int code, std::string message, json data = nullptr,
                 std::vector<std::pair<std::string, std::string>> extra = {}) {
    Send(status, mcp::ErrorResponse(id, mcp::RpcError{code, std::move(message), std::move(data)}), std::move(extra));
  }
};

// Origins allowed to call a local MCP endpoint from a browser: loopback ones (any port) and the
// configured list (`attest serve --mcp-allow-origin`). An absent Origin is a non-browser client.
bool OriginAllowed(const std::string& origin, const std::vector<std::string>& allowed) {
  if (origin.empty()) return true;
  for (const std::string& a : allowed) {
    if (origin == a) return true;
  }
  for (const char* scheme : {"http://", "https://"}) {
    const std::string s = scheme;
    if (origin.compare(0, s.size(), s) != 0) continue;
    std::string host = origin.substr(s.size());
    if (host.empty() || host.find('/') != std::string::npos) return false;
    if (host.front() == '[') {
      const size_t close = host.find(']');
      if (close == std::string::npos) return false;
      const std::string rest = host.substr(close + 1);
      host = host.substr(0, close + 1);
      if (!rest.empty() && (rest[0] != ':' || rest.size() == 1 ||
                            rest.find_first_not_of("0123456789", 1) != std::string::npos)) {
        return false;
      }
    } else if (const size_t colon = host.find(':'); colon != std::string::npos) {
      const std::string port = host.substr(colon + 1);
      if (port.empty() || port.find_first_not_of("0123456789") != std::string::npos) return false;
      host = host.substr(0, colon);
    }
    return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
  }
  return false;
}

// A media type list ("application/json, text/event-stream;q=0.9") admits JSON.
bool AcceptsJson(const std::string& accept) {
  if (accept.empty()) return true;
  size_t pos = 0;
  while (pos <= accept.size()) {
    size_t end = accept.find(',', pos);
    if (end == std::string::npos) end = accept.size();
    std::string item = accept.substr(pos, end - pos);
    item = item.substr(0, item.find(';'));
    const size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t");
    item = a == std::string::npos ? "" : item.substr(a, b - a + 1);
    for (char& c : item) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (item == "application/json" || item == "application/*" || item == "*/*") return true;
    pos = end + 1;
  }
  return false;
}

bool IsJsonContentType(const std::string& type) {
  std::string media = type.substr(0, type.find(';'));
  while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
  for (char& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return media == "application/json";
}

// A header value as the 2026-07-28 transport writes it: visible ASCII and spaces, or the
// "=?base64?...?=" sentinel around base64 of UTF-8. nullopt: invalid characters or encoding.
std::optional<std::string> DecodeHeaderValue(const std::string& value) {
  for (unsigned char c : value) {
    if ((c < 0x20 && c != '\t') || c > 0x7E) return std::nullopt;
  }
  const std::string open = "=?base64?", close = "?=";
  if (value.size() >= open.size() + close.size() && value.compare(0, open.size(), open) == 0 &&
      value.compare(value.size() - close.size(), close.size(), close) == 0) {
    return service::Base64Decode(value.substr(open.size(), value.size() - open.size() - close.size()));
  }
  return value;
}

// The header checks of the 2026-07-28 transport ("Server Validation"). Returns the message of a
// HeaderMismatch error, or "" when the headers agree with the body.
std::string HeaderMismatch(const http::Request& q, const mcp::Message& m, bool modern) {
  const bool has_version = q.headers.count("mcp-protocol-version") > 0;
  const std::string version = q.Header("mcp-protocol-version");
  if (modern && !has_version) return "the MCP-Protocol-Version header is required";
  if (auto meta = mcp::McpServer::MetaVersion(m); meta && has_version && *meta != version) {
    return "MCP-Protocol-Version header value '" + version + "' does not match the body's _meta protocol version '" +
           *meta + "'";
  }
  if (m.kind == mcp::Message::Kind::kResponse) return "";
  const bool request = m.kind == mcp::Message::Kind::kRequest;
  if (!q.headers.count("mcp-method")) {
    return modern && request ? "the Mcp-Method header is required" : "";
  }
  auto method = DecodeHeaderValue(q.Header("mcp-method"));
  if (!method) return "the Mcp-Method header has invalid characters";
  if (*method != m.method) return "Mcp-Method header value '" + *method + "' does not match body value '" + m.method + "'";
  const char* source = m.method == "tools/call" || m.method == "prompts/get" ? "name"
                       : m.method == "resources/read"                       ? "uri"
                                                                            : nullptr;
  if (!source) return "";
  const std::string body_value =
      m.params.is_object() && m.params.contains(source) && m.params[source].is_string() ? m.params[source].get<std::string>() : "";
  if (!q.headers.count("mcp-name")) return modern && request ? "the Mcp-Name header is required for " + m.method : "";
  auto name = DecodeHeaderValue(q.Header("mcp-name"));
  if (!name) return "the Mcp-Name header has invalid characters or a bad base64 value";
  if (*name != body_value) return "Mcp-Name header value '" + *name + "' does not match body value '" + body_value + "'";
  return "";
}

int StatusOf(mcp::Disposition d) {
  switch (d) {
    case mcp::Disposition::kNoResponse: return 202;
    case mcp::Disposition::kMalformed: return 400;
    case mcp::Disposition::kUnknownMethod: return 404;
    case mcp::Disposition::kOk: break;
  }
  return 200;
}

void Run(McpCall& c, const service::Identity& who, const mcp::Parsed& parsed, const std::string& transport_version) {
  mcp::CallContext cc;
  cc.who = &who;
  cc.request = c.rc;
  cc.transport_version = transport_version;
  mcp::Reply reply = c.ctx->mcp->HandleParsed(parsed, cc);
  c.Send(StatusOf(reply.disposition), std::move(reply.body));
}

void Handle(RouteContext* ctx, std::shared_ptr<http::Exchange> ex) {
  McpCall c{ctx, std::move(ex), {}, ctx->service ? ctx->service->VersionHeader() : ""};
  const http::Request& q = c.ex->request();
  const std::string given = q.Header("x-request-id");
  c.rc.request_id = service::ValidRequestId(given) ? given : service::internal::RandomId("req_");
  c.rc.route = "/mcp";
  c.rc.received = q.received;
  if (!ctx->mcp) return c.SendError(503, nullptr, mcp::kUnavailableCode, "the MCP endpoint is not configured");

  if (!OriginAllowed(q.Header("origin"), ctx->mcp_allowed_origins)) {
    return c.SendError(403, nullptr, mcp::kForbiddenCode, "Origin '" + q.Header("origin") + "' is not allowed");
  }
  auto who = ctx->auth->Authenticate(q.headers);
  if (!who.ok()) {
    if (who.error().code == ApiErrorCode::kUnauthorized) {
      const bool presented = !q.Header("authorization").empty() || !q.Header("x-api-key").empty();
      std::string challenge = "Bearer realm=\"attest\"";
      if (presented) challenge += ", error=\"invalid_token\"";
      return c.SendError(401, nullptr, mcp::kUnauthorizedCode, who.error().message, nullptr,
                         {{"WWW-Authenticate", challenge}});
    }
    return c.SendError(HttpStatusOf(who.error().code), nullptr, mcp::kForbiddenCode, who.error().message);
  }
  const double own = who.value().rate_per_second;
  auto d = own > 0 ? ctx->limiter->Acquire(who.value().credential_id, service::RateLimit{own, 0})
                   : ctx->limiter->Acquire(who.value().credential_id);
  if (!d.allowed) {
    ctx->metrics->GetCounter("attest_rate_limited_total", "Requests refused by the per-credential rate limit")->Add();
    const int after = static_cast<int>(std::ceil(d.retry_after_seconds));
    return c.SendError(429, nullptr, mcp::kRateLimitedCode, "rate limit exceeded for this credential",
                       json{{"retry_after_seconds", after}}, {{"Retry-After", std::to_string(after)}});
  }
  if (!q.Header("content-type").empty() && !IsJsonContentType(q.Header("content-type"))) {
    return c.SendError(415, nullptr, mcp::kInvalidRequest,
                       "Content-Type must be application/json, got '" + q.Header("content-type") + "'");
  }
  if (!AcceptsJson(q.Header("accept"))) {
    return c.SendError(406, nullptr, mcp::kInvalidRequest,
                       "this endpoint answers application/json; the Accept header '" + q.Header("accept") + "' excludes it");
  }

  auto parsed = std::make_shared<mcp::Parsed>(mcp::ParseTransportMessage(q.body));
  const json id = !parsed->batch && !parsed->elements.empty() ? parsed->elements.front().id : json(nullptr);
  const bool has_version = q.headers.count("mcp-protocol-version") > 0;
  const std::string header_version = q.Header("mcp-protocol-version");
  if (has_version && !mcp::IsSupportedVersion(header_version)) {
    return c.SendError(400, id, mcp::kUnsupportedProtocolVersion, "Unsupported protocol version",
                       json{{"supported", mcp::SupportedVersions()}, {"requested", header_version}});
  }
  // 2025-11-25 transports: no header and no other way to know means 2025-03-26.
  const std::string transport_version = has_version ? header_version : mcp::kOldestVersion;
  const mcp::Message* message = nullptr;
  if (!parsed->whole_error && !parsed->batch && parsed->elements.front().message) {
    message = &*parsed->elements.front().message;
    const auto meta = mcp::McpServer::MetaVersion(*message);
    const bool modern = header_version == mcp::kModernVersion || (meta && *meta == mcp::kModernVersion);
    if (std::string why = HeaderMismatch(q, *message, modern); !why.empty()) {
      return c.SendError(400, id, mcp::kHeaderMismatch, "Header mismatch: " + why);
    }
  }

  // The lane of the work: answers on their own lane, writes on the bulk lane (per tenant).
  std::string tool;
  if (message && message->kind == mcp::Message::Kind::kRequest && message->method == "tools/call" &&
      message->params.is_object() && message->params.contains("name") && message->params["name"].is_string()) {
    tool = message->params["name"].get<std::string>();
  }
  const bool answer = tool == "ask", bulk = tool == "add_document" || tool == "delete_document";
  if (!answer && !bulk) return Run(c, who.value(), *parsed, transport_version);
  const std::string key = bulk ? who.value().tenant : who.value().credential_id;
  auto work = [c, identity = who.value(), parsed, transport_version](std::shared_ptr<http::Exchange>) mutable {
    Run(c, identity, *parsed, transport_version);
  };
  switch (c.ex->Defer(bulk ? http::Pool::kBulk : http::Pool::kAnswer, key, std::move(work))) {
    case http::Admission::kQueued:
      return;
    case http::Admission::kKeyFull:
      return c.SendError(429, id, mcp::kRateLimitedCode,
                         "tenant '" + key + "' already has its share of the bulk queue waiting; retry when one finishes",
                         json{{"retry_after_seconds", 1}}, {{"Retry-After", "1"}});
    case http::Admission::kPoolFull:
      return c.SendError(503, id, mcp::kUnavailableCode, "the work queue is full; retry later");
    case http::Admission::kStopped:
      return c.SendError(503, id, mcp::kUnavailableCode, "the server is shutting down");
  }
}

}  // namespace

void AddMcpRoute(http::Router* router, RouteContext* ctx) {
  router->Add("POST", "/mcp", http::Pool::kInteractive, [ctx](std::shared_ptr<http::Exchange> ex) { Handle(ctx, std::move(ex)); });
}

}  // namespace attest::server
