// Answerability: do the kept claims answer the question that was asked (docs/answer.md,
// "Answerability")? A verbatim, supported quote can still fail to answer: it may be about a
// different entity, number or date than the question names, or say nothing of the kind asked
// for. The score looks at the best answering claim and its immediate context (the chunk it was
// quoted from):
//
//   coverage       IDF-weighted share of the question's content terms found in the sentence, its
//                  source's title and subject, or its context (reported)
//   sentence       the same share in the sentence itself (reported)
//   rare           1 - the IDF of the rarest question term absent from all of these, relative to
//                  the question's rarest term (a swapped entity or a word the source never uses)
//   names          share of the question's names and numbers (capitalised words, digits) that the
//                  sentence or what it is about (title, subject) names: a different name, number
//                  or date does not answer
//   names_context  the same share in the sentence's context
//   negation       0 when the question negates ("not", "never", "non-") and the sentence does not
//   answer         the sentence holds a token of the kind asked for, not taken from the question:
//                  a number (digits or words) for a number question, digits for a version, a
//                  number or month for a date, a name for a "who" question, any new content
//                  word otherwise
//   subject        share of the question's subject (QueryPlan::subject) named by the sentence, its
//                  source's subject or its context (1 when the question has none; reported only)
//   evidence       the evidence pack's best coverage of the question (PackedAnswer::best_coverage)
//
// score = product over parts of (floor + (1 - floor) * part), in 0..1, of the best sentence; the
// floors are in answerability.cc. Below AskOptions::min_answerability the pipeline falls back to
// `no_confident_answer` with the ranked results.
//
// Thread-safety: pure functions.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "answer/evidence_builder.h"
#include "attest/answer.h"
#include "evidence/evidence.h"
#include "plan/query_plan.h"
#include "text/analyzer.h"

namespace attest {

class AnalyzedTexts;

// One kept claim's answering sentence: its verbatim quote and where it came from.
struct AnsweringSentence {
  std::string claim_id;
  std::string quote;            // the verbatim quote the claim cites
  std::string context;          // the text around it (its chunk); may be empty
  std::string passage_subject;  // EvidencePassage::subject; may be empty
  std::string title;            // the source's title; may be empty
};

struct AnswerabilityInput {
  const Analyzer* analyzer = nullptr;
  std::string question;               // the standalone question
  Focus focus = Focus::kNone;         // QueryPlan::focus; kNone = inferred from the question word
  std::string subject;                // QueryPlan::subject; "" = none
  // Words the question excludes ("not publishers": QueryPlan::constraints.exclude): the evidence
  // was already filtered on them, so they are neither terms to cover nor a negation to match.
  std::vector<std::string> excluded;
  std::vector<AnsweringSentence> sentences;
  std::function<double(const std::string& term)> idf;  // empty = every term weighs 1
  // The evidence pack's best IDF-weighted coverage of the question (PackedAnswer::best_coverage);
  // 1 when unknown.
  double evidence_coverage = 1.0;
  // The answer's analysed texts (over `analyzer`): quotes and contexts the evidence builder or
  // another claim analysed are not analysed again. Null = analyse here.
  AnalyzedTexts* analysis = nullptr;
};

struct Answerability {
  double score = 0;                     // 0..1; 0 when there is no sentence
  std::string claim_id;                 // the best sentence's claim
  std::map<std::string, double> parts;  // the parts above, by name
  std::string reason;                   // what the best sentence lacks, in words ("" = nothing)
};

Answerability ScoreAnswerability(const AnswerabilityInput& in);

// The pipeline's step (answer_pipeline.cc, after the claims): the kept claims' quotes with their
// chunks' text as context, scored against the plan's question, focus and subject.
struct AnswerabilityStepInput {
  const Analyzer* analyzer = nullptr;
  const QueryPlan* plan = nullptr;
  const std::vector<EvidencePassage>* pack = nullptr;
  const std::vector<EvidenceCandidate>* candidates = nullptr;  // the retrieved chunks (context)
  const std::vector<AnswerClaim>* claims = nullptr;
  std::function<double(const std::string& term)> idf;
  bool joint = false;        // a hop chain: the kept claims answer together (each is context of the others)
  double threshold = 0;      // AskOptions::min_answerability
  double evidence_coverage = 0;  // PackedAnswer::best_coverage, reported as the part "evidence"
  AnalyzedTexts* analysis = nullptr;  // over `analyzer`; null = analyse here
};

AnswerabilityReport AnswerabilityOfClaims(const AnswerabilityStepInput& in);

// Words that frame a question rather than name what it is about (analyzed forms: question words,
// auxiliaries, pronouns, time words); they do not count toward the evidence's coverage of it.
bool IsQuestionFrameTerm(const std::string& analyzed_term);

// The kind of token that answers a question of `focus` (kNone: inferred from the question's
// first words: "how many/much" a number, "when" a date, "who" a name).
Focus ExpectedAnswerKind(Focus focus, const std::string& question);

}  // namespace attest
