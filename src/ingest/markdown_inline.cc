#include "ingest/markdown_inline.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

constexpr int kMaxNesting = 8;       // link text inside link text inside ...
constexpr size_t kMaxTagScan = 1024; // a raw HTML tag longer than this is treated as text

bool IsAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes "&amp;", "&#39;", "&#x2014;" ... at s[i]; returns the length consumed, or 0.
size_t DecodeEntity(std::string_view s, size_t i, std::string* out) {
  const size_t semi = s.substr(i, 12).find(';');
  if (semi == std::string_view::npos || semi < 2) return 0;
  const std::string_view name = s.substr(i + 1, semi - 1);
  if (name[0] == '#') {
    uint32_t cp = 0;
    const bool hex = name.size() > 1 && (name[1] == 'x' || name[1] == 'X');
    const std::string_view digits = name.substr(hex ? 2 : 1);
    if (digits.empty() || digits.size() > 7) return 0;
    for (char c : digits) {
      int v = -1;
      if (c >= '0' && c <= '9') v = c - '0';
      if (hex && c >= 'a' && c <= 'f') v = c - 'a' + 10;
      if (hex && c >= 'A' && c <= 'F') v = c - 'A' + 10;
      if (v < 0) return 0;
      cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
    }
    AppendUtf8(cp, out);
    return semi + 1;
  }
  static constexpr struct {
    std::string_view name;
    uint32_t cp;
  } kNamed[] = {{"amp", '&'},      {"lt", '<'},       {"gt", '>'},       {"quot", '"'},
                {"apos", '\''},    {"nbsp", ' '},     {"mdash", 0x2014}, {"ndash", 0x2013},
                {"hellip", 0x2026}, {"copy", 0xA9},   {"reg", 0xAE},     {"trade", 0x2122},
                {"laquo", 0xAB},   {"raquo", 0xBB},   {"rsquo", 0x2019}, {"lsquo", 0x2018},
                {"rdquo", 0x201D}, {"ldquo", 0x201C}, {"times", 0xD7},   {"middot", 0xB7}};
  for (const auto& e : kNamed) {
    if (name == e.name) {
      AppendUtf8(e.cp, out);
      return semi + 1;
    }
  }
  return 0;
}

