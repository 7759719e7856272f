// Test helpers for JWTs: HS256 signing and an RSA key pair (OpenSSL), so that unit and black-box
// tests mint tokens the same way. Header and payload are given as JSON text, so tests can write
// what no JSON library would produce (duplicate keys, odd escapes).
#pragma once

#include <cstdint>
#include <string>

typedef struct evp_pkey_st EVP_PKEY;

namespace attest::testing_support {

// HMAC-SHA256 of `input` with `secret` (raw bytes).
std::string HmacSha256(const std::string& input, const std::string& secret);

// base64url(header) "." base64url(payload) "." base64url(HMAC-SHA256 of the first two parts).
std::string Hs256Token(const std::string& header_json, const std::string& payload_json, const std::string& secret);

// Seconds since the Unix epoch, now.
int64_t UnixSeconds();

// A 2048-bit RSA key pair generated at construction.
class RsaKeyPair {
 public:
  RsaKeyPair();
  ~RsaKeyPair();
  RsaKeyPair(const RsaKeyPair&) = delete;
  RsaKeyPair& operator=(const RsaKeyPair&) = delete;

  const std::string& public_pem() const { return public_pem_; }  // "-----BEGIN PUBLIC KEY-----\n...\n"
  const std::string& public_der() const { return public_der_; }  // SubjectPublicKeyInfo, DER
  // RSASSA-PKCS1-v1_5 with SHA-256.
  std::string Sign(const std::string& input) const;
  // An RS256 token over the given header and payload JSON text.
  std::string Token(const std::string& header_json, const std::string& payload_json) const;

 private:
  EVP_PKEY* pkey_ = nullptr;
  std::string public_pem_;
  std::string public_der_;
};

}  // namespace attest::testing_support
