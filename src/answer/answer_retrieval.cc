#include "answer/answer_retrieval.h"

#include "answer/answer_rounds.h"
#include "answer/answer_stages.h"
#include "common/date.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

namespace attest {

namespace {

bool WantsCurrentVersion(const QueryPlan& plan) {
  return plan.time.needs_current_version || plan.time.relative == "latest" || plan.time.relative == "current";
}

}  // namespace

std::vector<std::string> VersionsInFeed(const std::string& text) {
  static const std::regex kDate(R"(\b\d{4}-\d{2}-\d{2}\b)");
  static const std::regex kVersion(R"((?:^|[^\w.])v?(\d{1,3}(?:\.\d{1,4}){0,2})(?![\w.]*\d))");
  std::string undated = std::regex_replace(text, kDate, " ");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(undated.begin(), undated.end(), kVersion); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

namespace {

struct Match {
  size_t begin, end;
  std::string text;  // the version number, or the date
};

std::vector<Match> Matches(const std::string& text, const std::regex& re, int group) {
  std::vector<Match> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
    out.push_back({size_t((*it).position(group)), size_t((*it).position(group) + (*it).length(group)), (*it)[group].str()});
  }
  return out;
}

}  // namespace

std::string FeedReleaseDate(const std::string& text, const std::string& version) {
  static const std::regex kDate(R"(\b\d{4}-\d{2}-\d{2}\b)");
  static const std::regex kVersion(R"((?:^|[^\w.])v?(\d{1,3}(?:\.\d{1,4}){0,2})(?![\w.]*\d))");
  // Dates are blanked (same length, so offsets hold) before versions are looked for, as in
  // VersionsInFeed: the digits of a date are not a version.
  const std::vector<Match> dates = Matches(text, kDate, 0);
  std::string undated = text;
  for (const Match& d : dates) undated.replace(d.begin, d.end - d.begin, d.end - d.begin, ' ');
  const std::vector<Match> versions = Matches(undated, kVersion, 1);
  for (size_t i = 0; i < versions.size(); ++i) {
    if (CompareVersions(versions[i].text, version) != 0) continue;
    const size_t stop = i + 1 < versions.size() ? versions[i + 1].begin : text.size();
    for (const Match& d : dates) {
      if (d.begin >= versions[i].end && d.end <= stop && ParseDate(d.text)) return d.text;
    }
  }
  return "";
}

Result<VersionResolution> ResolveVersion(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter) {
  VersionResolution out;
  std::string& best = out.version;
  for (const std::string& v : plan.mentioned_versions) {
    if (best.empty() || CompareVersions(v, best) > 0) best = v;
  }
  if (!best.empty() || !WantsCurrentVersion(plan)) return out;
  std::string query;
  for (const auto& e : plan.entities) query += e.canonical + " " + e.text + " ";
  for (const auto& t : plan.topic_terms) query += t + " ";
  if (query.empty()) query = plan.standalone;
  SearchOptions so;
  so.query = query;
  so.k = 200;
  so.filter = filter;
  so.mode = SearchMode::kBm25;
  so.with_snippets = false;
  auto r = ctx.corpus->Search(*ctx.analyzer, so, VectorLegInput{});
  if (!r.ok()) return r.status().code() == StatusCode::kInvalidArgument ? Result<VersionResolution>(out) : r.status();
  std::vector<ChunkId> feeds;
  std::vector<const SearchHit*> feed_hits;
  for (const SearchHit& h : r->hits) {
    if (h.feed == "versions") {
      feeds.push_back(h.chunk_id);
      feed_hits.push_back(&h);
      if (std::find(out.feed_docs.begin(), out.feed_docs.end(), h.doc_id) == out.feed_docs.end()) {
        out.feed_docs.push_back(h.doc_id);
      }
    } else if (!h.version.empty() && (best.empty() || CompareVersions(h.version, best) > 0)) {
      best = h.version;
    }
  }
  // The release notes of the newest version date it.
  for (const SearchHit& h : r->hits) {
    if (out.date.empty() && h.source_type == "release_notes" && !h.date.empty() && !h.version.empty() &&
        CompareVersions(h.version, best) == 0) {
      out.date = h.date;
    }
  }
  if (feeds.empty()) return out;
  ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, ctx.corpus->GetChunks(filter, feeds));
  std::string newest, source, newest_date;
  for (size_t i = 0; i < chunks.size(); ++i) {
    for (const std::string& v : VersionsInFeed(chunks[i].text)) {
      if (newest.empty() || CompareVersions(v, newest) > 0) {
        newest = v;
        source = feed_hits[std::min(i, feed_hits.size() - 1)]->title;
        newest_date = FeedReleaseDate(chunks[i].text, v);
      }
    }
  }
  // The feed is the authority on release dates: its date for the resolved version wins.
  if (!newest.empty() && CompareVersions(newest, best) == 0 && !newest_date.empty()) out.date = newest_date;
  if (!newest.empty() && (best.empty() || CompareVersions(newest, best) > 0)) {
    out.warning = "stale sources: " + (source.empty() ? std::string("an authoritative release list") : "\"" + source + "\"") +
                  " names version " + newest + ", but the newest indexed source is " +
                  (best.empty() ? std::string("unversioned") : "version " + best);
    best = newest;
    out.date = newest_date;
  }
  return out;
}

