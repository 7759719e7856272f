#include "search/search_runner.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "lexical/lexical_query.h"
#include "lexical/lexical_searcher.h"
#include "search/snippet.h"

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
Result<std::unordered_set<uint64_t>> ExcludedDocuments(const Snapshot& snapshot, const LexicalQuery& query,
                                                       const LexicalSearchArgs& base,
                                                       const SearchOptions& options) {
  std::unordered_set<uint64_t> docs;
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
  for (DocNum d : doc_of) docs.insert(d.get());
  return docs;
}

}  // namespace

Result<LexicalFilter> TranslateFilter(const SearchFilter& f) {
  LexicalFilter out;
  out.tenant = f.tenant;
  out.groups = f.groups;
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

Result<SearchResult> RunSearch(const Snapshot& snapshot, const Analyzer& analyzer, const SearchOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  if (options.k == 0 || options.k > kMaxK) {
    return Status::InvalidArgument("k must be between 1 and " + std::to_string(kMaxK));
  }
  ATTEST_ASSIGN_OR_RETURN(LexicalQuery query, ParseLexicalQuery(options.query, analyzer));
  LexicalSearchArgs args;
  args.query = &query;
  ATTEST_ASSIGN_OR_RETURN(args.filter, TranslateFilter(options.filter));
  args.bm25.field_weights = {options.title_weight, options.section_weight, options.body_weight};

  SearchResult result;
  result.snapshot_version = snapshot.version().get();

  // Chunks in score order; collapsing keeps each document's best chunk. The first k distinct
  // documents of the exact chunk ranking are exactly the top-k documents by best-chunk score, so
  // widen the chunk window until k documents are found or the matches run out.
  std::vector<ScoredChunk> chunks;
  std::vector<size_t> picked;  // indexes into `chunks`
  std::vector<DocNum> picked_docs;
  ATTEST_ASSIGN_OR_RETURN(std::unordered_set<uint64_t> excluded_docs, ExcludedDocuments(snapshot, query, args, options));
  size_t want = options.collapse_documents ? std::max<size_t>(options.k * 3, 30) : options.k;
  for (;;) {
    args.k = want;
    chunks = snapshot.lexical().TopK(args);
    std::vector<ChunkId> ids;
    ids.reserve(chunks.size());
    for (const auto& c : chunks) ids.push_back(c.id);
    ATTEST_ASSIGN_OR_RETURN(std::vector<DocNum> doc_of, snapshot.DocumentsOf(ids));
    picked.clear();
    picked_docs.clear();
    std::unordered_set<uint64_t> seen_docs;
    for (size_t i = 0; i < chunks.size() && picked.size() < options.k; ++i) {
      if (excluded_docs.count(doc_of[i].get())) continue;
      if (!options.collapse_documents || seen_docs.insert(doc_of[i].get()).second) {
        picked.push_back(i);
        picked_docs.push_back(doc_of[i]);
      }
    }
    if (picked.size() >= options.k || chunks.size() < want || want >= kMaxK * 4) break;
    want *= 4;
  }
  // Chunk rows (text, section) only for the hits shown, and only when snippets are wanted.
  std::vector<ChunkId> picked_ids;
  picked_ids.reserve(picked.size());
  for (size_t i : picked) picked_ids.push_back(chunks[i].id);
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
  std::unordered_map<uint64_t, DocumentRecord> docs;
  for (size_t n = 0; n < picked.size(); ++n) {
    const size_t i = picked[n];
    const DocNum doc_num = picked_docs[n];
    auto it = docs.find(doc_num.get());
    if (it == docs.end()) {
      ATTEST_ASSIGN_OR_RETURN(DocumentRecord d, snapshot.GetDocument(doc_num));
      it = docs.emplace(doc_num.get(), std::move(d)).first;
    }
    const DocumentRecord& d = it->second;
    SearchHit hit;
    hit.doc_id = d.id;
    hit.chunk_id = chunks[i].id.get();
    hit.score = chunks[i].score;
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
    if (options.with_snippets) {
      const ChunkRecord& c = records[n];
      hit.section = c.section_path;
      Snippet s = MakeSnippet(c.text, query_terms, analyzer, options.snippet_words);
      hit.snippet = std::move(s.text);
      hit.highlights = std::move(s.highlights);
    }
    result.hits.push_back(std::move(hit));
  }
  result.took_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

}  // namespace attest
