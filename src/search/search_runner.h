// Runs one lexical search on a pinned snapshot: parse the query, translate the caller's filter,
// take the exact BM25 top-k (filters inside the traversal), collapse chunks to documents, and
// attach metadata and highlighted snippets.
#pragma once

#include "attest/engine.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {

struct LexicalFilter;

// Translates the public filter; fails with kInvalidArgument naming the bad field (e.g. a date).
Result<LexicalFilter> TranslateFilter(const SearchFilter& filter);

Result<SearchResult> RunSearch(const Snapshot& snapshot, const Analyzer& analyzer, const SearchOptions& options);

}  // namespace attest
