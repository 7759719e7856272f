#include "verify/url_rules.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace attest::url_rules {
namespace {

// Off only inside SanitizeLinksExhaustive (the oracle of the fast paths below), on this thread.
thread_local bool t_fast_paths = true;

}  // namespace

void SetFastPaths(bool on) { t_fast_paths = on; }
bool FastPaths() { return t_fast_paths; }


Decoded DecodeAt(const Input& s, size_t i) {
  if (!s.Has(i)) return {-1, i};
  if (s[i] == '&') {
    static constexpr std::pair<std::string_view, int32_t> kNamed[] = {
        {"&colon;", ':'}, {"&tab;", '\t'}, {"&newline;", '\n'}, {"&sol;", '/'}, {"&period;", '.'}, {"&amp;", '&'}};
    for (const auto& [name, cp] : kNamed) {
      size_t k = 0;
      while (k < name.size() && s.Has(i + k) && Lower(s[i + k]) == name[k]) ++k;
      if (k == name.size()) return {cp, i + k};
    }
    if (s.Has(i + 1) && s[i + 1] == '#' && s.Has(i + 2)) {
      size_t j = i + 2;
      const bool hex = s[j] == 'x' || s[j] == 'X';
      if (hex) ++j;
      int64_t v = 0;
      const size_t digits_begin = j;
      while (j - digits_begin < 8 && s.Has(j) &&
             (hex ? std::isxdigit(static_cast<unsigned char>(s[j])) : std::isdigit(static_cast<unsigned char>(s[j])))) {
        const char c = Lower(s[j]);
        v = v * (hex ? 16 : 10) + (c >= 'a' ? c - 'a' + 10 : c - '0');
        ++j;
      }
      if (j > digits_begin && v <= 0x10FFFF) {
        if (s.Has(j) && s[j] == ';') ++j;
        return {static_cast<int32_t>(v), j};
      }
    }
    return {'&', i + 1};
  }
  // A sequence cut by the end of an open input may still complete.
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead >= 0xC0) s.Has(i + (lead < 0xE0 ? 1 : lead < 0xF0 ? 2 : 3));
  int32_t pos = static_cast<int32_t>(i);
  UChar32 c;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), pos, static_cast<int32_t>(s.size()), c);
  if (c < 0) c = 0xFFFD;
  if (c >= 0xFF01 && c <= 0xFF5E) c = c - 0xFF01 + 0x21;  // fullwidth ASCII
  return {c, static_cast<size_t>(pos)};
}

bool Invisible(int32_t cp) {
  return cp > 0x7F && (u_hasBinaryProperty(cp, UCHAR_DEFAULT_IGNORABLE_CODE_POINT) || u_charType(cp) == U_FORMAT_CHAR);
}

