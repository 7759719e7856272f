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

constexpr size_t kMaxLinkBytes = 4096;  // longer "links" are read as text

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

Decoded DecodeAt(std::string_view s, size_t i) {
  if (i >= s.size()) return {-1, i};
  if (s[i] == '&') {
    static constexpr std::pair<std::string_view, int32_t> kNamed[] = {
        {"&colon;", ':'}, {"&tab;", '\t'}, {"&newline;", '\n'}, {"&sol;", '/'}, {"&period;", '.'}, {"&amp;", '&'}};
    for (const auto& [name, cp] : kNamed) {
      if (s.size() - i >= name.size()) {
        bool eq = true;
        for (size_t k = 0; k < name.size() && eq; ++k) eq = Lower(s[i + k]) == name[k];
        if (eq) return {cp, i + name.size()};
      }
    }
    if (i + 2 < s.size() && s[i + 1] == '#') {
      size_t j = i + 2;
      const bool hex = j < s.size() && (s[j] == 'x' || s[j] == 'X');
      if (hex) ++j;
      int64_t v = 0;
      const size_t digits_begin = j;
      while (j < s.size() && j - digits_begin < 8 &&
             (hex ? std::isxdigit(static_cast<unsigned char>(s[j])) : std::isdigit(static_cast<unsigned char>(s[j])))) {
        const char c = Lower(s[j]);
        v = v * (hex ? 16 : 10) + (c >= 'a' ? c - 'a' + 10 : c - '0');
        ++j;
      }
      if (j > digits_begin && v <= 0x10FFFF) {
        if (j < s.size() && s[j] == ';') ++j;
        return {static_cast<int32_t>(v), j};
      }
    }
    return {'&', i + 1};
  }
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
  std::string name;  // lower-case ASCII, "" when there is none
  size_t after = 0;  // byte offset just after the ':'
};

// Reads "scheme:" at `i`, skipping what browsers skip inside a URL (tabs, line breaks) and invisible
// characters, and decoding character references.
// *ran_out (optional) tells whether the input ended before the scheme could be decided. With
// `skip_breaks` false (autolinks, which hold no whitespace) tabs and line breaks end the scheme.
Scheme ReadScheme(std::string_view s, size_t i, bool* ran_out = nullptr, bool skip_breaks = true) {
  std::string name;
  if (ran_out) *ran_out = false;
  while (name.size() <= 32) {
    if (i >= s.size()) {
      if (ran_out) *ran_out = true;
      break;
    }
    // A character reference at the very end may still be completed ("&#10" + "6;").
    if (ran_out && s[i] == '&' && s.find(';', i) == std::string_view::npos && s.size() - i < 12) *ran_out = true;
    const Decoded d = DecodeAt(s, i);
    if (d.cp < 0) break;
    i = d.next;
    if (Invisible(d.cp) || (skip_breaks && (d.cp == '\t' || d.cp == '\n' || d.cp == '\r'))) continue;
    if (d.cp == ':') return name.empty() ? Scheme{} : Scheme{name, i};
    const bool alpha = (d.cp >= 'a' && d.cp <= 'z') || (d.cp >= 'A' && d.cp <= 'Z');
    const bool other = (d.cp >= '0' && d.cp <= '9') || d.cp == '+' || d.cp == '-' || d.cp == '.';
    if (!alpha && !(other && !name.empty())) break;
    name.push_back(static_cast<char>(alpha ? Lower(static_cast<char>(d.cp)) : d.cp));
  }
  return {};
}

bool BareDangerous(std::string_view scheme) {
  static constexpr std::string_view kSchemes[] = {"javascript", "vbscript", "livescript", "mocha",      "data",
                                                  "file",       "blob",     "filesystem", "view-source"};
  return std::find(std::begin(kSchemes), std::end(kSchemes), scheme) != std::end(kSchemes);
}

