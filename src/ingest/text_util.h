// Small string helpers shared by the ingestion parsers (trimming and whitespace collapsing are in
// common/strings.h). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attest::ingest {

// Offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF), or nullopt when `s` is valid. When `allow_truncated_tail`
// is set, an incomplete sequence cut off by the end of `s` is accepted (for sniffing a prefix).
std::optional<size_t> FindInvalidUtf8(std::string_view s, bool allow_truncated_tail = false);

// `s` with every byte that is not part of well-formed UTF-8 replaced by U+FFFD (the text of a
// parser that may emit invalid bytes, e.g. gumbo for an overflowing numeric character reference).
std::string ReplaceInvalidUtf8(std::string_view s);

// Offset of the first NUL byte, or nullopt.
std::optional<size_t> FindNul(std::string_view s);

bool IsAsciiSpace(char c);
// True when `s` has an ASCII letter or digit or a non-ASCII character (a cheap "has words"; the
// chunker's ICU word count decides in the end).
bool HasWordCharacter(std::string_view s);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix);

// Splits text into paragraphs on blank (whitespace-only) lines; each paragraph's lines are
// trimmed and joined with single spaces. Empty paragraphs are dropped.
std::vector<std::string> SplitParagraphs(std::string_view text);

// Lower-cased host of an absolute http(s) URL ("https://User@Docs.Example.com:443/x" ->
// "docs.example.com"), or "" when `url` is not an absolute http(s) URL with a host.
std::string UrlHost(std::string_view url);

// Removes a leading UTF-8 byte order mark.
std::string_view StripBom(std::string_view s);

}  // namespace attest::ingest
