#include "common/strings.h"

#include <cstdint>

namespace attest {
namespace {

bool IsAsciiWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

}  // namespace

std::string_view Trim(std::string_view s, std::string_view chars) {
  const size_t begin = s.find_first_not_of(chars);
  if (begin == std::string_view::npos) return {};
  const size_t end = s.find_last_not_of(chars);
  return s.substr(begin, end - begin + 1);
}

std::string CollapseWhitespace(std::string_view s, Nbsp nbsp) {
  std::string out;
  out.reserve(s.size());
  bool pending_space = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool is_nbsp = nbsp == Nbsp::kAsSpace && static_cast<uint8_t>(c) == 0xC2 && i + 1 < s.size() &&
                         static_cast<uint8_t>(s[i + 1]) == 0xA0;
    if (IsAsciiWhitespace(c) || is_nbsp) {
      if (is_nbsp) ++i;
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace attest
