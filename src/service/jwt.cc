#include "service/jwt.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <nlohmann/json.hpp>

#include "common/json_guard.h"
#include "service/auth_store.h"
#include "service/base64url.h"

namespace attest::service {
namespace {

constexpr int kMinRsaBits = 2048;
constexpr int kMaxJsonDepth = 8;
constexpr size_t kMaxGroups = 1024;

ApiError Unauthorized(std::string message) { return ApiError{ApiErrorCode::kUnauthorized, std::move(message), ""}; }
ApiError BadConfig(std::string field, std::string message) { return InvalidField(std::move(field), std::move(message)); }

// `s` for an error message: printable ASCII (anything else as '?'), at most `max` bytes.
std::string Shown(std::string_view s, size_t max) {
  std::string out(s.substr(0, max));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
  }
  return s.size() > max ? out + "..." : out;
}

// Decodes a base64url part and parses it as a JSON object in which no object repeats a key (keys
// are compared after unescaping, so "\u0061lg" repeats "alg"). On failure sets *why to the rest of
// a sentence ("is not base64url", "has a duplicate key \"admin\"", ...).
std::optional<nlohmann::json> DecodeJsonObject(std::string_view part, std::string* why) {
  auto bytes = Base64UrlDecode(part);
  if (!bytes) {
    *why = "is not base64url";
    return std::nullopt;
  }
  if (JsonNestingExceeds(*bytes, kMaxJsonDepth)) {
    *why = "nests too deeply";
    return std::nullopt;
  }
  std::vector<std::set<std::string>> open_objects;  // the keys seen so far in each open object
  std::optional<std::string> duplicate;
  const nlohmann::json::parser_callback_t track = [&](int, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) {
      open_objects.emplace_back();
    } else if (event == E::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == E::key && !open_objects.empty() && parsed.is_string()) {
      const std::string& k = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(k).second && !duplicate) duplicate = k;
    }
    return true;
  };
  nlohmann::json j = nlohmann::json::parse(*bytes, track, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    *why = "is not a JSON object";
    return std::nullopt;
  }
  if (duplicate) {
    *why = "has a duplicate key \"" + Shown(*duplicate, 32) + "\"";
    return std::nullopt;
  }
  return j;
}

// A NumericDate claim (RFC 7519 §2): a JSON number of seconds. nullopt when absent; sets *bad when
// present with another type.
std::optional<double> NumericDate(const nlohmann::json& claims, const char* name, bool* bad) {
  auto it = claims.find(name);
  if (it == claims.end()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>())) {
    *bad = true;
    return std::nullopt;
  }
  return it->get<double>();
}

// --- HS256 secrets that are key material -------------------------------------------------------

std::string WithoutWhitespace(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
  }
  return out;
}

// Base64 in either alphabet, padding optional, whitespace ignored; nullopt when it is not.
std::optional<std::string> LenientBase64(std::string_view text) {
  std::string s = WithoutWhitespace(text);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  if (s.empty()) return std::nullopt;
  return Base64UrlDecode(s);
}

// True when `der` is a DER public key (SubjectPublicKeyInfo or PKCS#1 RSAPublicKey) or an X.509
// certificate: public information that must never be an HMAC secret.
bool IsDerPublicKeyOrCertificate(std::string_view der) {
  if (der.empty()) return false;
  const long len = static_cast<long>(der.size());
  bool found = false;
  {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    EVP_PKEY* key = d2i_PUBKEY(nullptr, &p, len);
    found = key != nullptr;
    EVP_PKEY_free(key);
  }
  if (!found) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    EVP_PKEY* key = d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, len);
    found = key != nullptr;
    EVP_PKEY_free(key);
  }
  if (!found) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
    X509* cert = d2i_X509(nullptr, &p, len);
    found = cert != nullptr;
    X509_free(cert);
  }
  ERR_clear_error();  // the failed attempts leave errors behind
  return found;
}

