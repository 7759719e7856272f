// Links in what an answer shows: only http, https and relative targets survive.
//
// Indexed text is untrusted, and answers, claims, quotes, source passages and snippets copy it. A
// client that renders them as Markdown or HTML would follow whatever link they carry, so every such
// text passes SanitizeLinks() before it leaves the answer path (docs/verification.md, "Links in the
// output"). The policy:
//  - Markdown links and images `[text](target "title")`, `![alt](target)`: a target that is not
//    http(s) or relative (javascript:, data:, vbscript:, file:, mailto:, ...) is dropped and the link
//    text (the alt text for an image) is kept as plain text. Reference definitions `[id]: target`
//    lose an unsafe target the same way.
//  - Angle-bracket autolinks `<scheme:...>` other than http(s) become "(link removed)".
//  - HTML tags keep their text and safe attributes; a URL attribute (href, src, action, formaction,
//    xlink:href, srcset, poster, background, data, cite, ...) with an unsafe value, and every event
//    handler attribute (on...), is removed.
//  - Anywhere else, a bare URL of a script-capable or local scheme (javascript:, vbscript:,
//    livescript:, mocha:, data:, file:, blob:, filesystem:, view-source:) followed by a non-space
//    character becomes "(link removed)". Other bare schemes are prose ("postgresql://host/db",
//    "JavaScript: the good parts") and are left alone.
// Schemes are read the way browsers read them: case-insensitively, ignoring tabs, line breaks and
// invisible characters inside the scheme, decoding HTML character references (&#106;, &#x6A;,
// &colon;) and fullwidth letters.
//
// SanitizeLinks is idempotent. LinkStreamFilter applies the same policy to text that arrives in
// pieces (a streamed answer): it holds back a possibly unfinished link or word, so that the
// concatenated output equals SanitizeLinks() of the concatenated input.
//
// Thread-safety: the functions are pure; a LinkStreamFilter is used by one stream.
#pragma once

#include <string>
#include <string_view>

namespace attest {

inline constexpr std::string_view kLinkRemoved = "(link removed)";

// True for http(s), scheme-less (relative, "#fragment", "//host/path") and empty targets.
bool IsSafeLinkTarget(std::string_view target);

// `url` when IsSafeLinkTarget(url), else "" (for metadata URL fields).
std::string SafeUrl(std::string_view url);

std::string SanitizeLinks(std::string_view text);

// SanitizeLinks of `text` as the continuation of `before` (the raw text that preceded it; only
// whether `text` starts a line depends on it). SanitizeLinks(t) == SanitizeAfter(t, "").
std::string SanitizeAfter(std::string_view text, std::string_view before);

// The script-capable scheme of the first link in `text` ("javascript", "vbscript", "data" with an
// HTML, XML or SVG media type, ...), or "" when none. Used by the injection screen.
std::string ScriptLinkScheme(std::string_view text);

class LinkStreamFilter {
 public:
  // Returns the sanitized text that can be shown now (possibly empty).
  std::string Feed(std::string_view delta);
  // Returns the rest. The filter is empty afterwards and can be reused.
  std::string Flush();

 private:
  size_t SafeCut() const;
  void Remember(std::string_view released);
  std::string pending_;   // received, not yet released
  std::string released_;  // the last bytes released (raw), for line starts
};

}  // namespace attest
