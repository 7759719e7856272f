// Who is asking: the identity every request carries after authentication. It is built only from a
// credential (an API key or a JWT bearer token) and the principal directory; nothing in a request
// body can widen it (docs/http_api.md, "Identity"; docs/security.md, "Identity and credentials").
//
// Three levels of trust: a reader (its tenant, its groups), a tenant admin (`admin`: writes and
// deletes documents and reads everything of its own tenant, whatever the groups) and the
// deployment operator (`deployment_operator`: an admin of every tenant, the only identity that may
// name another tenant than its own).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attest::service {

struct Identity {
  std::string tenant;                // [a-z0-9_-]{1,32}
  std::string user;                  // subject
  std::vector<std::string> groups;   // resolved groups (sorted, unique)
  std::string clearance;             // e.g. "public", "internal", "confidential"; "" = none given
  bool admin = false;                // may ingest/delete documents of its tenant, reads all of it
  std::string credential_id;         // stable id of the credential (key id or "jwt:<iss>:<sub>"):
                                     // the rate-limit and audit key; never the secret
  std::string method;                // "api_key", "jwt" or "anonymous"
  double rate_per_second = 0;        // the API key's own rate limit; 0 = the server's default
  bool deployment_operator = false;  // may name any tenant, and is an admin there (implies admin)
  std::optional<double> token_exp = std::nullopt;  // JWT exp and nbf (seconds since the epoch),
  std::optional<double> token_nbf = std::nullopt;  // re-checked at every Refresh; none for API keys
  // Permission scope for cache keys: tenant, sorted groups, clearance (admin marks full scope).
  std::string Scope() const;
};

}  // namespace attest::service
