// Strips Markdown inline markup from one block of text: emphasis delimiters are removed, links
// become their text, images their alt text, inline code keeps its content verbatim, autolinks
// keep their address, raw HTML tags and comments are dropped, backslash escapes and common
// character references are decoded, and whitespace is collapsed. Linear-time on any input
// (bracket and backtick matching are precomputed; nesting is bounded). Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace attest {

std::string StripMarkdownInline(std::string_view text);

}  // namespace attest
