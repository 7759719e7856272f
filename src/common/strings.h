// String helpers shared across the pipeline: trimming, whitespace collapsing, ASCII lower case. Byte-oriented
// (UTF-8 passes through untouched, apart from U+00A0 where asked). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// The ASCII whitespace bytes: space, tab, line feed, vertical tab, form feed, carriage return.
inline constexpr std::string_view kAsciiWhitespace = " \t\n\v\f\r";
// HTTP's optional whitespace (RFC 9110, section 5.6.3): space and tab only.
inline constexpr std::string_view kHttpWhitespace = " \t";

// `s` without its leading and trailing bytes that are in `chars` (ASCII whitespace by default).
std::string_view Trim(std::string_view s, std::string_view chars = kAsciiWhitespace);

// `s` with ASCII letters lower-cased (other bytes, UTF-8 included, unchanged; no locale).
std::string AsciiLower(std::string_view s);

// The value of a hexadecimal digit (0-9, a-f, A-F), or -1 for any other character.
int HexDigitValue(char c);

// Whether CollapseWhitespace treats U+00A0 (no-break space) as whitespace.
enum class Nbsp {
  kKeep,      // U+00A0 is text: kept as is (the chunker and the planner see exactly what was written)
  kAsSpace,   // U+00A0 is whitespace (parsed source text, where &nbsp; is layout)
};

// Collapses every run of ASCII whitespace (and of U+00A0 with Nbsp::kAsSpace) into one space and
// trims both ends.
std::string CollapseWhitespace(std::string_view s, Nbsp nbsp);

}  // namespace attest
