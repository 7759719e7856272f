// JWT verification (HS256, RS256): signatures, alg allow-list, times, issuer and audience, claims,
// malformed tokens, duplicate keys, the key configuration rules; and strict base64url.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

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
  EXPECT_EQ(r.error().code, ApiErrorCode::kUnauthorized);
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
  o.allow_hs256_and_rs256 = true;
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

// ---------------------------------------------------------------- regressions (issue 10)

// Strips the PEM armour and all whitespace: the standard base64 of the DER key.
std::string PemBody(const std::string& pem) {
  std::string out;
  std::istringstream in(pem);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("-----", 0) == 0) continue;
    for (char c : line) {
      if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
    }
  }
  return out;
}

// Duplicate keys were accepted and the last one won: {"alg":"none","alg":"HS256"}.
TEST(Jwt, Regression_DuplicateHeaderKeyIsRefused) {
  auto v = Verifier(HsOptions());
  const std::string payload = Claims().dump();
  auto token = [&](const std::string& header) { return testing_support::Hs256Token(header, payload, kHsSecret); };
  EXPECT_EQ(Rejection(*v, token(R"({"alg":"HS256","typ":"JWT"})")), "") << "control";
  EXPECT_EQ(Rejection(*v, token(R"({"alg":"none","alg":"HS256"})")),
            "malformed token: header has a duplicate key \"alg\"");
  EXPECT_EQ(Rejection(*v, token(R"({"alg":"HS256","typ":"JWT","typ":"JWT"})")),
            "malformed token: header has a duplicate key \"typ\"");
  // The same key written with an escape is the same key.
  EXPECT_EQ(Rejection(*v, token(R"({"alg":"HS256","\u0061lg":"HS256"})")),
            "malformed token: header has a duplicate key \"alg\"");
}

TEST(Jwt, Regression_DuplicatePayloadKeyIsRefused) {
  auto v = Verifier(HsOptions());
  const std::string base = Claims().dump();  // {"aud":...,"tenant":"acme"}
  auto token = [&](const std::string& front, const std::string& back) {
    return testing_support::Hs256Token(R"({"alg":"HS256"})", "{" + front + base.substr(1, base.size() - 2) + back + "}",
                                       kHsSecret);
  };
  EXPECT_EQ(Rejection(*v, token(R"("admin":false,)", R"(,"admin":true)")),
            "malformed token: payload has a duplicate key \"admin\"");
  EXPECT_EQ(Rejection(*v, token(R"("tenant":"globex",)", "")),
            "malformed token: payload has a duplicate key \"tenant\"");
  EXPECT_EQ(Rejection(*v, token("", R"(,"ext":{"k":1,"k":2})")),
            "malformed token: payload has a duplicate key \"k\"");
  EXPECT_EQ(Rejection(*v, token("", R"(,"\u0073ub":"mallory")")),
            "malformed token: payload has a duplicate key \"sub\"");
  // The same name in different objects is no duplicate.
  EXPECT_EQ(Rejection(*v, token("", R"(,"x":{"k":1},"y":{"k":2},"z":[{"k":1},{"k":2}])")), "");
}

// `export SECRET="$(cat public.pem)"` drops the trailing newline; the byte-exact comparison with
// the PEM missed it, and an HS256 token signed with the public key was accepted.
TEST(Jwt, Regression_Hs256SecretIsThePublicKeyPemWithoutItsTrailingNewline) {
  std::string pem = Rsa().public_pem();
  while (!pem.empty() && pem.back() == '\n') pem.pop_back();
  std::string crlf;
  for (char c : pem) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  for (const std::string& secret : {pem, pem + "\r\n", "  " + pem + " \n\n", crlf}) {
    JwtVerifierOptions o = HsOptions();
    o.rs256_public_key_pem = Rsa().public_pem();
    o.hs256_secret = secret;
    auto r = JwtVerifier::Create(o);
    ASSERT_FALSE(r.ok()) << "accepted as an HS256 secret: " << secret.substr(0, 40);
    EXPECT_EQ(r.error().code, ApiErrorCode::kInvalidRequest);
    EXPECT_EQ(r.error().field, "jwt_hs256_secret");
    EXPECT_NE(r.error().message.find("public key"), std::string::npos) << r.error().message;
  }
}

