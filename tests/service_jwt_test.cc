// JWT verification (HS256, RS256): signatures, alg allow-list, times, issuer and audience, claims,
// malformed tokens, duplicate keys, the key configuration rules; and strict base64url.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "auth_test_helpers.h"
#include "service/base64url.h"
#include "service/jwt.h"

namespace attest::service {
namespace {

using nlohmann::json;
using namespace attest::auth_test;
using testing_support::HmacSha256;

JwtVerifierOptions HsOptions() {
  JwtVerifierOptions o;
  o.hs256_secret = kHsSecret;
  o.issuer = "https://idp.example";
  o.audience = "attest";
  return o;
}

std::unique_ptr<JwtVerifier> Verifier(JwtVerifierOptions o) {
  auto v = JwtVerifier::Create(std::move(o));
  EXPECT_TRUE(v.ok()) << v.error().message;
  return std::move(v).value();
}

// The error message of a rejected token ("" when accepted).
std::string Rejection(const JwtVerifier& v, const std::string& token) {
  auto r = v.Verify(token);
  if (r.ok()) return "";
  EXPECT_EQ(r.error().code, "unauthorized");
  return r.error().message;
}

// ---------------------------------------------------------------- base64url

TEST(Base64Url, RoundTripsAndRejectsNonCanonicalInput) {
  for (std::string s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar", std::string("\xff\x00\xfe", 3)}) {
    auto d = Base64UrlDecode(Base64UrlEncode(s));
    ASSERT_TRUE(d.has_value()) << s;
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_FALSE(Base64UrlDecode("Zm9v=").has_value()) << "padding";
  EXPECT_FALSE(Base64UrlDecode("Zm+v").has_value()) << "standard alphabet";
  EXPECT_FALSE(Base64UrlDecode("Zm9 v").has_value()) << "whitespace";
  EXPECT_FALSE(Base64UrlDecode("Z").has_value()) << "length 1 mod 4";
  EXPECT_FALSE(Base64UrlDecode("Zh").has_value()) << "non-zero trailing bits";
  EXPECT_TRUE(Base64UrlDecode("Zg").has_value());
}

// ---------------------------------------------------------------- JWT

TEST(Jwt, Hs256ValidTokenYieldsClaims) {
  auto v = Verifier(HsOptions());
  auto r = v->Verify(MakeToken({{"alg", "HS256"}, {"typ", "JWT"}},
                               Claims({{"clearance", "internal"}, {"admin", true}, {"groups", {"b", "a", "b"}}}),
                               kHsSecret));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().sub, "alice");
  EXPECT_EQ(r.value().tenant, "acme");
  EXPECT_EQ(r.value().iss, "https://idp.example");
  EXPECT_EQ(r.value().clearance, "internal");
  EXPECT_TRUE(r.value().admin);
  ASSERT_TRUE(r.value().groups.has_value());
  EXPECT_EQ(*r.value().groups, (std::vector<std::string>{"a", "b"}));
  // aud as an array containing ours.
  EXPECT_EQ(Rejection(*v, MakeToken({{"alg", "HS256"}}, Claims({{"aud", {"x", "attest"}}}), kHsSecret)), "");
}

TEST(Jwt, Hs256RejectsBadTimesIssuerAudienceAndSignature) {
  auto v = Verifier(HsOptions());
  json h = {{"alg", "HS256"}};
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"exp", NowS() - 120}}), kHsSecret)), "token expired");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"exp", NowS() - 10}}), kHsSecret)), "") << "within the 30 s skew";
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"exp", nullptr}}), kHsSecret)), "token has no exp claim");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"exp", "tomorrow"}}), kHsSecret)), "token exp claim is not a number");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"nbf", NowS() + 300}}), kHsSecret)),
            "token not yet valid (nbf is in the future)");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"nbf", NowS() + 5}}), kHsSecret)), "") << "within the skew";
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"iss", "https://evil.example"}}), kHsSecret)), "issuer mismatch");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"iss", nullptr}}), kHsSecret)), "issuer mismatch");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"aud", "other"}}), kHsSecret)), "audience mismatch");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"aud", {"x", "y"}}}), kHsSecret)), "audience mismatch");
  EXPECT_NE(Rejection(*v, MakeToken(h, Claims({{"aud", nullptr}}), kHsSecret)).find("audience mismatch"),
            std::string::npos);
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims(), kHsSecret + "x")), "invalid token signature");
  // Tampered payload with the original signature.
  std::string good = MakeToken(h, Claims(), kHsSecret);
  std::string evil_payload = Base64UrlEncode(Claims({{"tenant", "globex"}}).dump());
  size_t d1 = good.find('.'), d2 = good.rfind('.');
  std::string tampered = good.substr(0, d1 + 1) + evil_payload + good.substr(d2);
  EXPECT_EQ(Rejection(*v, tampered), "invalid token signature");
  // Claims.
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"sub", nullptr}}), kHsSecret)), "token has no sub claim");
  EXPECT_EQ(Rejection(*v, MakeToken(h, Claims({{"tenant", nullptr}}), kHsSecret)), "token has no tenant claim");
  EXPECT_NE(Rejection(*v, MakeToken(h, Claims({{"tenant", "../acme"}}), kHsSecret)).find("tenant claim"),
            std::string::npos);
  EXPECT_NE(Rejection(*v, MakeToken(h, Claims({{"groups", "eng"}}), kHsSecret)).find("groups claim"),
            std::string::npos);
  EXPECT_NE(Rejection(*v, MakeToken(h, Claims({{"groups", {1, 2}}}), kHsSecret)).find("groups claim"),
            std::string::npos);
  EXPECT_NE(Rejection(*v, MakeToken(h, Claims({{"admin", 1}}), kHsSecret)).find("admin claim"), std::string::npos);
}

