#include "ingest/text_util.h"

#include <cstdint>

#include "common/strings.h"

namespace attest::ingest {

std::optional<size_t> FindInvalidUtf8(std::string_view s, bool allow_truncated_tail) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const uint8_t c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint8_t lo = 0x80, hi = 0xBF;  // bounds of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;  // no UTF-16 surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
    } else {
      return i;
    }
    for (size_t k = 1; k < len; ++k) {
      if (i + k >= n) {
        if (allow_truncated_tail) return std::nullopt;
        return i;
      }
      const uint8_t b = p[i + k];
      const uint8_t klo = k == 1 ? lo : 0x80;
      const uint8_t khi = k == 1 ? hi : 0xBF;
      if (b < klo || b > khi) return i;
    }
    i += len;
  }
  return std::nullopt;
}

std::string ReplaceInvalidUtf8(std::string_view s) {
  std::string out;
  while (true) {
    const std::optional<size_t> bad = FindInvalidUtf8(s);
    if (!bad) break;
    out.append(s.substr(0, *bad));
    out.append("\xEF\xBF\xBD");  // U+FFFD
    s.remove_prefix(*bad + 1);
  }
  out.append(s);
  return out;
}

std::optional<size_t> FindNul(std::string_view s) {
  const size_t pos = s.find('\0');
  if (pos == std::string_view::npos) return std::nullopt;
  return pos;
}

bool IsAsciiSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

bool HasWordCharacter(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u >= 0x80) return true;
  }
  return false;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && EqualsIgnoreCase(s.substr(0, prefix.size()), prefix);
}

std::vector<std::string> SplitParagraphs(std::string_view text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) out.push_back(std::move(current));
    current.clear();
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string line = CollapseWhitespace(text.substr(start, end - start), Nbsp::kAsSpace);
    if (line.empty()) {
      flush();
    } else {
      if (!current.empty()) current.push_back(' ');
      current += line;
    }
    start = end + 1;
  }
  flush();
  return out;
}

std::string UrlHost(std::string_view url) {
  url = Trim(url);
  size_t scheme_len = 0;
  if (StartsWithIgnoreCase(url, "http://")) {
    scheme_len = 7;
  } else if (StartsWithIgnoreCase(url, "https://")) {
    scheme_len = 8;
  } else {
    return "";
  }
  std::string_view rest = url.substr(scheme_len);
  const size_t end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end == std::string_view::npos ? rest.size() : end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (!authority.empty() && authority.front() == '[') {  // IPv6 literal
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return "";
    return AsciiLower(authority.substr(0, close + 1));
  }
  const size_t colon = authority.find(':');
  if (colon != std::string_view::npos) authority = authority.substr(0, colon);
  if (authority.empty()) return "";
  for (char c : authority) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || static_cast<uint8_t>(c) >= 0x80;
    if (!ok) return "";
  }
  return AsciiLower(authority);
}

std::string_view StripBom(std::string_view s) {
  if (s.size() >= 3 && static_cast<uint8_t>(s[0]) == 0xEF && static_cast<uint8_t>(s[1]) == 0xBB &&
      static_cast<uint8_t>(s[2]) == 0xBF) {
    s.remove_prefix(3);
  }
  return s;
}

}  // namespace attest::ingest
