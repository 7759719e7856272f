// Fuzz target: the body and the headers of POST /v1/events (service/event_schema.h,
// service/webhook_signature.h) on arbitrary bytes. Properties: nothing crashes or throws; an error
// has a known code, a message and valid UTF-8; an accepted request holds 1..100 events, each with a
// valid document id, its id in the stored data and no source_version there, a known kind, and a
// non-negative integer version; the verifier never accepts a delivery not signed with its key, and
// accepts the same bytes once they are.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "ingest/text_util.h"
#include "service/event_schema.h"
#include "service/webhook_signature.h"

namespace {

using namespace attest::service;

void CheckError(const ApiError& e) {
  static const std::set<ApiErrorCode> kCodes = {ApiErrorCode::kInvalidJson, ApiErrorCode::kInvalidRequest,
                                                ApiErrorCode::kPayloadTooLarge, ApiErrorCode::kUnsupportedEventType};
  FUZZ_CHECK(kCodes.count(e.code) == 1);
  FUZZ_CHECK(!e.message.empty());
  FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(e.message).has_value());
  FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(e.field).has_value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  ParseLimits limits;
  limits.max_document_bytes = 512;
  auto events = ParseEvents(input, limits);
  if (events.ok()) {
    FUZZ_CHECK(!events.value().empty() && events.value().size() <= kMaxEventsPerRequest);
    for (const EventInput& e : events.value()) {
      FUZZ_CHECK(ParseDocumentId(e.document_id).ok());
      FUZZ_CHECK(e.data.is_object() && e.data.value("id", std::string()) == e.document_id);
      FUZZ_CHECK(!e.data.contains("source_version") && !e.data.contains("tenant"));
      FUZZ_CHECK(e.type == EventTypeName(e.kind));
      FUZZ_CHECK(e.version.is_time || e.version.value >= 0);
      FUZZ_CHECK(!e.ce_id.empty() && !e.source.empty());
    }
  } else {
    CheckError(events.error());
  }

  // Headers from the input: id | timestamp | signature, then the rest is the body.
  const std::string key(32, 'k');
  WebhookVerifier verifier({Connector{"c", "t", {key}}}, std::chrono::seconds(300), nullptr);
  std::string_view rest = input;
  std::string parts[3];
  for (std::string& p : parts) {
    const size_t bar = rest.find('|');
    p = std::string(rest.substr(0, bar));
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  WebhookVerdict v = verifier.Verify(WebhookHeaders{parts[0], parts[1], parts[2]}, rest);
  if (v.connector) {
    // Only a real signature under the key verifies (the input would have had to contain it).
    FUZZ_CHECK(parts[2].find(SignWebhook(key, parts[0], parts[1], rest)) != std::string::npos);
  } else {
    FUZZ_CHECK(v.error.code == ApiErrorCode::kUnauthorized && !v.error.message.empty());
    FUZZ_CHECK(!attest::ingest::FindInvalidUtf8(v.error.message).has_value());
  }
  return 0;
}
