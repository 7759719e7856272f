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
Snippet MakeSnippet(std::string_view text, const std::unordered_set<std::string>& query_terms,
                    const Analyzer& analyzer, size_t max_words);

}  // namespace attest
