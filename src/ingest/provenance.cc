#include "ingest/provenance.h"

#include <string>

#include "common/date.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

std::optional<int> Digits(std::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

}  // namespace

Status CheckLicense(std::string_view text, std::string_view field) {
  const std::string name(field);
  if (text.size() > kMaxLicenseBytes) {
    return Status::InvalidArgument(name + ": " + std::to_string(text.size()) + " bytes, more than the " +
                                   std::to_string(kMaxLicenseBytes) + " allowed");
  }
  if (auto bad = ingest::FindInvalidUtf8(text)) {
    return Status::InvalidArgument(name + ": invalid UTF-8 at byte offset " + std::to_string(*bad));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    // C0 controls and DEL; C1 controls are the two-byte sequences C2 80..C2 9F.
    const bool c1 = c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c1) {
      return Status::InvalidArgument(name + ": control character at byte offset " + std::to_string(i));
    }
  }
  return Status::Ok();
}

std::optional<int64_t> ParseUtcTimestamp(std::string_view s) {
  if (s.size() < 20 || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s.back() != 'Z') return std::nullopt;
  if (s[4] != '-' || s[7] != '-') return std::nullopt;
  std::optional<DayNumber> day = ParseDate(s.substr(0, 10));
  auto h = Digits(s, 11, 2), m = Digits(s, 14, 2), sec = Digits(s, 17, 2);
  if (!day || *day < 0 || !h || !m || !sec || *h > 23 || *m > 59 || *sec > 59) return std::nullopt;
  int64_t ms = 0;
  const std::string_view rest = s.substr(19, s.size() - 20);  // between the seconds and the 'Z'
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2 || rest.size() > 10) return std::nullopt;
    int scale = 100;
    for (size_t i = 1; i < rest.size(); ++i) {
      if (rest[i] < '0' || rest[i] > '9') return std::nullopt;
      ms += (rest[i] - '0') * scale;
      scale /= 10;
    }
  }
  return ((int64_t{*day} * 24 + *h) * 60 + *m) * 60000 + int64_t{*sec} * 1000 + ms;
}

}  // namespace attest
