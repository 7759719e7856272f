// Standard Webhooks signature verification (service/webhook_signature.h).
#include "service/webhook_signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "service/base64url.h"

namespace attest::service {
namespace {

constexpr std::string_view kSecretPrefix = "whsec_";
constexpr size_t kMacBytes = 32;

ApiError Unauthorized(std::string message, std::string field) {
  return ApiError{ApiErrorCode::kUnauthorized, std::move(message), std::move(field)};
}

WebhookVerdict Refuse(WebhookRefusal why, std::string message, std::string header) {
  WebhookVerdict v;
  v.refusal = why;
  v.error = Unauthorized(std::move(message), std::move(header));
  return v;
}

bool ValidWebhookId(std::string_view id) {
  if (id.empty() || id.size() > kMaxWebhookIdBytes) return false;
  for (char c : id) {
    const auto u = static_cast<unsigned char>(c);
    // Printable ASCII without "." (the spec: an id must not contain the delimiter of the signed
    // content) and without space.
    if (u <= 0x20 || u >= 0x7f || c == '.') return false;
  }
  return true;
}

std::string Mac(std::string_view key, std::string_view id, std::string_view timestamp, std::string_view body) {
  std::string content;
  content.reserve(id.size() + timestamp.size() + body.size() + 2);
  content.append(id).append(".").append(timestamp).append(".").append(body);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(content.data()), content.size(), mac, &len)) {
    return std::string();
  }
  return std::string(reinterpret_cast<const char*>(mac), len);
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string s = Base64UrlEncode(bytes);
  for (char& c : s) {
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  while (s.size() % 4 != 0) s.push_back('=');
  return s;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  std::string s(text);
  size_t pad = 0;
  while (!s.empty() && s.back() == '=') {
    s.pop_back();
    ++pad;
  }
  if (pad > 2 || (pad > 0 && (s.size() + pad) % 4 != 0)) return std::nullopt;
  for (char& c : s) {
    if (c == '-' || c == '_') return std::nullopt;  // the URL alphabet is not standard base64
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return Base64UrlDecode(s);
}

Result<std::string> ParseWebhookSecret(std::string_view text) {
  if (text.substr(0, kSecretPrefix.size()) != kSecretPrefix) {
    return Status::InvalidArgument("a webhook secret must start with whsec_ (Standard Webhooks serialization)");
  }
  auto key = Base64Decode(text.substr(kSecretPrefix.size()));
  if (!key) return Status::InvalidArgument("the webhook secret after whsec_ is not base64");
  if (key->size() < kMinWebhookSecretBytes || key->size() > kMaxWebhookSecretBytes) {
    return Status::InvalidArgument("a webhook secret must decode to 24..64 bytes (it has " +
                                   std::to_string(key->size()) + ")");
  }
  return std::move(*key);
}

std::string FormatWebhookSecret(std::string_view key) { return std::string(kSecretPrefix) + Base64Encode(key); }

std::string SignWebhook(std::string_view key, std::string_view id, std::string_view timestamp, std::string_view body) {
  return "v1," + Base64Encode(Mac(key, id, timestamp, body));
}

const char* WebhookRefusalName(WebhookRefusal r) {
  switch (r) {
    case WebhookRefusal::kMissingHeader: return "missing_header";
    case WebhookRefusal::kBadHeader: return "bad_header";
    case WebhookRefusal::kTimestampOutOfTolerance: return "timestamp";
    case WebhookRefusal::kBadSignature: return "signature";
  }
  return "signature";
}

WebhookVerifier::WebhookVerifier(std::vector<Connector> connectors, std::chrono::seconds tolerance, const Clock* clock)
    : connectors_(std::move(connectors)), tolerance_(tolerance), clock_(clock ? clock : RealClock()) {}

WebhookVerdict WebhookVerifier::Verify(const WebhookHeaders& h, std::string_view body) const {
  for (const auto& [value, name] : {std::pair{&h.id, "webhook-id"}, std::pair{&h.timestamp, "webhook-timestamp"},
                                    std::pair{&h.signature, "webhook-signature"}}) {
    if (value->empty()) {
      return Refuse(WebhookRefusal::kMissingHeader,
                    std::string("the ") + name + " header is missing (Standard Webhooks: webhook-id, "
                    "webhook-timestamp and webhook-signature are required)", name);
    }
  }
  if (!ValidWebhookId(h.id)) {
    return Refuse(WebhookRefusal::kBadHeader,
                  "webhook-id must be 1..256 printable ASCII characters without '.' or spaces", "webhook-id");
  }
  if (h.timestamp.size() > 12 || h.timestamp.find_first_not_of("0123456789") != std::string::npos) {
    return Refuse(WebhookRefusal::kBadHeader, "webhook-timestamp must be an integer Unix time in seconds",
                  "webhook-timestamp");
  }
  const int64_t ts = std::stoll(h.timestamp);
  const int64_t now =
      std::chrono::duration_cast<std::chrono::seconds>(clock_->WallNow().time_since_epoch()).count();
  if (ts < now - tolerance_.count() || ts > now + tolerance_.count()) {
    return Refuse(WebhookRefusal::kTimestampOutOfTolerance,
                  "webhook-timestamp " + h.timestamp + " is more than " + std::to_string(tolerance_.count()) +
                      " s from the server's time (" + std::to_string(now) + "); sign the delivery again with the "
                      "current time",
                  "webhook-timestamp");
  }
  // The presented v1 signatures, decoded; other schemes (v1a: ed25519) are not configured here.
  std::vector<std::string> presented;
  size_t entries = 0;
  std::string_view rest = h.signature;
  while (!rest.empty()) {
    const size_t sp = rest.find(' ');
    std::string_view one = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    if (one.empty()) continue;
    if (++entries > kMaxWebhookSignatures) {
      return Refuse(WebhookRefusal::kBadHeader, "webhook-signature holds more than 16 signatures",
                    "webhook-signature");
    }
    const size_t comma = one.find(',');
    if (comma == std::string_view::npos) {
      return Refuse(WebhookRefusal::kBadHeader, "webhook-signature entries are <version>,<base64 signature>",
                    "webhook-signature");
    }
    if (one.substr(0, comma) != "v1") continue;
    if (auto mac = Base64Decode(one.substr(comma + 1)); mac && mac->size() == kMacBytes) presented.push_back(*mac);
  }
  // Every key against every signature, without stopping early: the work does not depend on which
  // key (if any) matched.
  const Connector* matched = nullptr;
  for (const Connector& c : connectors_) {
    for (const std::string& key : c.keys) {
      const std::string expected = Mac(key, h.id, h.timestamp, body);
      if (expected.size() != kMacBytes) continue;
      for (const std::string& mac : presented) {
        if (CRYPTO_memcmp(expected.data(), mac.data(), kMacBytes) == 0 && !matched) matched = &c;
      }
    }
  }
  if (!matched) {
    return Refuse(WebhookRefusal::kBadSignature,
                  "no v1 signature in webhook-signature verifies under a configured connector secret",
                  "webhook-signature");
  }
  WebhookVerdict v;
  v.connector = matched;
  v.timestamp = ts;
  return v;
}

}  // namespace attest::service
