#include "search/search_runner.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "common/strings.h"
#include "lexical/lexical_query.h"
#include "lexical/lexical_searcher.h"
#include "vector/vector_leg.h"
#include "search/format_siblings.h"
#include "search/fusion.h"
#include "search/snippet.h"
#include "search/stored_snippet.h"
#include "store/access_attributes.h"
#include "text/stopwords.h"
#include "vector/vector_searcher.h"

namespace attest {
namespace {

constexpr size_t kMaxK = 10000;

Result<std::optional<int32_t>> ParseDateField(const std::optional<std::string>& text, const char* field) {
  if (!text) return std::optional<int32_t>();
  auto d = ParseDate(*text);
  if (!d) return Status::InvalidArgument(std::string(field) + ": '" + *text + "' is not a date (use YYYY-MM-DD)");
  return std::optional<int32_t>(*d);
}

// When hits are whole documents, `-x` excludes documents that contain x anywhere, not only the
// chunks that do (a document whose best chunk lacks x but whose next chunk has it is not shown).
// The chunks matching any excluded clause are all retrieved (exactly: k = every chunk) under the
// same filter, and their documents collected.
Result<std::unordered_set<DocNum>> ExcludedDocuments(const Snapshot& snapshot, const LexicalQuery& query,
                                                     const LexicalSearchArgs& base, const SearchOptions& options) {
  std::unordered_set<DocNum> docs;
  if (!options.collapse_documents) return docs;
  LexicalQuery excluded;
  for (const QueryClause& c : query.clauses) {
    if (c.occur != Occur::kMustNot) continue;
    QueryClause positive = c;
    positive.occur = Occur::kShould;
    excluded.clauses.push_back(std::move(positive));
  }
  if (excluded.empty()) return docs;
  LexicalSearchArgs args = base;
  args.query = &excluded;
  args.k = std::max<uint64_t>(1, snapshot.lexical().num_docs());
  std::vector<ChunkId> ids;
  for (const ScoredChunk& c : snapshot.lexical().TopK(args)) ids.push_back(c.id);
  ATTEST_ASSIGN_OR_RETURN(std::vector<DocNum> doc_of, snapshot.DocumentsOf(ids));
  docs.insert(doc_of.begin(), doc_of.end());
  return docs;
}

// The ranked unit of a search: DocNum when hits are whole documents (SearchOptions::
// collapse_documents), ChunkId when they are chunks.
template <typename Key>
constexpr bool kCollapses = std::is_same_v<Key, DocNum>;

template <typename Key>
Key KeyOf(DocNum doc, ChunkId chunk) {
  static_assert(std::is_same_v<Key, DocNum> || std::is_same_v<Key, ChunkId>);
  if constexpr (kCollapses<Key>) {
    return doc;
  } else {
    return chunk;
  }
}

// One leg's ranked candidates (documents or chunks) with the chunk that represents each candidate.
template <typename Key>
struct LegResult {
  std::vector<LegCandidate<Key>> ranked;
  std::unordered_map<Key, ChunkId> best_chunk;
  std::unordered_map<Key, DocNum> doc_of;
};

// Collapses a chunk ranking to at most `want` candidates, skipping excluded documents.
template <typename Key>
Status Collapse(const Snapshot& snapshot, const std::vector<ScoredChunk>& chunks, size_t want,
                const std::unordered_set<DocNum>& excluded_docs, LegResult<Key>* out) {
  std::vector<ChunkId> ids;
  ids.reserve(chunks.size());
  for (const auto& c : chunks) ids.push_back(c.id);
  ATTEST_ASSIGN_OR_RETURN(std::vector<DocNum> doc_of, snapshot.DocumentsOf(ids));
  *out = LegResult<Key>{};
  for (size_t i = 0; i < chunks.size() && out->ranked.size() < want; ++i) {
    if (excluded_docs.count(doc_of[i])) continue;
    const Key key = KeyOf<Key>(doc_of[i], chunks[i].id);
    if (out->best_chunk.emplace(key, chunks[i].id).second) {
      out->ranked.push_back(LegCandidate<Key>{key, chunks[i].score});
      out->doc_of.emplace(key, doc_of[i]);
    }
  }
  return Status::Ok();
}

// The first chunk window of a leg that must find `want` candidates: `want` chunks when each chunk is
// a candidate; three times as many when chunks collapse to documents or excluded documents drop some.
// A leg whose window does not change its results (the lexical one: exact top-k) sizes a collapsing
// window by the corpus's chunks per document instead (x1.5, at most x3): a smaller top-k prunes more.
size_t FirstWindow(size_t want, bool collapses, bool excludes, double chunks_per_document) {
  if (excludes || (collapses && chunks_per_document <= 0)) return std::max<size_t>(want * 3, 30);
  if (!collapses) return want;
  const double factor = std::min(3.0, 1.5 * std::max(1.0, chunks_per_document));
  return std::max<size_t>(static_cast<size_t>(std::ceil(static_cast<double>(want) * factor)), 30);
}

// Widens a leg's chunk window from `window` until `want` candidates are found or the matches run
// out. The first `want` distinct documents of an exact chunk ranking are exactly the top documents by
// best chunk, whatever the first window.
template <typename Key, typename TopFn>
Result<LegResult<Key>> RunLeg(const Snapshot& snapshot, size_t want, size_t window,
                              const std::unordered_set<DocNum>& excluded_docs, TopFn top) {
  LegResult<Key> leg;
  for (;;) {
    std::vector<ScoredChunk> chunks = top(window);
    ATTEST_RETURN_IF_ERROR(Collapse(snapshot, chunks, want, excluded_docs, &leg));
    if (leg.ranked.size() >= want || chunks.size() < window || window >= kMaxK * 4) break;
    window *= 4;
  }
  return leg;
}

bool HasLexicalConstraints(const LexicalQuery& query) {
  for (const QueryClause& c : query.clauses) {
    if (c.occur == Occur::kMust || c.phrase) return true;
  }
  return false;
}

// A hit before its metadata is attached: the chunk shown, its document, and the fusion's explanation.
struct RankedHit {
  ChunkId chunk;
  DocNum doc;
  float fused = 0;
  uint32_t lexical_rank = 0;
  float lexical_score = 0;
  uint32_t vector_rank = 0;
  float vector_score = 0;
};

// Reads the records of the documents of `hits` that `docs` does not hold yet, in one catalog pass.
Status ReadDocuments(const Snapshot& snapshot, std::span<const RankedHit> hits,
                     std::unordered_map<DocNum, DocumentRecord>* docs) {
  std::vector<DocNum> want;
  for (const RankedHit& h : hits) {
    if (!docs->count(h.doc) && std::find(want.begin(), want.end(), h.doc) == want.end()) want.push_back(h.doc);
  }
  ATTEST_ASSIGN_OR_RETURN(std::vector<DocumentRecord> got, snapshot.GetDocuments(want));
  for (size_t i = 0; i < want.size(); ++i) docs->emplace(want[i], std::move(got[i]));
  return Status::Ok();
}

// Shows a document published in several formats once (search/format_siblings.h): a sibling ranked
// below another of its stem is dropped, and the preferred format takes the better rank with its
// own best chunk. Keeps at most k hits; `docs` caches the records of the hits' documents.
Status FoldFormatSiblings(const Snapshot& snapshot, size_t k, std::vector<RankedHit>* hits,
                          std::unordered_map<DocNum, DocumentRecord>* docs) {
  std::vector<RankedHit> out;
  std::unordered_map<std::string, std::pair<size_t, uint8_t>> seen;  // stem -> (index in out, preference)
  // The first k hits are read together; hits past them only when siblings were folded away.
  ATTEST_RETURN_IF_ERROR(
      ReadDocuments(snapshot, std::span<const RankedHit>(*hits).first(std::min(k, hits->size())), docs));
  for (const RankedHit& h : *hits) {
    if (out.size() >= k) break;
    auto it = docs->find(h.doc);
    if (it == docs->end()) {
      ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, snapshot.GetDocument(h.doc));
      it = docs->emplace(h.doc, std::move(d)).first;
    }
    std::optional<FormatSibling> sibling = FormatSiblingOf(it->second.id);
    if (!sibling) {
      out.push_back(h);
      continue;
    }
    auto [pos, inserted] = seen.emplace(sibling->stem, std::make_pair(out.size(), sibling->preference));
    if (inserted) {
      out.push_back(h);
    } else if (sibling->preference < pos->second.second) {
      RankedHit& kept = out[pos->second.first];
      kept.chunk = h.chunk;
      kept.doc = h.doc;
      pos->second.second = sibling->preference;
    }
  }
  *hits = std::move(out);
  return Status::Ok();
}

}  // namespace

