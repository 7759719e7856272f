// Query-biased snippets: the window of a chunk's text that covers the most distinct query terms,
// with the byte ranges of matched terms for highlighting.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "attest/engine.h"
#include "text/analyzer.h"

namespace attest {

struct Snippet {
  std::string text;                   // may start/end with "…" when cut
  std::vector<Highlight> highlights;  // sorted, non-overlapping, relative to `text`
};

// `query_terms` are analyzed terms (as produced by Analyzer::Terms). `max_words` bounds the window.
// Analyses `text`, then SnippetFromTokens.
Snippet MakeSnippet(std::string_view text, const std::unordered_set<std::string>& query_terms,
                    const Analyzer& analyzer, size_t max_words);

// One token of the text as the analyzer emitted it: its byte range and which query term it is.
struct SnippetToken {
  uint32_t start = 0, end = 0;  // byte range in the text; start <= end <= text.size()
  int32_t query_term = -1;      // index of the distinct query term it matches, -1 for none
};

// The snippet of `text` from its tokens, in analysis order (the segment's stored body tokens give
// them without analysing the text again; MakeSnippet is the same function over a fresh analysis).
// Tokens outside the text are a caller's error: the caller checks them (InTextBounds).
Snippet SnippetFromTokens(std::string_view text, const std::vector<SnippetToken>& tokens, size_t max_words);
bool InTextBounds(std::string_view text, const std::vector<SnippetToken>& tokens);

}  // namespace attest
