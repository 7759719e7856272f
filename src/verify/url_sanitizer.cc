#include "verify/url_sanitizer.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <vector>

namespace attest {
namespace {

// Longer "links", tags, schemes and bare URLs are read as text (or, for a bare URL, removed up to
// here). Every rule below looks at most about 2 * kMaxLinkBytes bytes ahead of where it starts, which
// bounds what LinkStreamFilter holds back.
constexpr size_t kMaxLinkBytes = 4096;

// Off only inside SanitizeLinksExhaustive (the oracle of the fast paths below), on this thread.
thread_local bool t_fast_paths = true;

// The text a rule reads. When `open` (a stream: more may follow), a rule that needs a byte past the
// end marks the input instead of deciding on what it has, and the caller holds that position back
// until it can decide: every read past the end goes through Has().
class Input {
 public:
  explicit Input(std::string_view s, bool open = false) : s_(s), open_(open) {}
  bool Has(size_t i) const {
    if (i < s_.size()) return true;
    if (open_) ran_out_ = true;
    return false;
  }
  char operator[](size_t i) const { return s_[i]; }
  std::string_view substr(size_t pos, size_t n) const { return s_.substr(pos, n); }
  const char* data() const { return s_.data(); }
  size_t size() const { return s_.size(); }  // for scanning loops; rules use Has()
  // True when a rule needed a byte past the end since the last Clear().
  bool ran_out() const { return ran_out_; }
  void Clear() const { ran_out_ = false; }