std::string NameWords(std::string_view text) {
  std::string out;
  int depth = 0;
  bool gap = false;
  for (const char ch : text) {
    if (ch == '(') ++depth;
    if (ch == ')' && depth > 0) {
      --depth;
      continue;
    }
    if (depth > 0) continue;
    const unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '_' || c >= 0x80) {
      if (gap && !out.empty()) out.push_back(' ');
      gap = false;
      out.push_back(static_cast<char>(std::tolower(c)));
    } else {
      gap = true;
    }
  }
  return out;
}

namespace {

// A name query finds the page titled by the name first: documents whose title is the query's
// name ("git-commit(1)" for "git commit", "CREATE INDEX") move ahead of the others, in their own
// order, with the best score. `docs` holds the records of every hit (FoldFormatSiblings).
Status PromoteTitledByName(const Snapshot& snapshot, std::string_view query, std::vector<RankedHit>* hits,
                           std::unordered_map<DocNum, DocumentRecord>* docs) {
  const std::string name = NameWords(query);
  if (name.empty() || hits->empty()) return Status::Ok();
  std::vector<RankedHit> named, rest;
  for (const RankedHit& h : *hits) {
    auto it = docs->find(h.doc);
    if (it == docs->end()) {
      ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, snapshot.GetDocument(h.doc));
      it = docs->emplace(h.doc, std::move(d)).first;
    }
    (NameWords(it->second.title) == name ? named : rest).push_back(h);
  }
  if (named.empty()) return Status::Ok();
  const float top = hits->front().fused;
  for (RankedHit& h : named) h.fused = std::max(h.fused, top);
  named.insert(named.end(), rest.begin(), rest.end());
  *hits = std::move(named);
  return Status::Ok();
}

