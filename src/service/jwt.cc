#include "service/jwt.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/json_guard.h"
#include "service/auth_store.h"
#include "service/base64url.h"

namespace attest::service {
namespace {

constexpr int kMinRsaBits = 2048;
constexpr int kMaxJsonDepth = 8;
constexpr size_t kMaxGroups = 1024;

ApiError Unauthorized(std::string message) { return ApiError{"unauthorized", std::move(message), ""}; }
ApiError BadConfig(std::string field, std::string message) { return InvalidField(std::move(field), std::move(message)); }

// Decodes a base64url part and parses it as a JSON object; nullopt-like error text on failure.
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
  nlohmann::json j = nlohmann::json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) {
    *why = "is not a JSON object";
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

}  // namespace

struct JwtVerifier::Keys {
  EVP_PKEY* rsa = nullptr;
  ~Keys() { EVP_PKEY_free(rsa); }
};

JwtVerifier::JwtVerifier(JwtVerifierOptions options, std::unique_ptr<Keys> keys)
    : options_(std::move(options)), keys_(std::move(keys)) {}

JwtVerifier::~JwtVerifier() = default;

ApiResult<std::unique_ptr<JwtVerifier>> JwtVerifier::Create(JwtVerifierOptions options) {
  if (options.hs256_secret.empty() && options.rs256_public_key_pem.empty()) {
    return BadConfig("jwt", "JWT verification needs an HS256 secret or an RS256 public key");
  }
  if (!options.hs256_secret.empty() && options.hs256_secret.size() < 32) {
    return BadConfig("jwt_hs256_secret", "the HS256 secret must have at least 32 bytes (RFC 7518 §3.2)");
  }
  auto keys = std::make_unique<Keys>();
  if (!options.rs256_public_key_pem.empty()) {
    if (options.hs256_secret == options.rs256_public_key_pem) {
      return BadConfig("jwt_hs256_secret", "the HS256 secret must not be the RS256 public key");
    }
    BIO* bio = BIO_new_mem_buf(options.rs256_public_key_pem.data(),
                               static_cast<int>(options.rs256_public_key_pem.size()));
    if (bio == nullptr) return ApiError{"internal", "BIO_new_mem_buf failed", ""};
    keys->rsa = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
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
    std::string shown = alg.size() > 16 ? alg.substr(0, 16) + "..." : alg;
    for (char& c : shown) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) c = '?';
    }
    return Unauthorized("unsupported token alg '" + shown + "' (accepted: HS256, RS256)");
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
      return ApiError{"internal", "HMAC-SHA256 failed", ""};
    }
    if (signature->size() != mac_len || CRYPTO_memcmp(mac, signature->data(), mac_len) != 0) {
      return Unauthorized("invalid token signature");
    }
  } else {
    if (keys_->rsa == nullptr) return Unauthorized("RS256 tokens are not accepted (no RS256 public key configured)");
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    if (ctx == nullptr) return ApiError{"internal", "EVP_MD_CTX_new failed", ""};
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
  const double now_s =
      static_cast<double>(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
  const double skew = static_cast<double>(options_.clock_skew.count());
  bool bad = false;
  auto exp = NumericDate(*claims, "exp", &bad);
  if (bad) return Unauthorized("token exp claim is not a number");
  if (!exp) return Unauthorized("token has no exp claim");
  if (now_s >= *exp + skew) return Unauthorized("token expired");
  out.exp = static_cast<int64_t>(std::min(*exp, 9.0e15));
  auto nbf = NumericDate(*claims, "nbf", &bad);
  if (bad) return Unauthorized("token nbf claim is not a number");
  if (nbf && now_s + skew < *nbf) return Unauthorized("token not yet valid (nbf is in the future)");

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
  return out;
}

}  // namespace attest::service
