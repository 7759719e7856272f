// Helpers shared by the authentication tests (service_auth_test, service_jwt_test): a test HS256
// secret, tokens from JSON, the suite's RSA key pairs and a standard set of claims.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "support/jwt_test_util.h"

namespace attest::auth_test {

using nlohmann::json;

inline const std::string kHsSecret = "0123456789abcdef0123456789abcdef-test-secret";

inline int64_t NowS() { return testing_support::UnixSeconds(); }

inline std::string MakeToken(const json& header, const json& claims, const std::string& secret) {
  return testing_support::Hs256Token(header.dump(), claims.dump(), secret);
}

// An RSA key pair (2048 bits) whose Token() takes the claims as JSON.
class RsaKey : public testing_support::RsaKeyPair {
 public:
  std::string Token(const json& claims) const {
    return RsaKeyPair::Token(json{{"alg", "RS256"}, {"typ", "JWT"}}.dump(), claims.dump());
  }
};

// Generated once per test binary (key generation takes a while).
inline const RsaKey& Rsa() {
  static const RsaKey* key = new RsaKey();
  return *key;
}
inline const RsaKey& OtherRsa() {
  static const RsaKey* key = new RsaKey();
  return *key;
}

// sub alice, tenant acme, iss https://idp.example, aud attest, exp in 10 minutes, groups eng+all;
// `extra` adds or replaces claims (null removes one).
inline json Claims(json extra = json::object()) {
  json c = {{"sub", "alice"}, {"tenant", "acme"}, {"iss", "https://idp.example"}, {"aud", "attest"},
            {"exp", NowS() + 600}, {"groups", {"eng", "all"}}};
  for (auto& [k, v] : extra.items()) {
    if (v.is_null()) {
      c.erase(k);
    } else {
      c[k] = v;
    }
  }
  return c;
}

}  // namespace attest::auth_test