// What the legs of one search share.
struct LegContext {
  const Snapshot& snapshot;
  const SearchOptions& options;
  const VectorLegInput& vector;
  LexicalSearchArgs& args;  // the lexical leg sets `k` per window
  const std::unordered_set<DocNum>& excluded_docs;
  size_t depth = 0;          // candidates per leg
  bool use_lexical = false;
  bool use_vector = false;
  bool constrained = false;  // the vector leg only re-ranks the lexical leg's candidates
};

// Runs the legs with `Key` as the ranked unit, fuses them (or takes the one leg) and keeps the top
// k. A failed vector leg in auto mode degrades `result` to BM25.
template <typename Key>
Result<std::vector<RankedHit>> RankHits(const LegContext& ctx, SearchResult* result) {
  const Snapshot& snapshot = ctx.snapshot;
  const SearchOptions& options = ctx.options;
  const VectorLegInput& vector = ctx.vector;
  const VectorView* view = vector.view;
  LexicalSearchArgs& args = ctx.args;
  const size_t depth = ctx.depth;
  const bool use_lexical = ctx.use_lexical;
  const bool use_vector = ctx.use_vector;
  const bool constrained = ctx.constrained;
  const std::unordered_set<DocNum>& excluded_docs = ctx.excluded_docs;
  SearchMode mode = result->mode;

  // The vector leg runs concurrently with the lexical one, unless it must wait for the lexical
  // candidates (constrained queries): then it scores exactly the chunks the lexical leg found.
  auto run_vector = [&](const LegResult<Key>* rerank) -> Result<LegResult<Key>> {
    ATTEST_ASSIGN_OR_RETURN(std::vector<float> q, vector.embed_query(VectorQueryText(options.query)));
    if (rerank) {
      std::vector<ChunkId> ids;
      for (const auto& c : rerank->ranked) ids.push_back(rerank->best_chunk.at(c.key));
      LegResult<Key> leg;
      ATTEST_RETURN_IF_ERROR(
          Collapse(snapshot, ScoreChunks(view->segments, q.data(), ids), depth, excluded_docs, &leg));
      return leg;
    }
    // (An approximate vector search explores more with a larger k: its first window stays x3.)
    const size_t first = FirstWindow(depth, kCollapses<Key>, !excluded_docs.empty(), /*chunks_per_document=*/0);
    return RunLeg<Key>(snapshot, depth, first, excluded_docs, [&](size_t window) {
      VectorLegArgs va;
      va.query = q.data();
      va.k = window;
      va.filter = &args.filter;
      return SearchVectors(view->segments, va);
    });
  };
  std::future<Result<LegResult<Key>>> vector_future;
  if (use_vector && !constrained && vector.pool) {
    vector_future = vector.pool->Submit([&] { return run_vector(nullptr); });
  }
  LegResult<Key> lexical;
  if (use_lexical) {
    const size_t first =
        FirstWindow(depth, kCollapses<Key>, !excluded_docs.empty(), snapshot.chunks_per_document());
    auto lex = RunLeg<Key>(snapshot, depth, first, excluded_docs, [&](size_t window) {
      args.k = window;
      return snapshot.lexical().TopK(args);
    });
    if (!lex.ok()) {
      if (vector_future.valid()) vector_future.wait();
      return lex.status();
    }
    lexical = std::move(lex).value();
  }
  LegResult<Key> vec;
  if (use_vector) {
    Result<LegResult<Key>> r = Status::Ok();
    if (vector_future.valid()) {
      r = vector_future.get();
    } else if (constrained) {
      r = run_vector(&lexical);
    } else {
      r = run_vector(nullptr);
    }
    if (r.ok()) {
      vec = std::move(r).value();
    } else if (options.mode == SearchMode::kAuto) {
      // Auto mode degrades to BM25 (e.g. the embedding server is down) and says so.
      result->notices.push_back("vector leg failed, BM25 only: " + r.status().ToString());
      result->degraded.push_back("vector_leg_failed: " + r.status().message());
      mode = result->mode = SearchMode::kBm25;
      result->embedder.clear();
    } else {
      return r.status().WithContext("vector leg");
    }
  }

  // Fuse (or take the one leg), then keep the top k.
  std::vector<FusedCandidate<Key>> fused;
  if (mode == SearchMode::kHybrid) {
    fused = Fuse(lexical.ranked, vec.ranked, options.fusion);
  } else {
    const LegResult<Key>& only = use_lexical ? lexical : vec;
    for (size_t i = 0; i < only.ranked.size(); ++i) {
      FusedCandidate<Key> c{.key = only.ranked[i].key, .fused = only.ranked[i].score};
      if (use_lexical) {
        c.lexical_rank = static_cast<uint32_t>(i + 1), c.lexical_score = only.ranked[i].score;
      } else {
        c.vector_rank = static_cast<uint32_t>(i + 1), c.vector_score = only.ranked[i].score;
      }
      fused.push_back(c);
    }
  }
  // Whole documents keep a margin for the format siblings that FoldFormatSiblings() removes.
  const size_t keep = options.k + (kCollapses<Key> ? FoldingMargin(options.k) : 0);
  if (fused.size() > keep) fused.resize(keep);

  // The chunk shown for each hit: the lexical leg's best chunk when it has one (its snippet shows
  // the query terms), else the vector leg's.
  std::vector<RankedHit> out;
  out.reserve(fused.size());
  for (const FusedCandidate<Key>& c : fused) {
    const LegResult<Key>& shown = lexical.best_chunk.count(c.key) ? lexical : vec;
    out.push_back(RankedHit{.chunk = shown.best_chunk.at(c.key),
                            .doc = shown.doc_of.at(c.key),
                            .fused = c.fused,
                            .lexical_rank = c.lexical_rank,
                            .lexical_score = c.lexical_score,
                            .vector_rank = c.vector_rank,
                            .vector_score = c.vector_score});
  }
  return out;
}

}  // namespace