// True at a byte where a bare URL may start: not inside a word or a character reference. (After
// '.', '-' or '+' a URL parser would read a longer scheme, "x.javascript:", but a link finder that
// splits words there might not: such a start counts.)
bool WordStart(std::string_view s, size_t i) {
  if (i > 0) {
    const char p = s[i - 1];
    if (IsAsciiAlnum(p) || p == '&' || p == '#') return false;
  }
  const char c = s[i];
  return IsAsciiAlpha(c) || c == '&' || static_cast<unsigned char>(c) >= 0x80;
}

// A bare URL of a dangerous scheme starting at `i`: its end (exclusive), or npos.
size_t BareUrlEnd(std::string_view s, size_t i, std::string* scheme_out = nullptr) {
  const Scheme sc = ReadScheme(s, i);
  if (sc.name.empty() || !BareDangerous(sc.name)) return std::string_view::npos;
  size_t e = sc.after;
  size_t next = e;
  while (next < s.size() && (s[next] == '\t' || s[next] == '\n' || s[next] == '\r')) ++next;
  if (next >= s.size() || IsSpace(s[next])) return std::string_view::npos;  // "JavaScript: the language"
  while (e < s.size() && !IsSpace(s[e]) && std::strchr("<>\"'`", s[e]) == nullptr) ++e;
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
size_t MatchingBracket(std::string_view s, size_t open) {
  int depth = 0;
  for (size_t j = open; j < s.size() && j - open < kMaxLinkBytes; ++j) {
    const char c = s[j];
    if (c == '\\') {
      ++j;
      continue;
    }
    if (c == '\n' && j + 1 < s.size() && s[j + 1] == '\n') return std::string_view::npos;
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0) return j;
  }
  return std::string_view::npos;
}

// `[text](dest "title")` with `open` at the "[".
std::optional<InlineLink> ParseInlineLink(std::string_view s, size_t open) {
  const size_t close = MatchingBracket(s, open);
  if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != '(') return std::nullopt;
  InlineLink l{open + 1, close, 0, 0, 0, 0};
  size_t j = close + 2;
  const size_t limit = std::min(s.size(), close + 2 + kMaxLinkBytes);
  while (j < limit && IsSpace(s[j])) ++j;
  if (j < limit && s[j] == '<') {
    l.dest_begin = j + 1;
    while (j < limit && s[j] != '>' && s[j] != '\n') ++j;
    if (j >= limit || s[j] != '>') return std::nullopt;
    l.dest_end = j++;
  } else {
    l.dest_begin = j;
    int depth = 0;
    while (j < limit && !IsSpace(s[j])) {
      if (s[j] == '\\') {
        j += 2;
        continue;
      }
      if (s[j] == '(') ++depth;
      if (s[j] == ')' && depth-- == 0) break;
      ++j;
    }
    l.dest_end = std::min(j, limit);
  }
  l.after_dest = l.dest_end + (l.dest_end < s.size() && s[l.dest_end] == '>' ? 1 : 0);
  j = l.after_dest;
  while (j < limit && IsSpace(s[j])) ++j;
  if (j < limit && (s[j] == '"' || s[j] == '\'' || s[j] == '(')) {
    const char closer = s[j] == '(' ? ')' : s[j];
    ++j;
    while (j < limit && s[j] != closer) j += s[j] == '\\' ? 2 : 1;
    if (j >= limit) return std::nullopt;
    ++j;
    while (j < limit && IsSpace(s[j])) ++j;
  }
  if (j >= limit || s[j] != ')') return std::nullopt;
  l.end = j + 1;
  return l;
}

