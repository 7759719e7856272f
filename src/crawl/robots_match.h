// The matching half of robots.txt (RFC 9309 §2.2.2, §2.2.3): how a rule's path pattern and a URL's
// path are brought to one octet form, and whether a pattern matches a path.
//
// Normal form (both sides, so that equal resources compare equal octet by octet):
// - an octet outside printable US-ASCII (non-ASCII UTF-8, controls, space) is percent-encoded;
// - a percent-escape of an unreserved character (RFC 3986 §2.3: ALPHA DIGIT - . _ ~) is decoded,
//   so "/%62%61%7A" and "/baz" are the same path (the RFC's own example);
// - any other percent-escape keeps its encoding with upper-case hex ("%2f" -> "%2F"), so an encoded
//   reserved character ("%2F", "%3F") stays distinct from the raw one ("/", "?");
// - a '%' not followed by two hex digits is the octet '%' itself and becomes "%25" (which keeps
//   the normal form idempotent: "%%62" is "%25b", not "%b" that a second pass would read as 0xB1);
// - everything else is kept as is.
// In a pattern, '*' (any run of octets) and a final '$' (end of the path) are special; an encoded
// "%2A" or "%24" is a literal star or dollar. A '$' that is not the last octet is a literal '$'.
//
// Matching is anchored at the path's start; without '$' a pattern matches every path it is a
// prefix of (after '*' expansion). The cost is O(pattern × path) octets at worst.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attest {

// The normal form of a URL path (with its query) for matching. "" becomes "/".
std::string NormalizeRobotsPath(std::string_view path_and_query);

// The normal form of an allow/disallow value; '*' and '$' are kept as the special characters.
std::string NormalizeRobotsPattern(std::string_view pattern);

// Whether `pattern` (normal form) matches `path` (normal form) from the path's first octet.
bool RobotsPatternMatches(std::string_view pattern, std::string_view path);

// The path and query of a URL: when it has a scheme ("https://h/a/b?q#f") the scheme and authority
// are dropped; the fragment is always dropped; the result starts with '/' ("" -> "/").
std::string RobotsPathOf(std::string_view url);

}  // namespace attest