Result<Retrieved> Retrieve(const AnswerContext& ctx, const QueryPlan& plan, const AskOptions& options,
                           const SearchFilter& filter) {
  AnswerRounds rounds(ctx, filter);
  return Retrieve(rounds, plan, options);
}

Result<Retrieved> Retrieve(AnswerRounds& rounds, const QueryPlan& plan, const AskOptions& options) {
  Retrieved out;
  std::vector<std::pair<std::string, std::string>> queries;  // (sub-query id, text)
  for (const SubQuery& sq : plan.subqueries) {
    if (sq.text.find("{q") == std::string::npos) queries.emplace_back(sq.id, sq.text);  // hops run apart
  }
  if (!plan.rewritten.empty()) queries.emplace_back("rewrite", plan.rewritten);
  std::string version_suffix = plan.resolved_version.empty() ? "" : " " + plan.resolved_version;
  std::vector<ChunkId> ids;
  for (const auto& [id, text] : queries) {
    SearchOptions so;
    so.query = text;
    if (id == "rewrite") so.query += version_suffix;
    for (const auto& p : plan.operators.phrases) so.query += " \"" + p + "\"";
    so.k = options.candidates_per_subquery;
    so.with_snippets = out.results.empty();  // only the result list shows snippets: the first query's hits
    // A sub-query equal to an earlier one (the rewrite often is) reuses its search.
    auto r = rounds.Search(so);
    if (!r.ok()) {
      if (r.status().code() == StatusCode::kInvalidArgument) continue;  // nothing to search for in it
      return r.status().WithContext("retrieval for " + id);
    }
    const std::vector<SearchHit>& hits = (*r)->hits;
    if (out.results.empty()) out.results = hits;
    out.hits += hits.size();
    uint32_t rank = 0;
    for (const SearchHit& h : hits) {
      EvidenceCandidate c;
      c.hit = h;
      c.subquery = id;
      c.rank = ++rank;
      out.candidates.push_back(std::move(c));
      ids.push_back(h.chunk_id);
    }
  }
  ATTEST_RETURN_IF_ERROR(rounds.LoadChunks(ids));
  for (auto& c : out.candidates) {
    const ChunkRecord* record = rounds.Chunk(c.hit.chunk_id);
    if (record == nullptr) continue;  // not visible any more: no text, as before
    c.text = record->text;
    c.spans = record->spans;
  }
  return out;
}

