#include "crawl/robots_match.h"

#include <vector>

#include "common/strings.h"

namespace attest {
namespace {

bool IsUnreserved(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

void AppendEscape(std::string& out, unsigned char octet) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out.push_back('%');
  out.push_back(kHex[octet >> 4]);
  out.push_back(kHex[octet & 0x0F]);
}

// One normalisation for both sides; the pattern's '*' and '$' need no special case here because
// they are printable ASCII and therefore kept as they are.
std::string Normalize(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto c = static_cast<unsigned char>(in[i]);
    if (c == '%' && i + 2 < in.size()) {
      const int hi = HexDigitValue(in[i + 1]);
      const int lo = HexDigitValue(in[i + 2]);
      if (hi >= 0 && lo >= 0) {
        const auto octet = static_cast<unsigned char>(hi * 16 + lo);
        if (IsUnreserved(octet)) {
          out.push_back(static_cast<char>(octet));
        } else {
          AppendEscape(out, octet);
        }
        i += 2;
        continue;
      }
    }
    if (c <= 0x20 || c >= 0x7F || c == '%') {
      AppendEscape(out, c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

}  // namespace

std::string NormalizeRobotsPath(std::string_view path_and_query) {
  std::string out = Normalize(path_and_query);
  if (out.empty()) out.push_back('/');
  return out;
}

std::string NormalizeRobotsPattern(std::string_view pattern) { return Normalize(pattern); }

bool RobotsPatternMatches(std::string_view pattern, std::string_view path) {
  // `reach` holds, in increasing order, every path offset at which the pattern read so far can
  // end. A '*' extends the set to every offset from its smallest member on.
  std::vector<size_t> reach{0};
  std::vector<size_t> next;
  for (size_t k = 0; k < pattern.size(); ++k) {
    const char p = pattern[k];
    if (p == '$' && k + 1 == pattern.size()) return reach.back() == path.size();
    if (p == '*') {
      if (k + 1 < pattern.size() && pattern[k + 1] == '*') continue;  // "**" is "*"
      const size_t from = reach.front();
      reach.clear();
      for (size_t i = from; i <= path.size(); ++i) reach.push_back(i);
      continue;
    }
    next.clear();
    for (size_t i : reach) {
      if (i < path.size() && path[i] == p) next.push_back(i + 1);
    }
    if (next.empty()) return false;
    reach.swap(next);
  }
  return true;
}

std::string RobotsPathOf(std::string_view url) {
  std::string_view rest = url;
  const size_t scheme_end = rest.find("://");
  const size_t first_slash = rest.find('/');
  if (scheme_end != std::string_view::npos && scheme_end < first_slash) {
    rest.remove_prefix(scheme_end + 3);
    const size_t path_start = rest.find_first_of("/?#");
    rest = path_start == std::string_view::npos ? std::string_view() : rest.substr(path_start);
  }
  const size_t hash = rest.find('#');
  if (hash != std::string_view::npos) rest = rest.substr(0, hash);
  std::string out(rest);
  if (out.empty() || out.front() != '/') out.insert(out.begin(), '/');
  return out;
}

}  // namespace attest
