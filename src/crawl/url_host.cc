#include "crawl/url_host.h"

#include <arpa/inet.h>
#include <unicode/uidna.h>

#include <algorithm>
#include <cstring>

#include "common/strings.h"

namespace attest::url_internal {
namespace {

constexpr size_t kMaxHostBytes = 253;  // DNS name length without the trailing dot (RFC 1035 §2.3.4)
constexpr size_t kMaxLabelBytes = 63;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsSubDelim(char c) { return std::strchr("!$&'()*+,;=", c) != nullptr && c != '\0'; }

HostParse Fail(UrlErrorCode code, std::string detail) {
  HostParse h;
  h.error = code;
  h.detail = std::move(detail);
  return h;
}

HostParse ParseIpLiteral(std::string_view text) {
  // text = "[" ... "]"
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.empty()) return Fail(UrlErrorCode::kBadIpv6, "empty IP literal");
  if (inner[0] == 'v' || inner[0] == 'V') return Fail(UrlErrorCode::kBadIpv6, "IPvFuture literals are not supported");
  if (inner.find('%') != std::string_view::npos) return Fail(UrlErrorCode::kBadIpv6, "zone identifiers are not allowed");
  if (inner.size() > 45) return Fail(UrlErrorCode::kBadIpv6, "IPv6 literal too long");
  for (char c : inner) {
    if (!IsHexDigit(c) && c != ':' && c != '.') return Fail(UrlErrorCode::kBadIpv6, "character not allowed in IPv6 literal");
  }
  const std::string z(inner);
  in6_addr addr{};
  if (inet_pton(AF_INET6, z.c_str(), &addr) != 1) return Fail(UrlErrorCode::kBadIpv6, "not an IPv6 address: " + z);
  char buf[INET6_ADDRSTRLEN];
  if (inet_ntop(AF_INET6, &addr, buf, sizeof buf) == nullptr) return Fail(UrlErrorCode::kBadIpv6, "unprintable address");
  HostParse h;
  h.ok = true;
  h.kind = HostKind::kIpv6;
  h.host = buf;
  return h;
}

// Strict dotted-decimal (RFC 3986 §3.2.2 IPv4address: dec-octet without leading zeros).
bool StrictIpv4(std::string_view s) {
  int parts = 0;
  size_t i = 0;
  while (true) {
    size_t j = i;
    while (j < s.size() && IsDigit(s[j])) ++j;
    const size_t len = j - i;
    if (len == 0 || len > 3 || (len > 1 && s[i] == '0')) return false;
    int v = 0;
    for (size_t k = i; k < j; ++k) v = v * 10 + (s[k] - '0');
    if (v > 255) return false;
    ++parts;
    if (j == s.size()) break;
    if (s[j] != '.') return false;
    i = j + 1;
  }
  return parts == 4;
}

// The last label is all decimal digits, or "0x" with hex digits: WHATWG URL parsers and
// inet_aton read such a name as an IPv4 address in some form.
bool LooksNumeric(std::string_view name) {
  const size_t dot = name.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (last.empty()) return false;
  if (std::all_of(last.begin(), last.end(), IsDigit)) return true;
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    return std::all_of(last.begin() + 2, last.end(), IsHexDigit);
  }
  return false;
}

const UIDNA* Idna() {
  static const UIDNA* idna = [] {
    UErrorCode status = U_ZERO_ERROR;
    UIDNA* p = uidna_openUTS46(UIDNA_NONTRANSITIONAL_TO_ASCII | UIDNA_CHECK_BIDI | UIDNA_CHECK_CONTEXTJ, &status);
    return U_FAILURE(status) ? nullptr : p;
  }();
  return idna;
}

}  // namespace

bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

bool IsUnreserved(char c) { return IsAlpha(c) || IsDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

HostParse ParseHost(std::string_view text) {
  if (text.empty()) return Fail(UrlErrorCode::kMissingHost, "empty host");
  if (text.front() == '[') {
    if (text.back() != ']') return Fail(UrlErrorCode::kBadIpv6, "IP literal without closing ']'");
    return ParseIpLiteral(text);
  }
  // reg-name = *( unreserved / pct-encoded / sub-delims ), decoded to bytes (UTF-8 for an IDN).
  std::string decoded;
  bool ascii = true;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size() || !IsHexDigit(text[i + 1]) || !IsHexDigit(text[i + 2])) {
        return Fail(UrlErrorCode::kBadPercentEncoding, "bad percent-encoding in host");
      }
      const char b = static_cast<char>(HexDigitValue(text[i + 1]) * 16 + HexDigitValue(text[i + 2]));
      if (b == '\0') return Fail(UrlErrorCode::kNulByte, "%00 in host");
      decoded += b;
      i += 2;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      decoded += c;
    } else if (IsUnreserved(c) || IsSubDelim(c)) {
      decoded += c;
    } else {
      return Fail(UrlErrorCode::kBadHost, std::string("character '") + c + "' not allowed in host");
    }
  }
  for (char c : decoded) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  std::string name;
  std::string lower = decoded;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; });
  // Every name goes through UTS #46 when it is not plain ASCII or carries an ACE label ("xn--"),
  // which maps width variants and ideographic full stops, validates and produces punycode.
  if (!ascii || lower.find("xn--") != std::string::npos) {
    const UIDNA* idna = Idna();
    if (idna == nullptr) return Fail(UrlErrorCode::kBadIdn, "ICU IDNA is unavailable");
    char buf[1024];
    UIDNAInfo info = UIDNA_INFO_INITIALIZER;
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = uidna_nameToASCII_UTF8(idna, decoded.data(), static_cast<int32_t>(decoded.size()), buf,
                                             sizeof buf, &info, &status);
    if (U_FAILURE(status) || info.errors != 0 || n <= 0 || n >= static_cast<int32_t>(sizeof buf)) {
      return Fail(UrlErrorCode::kBadIdn, "host is not a valid internationalized domain name");
    }
    name.assign(buf, static_cast<size_t>(n));
  } else {
    name = std::move(lower);
  }
  if (!name.empty() && name.back() == '.') name.pop_back();  // the root label: same host
  if (name.empty()) return Fail(UrlErrorCode::kMissingHost, "empty host");
  if (name.size() > kMaxHostBytes) return Fail(UrlErrorCode::kBadHost, "host longer than 253 bytes");
  HostParse h;
  h.ok = true;
  if (LooksNumeric(name)) {
    if (!StrictIpv4(name)) return Fail(UrlErrorCode::kAmbiguousIpv4, "numeric host is not dotted-decimal IPv4: " + name);
    h.kind = HostKind::kIpv4;
    h.host = std::move(name);
    return h;
  }
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string::npos) end = name.size();
    const size_t len = end - start;
    if (len == 0) return Fail(UrlErrorCode::kBadHost, "empty label in host");
    if (len > kMaxLabelBytes) return Fail(UrlErrorCode::kBadHost, "host label longer than 63 bytes");
    for (size_t k = start; k < end; ++k) {
      const char c = name[k];
      if (!(IsAlpha(c) || IsDigit(c) || c == '-' || c == '_')) {
        return Fail(UrlErrorCode::kBadHost, std::string("character '") + c + "' not allowed in a host name");
      }
    }
    start = end + 1;
  }
  h.kind = HostKind::kName;
  h.host = std::move(name);
  return h;
}

}  // namespace attest::url_internal