SearchFilter FilterOf(const AskOptions& options, const QueryPlan& plan) {
  SearchFilter f = options.filter;  // tenant and groups are the caller's: never widened
  for (const auto& s : plan.operators.sites) f.sites.push_back(s);
  for (const auto& t : plan.operators.types) f.source_types.push_back(t);
  for (const auto& v : plan.operators.versions) f.versions.push_back(v);
  if (plan.operators.after) f.date_from = *plan.operators.after;
  if (plan.operators.before) f.date_to = *plan.operators.before;
  return f;
}

// --- the retrieve stage (answer_stages.h) ---

Result<RetrievedForAnswer> RetrieveForAnswer(const AnswerContext& ctx, const QueryPlan& plan,
                                             const SearchFilter& filter, const AskOptions& options,
                                             AnalyzedTexts* analysis, ResearchArgs* research) {
  RetrievedForAnswer out;
  const Clock& clock = ctx.clock != nullptr ? *ctx.clock : *RealClock();
  const auto t0 = clock.Now();
  // Every round of this answer searches with `filter`: repeated searches and chunk reads are shared.
  AnswerRounds rounds(ctx, filter);
  ATTEST_ASSIGN_OR_RETURN(out.got, Retrieve(rounds, plan, options));
  out.multi_hop = options.multi_hop && IsMultiHopPlan(plan);
  const bool bridge_hop = options.multi_hop && !out.multi_hop && research == nullptr &&
                          plan.intent != Intent::kCalculation && plan.intent != Intent::kGreeting &&
                          plan.intent != Intent::kNavigational;
  auto report = [&](const MultiHopResult& r) {
    for (const HopStep& h : r.hops) {
      out.answer_hops.push_back(AnswerHop{h.id, h.query, h.value, h.doc_id, h.sentence, h.supported});
    }
  };
  if (bridge_hop) {
    ATTEST_ASSIGN_OR_RETURN(out.bridges, RunBridgeHop(rounds, ctx, plan, out.got.candidates, MultiHopOptions{}, analysis));
    for (auto& c : out.bridges.candidates) out.got.candidates.push_back(c);
    report(out.bridges);
  }
  if (out.multi_hop) {
    ATTEST_ASSIGN_OR_RETURN(out.hops, RunMultiHop(rounds, ctx, plan, MultiHopOptions{}));
    out.got.hits += out.hops.candidates.size();
    for (auto& c : out.hops.candidates) out.got.candidates.push_back(c);
    report(out.hops);
  }
  out.searches = rounds.searches_run();
  out.round1.searches = static_cast<uint32_t>(out.searches);
  out.round1.cost = ctx.prices ? double(out.round1.searches) * std::max(0.0, ctx.prices->per_search) : 0.0;
  if (research != nullptr) {
    research->round1_ms = std::chrono::duration<double, std::milli>(clock.Now() - t0).count();
    research->spent_before += out.round1;
    research->filter = filter;
    ATTEST_ASSIGN_OR_RETURN(ResearchResult r, RunResearch(rounds, ctx, plan, out.got.candidates, *research));
    out.got.hits += r.candidates.size();
    for (auto& c : r.candidates) out.got.candidates.push_back(c);
    for (const AnswerHop& h : r.hops) out.answer_hops.push_back(h);
    out.research = std::move(r);
  }
  return out;
}

const char* NoDocumentsReason(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                              const AskOptions& options) {
  SearchFilter unrestricted = filter;
  unrestricted.groups.reset();
  unrestricted.clearance.reset();
  unrestricted.labels.reset();
  bool hidden = false;
  if (options.report_access_filtered && (filter.groups || filter.labels)) {
    SearchOptions so;
    so.query = plan.subqueries.empty() ? plan.standalone : plan.subqueries.front().text;
    so.k = 1;
    so.filter = unrestricted;
    so.mode = SearchMode::kBm25;
    so.with_snippets = false;
    auto r = ctx.corpus->Search(*ctx.analyzer, so, VectorLegInput{});
    hidden = r.ok() && !r->hits.empty();
  }
  return hidden ? "filtered_by_access" : "no_documents";
}

}  // namespace attest
