// Fuzz target: JWT verification (service/jwt.h), strict base64url, and the HS256 secret rules.
// Input layout: either a token verbatim, or `header JSON` 0x1E `payload JSON` [0x1E anything], in
// which case the harness signs header and payload with the test secret so that the claim checks
// behind the signature are reached too. The whole input is also tried as an HS256 secret.
// Invariants: nothing crashes or throws; every refusal is `unauthorized` with a printable UTF-8
// message; an accepted token satisfies every claim rule (tenant, sub, groups sorted and unique,
// clearance, not expired, alg HS256/RS256, no operator without the opt-in); a token signed with
// another secret, or with its payload changed, is refused; base64url decoding is canonical; a
// secret containing "-----BEGIN" is refused.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/text_util.h"
#include "service/auth_store.h"
#include "service/base64url.h"
#include "service/jwt.h"

namespace {

using namespace attest::service;

constexpr char kSecret[] = "jwt-fuzz-secret-0123456789abcdef-0123";
constexpr char kOtherSecret[] = "jwt-fuzz-other-secret-0123456789abcdef";
constexpr char kIssuer[] = "https://idp.example";
constexpr char kAudience[] = "attest";
// Verification time: 2030-01-01T00:00:00Z, so that seeds keep their meaning.
const std::chrono::system_clock::time_point kNow{std::chrono::seconds(1893456000)};

// A 2048-bit RSA public key made for this target (its private key is not kept anywhere).
constexpr char kRsaPublicPem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA69bBIFGa79J6yBmVJAvg\n"
    "72Oo014P6d4oW349fR6kaYmLZOQhlaYhQ5DtE8pYTce2GXSwLktwGfVDgrsK9/nz\n"
    "1Iw1vdd0kiBoDQndqLhcBNv7JpXBv1iyr1iX7VFy9olB1nRFYyMxARrlluc2qyQn\n"
    "PwQ1NRxIvHE0CPPKIjxKxqw2MOGCvJXD0pILClPSbu4VB3F5Gkl04rtQZYXyn319\n"
    "N7KY6Qh3X1OZe8u2sJctYpPYd8t5dnlgGWWa0HIz6ZLKn4iPgJKhEl1nFbl30U+D\n"
    "dsPj+UN53YeP5USweRQxd/sWtdNGx3VtNo68u31nbmq8W6QNctxli/G01YavjnCb\n"
    "jwIDAQAB\n"
    "-----END PUBLIC KEY-----\n";

std::unique_ptr<JwtVerifier> Make(JwtVerifierOptions o) {
  auto v = JwtVerifier::Create(std::move(o));
  FUZZ_CHECK(v.ok());
  return std::move(v).value();
}

// HS256 and RS256 (explicitly allowed together), no issuer or audience, no operator tokens.
const JwtVerifier& Both() {
  static const JwtVerifier* v = [] {
    JwtVerifierOptions o;
    o.hs256_secret = kSecret;
    o.rs256_public_key_pem = kRsaPublicPem;
    o.allow_hs256_and_rs256 = true;
    return Make(std::move(o)).release();
  }();
  return *v;
}

// HS256 with issuer and audience required and operator tokens allowed.
const JwtVerifier& Strict() {
  static const JwtVerifier* v = [] {
    JwtVerifierOptions o;
    o.hs256_secret = kSecret;
    o.issuer = kIssuer;
    o.audience = kAudience;
    o.allow_operator_claim = true;
    o.clock_skew = std::chrono::seconds(0);
    return Make(std::move(o)).release();
  }();
  return *v;
}

std::string Hmac(std::string_view input, std::string_view secret) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(input.data()),
       input.size(), mac, &n);
  return std::string(reinterpret_cast<const char*>(mac), n);
}

std::string Sign(std::string_view header, std::string_view payload, std::string_view secret) {
  const std::string input = Base64UrlEncode(header) + "." + Base64UrlEncode(payload);
  return input + "." + Base64UrlEncode(Hmac(input, secret));
}

bool Printable(std::string_view s) {
  return !attest::ingest::FindInvalidUtf8(s).has_value() &&
         std::none_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; });
}