TEST(Jwt, RejectsAlgNoneAndUnknownAlgs) {
  auto v = Verifier(HsOptions());
  std::string unsigned_token =
      Base64UrlEncode(json{{"alg", "none"}}.dump()) + "." + Base64UrlEncode(Claims().dump()) + ".";
  EXPECT_EQ(Rejection(*v, unsigned_token), "unsupported token alg 'none' (accepted: HS256, RS256)");
  EXPECT_NE(Rejection(*v, MakeToken({{"alg", "HS512"}}, Claims(), kHsSecret)).find("unsupported token alg"),
            std::string::npos);
  EXPECT_NE(Rejection(*v, MakeToken({{"alg", "hs256"}}, Claims(), kHsSecret)).find("unsupported token alg"),
            std::string::npos);
  EXPECT_NE(Rejection(*v, MakeToken({{"typ", "JWT"}}, Claims(), kHsSecret)).find("no alg"), std::string::npos);
  EXPECT_NE(Rejection(*v, MakeToken({{"alg", "HS256"}, {"crit", {"exp"}}}, Claims(), kHsSecret)).find("crit"),
            std::string::npos);
}

TEST(Jwt, AlgConfusionRsaPublicKeyAsHmacSecretIsRejected) {
  // A verifier with only the RSA key: an HS256 token "signed" with the public key text.
  JwtVerifierOptions o = HsOptions();
  o.hs256_secret.clear();
  o.rs256_public_key_pem = Rsa().public_pem();
  auto rs_only = Verifier(o);
  std::string forged = MakeToken({{"alg", "HS256"}}, Claims(), Rsa().public_pem());
  EXPECT_EQ(Rejection(*rs_only, forged), "HS256 tokens are not accepted (no HS256 secret configured)");
  // A verifier with both keys: the HS256 token is checked with the HS secret only.
  o.hs256_secret = kHsSecret;
  auto both = Verifier(o);
  EXPECT_EQ(Rejection(*both, forged), "invalid token signature");
  EXPECT_EQ(Rejection(*both, MakeToken({{"alg", "HS256"}}, Claims(), kHsSecret)), "");
  EXPECT_EQ(Rejection(*both, Rsa().Token(Claims())), "");
  // Configuring the public key as the HS256 secret is refused outright.
  o.hs256_secret = Rsa().public_pem();
  auto bad = JwtVerifier::Create(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "jwt_hs256_secret");
  // And an RS256 token is never checked against the HS secret.
  auto hs_only = Verifier(HsOptions());
  std::string input = Base64UrlEncode(json{{"alg", "RS256"}}.dump()) + "." + Base64UrlEncode(Claims().dump());
  EXPECT_EQ(Rejection(*hs_only, input + "." + Base64UrlEncode(HmacSha256(input, kHsSecret))),
            "RS256 tokens are not accepted (no RS256 public key configured)");
}

