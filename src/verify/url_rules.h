// The reading rules under the output link policy (url_sanitizer.cc): the input as a rule reads it,
// one character as a browser decodes it inside a URL, a "scheme:" and a bare URL of a dangerous
// scheme. Private to src/verify/.
#pragma once

#include <cstddef>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

namespace attest::url_rules {

// Longer "links", tags, schemes and bare URLs are read as text (or, for a bare URL, removed up to
// here). Every rule below looks at most about 2 * kMaxLinkBytes bytes ahead of where it starts, which
// bounds what LinkStreamFilter holds back.
constexpr size_t kMaxLinkBytes = 4096;

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

inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiAlnum(char c) { return IsAsciiAlpha(c) || (c >= '0' && c <= '9'); }
inline char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// One character of the input as a browser reads it inside a URL: a UTF-8 code point or an HTML
// character reference (&#106; &#x6A; &colon; &Tab; &NewLine;). Fullwidth ASCII is folded to ASCII.
struct Decoded {
  int32_t cp = -1;  // -1 at the end of the input
  size_t next = 0;
};

struct Scheme {
  std::string name;   // lower-case ASCII, "" when there is none
  size_t after = 0;   // byte offset just after the ':'
  bool cut = false;   // `max_bytes` were read and `prefix` may still become a scheme
  std::string prefix;
  size_t stop = 0;    // with `cut`: where reading stopped
};

// Off only inside SanitizeLinksExhaustive (the oracle of ReadScheme's fast path), on this thread.
void SetFastPaths(bool on);
bool FastPaths();

Decoded DecodeAt(const Input& s, size_t i);
bool Invisible(int32_t cp);
// Reads "scheme:" at `i`, skipping what browsers skip inside a URL (tabs, line breaks) and invisible
// characters, and decoding character references; reads at most `max_bytes` (npos: no limit). With
// `skip_breaks` false (autolinks, which hold no whitespace) tabs and line breaks end the scheme.
Scheme ReadScheme(const Input& s, size_t i, size_t max_bytes, bool skip_breaks = true);
bool BareDangerous(std::string_view scheme);
// True at a byte where a bare URL may start: not inside a word or a character reference.
bool WordStart(const Input& s, size_t i);
// A bare URL of a dangerous scheme starting at `i`: its end (exclusive), or npos.
size_t BareUrlEnd(const Input& s, size_t i, std::string* scheme_out = nullptr);

}  // namespace attest::url_rules
