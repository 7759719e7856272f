#include "search/shard_merge.h"

#include <algorithm>
#include <unordered_map>

#include "lexical/lexical_query.h"
#include "search/format_siblings.h"
#include "search/search_runner.h"

namespace attest {
namespace {

struct Ranked {
  SearchHit hit;
  size_t shard = 0;
  size_t position = 0;  // in its shard's ranking
};

void AddOnce(const std::vector<std::string>& from, std::vector<std::string>* to) {
  for (const std::string& s : from) {
    if (std::find(to->begin(), to->end(), s) == to->end()) to->push_back(s);
  }
}

// RunSearch's FoldFormatSiblings over hits: a sibling ranked below another of its stem is dropped,
// and the preferred format takes the better rank (its score and leg ranks) with its own content.
std::vector<SearchHit> FoldSiblings(std::vector<SearchHit> hits, size_t k) {
  std::vector<SearchHit> out;
  std::unordered_map<std::string, std::pair<size_t, uint8_t>> seen;  // stem -> (index in out, preference)
  for (SearchHit& h : hits) {
    if (out.size() >= k) break;
    std::optional<FormatSibling> sibling = FormatSiblingOf(h.doc_id);
    if (!sibling) {
      out.push_back(std::move(h));
      continue;
    }
    auto [pos, inserted] = seen.emplace(sibling->stem, std::make_pair(out.size(), sibling->preference));
    if (inserted) {
      out.push_back(std::move(h));
    } else if (sibling->preference < pos->second.second) {
      SearchHit& kept = out[pos->second.first];
      SearchHit moved = std::move(h);
      moved.score = kept.score;
      moved.lexical_rank = kept.lexical_rank;
      moved.lexical_score = kept.lexical_score;
      moved.vector_rank = kept.vector_rank;
      moved.vector_score = kept.vector_score;
      kept = std::move(moved);
      pos->second.second = sibling->preference;
    }
  }
  return out;
}

// RunSearch's PromoteTitledByName over hits: documents titled by the name query come first, in
// their own order, with at least the best score.
void PromoteTitled(const std::string& query, std::vector<SearchHit>* hits) {
  const std::string name = NameWords(query);
  if (name.empty() || hits->empty()) return;
  std::vector<SearchHit> named, rest;
  const float top = hits->front().score;
  for (SearchHit& h : *hits) (NameWords(h.title) == name ? named : rest).push_back(std::move(h));
  for (SearchHit& h : named) h.score = std::max(h.score, top);
  named.insert(named.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
  *hits = std::move(named);
}

}  // namespace

SearchResult MergeShardRankings(const SearchOptions& options, std::vector<ShardRanking> shards) {
  SearchResult out;
  out.mode = SearchMode::kBm25;
  std::vector<Ranked> all;
  for (size_t s = 0; s < shards.size(); ++s) {
    SearchResult& r = shards[s].result;
    AddOnce(r.notices, &out.notices);
    AddOnce(r.degraded, &out.degraded);
    out.took_ms = std::max(out.took_ms, r.took_ms);
    for (size_t i = 0; i < r.hits.size(); ++i) all.push_back(Ranked{std::move(r.hits[i]), s, i});
  }
  std::stable_sort(all.begin(), all.end(), [](const Ranked& a, const Ranked& b) {
    if (a.hit.score != b.hit.score) return a.hit.score > b.hit.score;
    if (a.hit.doc_id != b.hit.doc_id) return a.hit.doc_id < b.hit.doc_id;
    if (a.shard != b.shard) return a.shard < b.shard;
    return a.position < b.position;
  });
  // What one store's lexical leg keeps before folding: k plus the folding margin (documents), k (chunks).
  const size_t keep = options.k + (options.collapse_documents ? FoldingMargin(options.k) : 0);
  if (all.size() > keep) all.resize(keep);
  std::vector<SearchHit> hits;
  hits.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    SearchHit h = std::move(all[i].hit);
    h.lexical_rank = static_cast<uint32_t>(i + 1);
    hits.push_back(std::move(h));
  }
  if (options.collapse_documents) {
    hits = FoldSiblings(std::move(hits), options.k);
    if (options.name_query_title_first && options.name_query_title_weight > 0 && IsNameQuery(options.query)) {
      PromoteTitled(options.query, &hits);
    }
  }
  if (hits.size() > options.k) hits.resize(options.k);
  out.hits = std::move(hits);
  return out;
}

Result<CorpusCounts> QueryCounts(const Snapshot& snapshot, const Analyzer& analyzer, const SearchOptions& options) {
  ATTEST_ASSIGN_OR_RETURN(LexicalQuery query, ParseLexicalQuery(options.query, analyzer));
  ATTEST_ASSIGN_OR_RETURN(ChunkFilter filter, TranslateFilter(options.filter));
  return snapshot.lexical().Counts(query, filter);
}

}  // namespace attest