void CheckRefusal(const ApiError& e) {
  FUZZ_CHECK(e.code == attest::service::ApiErrorCode::kUnauthorized);
  FUZZ_CHECK(!e.message.empty());
  FUZZ_CHECK(Printable(e.message));  // it is sent back in a JSON error body
}

void CheckClaims(const JwtClaims& c, bool operator_allowed, std::chrono::seconds skew) {
  FUZZ_CHECK(c.alg == "HS256" || c.alg == "RS256");
  FUZZ_CHECK(CheckTenant(c.tenant).empty());
  FUZZ_CHECK(CheckUser(c.sub).empty());
  FUZZ_CHECK(CheckClearance(c.clearance).empty());
  if (c.groups) {
    FUZZ_CHECK(std::is_sorted(c.groups->begin(), c.groups->end()));
    FUZZ_CHECK(std::adjacent_find(c.groups->begin(), c.groups->end()) == c.groups->end());
    for (const auto& g : *c.groups) FUZZ_CHECK(CheckGroup(g).empty());
  }
  FUZZ_CHECK(TokenTimeProblem(c.exp, c.nbf, kNow, skew).empty());
  if (!operator_allowed) FUZZ_CHECK(!c.deployment_operator);
}

void VerifyBoth(const JwtVerifier& v, std::string_view token, bool operator_allowed, std::chrono::seconds skew) {
  auto r = v.Verify(token, kNow);
  if (r.ok()) {
    CheckClaims(r.value(), operator_allowed, skew);
  } else {
    CheckRefusal(r.error());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);

  // 1. The input as a token, as a client would send it.
  VerifyBoth(Both(), input, false, std::chrono::seconds(30));
  VerifyBoth(Strict(), input, true, std::chrono::seconds(0));

  // 2. Header and payload signed by the harness: the checks behind the signature.
  if (const size_t sep = input.find('\x1e'); sep != std::string_view::npos) {
    const std::string_view header = input.substr(0, sep);
    std::string_view payload = input.substr(sep + 1);
    payload = payload.substr(0, payload.find('\x1e'));
    const std::string token = Sign(header, payload, kSecret);
    VerifyBoth(Both(), token, false, std::chrono::seconds(30));
    VerifyBoth(Strict(), token, true, std::chrono::seconds(0));
    // Another secret, or a changed payload under the original signature: never accepted.
    auto forged = Both().Verify(Sign(header, payload, kOtherSecret), kNow);
    FUZZ_CHECK(!forged.ok());
    CheckRefusal(forged.error());
    if (!payload.empty()) {
      std::string changed(payload);
      changed[changed.size() / 2] ^= 0x01;
      const size_t d1 = token.find('.');
      const size_t d2 = token.rfind('.');
      const std::string tampered = token.substr(0, d1 + 1) + Base64UrlEncode(changed) + token.substr(d2);
      auto t = Both().Verify(tampered, kNow);
      FUZZ_CHECK(!t.ok());
      CheckRefusal(t.error());
    }
  }

  // 3. Strict base64url: every accepted text is the one canonical encoding of what it decodes to.
  if (auto decoded = Base64UrlDecode(input)) FUZZ_CHECK(Base64UrlEncode(*decoded) == input);
  auto round = Base64UrlDecode(Base64UrlEncode(input));
  FUZZ_CHECK(round && *round == input);

  // 4. The input as an HS256 secret: key material is refused, errors name the setting.
  JwtVerifierOptions o;
  o.hs256_secret = std::string(input);
  if (size % 2 == 1) o.rs256_public_key_pem = kRsaPublicPem;
  o.allow_hs256_and_rs256 = true;
  auto created = JwtVerifier::Create(std::move(o));
  if (input.find("-----BEGIN") != std::string_view::npos) FUZZ_CHECK(!created.ok());
  if (!created.ok()) {
    FUZZ_CHECK(created.error().code == attest::service::ApiErrorCode::kInvalidRequest);
    FUZZ_CHECK(!created.error().field.empty());
  }
  return 0;
}
