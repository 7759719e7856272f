// JWT bearer token verification (RFC 7519, JWS compact serialization RFC 7515) through OpenSSL.
//
//   token  = base64url(header) "." base64url(payload) "." base64url(signature)   (strict, no padding)
//   header = {"alg": "HS256" | "RS256", "typ"?: "JWT"}; any other alg (including "none") is rejected,
//            and so is a "crit" header (no extensions are understood).
//
// Header and payload are strict JSON objects: a key that appears twice in one object (also when
// spelled with an escape) refuses the token, so no parser's "last one wins" can be exploited.
//
// The key is chosen by the configured key type, never by the token: an HS256 token is verified
// only with the HS256 secret and an RS256 token only with the RSA public key, so the RSA key can
// never be used as an HMAC secret ("alg confusion"). HMAC tags are compared in constant time.
// Configuration rules (Create): the HS256 secret has at least 32 bytes and is no key material
// (not the configured public key compared without whitespace, no "-----BEGIN", not a DER public
// key or certificate, raw or base64); HS256 and RS256 together only when explicitly allowed.
//
// Claims: exp (required) and nbf (optional) with clock skew; iss must equal the configured issuer
// and aud (string or array) must contain the configured audience when those are set; sub required;
// tenant required, [a-z0-9_-]{1,32}; groups optional array of strings; clearance optional string;
// admin optional bool; operator optional bool, and `true` only when the deployment allows operator
// tokens. Every failure is ApiError{ApiErrorCode::kUnauthorized, <precise message>}.
//
// Thread-safety: a JwtVerifier is immutable after Create(); Verify() from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/api_error.h"

namespace attest::service {

inline constexpr size_t kMaxJwtBytes = 8 * 1024;

struct JwtVerifierOptions {
  std::string hs256_secret;             // "" = HS256 tokens rejected
  std::string rs256_public_key_pem;     // "" = RS256 tokens rejected; RSA, at least 2048 bits
  std::string issuer;                   // required `iss` when non-empty
  std::string audience;                 // required in `aud` when non-empty
  std::chrono::seconds clock_skew{30};  // leeway for exp and nbf
  bool allow_hs256_and_rs256 = false;   // both key types at once only when asked for explicitly
  bool allow_operator_claim = false;    // honour `"operator": true` (else such a token is refused)
};

struct JwtClaims {
  std::string alg;                      // "HS256" or "RS256"
  std::string sub;
  std::string iss;                      // "" when absent
  std::string tenant;
  std::optional<std::vector<std::string>> groups;  // sorted, unique; nullopt when the claim is absent
  std::string clearance;                // "" when absent
  bool admin = false;
  bool deployment_operator = false;     // `"operator": true`, accepted only when allowed
  double exp = 0;                       // seconds since the epoch
  std::optional<double> nbf;            // seconds since the epoch; nullopt when absent
};

// "" when a token with these times is valid at `now` (expired when now >= exp + skew, not yet
// valid when now + skew < nbf; `now` in whole seconds), else the reason ("token expired", "token not
// yet valid (nbf is in the future)"). Used by Verify() and again at every identity refresh.
std::string TokenTimeProblem(double exp, std::optional<double> nbf, std::chrono::system_clock::time_point now,
                             std::chrono::seconds skew);

class JwtVerifier {
 public:
  // invalid_request naming the option when the configuration is unusable: neither key given, a
  // bad PEM, not RSA, a key under 2048 bits (field jwt_rs256_public_key); a short secret or one
  // that is key material (jwt_hs256_secret); both key types without allow_hs256_and_rs256
  // (jwt_allow_hs256_and_rs256).
  static ApiResult<std::unique_ptr<JwtVerifier>> Create(JwtVerifierOptions options);
  ~JwtVerifier();
  JwtVerifier(const JwtVerifier&) = delete;
  JwtVerifier& operator=(const JwtVerifier&) = delete;

  ApiResult<JwtClaims> Verify(std::string_view token, std::chrono::system_clock::time_point now) const;
  ApiResult<JwtClaims> Verify(std::string_view token) const { return Verify(token, std::chrono::system_clock::now()); }

 private:
  struct Keys;
  JwtVerifier(JwtVerifierOptions options, std::unique_ptr<Keys> keys);
  JwtVerifierOptions options_;
  std::unique_ptr<Keys> keys_;
};

}  // namespace attest::service
