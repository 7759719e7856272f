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
// Every rule decides within a bounded look-ahead: a link's text, a link's target and title, a tag and
// an autolink longer than 4096 bytes are text; a scheme is read within 4096 bytes, and letters that
// could still become a dangerous scheme when that much padding (tabs, line breaks, invisible
// characters) follows are removed as a link; a bare URL of a dangerous scheme is removed over at most
// its first 4096 bytes. (IsSafeLinkTarget and SafeUrl read the whole target.)
//
// SanitizeLinks is idempotent. LinkStreamFilter applies the same policy to text that arrives in
// pieces (a streamed answer): it holds back what the policy cannot decide yet (a possibly unfinished
// link or word), so that the concatenated output equals SanitizeLinks() of the concatenated input for
// every split.
//
// Thread-safety: the functions are pure; a LinkStreamFilter is used by one stream.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace attest {

inline constexpr std::string_view kLinkRemoved = "(link removed)";

// True for http(s), scheme-less (relative, "#fragment", "//host/path") and empty targets.
bool IsSafeLinkTarget(std::string_view target);

// `url` when IsSafeLinkTarget(url), else "" (for metadata URL fields).
std::string SafeUrl(std::string_view url);

std::string SanitizeLinks(std::string_view text);

// SanitizeLinks without its fast paths (the ASCII word scan that skips scheme decoding, the early
// return when the first round changed nothing): the exact oracle the tests and the fuzz target
// compare SanitizeLinks with. Slower; not for the answer path.
std::string SanitizeLinksExhaustive(std::string_view text);

// The script-capable scheme of the first link in `text` ("javascript", "vbscript", "data" with an
// HTML, XML or SVG media type, ...), or "" when none. Used by the injection screen.
std::string ScriptLinkScheme(std::string_view text);

// SanitizeLinks runs its passes (links, tags and bare URLs; then bare URLs again) in up to 9 rounds,
// until nothing changes. The filter runs each pass as a stage over what it has received: a stage
// passes on the output of every position its rule can decide and holds the rest, so the streamed text
// equals SanitizeLinks() of the whole for every split. A rule decides within about 8 KiB of
// look-ahead, so a stage never holds more than that of its own input: ordinary text is held back by
// a word, an open link until it closes or 8 KiB follow, and, at worst (text that keeps opening links
// it never closes, which every round decides again), about 9 x 8 KiB in all.
class LinkStreamFilter {
 public:
  LinkStreamFilter();
  // Returns the sanitized text that can be shown now (possibly empty).
  std::string Feed(std::string_view delta);
  // Returns the rest. The filter is empty afterwards and can be reused.
  std::string Flush();

 private:
  struct Stage {
    std::string held;  // the last bytes passed on (held[0, from)), then the input not decided yet
    size_t from = 0;
  };
  std::string Run(std::string text, bool last);
  std::vector<Stage> stages_;
};

}  // namespace attest
