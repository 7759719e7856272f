// Answerability: do the kept claims answer the question that was asked (docs/answer.md,
// "Answerability")? A verbatim, supported quote can still fail to answer: it may be about a
// different entity, number or date than the question names, or say nothing of the kind asked
// for. The score looks at the best answering claim and its immediate context (the chunk it was
// quoted from):
//
//   coverage   IDF-weighted share of the question's content terms found in the sentence or its
//              context (what the paragraph does not say cannot be the answer)
//   rare       1 - the IDF of the rarest question term absent from sentence and context, relative
//              to the rarest question term (a swapped entity or an unknown word is a rare term)
//   names      share of the question's names and numbers (capitalised words, digits) found in the
//              sentence or its context (a different name, number or date does not answer)
//   sentence   IDF-weighted share of the question's content terms in the sentence itself
//   answer     the sentence holds a token of the kind asked for, not taken from the question: a
//              number for a number, date or version question, a name for a "who" question, any
//              new content word otherwise
//   subject    the question's subject (QueryPlan::subject) is named by the sentence, its context
//              or the passage's own subject (1 when the question has none)
//
// score = coverage^2 * rare * names * answer * subject, scaled by the sentence's share, in 0..1.
// Below AskOptions::min_answerability the pipeline falls back to `no_confident_answer`.
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
  std::vector<AnsweringSentence> sentences;
  std::function<double(const std::string& term)> idf;  // empty = every term weighs 1
};

struct Answerability {
  double score = 0;                     // 0..1; 0 when there is no sentence
  std::string claim_id;                 // the best sentence's claim
  std::map<std::string, double> parts;  // coverage, rare, names, sentence, answer, subject
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
};

AnswerabilityReport AnswerabilityOfClaims(const AnswerabilityStepInput& in);

// Words that frame a question rather than name what it is about (analyzed forms: question words,
// auxiliaries, pronouns, time words); they do not count toward the evidence's coverage of it.
bool IsQuestionFrameTerm(const std::string& analyzed_term);

// The kind of token that answers a question of `focus` (kNone: inferred from the question's
// first words: "how many/much" a number, "when" a date, "who" a name).
Focus ExpectedAnswerKind(Focus focus, const std::string& question);

}  // namespace attest