TEST(Jwt, MalformedTokensAreRejectedWithReasons) {
  auto v = Verifier(HsOptions());
  std::string good = MakeToken({{"alg", "HS256"}}, Claims(), kHsSecret);
  EXPECT_NE(Rejection(*v, "abc").find("three"), std::string::npos);
  EXPECT_NE(Rejection(*v, good + ".x").find("three"), std::string::npos);
  EXPECT_NE(Rejection(*v, "!!!." + good.substr(good.find('.') + 1)).find("header is not base64url"),
            std::string::npos);
  EXPECT_NE(Rejection(*v, good + "=").find("signature is not base64url"), std::string::npos) << "padding";
  std::string std_alphabet = good;
  for (char& c : std_alphabet) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  if (std_alphabet != good) {
    EXPECT_NE(Rejection(*v, std_alphabet), "");
  }
  EXPECT_NE(Rejection(*v, Base64UrlEncode("[1,2]") + ".e30.").find("header is not a JSON object"),
            std::string::npos);
  // Payload that is not JSON, correctly signed.
  std::string input = Base64UrlEncode(json{{"alg", "HS256"}}.dump()) + "." + Base64UrlEncode("not json");
  EXPECT_NE(Rejection(*v, input + "." + Base64UrlEncode(HmacSha256(input, kHsSecret))).find("payload is not a JSON"),
            std::string::npos);
  // Deeply nested header.
  std::string deep(200, '[');
  EXPECT_NE(Rejection(*v, Base64UrlEncode(deep) + ".e30.").find("header"), std::string::npos);
  // Size bound.
  std::string big = MakeToken({{"alg", "HS256"}}, Claims({{"pad", std::string(9000, 'x')}}), kHsSecret);
  EXPECT_NE(Rejection(*v, big).find("token too large"), std::string::npos);
}

TEST(Jwt, Rs256ValidAndInvalid) {
  JwtVerifierOptions o = HsOptions();
  o.hs256_secret.clear();
  o.rs256_public_key_pem = Rsa().public_pem();
  auto v = Verifier(o);
  auto r = v->Verify(Rsa().Token(Claims()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r.value().alg, "RS256");
  EXPECT_EQ(r.value().tenant, "acme");
  EXPECT_EQ(Rejection(*v, OtherRsa().Token(Claims())), "invalid token signature") << "signed by another key";
  EXPECT_EQ(Rejection(*v, Rsa().Token(Claims({{"exp", NowS() - 100}}))), "token expired");
  std::string good = Rsa().Token(Claims());
  std::string truncated = good.substr(0, good.size() - 4);
  EXPECT_NE(Rejection(*v, truncated), "");
  // Bad key configuration.
  o.rs256_public_key_pem = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
  EXPECT_FALSE(JwtVerifier::Create(o).ok());
  EXPECT_FALSE(JwtVerifier::Create(JwtVerifierOptions{}).ok()) << "no key at all";
  JwtVerifierOptions short_secret;
  short_secret.hs256_secret = "short";
  EXPECT_FALSE(JwtVerifier::Create(short_secret).ok());
}

}  // namespace
}  // namespace attest::service
