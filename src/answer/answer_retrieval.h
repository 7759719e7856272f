// Retrieval for the answer pipeline (docs/answer.md, "Retrieval"): index statistics, the
// resolution of "latest" against the index and authoritative version feeds, the caller's filter
// narrowed by plan operators, and one search per sub-query over the pinned snapshot.
//
// Thread-safety: reentrant; functions read an immutable snapshot.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "answer/answer_pipeline.h"
#include "answer/evidence_builder.h"
#include "lexical/visibility.h"
#include "plan/query_plan.h"

namespace attest {

class AnswerRounds;

// Version labels listed in a feed's text ("Current releases: 18 (released 2026-09-24), 17 ..."):
// numbers of at most three dot-separated parts, dates removed first.
std::vector<std::string> VersionsInFeed(const std::string& text);

// The release date a feed's text gives `version`: the first date (YYYY-MM-DD) after a mention of
// the version and before the next version it names ("18 (released 2026-09-24), 17 ..."); "" when
// there is none.
std::string FeedReleaseDate(const std::string& text, const std::string& version);

struct VersionResolution {
  std::string version;   // what "latest" means for this answer
  // Its release date when the resolution saw one: the feed's date for it, or the date of a
  // release-notes source of that version among the hits; "" otherwise.
  std::string date;
  std::string warning;   // set when an authoritative feed names a newer version than any source
  std::vector<std::string> feed_docs;  // ids of the version feeds read (live fetch refreshes them first)
};

// "latest" resolves to the newest version present in the index for the plan's entities (searched
// with the caller's filter: a version only another tenant has does not count). A document marked
// as an authoritative version feed may name a newer one: then that is the latest, and the answer
// warns that its sources are stale.
Result<VersionResolution> ResolveVersion(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter);

struct Retrieved {
  std::vector<EvidenceCandidate> candidates;
  std::vector<SearchHit> results;  // the first sub-query's hits, for the result list
  size_t hits = 0;
};

// One search per sub-query (hop chains excluded: they run in src/answer/multi_hop.h) with the
// caller's filter, then the chunk texts of every hit.
Result<Retrieved> Retrieve(const AnswerContext& ctx, const QueryPlan& plan, const AskOptions& options,
                           const SearchFilter& filter);
// The same within the rounds of one answer (answer_rounds.h): a sub-query equal to an earlier one
// reuses its search, and chunk records are read once.
Result<Retrieved> Retrieve(AnswerRounds& rounds, const QueryPlan& plan, const AskOptions& options);

// The caller's filter (tenant and groups never widened) narrowed by the plan's operators.
SearchFilter FilterOf(const AskOptions& options, const QueryPlan& plan);

}  // namespace attest