size_t FoldingMargin(size_t k) { return std::min<size_t>(k, 10); }

std::string VectorQueryText(std::string_view text) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  std::string out;
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    while (i < n && space(text[i])) ++i;
    if (i >= n) break;
    bool excluded = false;
    if ((text[i] == '+' || text[i] == '-') && i + 1 < n && !space(text[i + 1])) {
      excluded = text[i] == '-';
      ++i;
    }
    std::string_view piece;
    if (text[i] == '"') {
      const size_t close = text.find('"', i + 1);
      const size_t end = close == std::string_view::npos ? n : close;
      piece = text.substr(i + 1, end - i - 1);
      i = close == std::string_view::npos ? n : close + 1;
    } else {
      size_t j = i;
      while (j < n && !space(text[j]) && text[j] != '"') ++j;
      piece = text.substr(i, j - i);
      i = j;
    }
    if (excluded || piece.empty()) continue;
    if (!out.empty()) out.push_back(' ');
    out.append(piece);
  }
  return out;
}

const char* SearchModeName(SearchMode mode) {
  switch (mode) {
    case SearchMode::kAuto: return "auto";
    case SearchMode::kBm25: return "bm25";
    case SearchMode::kVector: return "vector";
    case SearchMode::kHybrid: return "hybrid";
  }
  return "auto";
}

