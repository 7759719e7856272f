// The MCP protocol core (docs/mcp.md): version negotiation for both protocol eras, dispatch of
// `server/discover`, `initialize`, `ping`, `tools/*` and `resources/*`, and the JSON-RPC answers.
// It knows nothing about HTTP or stdio: server/mcp_route.cc and cli/mcp_command.cc adapt it. Every
// tool and resource runs through service::Service with the caller's Identity, so authorization,
// caches, audit and the answer pipeline are the HTTP API's own; nothing here retrieves or verifies.
//
// Eras (2026-07-28 basic/versioning.mdx): a request whose params carry
// `_meta["io.modelcontextprotocol/protocolVersion"]` is served statelessly under that version
// (2026-07-28: `resultType`, `_meta` serverInfo, caching hints). A request without it is a legacy
// request, served under the version its transport established (an `initialize` on this stdio
// process, or the HTTP MCP-Protocol-Version header, "2025-03-26" when absent); with none, it is a
// malformed modern request (-32602).
//
// Thread-safety: Handle* may be called from any number of threads at once (no mutable state).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mcp/json_rpc.h"
#include "service/identity.h"
#include "service/service.h"

namespace attest::mcp {

inline constexpr const char* kModernVersion = "2026-07-28";
inline constexpr const char* kLatestLegacyVersion = "2025-11-25";
inline constexpr const char* kOldestVersion = "2025-03-26";  // also what a header-less HTTP request means

// Every version this server speaks, newest first: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26.
const std::vector<std::string>& SupportedVersions();
bool IsSupportedVersion(std::string_view version);
bool IsLegacyVersion(std::string_view version);  // a supported version of the initialize era

// The `_meta` key names of the 2026-07-28 per-request fields.
inline constexpr const char* kMetaProtocolVersion = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kMetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kMetaServerInfo = "io.modelcontextprotocol/serverInfo";

struct McpServerOptions {
  std::string name = "attest";
  std::string version = ATTEST_VERSION;
  std::string instructions =
      "Attest answers questions from the caller's own documents with verified citations. Use `ask` for a "
      "cited answer (keep its [n] markers and Sources list when you quote it), `search` for ranked passages, "
      "`get_document` to read one document.";
};

// What the transport knows about a message besides its text.
struct CallContext {
  const service::Identity* who = nullptr;   // required
  service::RequestContext request;          // request id, route ("/mcp" or "stdio"), arrival time
  // The version established outside the message: an HTTP MCP-Protocol-Version header (the HTTP
  // adapter passes "2025-03-26" when the header is absent), or the version an `initialize`
  // negotiated on this stdio process. "" = none.
  std::string transport_version;
};

// How the transport should deliver the reply. kMalformed and kUnknownMethod carry a JSON-RPC
// error the specification pairs with a transport status (HTTP 400 and 404; stdio ignores it).
enum class Disposition {
  kOk,            // a response (result or error) in `body`
  kNoResponse,    // notifications, responses, a batch of them: nothing to send (HTTP 202)
  kMalformed,     // rejected before dispatch: parse error, invalid request, missing _meta,
                  // unsupported protocol version, a batch where none is allowed
  kUnknownMethod, // -32601 under 2026-07-28
};

struct Reply {
  Disposition disposition = Disposition::kOk;
  std::string body;                 // one line of JSON; "" for kNoResponse
  std::string negotiated_version;   // set by a successful `initialize` (the stdio adapter keeps it)
};

class McpServer {
 public:
  McpServer(service::Service& service, McpServerOptions options = {});

  // Parses `text` (one transport message: a message or, under 2025-03-26, a batch) and handles it.
  Reply HandleText(std::string_view text, const CallContext& ctx) const;
  // The same for an already parsed message (the HTTP adapter checks its headers against it first).
  Reply HandleParsed(const Parsed& parsed, const CallContext& ctx) const;

  // The protocol version a request states in its `_meta` (nullopt when absent or not a string).
  static std::optional<std::string> MetaVersion(const Message& m);

 private:
  struct Era;
  Reply HandleMessage(const Message& m, const CallContext& ctx, bool in_batch) const;
  std::optional<RpcError> ResolveEra(const Message& m, const CallContext& ctx, Era* era) const;
  nlohmann::json Discover(const Era& era) const;
  nlohmann::json Initialize(const nlohmann::json& params, std::string* negotiated, std::optional<RpcError>* error) const;

  service::Service& service_;
  McpServerOptions options_;
};

}  // namespace attest::mcp