 private:
  std::string_view s_;
  bool open_;
  mutable bool ran_out_ = false;
};

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiAlnum(char c) { return IsAsciiAlpha(c) || (c >= '0' && c <= '9'); }
char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// One character of the input as a browser reads it inside a URL: a UTF-8 code point or an HTML
// character reference (&#106; &#x6A; &colon; &Tab; &NewLine;). Fullwidth ASCII is folded to ASCII.
struct Decoded {
  int32_t cp = -1;  // -1 at the end of the input
  size_t next = 0;
};

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

struct Scheme {
  std::string name;   // lower-case ASCII, "" when there is none
  size_t after = 0;   // byte offset just after the ':'
  bool cut = false;   // `max_bytes` were read and `prefix` may still become a scheme
  std::string prefix;
  size_t stop = 0;    // with `cut`: where reading stopped
};

// Reads "scheme:" at `i`, skipping what browsers skip inside a URL (tabs, line breaks) and invisible
// characters, and decoding character references; reads at most `max_bytes` (npos: no limit). With
// `skip_breaks` false (autolinks, which hold no whitespace) tabs and line breaks end the scheme.
Scheme ReadScheme(const Input& s, size_t i, size_t max_bytes, bool skip_breaks = true) {
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
size_t BareUrlEnd(const Input& s, size_t i, std::string* scheme_out = nullptr) {
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

struct InlineLink {
  size_t text_begin, text_end;  // the link text, without brackets
  size_t dest_begin, dest_end;  // the target, without <>
  size_t after_dest;            // first byte after the target (title, spaces)
  size_t end;                   // one past the closing ')'
};

// The "]" matching the "[" at `open`, or npos.
size_t MatchingBracket(const Input& s, size_t open) {
  int depth = 0;
  for (size_t j = open; j - open < kMaxLinkBytes && s.Has(j); ++j) {
    const char c = s[j];
    if (c == '\\') {
      ++j;
      continue;
    }
    if (c == '\n' && s.Has(j + 1) && s[j + 1] == '\n') return std::string_view::npos;
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0) return j;
  }
  return std::string_view::npos;
}

// `[text](dest "title")` with `open` at the "[".
std::optional<InlineLink> ParseInlineLink(const Input& s, size_t open) {
  const size_t close = MatchingBracket(s, open);
  if (close == std::string_view::npos || !s.Has(close + 1) || s[close + 1] != '(') return std::nullopt;
  InlineLink l{open + 1, close, 0, 0, 0, 0};
  size_t j = close + 2;
  const size_t limit = close + 2 + kMaxLinkBytes;
  auto in = [&](size_t k) { return k < limit && s.Has(k); };
  while (in(j) && IsSpace(s[j])) ++j;
  if (in(j) && s[j] == '<') {
    l.dest_begin = j + 1;
    while (in(j) && s[j] != '>' && s[j] != '\n') ++j;
    if (!in(j) || s[j] != '>') return std::nullopt;
    l.dest_end = j++;
  } else {
    l.dest_begin = j;
    int depth = 0;
    while (in(j) && !IsSpace(s[j])) {
      if (s[j] == '\\') {
        j += 2;
        continue;
      }
      if (s[j] == '(') ++depth;
      if (s[j] == ')' && depth-- == 0) break;
      ++j;
    }
    l.dest_end = std::min({j, limit, s.size()});
  }
  l.after_dest = l.dest_end + (in(l.dest_end) && s[l.dest_end] == '>' ? 1 : 0);
  j = l.after_dest;
  while (in(j) && IsSpace(s[j])) ++j;
  if (in(j) && (s[j] == '"' || s[j] == '\'' || s[j] == '(')) {
    const char closer = s[j] == '(' ? ')' : s[j];
    ++j;
    while (in(j) && s[j] != closer) j += s[j] == '\\' ? 2 : 1;
    if (!in(j)) return std::nullopt;
    ++j;
    while (in(j) && IsSpace(s[j])) ++j;
  }
  if (!in(j) || s[j] != ')') return std::nullopt;
  l.end = j + 1;
  return l;
}

// True when only up to three spaces stand between `i` and the start of a line (or of the text).
bool AtLineStart(const Input& s, size_t i) {
  size_t spaces = 0;
  while (i > 0 && s[i - 1] == ' ' && spaces < 4) {
    --i;
    ++spaces;
  }
  return spaces <= 3 && (i == 0 || s[i - 1] == '\n');
}

bool IsUrlAttribute(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "href",     "src",  "action",   "formaction", "xlink:href", "srcset", "poster", "background",
      "data",     "cite", "codebase", "longdesc",   "lowsrc",     "dynsrc", "usemap", "ping",
      "manifest", "icon", "profile",  "archive",    "classid",    "content"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

bool SafeAttributeValue(std::string_view name, std::string_view value) {
  if (name == "srcset") {
    size_t b = 0;
    while (b <= value.size()) {
      size_t e = value.find(',', b);
      if (e == std::string_view::npos) e = value.size();
      std::string_view candidate = value.substr(b, e - b);
      while (!candidate.empty() && IsSpace(candidate.front())) candidate.remove_prefix(1);
      candidate = candidate.substr(0, std::min(candidate.size(), candidate.find(' ')));
      if (!IsSafeLinkTarget(candidate)) return false;
      b = e + 1;
    }
    return true;
  }
  if (name == "content") return ScriptLinkScheme(value).empty();  // <meta http-equiv=refresh content="0;url=...">
  return IsSafeLinkTarget(value);
}

// Appends the HTML start tag at `lt` ("<a href=...>") to `out` without event handlers and unsafe URL
// attributes. Returns the end of the tag (one past '>'), or npos when
// `lt` starts no tag.
size_t SanitizeTag(const Input& s, size_t lt, std::string* out) {
  constexpr size_t npos = std::string_view::npos;
  const size_t limit = lt + kMaxLinkBytes;
  auto in = [&](size_t k) { return k < limit && s.Has(k); };
  size_t j = lt + 1;
  if (!in(j) || !IsAsciiAlpha(s[j])) return npos;
  while (in(j) && (IsAsciiAlnum(s[j]) || s[j] == '-' || s[j] == ':')) ++j;
  if (in(j) && !IsSpace(s[j]) && s[j] != '/' && s[j] != '>') return npos;
  std::vector<std::pair<size_t, size_t>> dropped;  // byte ranges of removed attributes
  while (in(j)) {
    const size_t ws = j;
    while (in(j) && (IsSpace(s[j]) || s[j] == '/')) ++j;
    if (!in(j)) return npos;
    if (s[j] == '>') break;
    const size_t name_begin = j;
    while (in(j) && !IsSpace(s[j]) && std::strchr("\"'>/=", s[j]) == nullptr) ++j;
    if (!in(j)) return npos;
    std::string name(s.substr(name_begin, j - name_begin));
    // Not a tag unless every attribute has a well-formed name ("<alert(1)...>" is text).
    if (name.empty() || !(IsAsciiAlpha(name[0]) || name[0] == '_' || name[0] == ':')) return npos;
    for (char& c : name) {
      if (!(IsAsciiAlnum(c) || c == '-' || c == '_' || c == ':' || c == '.')) return npos;
      c = Lower(c);
    }
    size_t k = j;
    while (in(k) && IsSpace(s[k])) ++k;
    std::string_view value;
    if (in(k) && s[k] == '=') {
      ++k;
      while (in(k) && IsSpace(s[k])) ++k;
      if (in(k) && (s[k] == '"' || s[k] == '\'')) {
        size_t q = k + 1;
        while (in(q) && s[q] != s[k]) ++q;
        if (!in(q)) return npos;
        value = s.substr(k + 1, q - k - 1);
        k = q + 1;
      } else {
        const size_t vb = k;
        while (in(k) && !IsSpace(s[k]) && s[k] != '>') ++k;
        value = s.substr(vb, k - vb);
      }
      j = k;
    }
    const bool handler = name.size() > 2 && name.compare(0, 2, "on") == 0;
    const bool bad_url = IsUrlAttribute(name) && !SafeAttributeValue(name, value);
    const bool bad_style = name == "style" && (!ScriptLinkScheme(value).empty() ||
                                               std::string(value).find("expression(") != std::string::npos);
    if (handler || bad_url || bad_style) dropped.emplace_back(ws, j);
  }
  if (!in(j)) return npos;
  const size_t end = j + 1;
  size_t pos = lt;
  for (const auto& [b, e] : dropped) {
    out->append(s.substr(pos, b - pos));
    pos = e;
    // Keep what follows a separate attribute ("<a onclick=\"x\"href=...>" must not become "<ahref=...>").
    if (pos < end && !IsSpace(s[pos]) && s[pos] != '>' && s[pos] != '/') out->push_back(' ');
  }
  out->append(s.substr(pos, end - pos));
  return end;
}

// `<scheme:...>` at `lt`: its end, or npos.
size_t AutolinkEnd(const Input& s, size_t lt, Scheme* scheme) {
  *scheme = ReadScheme(s, lt + 1, kMaxLinkBytes, /*skip_breaks=*/false);
  if (scheme->name.empty()) return std::string_view::npos;
  for (size_t j = scheme->after; j - lt < kMaxLinkBytes && s.Has(j); ++j) {
    if (s[j] == '>') return j + 1;
    if (s[j] == '<' || s[j] == ' ' || s[j] == '\n') return std::string_view::npos;
  }
  return std::string_view::npos;
}

size_t StructurePass(const Input& s, size_t from, std::string* out);

// Appends `[text](dest title)` (safe) or just the text (unsafe).
void AppendLink(const Input& s, size_t open, const InlineLink& l, std::string* out) {
  const std::string_view dest = s.substr(l.dest_begin, l.dest_end - l.dest_begin);
  const Input text(s.substr(l.text_begin, l.text_end - l.text_begin));
  if (!IsSafeLinkTarget(dest)) {
    StructurePass(text, 0, out);
    return;
  }
  out->append(s.substr(open, l.text_begin - open));
  StructurePass(text, 0, out);
  out->append(s.substr(l.text_end, l.after_dest - l.text_end));
  StructurePass(Input(s.substr(l.after_dest, l.end - l.after_dest)), 0, out);
}

// The two passes of a round. Each rewrites s[from..] into *out (the bytes before `from` are what
// preceded, read only to tell a line or word start) and returns where it stopped: s.size(), or, on an
// open input, the first position whose rewrite depends on bytes not received yet (nothing from there
// on is written).

// Markdown links and images, reference definitions, autolinks and tags; bare URLs outside them.
size_t StructurePass(const Input& s, size_t from, std::string* out) {
  size_t i = from;
  while (i < s.size()) {
    s.Clear();
    const char c = s[i];
    if (c == '[' || (c == '!' && s.Has(i + 1) && s[i + 1] == '[')) {
      const size_t open = c == '!' ? i + 1 : i;
      const auto l = ParseInlineLink(s, open);
      if (s.ran_out()) return i;
      if (l) {
        AppendLink(s, i, *l, out);
        i = l->end;
        continue;
      }
      // A reference definition "[id]: target" at the start of a line.
      const size_t close = c == '[' && AtLineStart(s, i) ? MatchingBracket(s, i) : std::string_view::npos;
      if (close != std::string_view::npos && s.Has(close + 1) && s[close + 1] == ':') {
        const size_t limit = close + 2 + kMaxLinkBytes;
        auto in = [&](size_t k) { return k < limit && s.Has(k); };
        size_t b = close + 2;
        while (in(b) && (s[b] == ' ' || s[b] == '\t')) ++b;
        size_t e = b;
        while (in(e) && !IsSpace(s[e])) ++e;
        std::string_view dest = s.substr(b, e - b);
        if (dest.size() >= 2 && dest.front() == '<' && dest.back() == '>') dest = dest.substr(1, dest.size() - 2);
        if (s.ran_out()) return i;
        if (e > b && !IsSafeLinkTarget(dest)) {
          out->append(s.substr(i, b - i));
          out->append(kLinkRemoved);
          i = e;
          continue;
        }
      }
      if (s.ran_out()) return i;
    }
    if (c == '<') {
      Scheme scheme;
      const size_t auto_end = AutolinkEnd(s, i, &scheme);
      if (s.ran_out()) return i;
      if (auto_end != std::string_view::npos) {
        if (scheme.name == "http" || scheme.name == "https") {
          out->append(s.substr(i, auto_end - i));
        } else {
          out->append(kLinkRemoved);
        }
        i = auto_end;
        continue;
      }
      std::string tag;
      const size_t tag_end = SanitizeTag(s, i, &tag);
      if (s.ran_out()) return i;
      if (tag_end != std::string_view::npos) {
        out->append(tag);
        i = tag_end;
        continue;
      }
    }
    if (WordStart(s, i)) {
      const size_t e = BareUrlEnd(s, i);
      if (s.ran_out()) return i;
      if (e != std::string_view::npos) {
        out->append(kLinkRemoved);
        i = e;
        continue;
      }
    }
    if (s.ran_out()) return i;  // e.g. a '!' at the end: an image may follow
    out->push_back(c);
    ++i;
  }
  return s.size();
}

// Every bare dangerous URL left anywhere, also inside kept tags and targets ("<a href=\"(x)
// javascript:...\">" is a relative URL to a browser, but a later tool might read it otherwise).
size_t BareUrlPass(const Input& s, size_t from, std::string* out) {
  for (size_t i = from; i < s.size();) {
    s.Clear();
    if (WordStart(s, i)) {
      const size_t e = BareUrlEnd(s, i);
      if (s.ran_out()) return i;
      if (e != std::string_view::npos) {
        out->append(kLinkRemoved);
        i = e;
        continue;
      }
    }
    out->push_back(s[i++]);
  }
  return s.size();
}

// Removing a link or an attribute can join what was around it into a new one ("<a x=\"j<a
// href=...>t...\" onclick=...>" is no tag until the inner tag is gone): the passes are repeated up to
// kRounds times, to a fixed point.
constexpr int kRounds = 9;

std::string OnePass(std::string_view text) {
  std::string structured;
  structured.reserve(text.size());
  StructurePass(Input(text), 0, &structured);
  std::string out;
  out.reserve(structured.size());
  BareUrlPass(Input(structured), 0, &out);
  return out;
}

}  // namespace

bool IsSafeLinkTarget(std::string_view target) {
  size_t i = 0;
  while (i < target.size() && (static_cast<unsigned char>(target[i]) <= 0x20)) ++i;  // leading C0 and spaces
  const Scheme sc = ReadScheme(Input(target), i, std::string_view::npos);  // the whole target
  if (sc.name.empty()) return true;  // no "scheme:" before the first '/', '?' or '#': relative
  return sc.name == "http" || sc.name == "https";
}

std::string SafeUrl(std::string_view url) { return IsSafeLinkTarget(url) ? std::string(url) : std::string(); }

std::string SanitizeLinks(std::string_view text) {
  // kRounds passes; once a pass changes nothing, the rest would not either.
  std::string out = OnePass(text);
  if (out == text && t_fast_paths) return out;  // a pass that changed nothing would change nothing again
  for (int round = 1; round < kRounds; ++round) {
    std::string again = OnePass(out);
    if (again == out) break;
    out = std::move(again);
  }
  return out;
}

std::string SanitizeLinksExhaustive(std::string_view text) {
  t_fast_paths = false;
  std::string out = SanitizeLinks(text);
  t_fast_paths = true;
  return out;
}

std::string ScriptLinkScheme(std::string_view text) {
  const Input s(text);
  for (size_t i = 0; i < text.size(); ++i) {
    if (!WordStart(s, i)) continue;
    std::string scheme;
    const size_t e = BareUrlEnd(s, i, &scheme);
    if (e == std::string_view::npos) continue;
    if (scheme == "javascript" || scheme == "vbscript" || scheme == "livescript" || scheme == "mocha") return scheme;
    if (scheme == "data") {
      std::string media(text.substr(i, e - i));
      for (char& c : media) c = Lower(c);
      for (std::string_view type :
           {"text/html", "application/xhtml", "image/svg", "text/xml", "application/xml", "javascript", "ecmascript"}) {
        if (media.find(type) != std::string::npos) return scheme;
      }
    }
    i = e - 1;
  }
  return "";
}

// ---- streaming -------------------------------------------------------------------------------------
//
// The same passes as SanitizeLinks, as a chain of 2 * kRounds stages: each stage runs its pass over
// what it has received as an open input, passes on the output of every position it could decide, and
// keeps the rest (plus a few bytes before it, for line and word starts) for the next piece. The
// concatenated output is SanitizeLinks() of the concatenated input: every stage decides exactly as
// its pass over the whole would (SanitizeLinks stops early at a fixed point; a fixed point stays one,
// so running every round changes nothing). A stage decides a position once about 2 * kMaxLinkBytes of
// its input follow it, so no stage holds more than that; a stage's input lags the previous round's,
// so for text that keeps opening links it never closes the holds add up, to kRounds times that.

namespace {
constexpr size_t kContextBytes = 8;  // look-behind: up to four spaces and a line break, or one byte
}  // namespace

LinkStreamFilter::LinkStreamFilter() : stages_(2 * kRounds) {}

std::string LinkStreamFilter::Run(std::string text, bool last) {
  for (size_t k = 0; k < stages_.size(); ++k) {
    Stage& st = stages_[k];
    if (text.empty() && !last) break;  // nothing new for this stage and the ones after it
    st.held.append(text);
    text.clear();
    const Input in(st.held, /*open=*/!last);
    const size_t done = k % 2 == 0 ? StructurePass(in, st.from, &text) : BareUrlPass(in, st.from, &text);
    const size_t keep = std::min(done, kContextBytes);
    st.held.erase(0, done - keep);
    st.from = keep;
  }
  return text;
}

std::string LinkStreamFilter::Feed(std::string_view delta) { return Run(std::string(delta), /*last=*/false); }

std::string LinkStreamFilter::Flush() {
  std::string out = Run("", /*last=*/true);
  for (Stage& st : stages_) st = Stage{};
  return out;
}

}  // namespace attest
