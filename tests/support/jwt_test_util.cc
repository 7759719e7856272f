#include "support/jwt_test_util.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <chrono>
#include <stdexcept>

#include "service/base64url.h"

namespace attest::testing_support {

using service::Base64UrlEncode;

std::string HmacSha256(const std::string& input, const std::string& secret) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &n);
  return std::string(reinterpret_cast<const char*>(mac), n);
}

std::string Hs256Token(const std::string& header_json, const std::string& payload_json, const std::string& secret) {
  const std::string input = Base64UrlEncode(header_json) + "." + Base64UrlEncode(payload_json);
  return input + "." + Base64UrlEncode(HmacSha256(input, secret));
}

int64_t UnixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

RsaKeyPair::RsaKeyPair() {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nullptr);
  if (ctx == nullptr || EVP_PKEY_keygen_init(ctx) != 1 || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) != 1 ||
      EVP_PKEY_keygen(ctx, &pkey_) != 1) {
    EVP_PKEY_CTX_free(ctx);
    throw std::runtime_error("RSA key generation failed");
  }
  EVP_PKEY_CTX_free(ctx);
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, pkey_);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  public_pem_.assign(data, static_cast<size_t>(n));
  BIO_free(bio);
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(pkey_, &der);
  if (len <= 0) throw std::runtime_error("i2d_PUBKEY failed");
  public_der_.assign(reinterpret_cast<const char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
}

RsaKeyPair::~RsaKeyPair() { EVP_PKEY_free(pkey_); }

std::string RsaKeyPair::Sign(const std::string& input) const {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, pkey_);
  size_t n = 0;
  EVP_DigestSign(ctx, nullptr, &n, reinterpret_cast<const unsigned char*>(input.data()), input.size());
  std::string sig(n, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &n,
                 reinterpret_cast<const unsigned char*>(input.data()), input.size());
  sig.resize(n);
  EVP_MD_CTX_free(ctx);
  return sig;
}

std::string RsaKeyPair::Token(const std::string& header_json, const std::string& payload_json) const {
  const std::string input = Base64UrlEncode(header_json) + "." + Base64UrlEncode(payload_json);
  return input + "." + Base64UrlEncode(Sign(input));
}

}  // namespace attest::testing_support