std::string PublicKeyDer(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  const int len = i2d_PUBKEY(key, &der);
  if (len <= 0) return "";
  std::string out(reinterpret_cast<const char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

// Why `secret` must not be an HS256 secret ("" when it may be). `rs256_pem`/`rs256` are the
// configured public key, if any. Whitespace is ignored throughout: a shell drops a PEM's trailing
// newline, a copy adds CRLF or wraps lines.
std::string KeyMaterialProblem(std::string_view secret, std::string_view rs256_pem, EVP_PKEY* rs256) {
  const std::string bare = WithoutWhitespace(secret);
  if (rs256 != nullptr) {
    const std::string der = PublicKeyDer(rs256);
    const auto decoded = LenientBase64(secret);
    if (bare == WithoutWhitespace(rs256_pem) || secret == der || (decoded && *decoded == der)) {
      return "the HS256 secret is the RS256 public key (compared without whitespace): anyone could sign HS256 "
             "tokens with it; use a random secret of at least 32 bytes";
    }
  }
  std::string upper = bare;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper.find("-----BEGIN") != std::string::npos) {
    return "the HS256 secret looks like PEM key material (it contains -----BEGIN); an HMAC secret must be a "
           "random string of at least 32 bytes, never a key or certificate";
  }
  if (IsDerPublicKeyOrCertificate(secret)) {
    return "the HS256 secret is a DER public key or certificate; use a random secret of at least 32 bytes";
  }
  if (auto decoded = LenientBase64(secret); decoded && IsDerPublicKeyOrCertificate(*decoded)) {
    return "the HS256 secret is the base64 of a DER public key or certificate; use a random secret of at least "
           "32 bytes";
  }
  return "";
}

}  // namespace

std::string TokenTimeProblem(double exp, std::optional<double> nbf, std::chrono::system_clock::time_point now,
                             std::chrono::seconds skew) {
  const double now_s =
      static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
  const double skew_s = static_cast<double>(skew.count());
  if (now_s >= exp + skew_s) return "token expired";
  if (nbf && now_s + skew_s < *nbf) return "token not yet valid (nbf is in the future)";
  return "";
}

struct JwtVerifier::Keys {
  EVP_PKEY* rsa = nullptr;
  ~Keys() { EVP_PKEY_free(rsa); }
};

JwtVerifier::JwtVerifier(JwtVerifierOptions options, std::unique_ptr<Keys> keys)
    : options_(std::move(options)), keys_(std::move(keys)) {}

JwtVerifier::~JwtVerifier() = default;

ApiResult<std::unique_ptr<JwtVerifier>> JwtVerifier::Create(JwtVerifierOptions options) {
  const bool hs256 = !options.hs256_secret.empty();
  const bool rs256 = !options.rs256_public_key_pem.empty();
  if (!hs256 && !rs256) {
    return BadConfig("jwt", "JWT verification needs an HS256 secret or an RS256 public key");
  }
  if (hs256 && options.hs256_secret.size() < 32) {
    return BadConfig("jwt_hs256_secret", "the HS256 secret must have at least 32 bytes (RFC 7518 §3.2)");
  }
  auto keys = std::make_unique<Keys>();
  if (rs256) {
    BIO* bio = BIO_new_mem_buf(options.rs256_public_key_pem.data(),
                               static_cast<int>(options.rs256_public_key_pem.size()));
    if (bio == nullptr) return ApiError{ApiErrorCode::kInternal, "BIO_new_mem_buf failed", ""};
    keys->rsa = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    ERR_clear_error();
    if (keys->rsa == nullptr) {
      return BadConfig("jwt_rs256_public_key",
                       "the RS256 public key is not a PEM public key (-----BEGIN PUBLIC KEY-----)");
    }
    if (EVP_PKEY_get_base_id(keys->rsa) != EVP_PKEY_RSA) {
      return BadConfig("jwt_rs256_public_key", "the RS256 public key is not an RSA key");
    }
    if (EVP_PKEY_get_bits(keys->rsa) < kMinRsaBits) {
      return BadConfig("jwt_rs256_public_key", "the RS256 public key has fewer than 2048 bits");
    }
  }
  if (hs256) {
    std::string problem = KeyMaterialProblem(options.hs256_secret, options.rs256_public_key_pem, keys->rsa);
    if (!problem.empty()) return BadConfig("jwt_hs256_secret", std::move(problem));
  }
  if (hs256 && rs256 && !options.allow_hs256_and_rs256) {
    return BadConfig("jwt_allow_hs256_and_rs256",
                     "both an HS256 secret and an RS256 public key are configured: whoever holds the shared HS256 "
                     "secret can then mint tokens the RS256 issuer never signed; configure one, or allow both "
                     "explicitly");
  }
  return std::unique_ptr<JwtVerifier>(new JwtVerifier(std::move(options), std::move(keys)));
}