// Reads "scheme:" at `i`, skipping what browsers skip inside a URL (tabs, line breaks) and invisible
// characters, and decoding character references; reads at most `max_bytes` (npos: no limit). With
// `skip_breaks` false (autolinks, which hold no whitespace) tabs and line breaks end the scheme.
Scheme ReadScheme(const Input& s, size_t i, size_t max_bytes, bool skip_breaks) {
  // Fast path, exact: most words are plain ASCII letters followed by a plain ASCII byte. When that byte
  // is not ':', not '&' (a character reference) and not a skipped break, the loop below would read the
  // same letters and stop there with no scheme; over 32 letters it stops too. Everything else (a
  // non-ASCII byte, the end of the input, the byte budget) takes the loop.
  if (t_fast_paths) {
    size_t j = i;
    while (j - i <= 32 && j < s.size() && j - i < max_bytes) {
      const char c = s[j];
      const bool other = (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
      if (!IsAsciiAlpha(c) && !(other && j > i)) break;
      ++j;
    }
    if (j - i > 32) return {};
    if (j < s.size() && j - i < max_bytes) {
      const auto c = static_cast<unsigned char>(s[j]);
      const bool skipped = skip_breaks && (c == '\t' || c == '\n' || c == '\r');
      if (c < 0x80 && c != ':' && c != '&' && !skipped) return {};
    }
  }
  std::string name;
  const size_t begin = i;
  while (name.size() <= 32) {
    if (i - begin >= max_bytes) {
      Scheme cut;
      cut.cut = true;
      cut.prefix = std::move(name);
      cut.stop = i;
      return cut;
    }
    const Decoded d = DecodeAt(s, i);
    if (d.cp < 0) break;
    i = d.next;
    if (Invisible(d.cp) || (skip_breaks && (d.cp == '\t' || d.cp == '\n' || d.cp == '\r'))) continue;
    if (d.cp == ':') {
      Scheme found;
      if (!name.empty()) {
        found.name = std::move(name);
        found.after = i;
      }
      return found;
    }
    const bool alpha = (d.cp >= 'a' && d.cp <= 'z') || (d.cp >= 'A' && d.cp <= 'Z');
    const bool other = (d.cp >= '0' && d.cp <= '9') || d.cp == '+' || d.cp == '-' || d.cp == '.';
    if (!alpha && !(other && !name.empty())) break;
    name.push_back(static_cast<char>(alpha ? Lower(static_cast<char>(d.cp)) : d.cp));
  }
  return {};
}

constexpr std::string_view kBareDangerous[] = {"javascript", "vbscript", "livescript", "mocha",      "data",
                                               "file",       "blob",     "filesystem", "view-source"};

bool BareDangerous(std::string_view scheme) {
  return std::find(std::begin(kBareDangerous), std::end(kBareDangerous), scheme) != std::end(kBareDangerous);
}

// True at a byte where a bare URL may start: not inside a word or a character reference. (After
// '.', '-' or '+' a URL parser would read a longer scheme, "x.javascript:", but a link finder that
// splits words there might not: such a start counts.)
bool WordStart(const Input& s, size_t i) {
  if (i > 0) {
    const char p = s[i - 1];
    if (IsAsciiAlnum(p) || p == '&' || p == '#') return false;
  }
  const char c = s[i];
  return IsAsciiAlpha(c) || c == '&' || static_cast<unsigned char>(c) >= 0x80;
}

// A bare URL of a dangerous scheme starting at `i`: its end (exclusive), or npos. Reads at most
// about 2 * kMaxLinkBytes: a URL is cut after kMaxLinkBytes, and letters that more than kMaxLinkBytes
// of skipped characters ("java" + tabs ...) keep from becoming a dangerous scheme are removed as one.
size_t BareUrlEnd(const Input& s, size_t i, std::string* scheme_out) {
  const Scheme sc = ReadScheme(s, i, kMaxLinkBytes);
  if (sc.cut && !sc.prefix.empty()) {
    for (std::string_view d : kBareDangerous) {
      if (d.substr(0, sc.prefix.size()) != sc.prefix) continue;
      if (scheme_out) *scheme_out = d;
      return sc.stop;
    }
    return std::string_view::npos;
  }
  if (sc.name.empty() || !BareDangerous(sc.name)) return std::string_view::npos;
  size_t e = sc.after;
  size_t next = e;
  while (next - sc.after < kMaxLinkBytes && s.Has(next) && (s[next] == '\t' || s[next] == '\n' || s[next] == '\r')) {
    ++next;
  }
  // "JavaScript: the language". (After kMaxLinkBytes of line breaks the scheme counts as a URL.)
  if (next - sc.after < kMaxLinkBytes && (!s.Has(next) || IsSpace(s[next]))) return std::string_view::npos;
  while (e - i < kMaxLinkBytes && s.Has(e) && !IsSpace(s[e]) && std::strchr("<>\"'`", s[e]) == nullptr) ++e;
  // Trailing punctuation and unbalanced closers belong to the sentence, not the URL.
  for (;;) {
    if (e <= sc.after) break;
    const char last = s[e - 1];
    if (std::strchr(".,;:!?*_", last) != nullptr) {
      --e;
      continue;
    }
    if (last == ')' || last == ']') {
      const char open = last == ')' ? '(' : '[';
      const std::string_view url = s.substr(i, e - i);
      if (std::count(url.begin(), url.end(), last) > std::count(url.begin(), url.end(), open)) {
        --e;
        continue;
      }
    }
    break;
  }
  if (scheme_out) *scheme_out = sc.name;
  return e;
}

}  // namespace attest::url_rules
