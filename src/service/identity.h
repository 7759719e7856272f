// Who is asking: the identity every request carries after authentication. It is built only from a
// credential (an API key or a JWT bearer token) and the principal directory; nothing in a request
// body can widen it (docs/http_api.md, "Identity").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attest::service {

struct Identity {
  std::string tenant;                // [a-z0-9_-]{1,32}
  std::string user;                  // subject
  std::vector<std::string> groups;   // resolved groups (sorted, unique)
  std::string clearance;             // e.g. "public", "internal", "confidential"; "" = none given
  bool admin = false;                // may ingest/delete documents (of any tenant) and run bulk work
  std::string credential_id;         // stable id of the credential (key id or "jwt:<iss>:<sub>"):
                                     // the rate-limit and audit key; never the secret
  std::string method;                // "api_key", "jwt" or "anonymous"
  double rate_per_second = 0;        // the API key's own rate limit; 0 = the server's default
  // Permission scope for cache keys: tenant, sorted groups, clearance (admin marks full scope).
  std::string Scope() const;
};

}  // namespace attest::service
