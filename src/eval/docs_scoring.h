// The docs-qa question sets (../shared/datasets/docs-qa/README.md) and how one result is scored:
// exact, self-contained oracles that `attest eval --task docs` (eval/docs_evaluation.h) applies to
// what Engine::Search and Engine::Ask return.
//
// Row kinds, one JSON object per line; blank lines are skipped:
//   known_item   {"id","query","kind","relevant":[doc id]}            (has "kind")
//   defaults_qa  {"id","query","subject","answers":[value],"relevant","entry"}  (has "answers")
//   options_qa   {"id","query","subject","relevant","entry"}          ("entry" but no "answers")
// Every file is untrusted input: a malformed row, or a row of another kind than the file's first
// row, fails the load with kInvalidArgument naming the file and the 1-based line.
//
// Scoring (doc ids are the ids `attest ingest DIR` gives: paths relative to DIR):
//   known_item   the hits ranked as documents (the first hit of each doc id counts, later ones are
//                dropped before the cut); rank = 1-based position of the first relevant document
//                within the top 10, 0 when absent. success@k = rank in 1..k, MRR@10 = 1 / rank.
//   defaults_qa  correct when some KEPT claim has a citation whose source's doc id is relevant and
//                whose quote, normalised, (a) occurs inside the row's normalised entry, (b) contains
//                one of the answers, and (c) has a word starting with "default". A quote stating the
//                default of a neighbouring key fails (a): it is verbatim from the page, not from the
//                subject's own entry.
//   options_qa   correct when the FIRST kept claim has a citation of a relevant page whose quote is a
//                run of at least four words of the entry (the whole entry when it is shorter);
//                `any_claim` when some kept claim has one.
// "Occurs inside" and "contains" are word-aligned: the match starts and ends at a word boundary of
// the longer text (no letter or digit on either side), so "10" is not found in "100".
// Normalisation: ASCII lower case; typographic quotes (‘ ’ ‚ ‛ “ ” „ ‟ ′ ″) become ' and ", dashes
// and the minus sign (U+2010..U+2015, U+2212) become '-', the ellipsis becomes "..."; every run of
// whitespace (ASCII, U+00A0, U+2000..U+200A, U+202F, U+3000) becomes one space; the ends are trimmed;
// zero-width spaces (U+200B) are removed.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "attest/answer.h"
#include "attest/status.h"

namespace attest {

enum class DocsTask { kKnownItem, kDefaults, kOptions };
const char* DocsTaskName(DocsTask task);  // "known_item", "defaults_qa", "options_qa"

struct DocsQuestion {
  DocsTask task = DocsTask::kKnownItem;
  std::string id;
  std::string query;
  std::string kind;                   // known_item: e.g. "command", "c_function"
  std::string subject;                // defaults / options: the key or option asked about
  std::vector<std::string> answers;   // defaults: the value(s)
  std::vector<std::string> relevant;  // doc ids
  std::string entry;                  // defaults / options: the subject's own description
};

// Parses one row (errors carry no file or line: LoadDocsQuestions adds them).
Result<DocsQuestion> ParseDocsQuestionLine(std::string_view line);
// Loads every row of a file; all rows must be of one task. Duplicate ids are an error.
Result<std::vector<DocsQuestion>> LoadDocsQuestions(const std::filesystem::path& file);

std::string NormalizeDocsText(std::string_view text);
// Whether `needle` occurs in `haystack` starting and ending at word boundaries of `haystack`. Both
// are taken as they are (normalise first). An empty needle is never found.
bool ContainsWordAligned(std::string_view haystack, std::string_view needle);

// known_item: the rank of the first relevant document among the hits ranked as documents.
struct KnownItemScore {
  std::vector<std::string> ranked;  // distinct doc ids, best first, at most 10
  size_t rank = 0;                  // 1-based; 0 = not in the top 10
  double reciprocal_rank = 0;
};
KnownItemScore ScoreKnownItem(const DocsQuestion& q, const std::vector<SearchHit>& hits);

// One citation of one claim, judged against the row.
struct CitationScore {
  std::string claim_id;
  std::string source;      // "S1"...
  std::string doc_id;      // "" when the source id is not in the answer's sources
  std::string quote;
  bool correct = false;
  std::string reason;      // why it scored so, e.g. "quote is not inside the subject's entry"
};

struct AnswerScore {
  bool correct = false;    // defaults: some kept claim; options: the first kept claim
  bool any_claim = false;  // options: some kept claim (defaults: equal to `correct`)
  size_t kept_claims = 0;
  std::string reason;      // why the answer scored so
  std::vector<CitationScore> citations;  // every citation of every kept claim, in claim order
};

CitationScore ScoreDefaultsCitation(const DocsQuestion& q, const std::string& doc_id, const std::string& quote);
CitationScore ScoreOptionsCitation(const DocsQuestion& q, const std::string& doc_id, const std::string& quote);
// Scores an answer of a defaults_qa or options_qa row (kInvalidArgument for a known_item row).
Result<AnswerScore> ScoreAnswer(const DocsQuestion& q, const AnswerResult& answer);

}  // namespace attest