ApiResult<JwtClaims> JwtVerifier::Verify(std::string_view token, std::chrono::system_clock::time_point now) const {
  if (token.size() > kMaxJwtBytes) {
    return Unauthorized("token too large (" + std::to_string(token.size()) + " bytes, limit " +
                        std::to_string(kMaxJwtBytes) + ")");
  }
  size_t d1 = token.find('.');
  size_t d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
  if (d1 == std::string_view::npos || d2 == std::string_view::npos ||
      token.find('.', d2 + 1) != std::string_view::npos) {
    return Unauthorized("malformed token: expected three dot-separated parts");
  }
  std::string_view header_b64 = token.substr(0, d1);
  std::string_view payload_b64 = token.substr(d1 + 1, d2 - d1 - 1);
  std::string_view sig_b64 = token.substr(d2 + 1);
  std::string why;
  auto header = DecodeJsonObject(header_b64, &why);
  if (!header) return Unauthorized("malformed token: header " + why);
  auto alg_it = header->find("alg");
  if (alg_it == header->end() || !alg_it->is_string()) return Unauthorized("malformed token: header has no alg");
  std::string alg = alg_it->get<std::string>();
  if (alg != "HS256" && alg != "RS256") {
    return Unauthorized("unsupported token alg '" + Shown(alg, 16) + "' (accepted: HS256, RS256)");
  }
  if (header->contains("crit")) return Unauthorized("token header has crit extensions, none are supported");
  if (auto typ = header->find("typ"); typ != header->end()) {
    if (!typ->is_string() || (typ->get<std::string>() != "JWT" && typ->get<std::string>() != "jwt")) {
      return Unauthorized("token typ is not JWT");
    }
  }
  auto signature = Base64UrlDecode(sig_b64);
  if (!signature) return Unauthorized("malformed token: signature is not base64url");
  // The signing input is the first two parts exactly as received.
  std::string_view signing_input = token.substr(0, d2);

  if (alg == "HS256") {
    if (options_.hs256_secret.empty()) return Unauthorized("HS256 tokens are not accepted (no HS256 secret configured)");
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    if (HMAC(EVP_sha256(), options_.hs256_secret.data(), static_cast<int>(options_.hs256_secret.size()),
             reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), mac,
             &mac_len) == nullptr) {
      return ApiError{ApiErrorCode::kInternal, "HMAC-SHA256 failed", ""};
    }
    if (signature->size() != mac_len || CRYPTO_memcmp(mac, signature->data(), mac_len) != 0) {
      return Unauthorized("invalid token signature");
    }
  } else {
    if (keys_->rsa == nullptr) return Unauthorized("RS256 tokens are not accepted (no RS256 public key configured)");
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    if (ctx == nullptr) return ApiError{ApiErrorCode::kInternal, "EVP_MD_CTX_new failed", ""};
    EVP_PKEY_CTX* pctx = nullptr;
    int ok = EVP_DigestVerifyInit(ctx, &pctx, EVP_sha256(), nullptr, keys_->rsa) == 1 &&
             EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PADDING) == 1 &&
             EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature->data()), signature->size(),
                              reinterpret_cast<const unsigned char*>(signing_input.data()),
                              signing_input.size()) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) return Unauthorized("invalid token signature");
  }

  // Only a correctly signed payload is parsed.
  auto claims = DecodeJsonObject(payload_b64, &why);
  if (!claims) return Unauthorized("malformed token: payload " + why);
  JwtClaims out;
  out.alg = alg;
  bool bad = false;
  auto exp = NumericDate(*claims, "exp", &bad);
  if (bad) return Unauthorized("token exp claim is not a number");
  if (!exp) return Unauthorized("token has no exp claim");
  auto nbf = NumericDate(*claims, "nbf", &bad);
  if (bad) return Unauthorized("token nbf claim is not a number");
  if (std::string problem = TokenTimeProblem(*exp, nbf, now, options_.clock_skew); !problem.empty()) {
    return Unauthorized(std::move(problem));
  }
  out.exp = *exp;
  out.nbf = nbf;

  if (auto it = claims->find("iss"); it != claims->end()) {
    if (!it->is_string()) return Unauthorized("token iss claim is not a string");
    out.iss = it->get<std::string>();
  }
  if (!options_.issuer.empty() && out.iss != options_.issuer) return Unauthorized("issuer mismatch");
  if (!options_.audience.empty()) {
    auto it = claims->find("aud");
    if (it == claims->end()) return Unauthorized("token has no aud claim (audience mismatch)");
    bool match = false;
    if (it->is_string()) {
      match = it->get<std::string>() == options_.audience;
    } else if (it->is_array()) {
      for (const auto& a : *it) {
        if (!a.is_string()) return Unauthorized("token aud claim must be a string or an array of strings");
        match = match || a.get<std::string>() == options_.audience;
      }
    } else {
      return Unauthorized("token aud claim must be a string or an array of strings");
    }
    if (!match) return Unauthorized("audience mismatch");
  }
  auto sub = claims->find("sub");
  if (sub == claims->end() || !sub->is_string() || sub->get<std::string>().empty()) {
    return Unauthorized("token has no sub claim");
  }
  out.sub = sub->get<std::string>();
  if (std::string e = CheckUser(out.sub); !e.empty()) return Unauthorized("token sub claim: " + e);
  auto tenant = claims->find("tenant");
  if (tenant == claims->end() || !tenant->is_string()) return Unauthorized("token has no tenant claim");
  out.tenant = tenant->get<std::string>();
  if (std::string e = CheckTenant(out.tenant); !e.empty()) return Unauthorized("token tenant claim: " + e);
  if (auto it = claims->find("groups"); it != claims->end()) {
    if (!it->is_array()) return Unauthorized("token groups claim must be an array of strings");
    if (it->size() > kMaxGroups) return Unauthorized("token groups claim has more than 1024 groups");
    std::vector<std::string> groups;
    for (const auto& g : *it) {
      if (!g.is_string()) return Unauthorized("token groups claim must be an array of strings");
      std::string name = g.get<std::string>();
      if (std::string e = CheckGroup(name); !e.empty()) return Unauthorized("token groups claim: " + e);
      groups.push_back(std::move(name));
    }
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    out.groups = std::move(groups);
  }
  if (auto it = claims->find("clearance"); it != claims->end()) {
    if (!it->is_string()) return Unauthorized("token clearance claim must be a string");
    out.clearance = it->get<std::string>();
    if (std::string e = CheckClearance(out.clearance); !e.empty()) return Unauthorized("token clearance claim: " + e);
  }
  if (auto it = claims->find("admin"); it != claims->end()) {
    if (!it->is_boolean()) return Unauthorized("token admin claim must be a boolean");
    out.admin = it->get<bool>();
  }
  if (auto it = claims->find("operator"); it != claims->end()) {
    if (!it->is_boolean()) return Unauthorized("token operator claim must be a boolean");
    if (it->get<bool>() && !options_.allow_operator_claim) {
      return Unauthorized("token claims deployment operator access, which this deployment does not accept from "
                          "tokens");
    }
    out.deployment_operator = it->get<bool>();
  }
  return out;
}

}  // namespace attest::service