// True when only up to three spaces stand between `i` and the start of a line. `before` is the text
// that preceded `s` (a streamed piece's predecessor); empty = `s` starts the text.
bool AtLineStart(std::string_view s, size_t i, std::string_view before) {
  size_t spaces = 0;
  while (i > 0 && s[i - 1] == ' ' && spaces < 4) {
    --i;
    ++spaces;
  }
  if (i > 0) return spaces <= 3 && s[i - 1] == '\n';
  size_t j = before.size();
  while (j > 0 && before[j - 1] == ' ' && spaces < 4) {
    --j;
    ++spaces;
  }
  return spaces <= 3 && (j == 0 || before[j - 1] == '\n');  // j == 0: the start of the text
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

// The HTML start tag at `lt` ("<a href=...>") without event handlers and unsafe URL attributes.
// Returns the end of the tag (one past '>'), or npos when `lt` starts no tag.
// Rewrites the HTML start tag at `lt` into `out` (may be null: just parse). *incomplete (optional)
// is set when the input ends before the tag could be decided.
size_t SanitizeTag(std::string_view s, size_t lt, std::string* out, bool* incomplete = nullptr) {
  constexpr size_t npos = std::string_view::npos;
  const bool may_grow = s.size() - lt < kMaxLinkBytes;
  auto ran_out = [&] {
    if (incomplete) *incomplete = may_grow;
    return npos;
  };
  if (incomplete) *incomplete = false;
  size_t j = lt + 1;
  if (j >= s.size()) return ran_out();
  if (!IsAsciiAlpha(s[j])) return npos;
  while (j < s.size() && (IsAsciiAlnum(s[j]) || s[j] == '-' || s[j] == ':')) ++j;
  if (j < s.size() && !IsSpace(s[j]) && s[j] != '/' && s[j] != '>') return std::string_view::npos;
  std::vector<std::pair<size_t, size_t>> dropped;  // byte ranges of removed attributes
  const size_t limit = std::min(s.size(), lt + kMaxLinkBytes);
  while (j < limit) {
    const size_t ws = j;
    while (j < limit && (IsSpace(s[j]) || s[j] == '/')) ++j;
    if (j >= limit) return ran_out();
    if (s[j] == '>') break;
    const size_t name_begin = j;
    while (j < limit && !IsSpace(s[j]) && std::strchr("\"'>/=", s[j]) == nullptr) ++j;
    if (j >= limit) return ran_out();
    std::string name(s.substr(name_begin, j - name_begin));
    // Not a tag unless every attribute has a well-formed name ("<alert(1)...>" is text).
    if (name.empty() || !(IsAsciiAlpha(name[0]) || name[0] == '_' || name[0] == ':')) return std::string_view::npos;
    for (char& c : name) {
      if (!(IsAsciiAlnum(c) || c == '-' || c == '_' || c == ':' || c == '.')) return std::string_view::npos;
      c = Lower(c);
    }
    size_t k = j;
    while (k < limit && IsSpace(s[k])) ++k;
    std::string_view value;
    if (k < limit && s[k] == '=') {
      ++k;
      while (k < limit && IsSpace(s[k])) ++k;
      if (k < limit && (s[k] == '"' || s[k] == '\'')) {
        const size_t q = s.find(s[k], k + 1);
        if (q == std::string_view::npos || q >= limit) return ran_out();
        value = s.substr(k + 1, q - k - 1);
        k = q + 1;
      } else {
        const size_t vb = k;
        while (k < limit && !IsSpace(s[k]) && s[k] != '>') ++k;
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
  if (j >= limit) return ran_out();
  const size_t end = j + 1;
  if (out == nullptr) return end;
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
size_t AutolinkEnd(std::string_view s, size_t lt, Scheme* scheme, bool* incomplete = nullptr) {
  bool ran_out = false;
  *scheme = ReadScheme(s, lt + 1, &ran_out, /*skip_breaks=*/false);
  if (incomplete) *incomplete = false;
  if (scheme->name.empty()) {
    if (incomplete) *incomplete = ran_out && s.size() - lt < kMaxLinkBytes;
    return std::string_view::npos;
  }
  for (size_t j = scheme->after; j < s.size() && j - lt < kMaxLinkBytes; ++j) {
    if (s[j] == '>') return j + 1;
    if (s[j] == '<' || s[j] == ' ' || s[j] == '\n') return std::string_view::npos;
  }
  if (incomplete) *incomplete = s.size() - lt < kMaxLinkBytes;
  return std::string_view::npos;
}

void Sanitize(std::string_view s, std::string* out, std::string_view before = {});

// Appends `[text](dest title)` (safe) or just the text (unsafe).
void AppendLink(std::string_view s, size_t open, const InlineLink& l, std::string* out) {
  const std::string_view dest = s.substr(l.dest_begin, l.dest_end - l.dest_begin);
  if (!IsSafeLinkTarget(dest)) {
    Sanitize(s.substr(l.text_begin, l.text_end - l.text_begin), out);
    return;
  }
  out->append(s.substr(open, l.text_begin - open));
  Sanitize(s.substr(l.text_begin, l.text_end - l.text_begin), out);
  out->append(s.substr(l.text_end, l.after_dest - l.text_end));
  Sanitize(s.substr(l.after_dest, l.end - l.after_dest), out);
}

void Sanitize(std::string_view s, std::string* out, std::string_view before) {
  size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '[' || (c == '!' && i + 1 < s.size() && s[i + 1] == '[')) {
      const size_t open = c == '!' ? i + 1 : i;
      if (auto l = ParseInlineLink(s, open)) {
        AppendLink(s, i, *l, out);
        i = l->end;
        continue;
      }
      // A reference definition "[id]: target" at the start of a line.
      const size_t close = c == '[' && AtLineStart(s, i, before) ? MatchingBracket(s, i) : std::string_view::npos;
      if (close != std::string_view::npos && close + 1 < s.size() && s[close + 1] == ':') {
        size_t b = close + 2;
        while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
        size_t e = b;
        while (e < s.size() && !IsSpace(s[e])) ++e;
        std::string_view dest = s.substr(b, e - b);
        if (dest.size() >= 2 && dest.front() == '<' && dest.back() == '>') dest = dest.substr(1, dest.size() - 2);
        if (e > b && !IsSafeLinkTarget(dest)) {
          out->append(s.substr(i, b - i));
          out->append(kLinkRemoved);
          i = e;
          continue;
        }
      }
    }
    if (c == '<') {
      Scheme scheme;
      const size_t auto_end = AutolinkEnd(s, i, &scheme);
      if (auto_end != std::string_view::npos) {
        if (scheme.name == "http" || scheme.name == "https") {
          out->append(s.substr(i, auto_end - i));
        } else {
          out->append(kLinkRemoved);
        }
        i = auto_end;
        continue;
      }
      const size_t tag_end = SanitizeTag(s, i, out);
      if (tag_end != std::string_view::npos) {
        i = tag_end;
        continue;
      }
    }
    if (WordStart(s, i)) {
      const size_t e = BareUrlEnd(s, i);
      if (e != std::string_view::npos) {
        out->append(kLinkRemoved);
        i = e;
        continue;
      }
    }
    out->push_back(c);
    ++i;
  }
}

}  // namespace

bool IsSafeLinkTarget(std::string_view target) {
  size_t i = 0;
  while (i < target.size() && (static_cast<unsigned char>(target[i]) <= 0x20)) ++i;  // leading C0 and spaces
  const Scheme sc = ReadScheme(target, i);
  if (sc.name.empty()) return true;  // no "scheme:" before the first '/', '?' or '#': relative
  return sc.name == "http" || sc.name == "https";
}

std::string SafeUrl(std::string_view url) { return IsSafeLinkTarget(url) ? std::string(url) : std::string(); }

std::string SanitizeLinks(std::string_view text) { return SanitizeAfter(text, {}); }

namespace {

std::string OnePass(std::string_view text, std::string_view before) {
  std::string structured;
  structured.reserve(text.size());
  Sanitize(text, &structured, before);
  // Then every bare dangerous URL left anywhere, also inside kept tags and targets ("<a href=\"(x)
  // javascript:...\">" is a relative URL to a browser, but a later tool might read it otherwise).
  std::string out;
  out.reserve(structured.size());
  const std::string_view s = structured;
  for (size_t i = 0; i < s.size();) {
    if (WordStart(s, i)) {
      const size_t e = BareUrlEnd(s, i);
      if (e != std::string_view::npos) {
        out.append(kLinkRemoved);
        i = e;
        continue;
      }
    }
    out.push_back(s[i++]);
  }
  return out;
}

}  // namespace

std::string SanitizeAfter(std::string_view text, std::string_view before) {
  // Removing a link or an attribute can join what was around it into a new one ("<a x=\"j<a
  // href=...>t...\" onclick=...>" is no tag until the inner tag is gone): repeat to a fixed point.
  std::string out = OnePass(text, before);
  for (int round = 0; round < 8; ++round) {
    std::string again = OnePass(out, before);
    if (again == out) break;
    out = std::move(again);
  }
  return out;
}

std::string ScriptLinkScheme(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!WordStart(text, i)) continue;
    std::string scheme;
    const size_t e = BareUrlEnd(text, i, &scheme);
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

size_t LinkStreamFilter::SafeCut() const {
  const std::string_view s = pending_;
  if (s.size() > 2 * kMaxLinkBytes) return s.size();  // nothing that long is one link
  size_t open_at = std::string_view::npos;
  std::vector<std::pair<size_t, size_t>> closed;  // complete links and tags: never cut inside them
  size_t i = 0;
  while (i < s.size() && open_at == std::string_view::npos) {
    const char c = s[i];
    if (c == '[') {
      const size_t close = MatchingBracket(s, i);
      if (close == std::string_view::npos) {
        // It may still close, unless a paragraph break or the length limit already decided it.
        if (s.size() - i < kMaxLinkBytes && s.find("\n\n", i) == std::string_view::npos) open_at = i;
        ++i;
        continue;
      }
      if (close + 1 >= s.size()) {
        open_at = i;  // "(target)" may follow
        break;
      }
      if (s[close + 1] == '(') {
        const auto link = ParseInlineLink(s, i);
        if (!link) {
          if (s.size() - i < kMaxLinkBytes) open_at = i;
          i = close + 1;
          continue;
        }
        closed.emplace_back(i, link->end);
        i = link->end;
        continue;
      }
      if (s[close + 1] == ':') {
        const size_t eol = s.find('\n', close);
        if (eol == std::string_view::npos) {
          open_at = i;
          break;
        }
        closed.emplace_back(i, eol);
        i = eol;
        continue;
      }
      closed.emplace_back(i, close + 1);
      i = close + 1;
      continue;
    }
    if (c == '<') {
      // The same parse as Sanitize(): an autolink, else a tag; held while it may still complete.
      bool incomplete = false;
      Scheme scheme;
      size_t end = AutolinkEnd(s, i, &scheme, &incomplete);
      if (end == std::string_view::npos && !incomplete) end = SanitizeTag(s, i, nullptr, &incomplete);
      if (end != std::string_view::npos) {
        closed.emplace_back(i, end);
        i = end;
        continue;
      }
      if (incomplete) {
        open_at = i;
        break;
      }
      ++i;
      continue;
    }
    ++i;
  }
  const size_t scan_end = open_at == std::string_view::npos ? s.size() : open_at;
  // Up to the last whitespace before the first open construct: the last word may still grow, and a
  // construct is sanitized whole.
  size_t cut = 0;
  auto inside = [&](size_t pos) {
    return std::any_of(closed.begin(), closed.end(), [&](auto r) { return pos > r.first && pos < r.second; });
  };
  for (size_t j = scan_end; j > 0; --j) {
    if (s[j - 1] == ' ' && !inside(j - 1)) {  // not a tab or line break: a URL may continue across those
      cut = j;
      break;
    }
  }
  return cut;
}

std::string LinkStreamFilter::Feed(std::string_view delta) {
  pending_.append(delta);
  const size_t cut = SafeCut();
  if (cut == 0) return "";
  std::string out = SanitizeAfter(std::string_view(pending_).substr(0, cut), released_);
  Remember(std::string_view(pending_).substr(0, cut));
  pending_.erase(0, cut);
  return out;
}

std::string LinkStreamFilter::Flush() {
  std::string out = SanitizeAfter(pending_, released_);
  pending_.clear();
  released_.clear();
  return out;
}

void LinkStreamFilter::Remember(std::string_view released) {
  // Only the end of the released text matters (is the next piece at the start of a line?).
  released_.append(released);
  if (released_.size() > 8) released_.erase(0, released_.size() - 8);
}

}  // namespace attest
