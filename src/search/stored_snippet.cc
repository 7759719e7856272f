#include "search/stored_snippet.h"

#include <algorithm>

#include "lexical/segment_impl.h"

namespace attest {

HitSnippets::HitSnippets(const std::vector<SegmentView>& segments, const std::unordered_set<std::string>& query_terms,
                         const Analyzer& analyzer, size_t max_words)
    : segments_(segments), query_terms_(query_terms), analyzer_(analyzer), max_words_(max_words),
      sorted_terms_(query_terms.begin(), query_terms.end()), per_segment_(segments.size()) {
  std::sort(sorted_terms_.begin(), sorted_terms_.end());
}

Snippet HitSnippets::Make(ChunkId chunk, std::string_view text) {
  for (size_t i = 0; i < segments_.size() && !text.empty(); ++i) {
    const SegmentView& view = segments_[i];
    const std::optional<LocalDoc> local = view.segment->local_of(chunk);
    if (!local || (view.deleted && view.deleted->Test(*local))) continue;
    const SegmentImpl& seg = view.segment->impl();
    if (!seg.has_body_tokens()) break;
    SegmentTerms& st = per_segment_[i];
    if (!st.resolved) {
      for (size_t q = 0; q < sorted_terms_.size(); ++q) {
        if (auto index = seg.FindTermIndex(sorted_terms_[q])) st.terms.emplace_back(*index, static_cast<int32_t>(q));
      }
      std::sort(st.terms.begin(), st.terms.end());
      st.resolved = true;
    }
    tokens_.clear();
    const bool ok = seg.ForEachBodyToken(*local, [&](uint32_t term, uint32_t start, uint32_t end) {
      const auto at = std::lower_bound(st.terms.begin(), st.terms.end(), std::make_pair(term, int32_t{-1}));
      tokens_.push_back({start, end, at != st.terms.end() && at->first == term ? at->second : -1});
    });
    // The stored tokens were taken from this very text at ingest; a stream that does not fit it
    // (a damaged file opened without deep checks) is not trusted: the text is analysed instead.
    if (!ok || !InTextBounds(text, tokens_)) break;
    ++from_stored_;
    return SnippetFromTokens(text, tokens_, max_words_);
  }
  ++analysed_;
  return MakeSnippet(text, query_terms_, analyzer_, max_words_);
}

}  // namespace attest
