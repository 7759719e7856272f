// Standard Webhooks (https://www.standardwebhooks.com, spec/standard-webhooks.md, version 1.0.0)
// symmetric signatures, as the receiver of `POST /v1/events` checks them (docs/http_api.md, "Events").
//
// A sender signs `{webhook-id}.{webhook-timestamp}.{body}` with HMAC-SHA256 under a shared secret
// and sends the base64 MAC as `v1,<base64>` in `webhook-signature`; several signatures may be sent
// space-separated (secret rotation). The secret is serialized `whsec_<base64>` and the HMAC key is
// the decoded bytes (24..64 of them: the spec's 192..512 bits). The receiver compares in constant
// time (CRYPTO_memcmp), refuses timestamps outside a tolerance (default 5 minutes) of its clock, and
// uses `webhook-id` as the idempotency key (the event log does that).
//
// Each connector is bound to one tenant by the server's configuration (event_config.h); the
// connector is found by the secret that verifies, so a body can never choose its tenant.
//
// Thread-safety: WebhookVerifier is immutable after construction; Verify may run concurrently.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/clock.h"
#include "attest/status.h"
#include "service/api_error.h"

namespace attest::service {

inline constexpr size_t kMinWebhookSecretBytes = 24;   // spec: "at least 24 bytes (192 bits ...)"
inline constexpr size_t kMaxWebhookSecretBytes = 64;   // "... 512 maximum" (bits)
inline constexpr size_t kMaxWebhookIdBytes = 256;
inline constexpr size_t kMaxWebhookSignatures = 16;    // entries in one webhook-signature header

// A connector: a name (audit, metrics), the tenant it writes into, and its HMAC keys (the decoded
// secrets; more than one while a secret is being rotated).
struct Connector {
  std::string name;
  std::string tenant;  // API tenant name ("default" = the store's default tenant)
  std::vector<std::string> keys;
};

// "whsec_<base64>" (standard alphabet, padding optional) -> the key bytes. kInvalidArgument when the
// prefix is missing, the base64 is not canonical or the key is not 24..64 bytes.
Result<std::string> ParseWebhookSecret(std::string_view text);
// "whsec_<base64>" of `key` (for tests and docs).
std::string FormatWebhookSecret(std::string_view key);
// "v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>".
std::string SignWebhook(std::string_view key, std::string_view id, std::string_view timestamp, std::string_view body);

// Standard base64 (RFC 4648 §4) with padding, and its decoder (padding optional, canonical only).
std::string Base64Encode(std::string_view bytes);
std::optional<std::string> Base64Decode(std::string_view text);

struct WebhookHeaders {
  std::string id, timestamp, signature;  // "" = absent
};

// Why a delivery was refused (the metric label of attest_events_rejected_total).
enum class WebhookRefusal { kMissingHeader, kBadHeader, kTimestampOutOfTolerance, kBadSignature };
const char* WebhookRefusalName(WebhookRefusal r);

struct WebhookVerdict {
  const Connector* connector = nullptr;  // set when verified
  WebhookRefusal refusal = WebhookRefusal::kBadSignature;
  ApiError error;                        // unauthorized, naming the header, when refused
  int64_t timestamp = 0;                 // the verified webhook-timestamp (Unix seconds)
};

class WebhookVerifier {
 public:
  WebhookVerifier(std::vector<Connector> connectors, std::chrono::seconds tolerance, const Clock* clock);
  // Checks the headers, the timestamp against the clock, then every configured key against every
  // `v1` signature (constant-time comparisons; other versions such as `v1a` are skipped).
  WebhookVerdict Verify(const WebhookHeaders& headers, std::string_view body) const;
  const std::vector<Connector>& connectors() const { return connectors_; }
  std::chrono::seconds tolerance() const { return tolerance_; }

 private:
  std::vector<Connector> connectors_;
  std::chrono::seconds tolerance_;
  const Clock* clock_;
};

}  // namespace attest::service