TEST(Jwt, Regression_Hs256SecretThatLooksLikeKeyMaterialIsRefused) {
  const std::string body = PemBody(OtherRsa().public_pem());
  std::string wrapped;
  for (size_t i = 0; i < body.size(); i += 64) wrapped += body.substr(i, 64) + "\n";
  const std::vector<std::string> key_material = {
      OtherRsa().public_pem(),
      "-----BEGIN PRIVATE KEY-----\n" + std::string(64, 'A') + "\n-----END PRIVATE KEY-----\n",
      "-----BEGIN CERTIFICATE-----",
      body,                                   // base64 DER of a public key, one line
      wrapped,                                // the same, wrapped like a PEM body
      Base64UrlEncode(OtherRsa().public_der()),  // base64url DER
      OtherRsa().public_der(),                // raw DER
  };
  for (const std::string& secret : key_material) {
    JwtVerifierOptions o = HsOptions();  // HS256 only: no public key configured to compare with
    o.hs256_secret = secret;
    auto r = JwtVerifier::Create(o);
    ASSERT_FALSE(r.ok()) << "accepted as an HS256 secret: " << secret.substr(0, 40);
    EXPECT_EQ(r.error().field, "jwt_hs256_secret");
    EXPECT_FALSE(r.error().message.empty());
  }
  // Ordinary secrets, including base64 of random bytes, are fine.
  for (const std::string& secret :
       {kHsSecret, Base64UrlEncode(std::string("\x13\x37\xbe\xef\x00\x42\x99\xfe\x01\x02\x03\x04\x05\x06\x07\x08"
                                               "\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0\xff",
                                               32)),
        std::string("correct horse battery staple, and then some more words")}) {
    JwtVerifierOptions o = HsOptions();
    o.hs256_secret = secret;
    auto r = JwtVerifier::Create(o);
    EXPECT_TRUE(r.ok()) << secret << ": " << (r.ok() ? "" : r.error().message);
  }
}

TEST(Jwt, Regression_Hs256AndRs256TogetherAreRefusedUnlessAllowed) {
  JwtVerifierOptions o = HsOptions();
  o.rs256_public_key_pem = Rsa().public_pem();
  auto r = JwtVerifier::Create(o);
  ASSERT_FALSE(r.ok()) << "both key types configured without being asked for";
  EXPECT_EQ(r.error().field, "jwt_allow_hs256_and_rs256");
  EXPECT_NE(r.error().message.find("HS256"), std::string::npos);
  EXPECT_NE(r.error().message.find("RS256"), std::string::npos);
  o.allow_hs256_and_rs256 = true;
  EXPECT_TRUE(JwtVerifier::Create(o).ok()) << "allowed explicitly";
}

TEST(Jwt, OperatorClaimOnlyWhenAllowed) {
  auto v = Verifier(HsOptions());
  const std::string op = MakeToken({{"alg", "HS256"}}, Claims({{"operator", true}}), kHsSecret);
  EXPECT_EQ(Rejection(*v, op), "token claims deployment operator access, which this deployment does not accept from tokens");
  EXPECT_EQ(Rejection(*v, MakeToken({{"alg", "HS256"}}, Claims({{"operator", false}}), kHsSecret)), "");
  EXPECT_EQ(Rejection(*v, MakeToken({{"alg", "HS256"}}, Claims({{"operator", 1}}), kHsSecret)),
            "token operator claim must be a boolean");
  JwtVerifierOptions o = HsOptions();
  o.allow_operator_claim = true;
  auto allowing = Verifier(o);
  auto r = allowing->Verify(op);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r.value().deployment_operator);
  EXPECT_FALSE(r.value().admin) << "the claims are reported as given; the authenticator makes operators admins";
}

}  // namespace
}  // namespace attest::service
