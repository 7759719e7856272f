// Authentication: resolves the credential of a request to an Identity.
//   Authorization: Bearer <jwt>    (HS256 or RS256, checked: signature, alg allow-list, exp, nbf,
//                                   iss, aud; claims: sub, tenant, groups, clearance, admin)
//   Authorization: Bearer att_...  or  X-API-Key: att_...   (API keys; only SHA-256 hashes are stored)
// Groups come from the principal directory (auth.db) when it knows the user, else from the
// token's `groups` claim; the resolution is cached for `group_cache_ttl`, which is therefore the
// revocation delay. Request bodies never contribute groups.
// `admin` (a key's flag or the token's claim) administers the identity's own tenant only; only a
// deployment operator (an operator key, or a token's `operator` claim when the deployment allows
// it) may cross tenants.
//
// Thread-safety: Authenticate() from any thread.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "service/api_error.h"
#include "service/identity.h"

namespace attest::service {

struct AuthOptions {
  std::filesystem::path auth_db;              // SQLite file with api_keys and principals
  std::string jwt_hs256_secret;               // "" = HS256 tokens rejected
  std::string jwt_rs256_public_key_pem;       // "" = RS256 tokens rejected
  std::string jwt_issuer;                     // required `iss` when non-empty
  std::string jwt_audience;                   // required in `aud` when non-empty
  std::chrono::seconds clock_skew{30};        // leeway for exp / nbf
  bool jwt_allow_hs256_and_rs256 = false;     // both key types only when asked for explicitly
  bool jwt_allow_operator_claim = false;      // honour a token's `"operator": true`
  std::chrono::milliseconds group_cache_ttl{5000};
  bool allow_anonymous = false;               // no credential = tenant "default", no groups
  // The wall clock for token times (exp, nbf); null = std::chrono::system_clock::now.
  std::function<std::chrono::system_clock::time_point()> clock;
};

class Authenticator {
 public:
  static ApiResult<std::unique_ptr<Authenticator>> Create(AuthOptions options);
  virtual ~Authenticator() = default;
  // `headers`: lower-cased names. unauthorized (no/invalid/expired credential) or forbidden.
  virtual ApiResult<Identity> Authenticate(const std::map<std::string, std::string>& headers) = 0;
  // Re-checks an already authenticated identity (at sentence boundaries of a stream, and before
  // an answer is rendered): a JWT's exp and nbf against the clock, an API key's revocation and
  // flags, the principal's disabled flag, groups and clearance through the cache (so changes
  // show within the TTL). unauthorized (expired, revoked) or forbidden (disabled) when it no
  // longer holds.
  virtual ApiResult<Identity> Refresh(const Identity& identity) = 0;
  virtual std::chrono::milliseconds revocation_delay() const = 0;
};

}  // namespace attest::service