Result<ChunkFilter> TranslateFilter(const SearchFilter& f) {
  ChunkFilter out;
  out.tenant = f.tenant;
  out.groups = f.groups;
  out.labels = f.labels;
  // A clearance the engine did not resolve admits nothing: never fall open to every label.
  if (f.clearance && !f.labels) out.labels = std::vector<std::string>{};
  out.source_types = f.source_types;
  out.sites = f.sites;
  out.versions = f.versions;
  ATTEST_ASSIGN_OR_RETURN(out.date_from, ParseDateField(f.date_from, "date_from"));
  ATTEST_ASSIGN_OR_RETURN(out.date_to, ParseDateField(f.date_to, "date_to"));
  if (out.date_from && out.date_to && *out.date_from > *out.date_to) {
    return Status::InvalidArgument("date_from is after date_to");
  }
  return out;
}


Result<SearchResult> RunSearch(const Snapshot& snapshot, const Analyzer& analyzer, const SearchOptions& options,
                               const VectorLegInput& vector, const ShardScoring& shard) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.k == 0 || options.k > kMaxK) {
    return Status::InvalidArgument("k must be between 1 and " + std::to_string(kMaxK));
  }
  if (options.fusion.vector_weight < 0 || options.fusion.vector_weight > 1 ||
      !(options.fusion.vector_weight == options.fusion.vector_weight)) {
    return Status::InvalidArgument("vector_weight must be between 0 and 1");
  }
  if (options.fusion.rrf_k == 0) return Status::InvalidArgument("rrf_k must be at least 1");
  ATTEST_ASSIGN_OR_RETURN(LexicalQuery query, ParseLexicalQuery(options.query, analyzer));
  LexicalSearchArgs args;
  args.query = &query;
  ATTEST_ASSIGN_OR_RETURN(args.filter, TranslateFilter(options.filter));
  args.global = shard.global;
  args.bm25.field_weights = {options.title_weight, options.section_weight, options.body_weight, options.term_weight};
  if (options.name_query_title_weight > 0 && IsNameQuery(options.query)) {
    args.bm25.field_weights[0] = options.name_query_title_weight;
    args.bm25.field_weights[1] = options.name_query_section_weight;
  }

  SearchResult result;
  result.snapshot_version = snapshot.version().get();

  // Resolve the mode.
  const VectorView* view = vector.view;
  const bool vectors_ready = view && view->covered_docs > 0;
  SearchMode mode = options.mode;
  if (mode == SearchMode::kAuto) {
    mode = vectors_ready ? SearchMode::kHybrid : SearchMode::kBm25;
    if (!view) {
      result.notices.push_back(vector.unavailable.empty() ? "no embedder is active yet: BM25 only"
                                                          : "vector leg unavailable, BM25 only: " + vector.unavailable);
      if (!vector.unavailable.empty()) result.degraded.push_back("vector_leg_unavailable: " + vector.unavailable);
    }
  } else if ((mode == SearchMode::kVector || mode == SearchMode::kHybrid) && !vectors_ready) {
    return Status::InvalidArgument(std::string(SearchModeName(mode)) +
                                   " search needs an active embedder with vectors: ingest more text or run "
                                   "`attest reembed`");
  }
  if (vectors_ready && mode != SearchMode::kBm25 && view->covered_docs < view->total_docs) {
    result.notices.push_back("the vector leg covers " + std::to_string(view->covered_docs) + " of " +
                             std::to_string(view->total_docs) + " chunks (vectors of new segments are being built)");
  }
  result.mode = mode;
  const bool use_lexical = mode != SearchMode::kVector;
  const bool use_vector = mode != SearchMode::kBm25;
  if (use_vector) result.embedder = view->identity;
  const size_t depth = mode == SearchMode::kHybrid
                           ? std::max(options.k, options.candidates ? options.candidates : std::max<size_t>(100, 2 * options.k))
                           : options.k + (options.collapse_documents ? FoldingMargin(options.k) : 0);
  ATTEST_ASSIGN_OR_RETURN(std::unordered_set<DocNum> excluded_docs, ExcludedDocuments(snapshot, query, args, options));
  LegContext legs{.snapshot = snapshot,
                  .options = options,
                  .vector = vector,
                  .args = args,
                  .excluded_docs = excluded_docs,
                  .depth = depth,
                  .use_lexical = use_lexical,
                  .use_vector = use_vector,
                  .constrained = mode == SearchMode::kHybrid && HasLexicalConstraints(query)};
  Result<std::vector<RankedHit>> ranked =
      options.collapse_documents ? RankHits<DocNum>(legs, &result) : RankHits<ChunkId>(legs, &result);
  ATTEST_RETURN_IF_ERROR(ranked.status());
  std::vector<RankedHit> fused = std::move(ranked).value();
  std::unordered_map<DocNum, DocumentRecord> docs;
  // Equal scores among the first k in document id order, as a cluster's merge orders them; which
  // hits make the first k stays the legs' choice.
  if (!shard.raw_ranking) {
    const size_t top = std::min(fused.size(), options.k);
    std::vector<RankedHit> tied;  // only their documents are read for it
    for (size_t i = 1; i < top; ++i) {
      if (fused[i].fused == fused[i - 1].fused) tied.insert(tied.end(), {fused[i - 1], fused[i]});
    }
    ATTEST_RETURN_IF_ERROR(ReadDocuments(snapshot, tied, &docs));
    std::stable_sort(fused.begin(), fused.begin() + top, [&docs](const RankedHit& a, const RankedHit& b) {
      return a.fused != b.fused ? a.fused > b.fused : docs.at(a.doc).id < docs.at(b.doc).id;
    });
  }
  if (options.collapse_documents && !shard.raw_ranking) {
    ATTEST_RETURN_IF_ERROR(FoldFormatSiblings(snapshot, options.k, &fused, &docs));
  }
  if (options.collapse_documents && !shard.raw_ranking && options.name_query_title_first && options.name_query_title_weight > 0 &&
      IsNameQuery(options.query)) {
    ATTEST_RETURN_IF_ERROR(PromoteTitledByName(snapshot, options.query, &fused, &docs));
  }
  std::vector<ChunkId> picked_ids;
  for (const RankedHit& h : fused) picked_ids.push_back(h.chunk);
  std::vector<ChunkRecord> records;
  if (options.with_snippets) {
    ATTEST_ASSIGN_OR_RETURN(records, snapshot.GetChunks(picked_ids));
  }
  if (options.with_snippets && records.size() != picked_ids.size()) {
    return Status::Internal("index and catalog disagree at snapshot " + std::to_string(result.snapshot_version) +
                            ": " + std::to_string(picked_ids.size() - records.size()) + " chunk(s) missing");
  }

  std::unordered_set<std::string> query_terms;
  for (const auto& clause : query.clauses) {
    if (clause.occur == Occur::kMustNot) continue;
    query_terms.insert(clause.terms.begin(), clause.terms.end());
  }
  HitSnippets snippets(snapshot.segments(), query_terms, analyzer, options.snippet_words);
  ATTEST_RETURN_IF_ERROR(ReadDocuments(snapshot, fused, &docs));
  for (size_t n = 0; n < fused.size(); ++n) {
    const DocumentRecord& d = docs.at(fused[n].doc);
    // The legs admitted the chunk by the segment's copy of its access; the row shown must agree.
    // Checked for every hit shown, whether its record was read here or earlier (format siblings,
    // name queries read records before this loop).
    ATTEST_RETURN_IF_ERROR(CheckAccessAttributes(snapshot.segments(), d, std::span<const ChunkId>(&picked_ids[n], 1)));
    SearchHit hit;
    hit.doc_id = d.id;
    hit.chunk_id = picked_ids[n];
    hit.score = fused[n].fused;
    hit.lexical_rank = fused[n].lexical_rank;
    hit.lexical_score = fused[n].lexical_score;
    hit.vector_rank = fused[n].vector_rank;
    hit.vector_score = fused[n].vector_score;
    hit.title = d.title;
    hit.url = d.url;
    hit.site = d.site;
    if (d.published) {
      hit.date = FormatDate(*d.published);
    } else if (d.updated) {
      hit.date = FormatDate(*d.updated);
    }
    hit.version = d.version;
    hit.source_type = d.source_type;
    hit.feed = d.feed;
    hit.license = d.license;
    if (options.with_snippets) {
      const ChunkRecord& c = records[n];
      hit.section = c.section_path;
      Snippet s = snippets.Make(c.id, c.text);
      hit.snippet = std::move(s.text);
      hit.highlights = std::move(s.highlights);
    }
    result.hits.push_back(std::move(hit));
  }
  result.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace attest
