#include "verify/url_sanitizer.h"

#include "verify/url_rules.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <vector>

namespace attest {
namespace {

using namespace url_rules;  // NOLINT(google-build-using-namespace): the reading rules

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

namespace {

// Exact: every rule acts on a scheme, which is read through a ':' (or a character reference, '&', or
// a non-ASCII colon), or on an HTML tag ('<'), or cuts letters whose scheme read ran into the 4096-byte
// budget. ASCII text shorter than the budget with no ':', '&' or '<' has none of them.
bool NothingToSanitize(std::string_view text) {
  if (text.size() >= kMaxLinkBytes) return false;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80 || c == ':' || c == '&' || c == '<') return false;
  }
  return true;
}

}  // namespace

std::string SanitizeLinks(std::string_view text) {
  if (FastPaths() && NothingToSanitize(text)) return std::string(text);
  // kRounds passes; once a pass changes nothing, the rest would not either.
  std::string out = OnePass(text);
  if (out == text && FastPaths()) return out;  // a pass that changed nothing would change nothing again
  for (int round = 1; round < kRounds; ++round) {
    std::string again = OnePass(out);
    if (again == out) break;
    out = std::move(again);
  }
  return out;
}

std::string SanitizeLinksExhaustive(std::string_view text) {
  SetFastPaths(false);
  std::string out = SanitizeLinks(text);
  SetFastPaths(true);
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
