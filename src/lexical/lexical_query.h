// The lexical query model, its parser and the BM25 parameters (the filter: filter/chunk_filter.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/strong_id.h"
#include "filter/chunk_filter.h"

namespace attest {

class Analyzer;

enum class Occur : uint8_t { kShould, kMust, kMustNot };

// One clause: a single term, or a phrase of analyzed terms at relative positions
// (gaps where the analyzer dropped stopwords). Phrases match consecutive positions in one field.
struct QueryClause {
  Occur occur = Occur::kShould;
  std::vector<std::string> terms;
  std::vector<uint32_t> positions;  // relative position of each term; size() == terms.size()
  bool phrase = false;
};

// Semantics: a chunk matches when it satisfies every kMust clause, no kMustNot clause, and at least
// one kShould clause if there is no kMust clause. Quoted phrases written without a sign are kMust
// ("what you quote must appear"). The score is the BM25 sum over the distinct terms of all
// kShould and kMust clauses, each weighted by how many times it occurs in them (query term
// frequency); kMustNot terms never score.
struct LexicalQuery {
  std::vector<QueryClause> clauses;
  bool empty() const { return clauses.empty(); }
};

// Parses `"phrase"`, `+term`, `-term`, `+"phrase"`, `-"phrase"` and plain words. Bare words are
// analyzed with `analyzer`; a word that analyzes to several terms (an identifier and its parts)
// contributes them as kShould terms, except under +/- where the whole identifier is the term.
// Fails with kInvalidArgument for an empty query or one with only excluded clauses.
Result<LexicalQuery> ParseLexicalQuery(std::string_view text, const Analyzer& analyzer);

// BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009) with
// Lucene's IDF, log(1 + (N - df + 0.5) / (df + 0.5)). Defaults k1 = 0.9, b = 0.4 are those of
// Anserini's BEIR regressions (Lin et al., "Pyserini", SIGIR 2021; Anserini BEIR regression docs).
// Fields are combined BM25F-style: tf = sum_f w_f * tf_f and dl = sum_f w_f * len_f.
struct Bm25Params {
  float k1 = 0.9f;
  float b = 0.4f;
  std::array<float, 4> field_weights{1.0f, 1.0f, 1.0f, 1.0f};  // title, section, body, term
};

struct ScoredChunk {
  ChunkId id;
  float score = 0;
  bool operator==(const ScoredChunk&) const = default;
};

}  // namespace attest
