// Reranking and evidence extraction: from the chunks retrieval returned for every sub-query to the
// evidence pack a writer sees (docs/answer.md, "Evidence").
//
//  1. Dedupe: chunks whose documents share a canonical URL or whose texts share a content
//     fingerprint are one source (the most authoritative, then best-ranked, copy is kept).
//  2. Passages: every sentence of every chunk is a candidate passage, scored by its passage
//     features — IDF-weighted coverage of the query terms, proximity of the matched terms, exact
//     phrases, query terms in the title or section, the chunk's vector similarity — times metadata
//     signals: the source tier's weight (source_hierarchy.h), version match against the plan's
//     resolved version, and recency only inside the plan's time scope. Sentences containing an
//     excluded term (a "not X" constraint) are dropped: the post-retrieval check of the constraint.
//     With `rerank` off (deadline), a passage's score is its chunk's retrieval score rank instead.
//     A sentence's subject is the subject of the chunk span holding it (a definition term, a table
//     row header), else the chunk's innermost heading; a sentence is cut where the span subject
//     changes, so a passage never straddles two entries. Relevance (evidence/relevance.h) scales
//     the score: the question's subject (x1.6 as the sentence's subject, times 1 + the share of the
//     question's terms in the title and section: the page the question names; x1.2 mentioned), another
//     subject's entry (x0.35, x0.7 when it mentions the question's subject), the focus answered
//     (x1.4, not inside another entry), the entry's first sentence for a definition (x1.3), a
//     sentence that is only the entry's term (x0.5).
//  3. Packing: greedy by score into a word budget, at most `per_source` passages per document and
//     `per_site` documents per site, one passage per text and document (the same sentence in up to
//     three documents is packed once in each, so a claim can cite every copy), and
//     at least one per sub-query whose best passage clears `min_subquery_score`. Ids S1..Sn follow
//     pack order (best first).
//
// Thread-safety: pure function.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "evidence/evidence.h"
#include "answer/source_hierarchy.h"
#include "attest/engine.h"
#include "common/date.h"
#include "plan/query_plan.h"
#include "text/chunker.h"

namespace attest {

class AnalyzedTexts;

struct EvidenceCandidate {
  SearchHit hit;          // document metadata and the chunk's retrieval scores
  std::string text;       // the whole chunk text
  std::vector<ChunkSpan> spans;  // the chunk's structure (text/chunker.h); empty when unknown
  std::string subquery;   // "q0" = the original question
  uint32_t rank = 0;      // 1-based rank in that sub-query's results
};

struct EvidenceQuery {
  std::vector<std::string> terms;          // analyzed query terms (duplicates removed)
  // Per sub-query, its own terms: the evidence must cover at least one sub-query well (a
  // two-part question may be answerable in one part only).
  std::map<std::string, std::vector<std::string>> subquery_terms;
  std::vector<std::string> phrases;        // case-folded phrases that must match verbatim
  std::vector<std::string> exclude_terms;  // analyzed forms of excluded words
  std::vector<std::string> scope_terms;    // analyzed forms of scope words (a bonus)
  std::string resolved_version;            // "" = no version scope
  std::optional<DayNumber> from, to;       // the plan's time scope
  std::function<double(const std::string& term)> idf;  // inverse document frequency of a term
  // What the question asks (QueryPlan::focus, QueryPlan::subject): sentences about the subject and
  // with content of the focus's kind rank higher; a sentence inside another subject's entry lower.
  Focus focus = Focus::kNone;
  std::string subject;
};

struct PackOptions {
  size_t max_words = 600;
  size_t max_passages = 10;
  size_t per_source = 3;
  size_t per_site = 3;
  double min_subquery_score = 0.2;
  // Sub-queries whose best passage is packed whatever its score (bridge hops: their documents
  // rarely share words with the question, which is why a hop was needed).
  std::set<std::string> guaranteed_subqueries;
  bool rerank = true;  // false under a deadline: passages keep their chunk's retrieval order
  // The answer's analysed texts (analyzed_texts.h): sentences the bridge hop analysed are not
  // analysed again, and later stages find these. Used only when its analyzer has the default
  // options (the builder's own); null = analyse here.
  AnalyzedTexts* analysis = nullptr;
};

struct PackResult {
  std::vector<EvidencePassage> pack;
  double best_coverage = 0;        // the best source's IDF-weighted coverage of a sub-query's terms (0..1)
  size_t duplicate_sources = 0;    // chunks dropped as copies of a kept source
  size_t excluded_sentences = 0;   // sentences dropped by exclude constraints
  size_t sources = 0;              // distinct sources considered after dedupe
};

// A passage of `hit`'s chunk holding `text`: the hit's source fields (document, chunk, URL, title,
// site, date, version, source type) and the authority tier's name.
EvidencePassage PassageOfHit(const SearchHit& hit, const std::string& authority, std::string text);

PackResult BuildEvidence(const std::vector<EvidenceCandidate>& candidates, const EvidenceQuery& query,
                         const SourceHierarchy& hierarchy, const PackOptions& options);

// Compares version labels numerically by dot-separated parts ("15.10" > "15.9" > "15"); labels
// that are not numeric compare as strings after numeric ones. <0, 0, >0.
int CompareVersions(const std::string& a, const std::string& b);

}  // namespace attest