class InlineStripper {
 public:
  explicit InlineStripper(std::string_view s) : s_(s), match_(s.size(), SIZE_MAX) {
    // Pair brackets and parentheses once: O(n) instead of rescanning for every opener.
    std::vector<size_t> brackets, parens;
    // Where each backtick run starts, by its length: code span closers (a backslash does not
    // escape a closer, so this pass ignores backslashes).
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] != '`') continue;
      const size_t n = RunLength(i, s.size(), '`');
      runs_[n].push_back(i);
      i += n - 1;
    }
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (c == '\\') {
        ++i;
      } else if (c == '[') {
        brackets.push_back(i);
      } else if (c == ']' && !brackets.empty()) {
        match_[brackets.back()] = i;
        brackets.pop_back();
      } else if (c == '(') {
        parens.push_back(i);
      } else if (c == ')' && !parens.empty()) {
        match_[parens.back()] = i;
        parens.pop_back();
      }
    }
  }

  void Run(size_t begin, size_t end, int depth, std::string* out) {
    size_t i = begin;
    while (i < end) {
      const char c = s_[i];
      if (c == '\\' && i + 1 < end && IsAsciiPunct(s_[i + 1])) {
        out->push_back(s_[i + 1]);
        i += 2;
      } else if (c == '`') {
        i = CodeSpan(i, end, out);
      } else if ((c == '[' || (c == '!' && i + 1 < end && s_[i + 1] == '[')) && depth < kMaxNesting) {
        i = Link(i, end, depth, out);
      } else if (c == '<') {
        i = Angle(i, end, out);
      } else if (c == '&') {
        const size_t used = DecodeEntity(s_.substr(0, end), i, out);
        if (used == 0) out->push_back('&');
        i += used == 0 ? 1 : used;
      } else if (c == '*' || c == '_' || c == '~') {
        i = Delimiters(i, end, out);
      } else {
        out->push_back(c);
        ++i;
      }
    }
  }

 private:
  size_t RunLength(size_t i, size_t end, char c) const {
    size_t j = i;
    while (j < end && s_[j] == c) ++j;
    return j - i;
  }

  // A code span closes at the next backtick run of the same length: looked up among the runs
  // indexed by length (a binary search), so runs of many different lengths without closers stay
  // linear (scanning ahead for each opener was quadratic: runs of length 1..2,000 took seconds).
  size_t CodeSpan(size_t i, size_t end, std::string* out) {
    const size_t n = RunLength(i, end, '`');
    if (auto it = runs_.find(n); it != runs_.end()) {
      const std::vector<size_t>& starts = it->second;
      const auto next = std::upper_bound(starts.begin(), starts.end(), i);
      if (next != starts.end() && *next >= i + n && *next + n <= end) {
        const size_t j = *next;
        std::string_view code = s_.substr(i + n, j - i - n);
        if (code.size() >= 2 && code.front() == ' ' && code.back() == ' ') code = code.substr(1, code.size() - 2);
        out->append(code);
        return j + n;
      }
    }
    out->append(s_.substr(i, n));
    return i + n;
  }

  // [text](url), [text][ref], ![alt](src); anything else stays literal.
  size_t Link(size_t i, size_t end, int depth, std::string* out) {
    const bool image = s_[i] == '!';
    const size_t open = image ? i + 1 : i;
    const size_t close = match_[open];
    if (close == SIZE_MAX || close >= end) {
      out->append(s_.substr(i, open - i + 1));
      return open + 1;
    }
    size_t after = close + 1;
    if (after < end && s_[after] == '(' && match_[after] != SIZE_MAX && match_[after] < end) {
      after = match_[after] + 1;
    } else if (after < end && s_[after] == '[' && match_[after] != SIZE_MAX && match_[after] < end) {
      after = match_[after] + 1;
    } else if (!image) {  // "[text]" alone: keep the brackets, strip inside
      out->push_back('[');
      Run(open + 1, close, depth + 1, out);
      out->push_back(']');
      return close + 1;
    } else {
      out->push_back('!');
      return i + 1;
    }
    Run(open + 1, close, depth + 1, out);
    return after;
  }

  // <https://x>, <a@b.c> keep the address; <tag ...>, </tag>, <!-- ... --> are dropped.
  size_t Angle(size_t i, size_t end, std::string* out) {
    if (s_.substr(i, 4) == "<!--") {
      if (i >= comment_unclosed_from_) {
        out->push_back('<');
        return i + 1;
      }
      const size_t close = s_.substr(0, end).find("-->", i + 4);
      if (close != std::string_view::npos) return close + 3;
      comment_unclosed_from_ = i;
      out->push_back('<');
      return i + 1;
    }
    const bool tag_start = i + 1 < end && (IsAlpha(s_[i + 1]) || s_[i + 1] == '/' || s_[i + 1] == '!' || s_[i + 1] == '?');
    if (tag_start) {
      const size_t limit = std::min(end, i + kMaxTagScan);
      for (size_t j = i + 1; j < limit; ++j) {
        if (s_[j] == '<') break;
        if (s_[j] == '>') {
          const std::string_view inner = s_.substr(i + 1, j - i - 1);
          const bool autolink = inner.find("://") != std::string_view::npos ||
                                (inner.find('@') != std::string_view::npos && inner.find(' ') == std::string_view::npos) ||
                                ingest::StartsWithIgnoreCase(inner, "mailto:");
          if (autolink && inner.find(' ') == std::string_view::npos) {
            out->append(inner);
          } else {
            out->push_back(' ');  // a tag separates words like whitespace
          }
          return j + 1;
        }
      }
    }
    out->push_back('<');
    return i + 1;
  }

  // Emphasis runs are dropped when they can open or close emphasis; "a * b" and snake_case stay.
  size_t Delimiters(size_t i, size_t end, std::string* out) {
    const char c = s_[i];
    const size_t n = RunLength(i, end, c);
    const char prev = i > 0 ? s_[i - 1] : ' ';
    const char next = i + n < end ? s_[i + n] : ' ';
    const bool prev_space = ingest::IsAsciiSpace(prev);
    const bool next_space = ingest::IsAsciiSpace(next);
    bool drop = !(prev_space && next_space);
    if (IsAlnum(prev) && IsAlnum(next)) drop = false;  // intraword: snake_case, 2*3
    if (c == '~' && n != 2) drop = false;              // only ~~strikethrough~~
    if (!drop) out->append(s_.substr(i, n));
    return i + n;
  }

  std::string_view s_;
  std::vector<size_t> match_;
  std::unordered_map<size_t, std::vector<size_t>> runs_;  // backtick run length -> starts, ascending
  size_t comment_unclosed_from_ = SIZE_MAX;
};

}  // namespace

std::string StripMarkdownInline(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  InlineStripper(text).Run(0, text.size(), 0, &out);
  return CollapseWhitespace(out, Nbsp::kAsSpace);
}

}  // namespace attest
