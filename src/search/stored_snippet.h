// Snippets of one search's hits from what ingest stored: a segment of format version 4 keeps each
// chunk's body tokens (term and byte range), so a hit's snippet needs no new analysis of its text,
// only the query terms' dictionary indexes in that segment. A chunk of an older segment (or whose
// stored tokens do not fit its text) is analysed as before: MakeSnippet, the exact oracle of this
// path (tests/search_stored_snippet_test.cc checks that both give the same snippets).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/strong_id.h"
#include "lexical/segment.h"
#include "search/snippet.h"
#include "text/analyzer.h"

namespace attest {

class HitSnippets {
 public:
  // `segments` and `query_terms` must outlive this object.
  HitSnippets(const std::vector<SegmentView>& segments, const std::unordered_set<std::string>& query_terms,
              const Analyzer& analyzer, size_t max_words);

  // The snippet of chunk `chunk`, whose text is `text`.
  Snippet Make(ChunkId chunk, std::string_view text);

  // How many snippets came from stored tokens and how many from a fresh analysis (tests, --explain).
  size_t from_stored() const { return from_stored_; }
  size_t analysed() const { return analysed_; }

 private:
  struct SegmentTerms {
    bool resolved = false;
    std::vector<std::pair<uint32_t, int32_t>> terms;  // (dictionary index, query term number)
  };
  const std::vector<SegmentView>& segments_;
  const std::unordered_set<std::string>& query_terms_;
  const Analyzer& analyzer_;
  size_t max_words_;
  std::vector<std::string_view> sorted_terms_;  // the query terms numbered as MakeSnippet numbers them
  std::vector<SegmentTerms> per_segment_;
  std::vector<SnippetToken> tokens_;
  size_t from_stored_ = 0, analysed_ = 0;
};

}  // namespace attest
