// The structured overview of research mode (docs/research.md, "Exploratory questions"): a question
// that asks for the approaches, options or trade-offs of a topic is answered by sub-topic — the
// evidence pack's sources clustered by what they say beyond the question's own words, the best
// passage of each cluster written as one claim — and its coverage judged by how many distinct
// viewpoints (clusters) the sources represent, not by one best passage.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "attest/answer.h"
#include "evidence/evidence.h"
#include "plan/query_plan.h"
#include "text/analyzer.h"

namespace attest {

// Whether the question asks for a survey: the approaches, ways, options, alternatives, methods,
// strategies or kinds of something, its trade-offs or pros and cons, or an overview of it.
bool IsExploratory(const QueryPlan& plan);

// The words that make a question a survey ("approaches", "trade-offs", "pros and cons"): frame
// words of an exploratory question, not content its evidence must contain. Analysed by `analyzer`.
std::vector<std::string> SurveyTerms(const Analyzer& analyzer);

struct OverviewArgs {
  const Analyzer* analyzer = nullptr;
  const QueryPlan* plan = nullptr;
  const std::vector<EvidencePassage>* pack = nullptr;  // ids S1..
  double same_topic = 0.25;   // Jaccard of two sources' own terms at or above which they are one topic
  size_t max_topics = 6;
};

// The pack's sources in topics (AnswerOverview, attest/answer.h): sources in pack order, each joining
// the first topic whose terms it shares enough of, else starting one (labelled by its title, else
// its passage's most frequent own term). Passages flagged by the injection screen are left out.
AnswerOverview BuildOverview(const OverviewArgs& args);

// The writer's passages of an overview: each topic's best passage, in topic order, scored alike
// (none is dismissed as far below another).
std::vector<EvidencePassage> OverviewWriterPack(const AnswerOverview& overview,
                                                const std::vector<EvidencePassage>& pack);

}  // namespace attest
