#include "answer/multi_hop.h"

#include <chrono>
#include <regex>
#include <set>
#include <unordered_set>

#include "answer/analyzed_texts.h"
#include "answer/answer_rounds.h"
#include "text/analyzer.h"
#include "text/sentence_splitter.h"

namespace attest {
namespace {

bool HasPlaceholder(const std::string& text) { return text.find("{q") != std::string::npos; }

std::string Bind(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [id, v] : values) {
    const std::string ph = "{" + id + "}";
    for (size_t at; (at = text.find(ph)) != std::string::npos;) text.replace(at, ph.size(), v);
  }
  return text;
}

// Names in `sentence` the question does not mention: runs of capitalised words (a version number
// may follow: "Foo 3.2"), or identifiers with a version. Best first: names with a version. With
// `lower_case`, a name written in lower case followed by a dotted version ("foo 3.2") is one too,
// after the capitalised ones: a hop's bridge need not be capitalised.
std::vector<std::string> CandidateValues(const std::string& sentence, const std::string& question,
                                         bool lower_case = false) {
  static const std::regex kName(R"(\b([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)(\s+v?\d+(?:\.\d+)*)?)");
  static const std::regex kLowerVersioned(R"(\b([a-z][a-z0-9_-]*)(\s+v?\d+(?:\.\d+)+)\b)");
  static const std::set<std::string> kNotNames = {"version", "release", "v", "and", "or", "to", "from", "until",
                                                  "since", "is", "was", "in", "of", "the", "at", "on", "by",
                                                  "with", "for", "about", "than", "runtime", "uses", "runs"};
  const std::string folded_q = Analyzer::Fold(question);
  std::vector<std::string> with_version, plain;
  for (auto it = std::sregex_iterator(sentence.begin(), sentence.end(), kName); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1].str();
    const std::string full = (*it)[0].str();
    if (it->position(0) == 0 && !(*it)[2].matched) continue;  // a sentence-initial word is not a name
    if (folded_q.find(Analyzer::Fold(name)) != std::string::npos) continue;
    ((*it)[2].matched ? with_version : plain).push_back(full);
  }
  if (lower_case) {
    for (auto it = std::sregex_iterator(sentence.begin(), sentence.end(), kLowerVersioned); it != std::sregex_iterator();
         ++it) {
      const std::string name = (*it)[1].str();
      if (kNotNames.count(name) != 0 || folded_q.find(Analyzer::Fold(name)) != std::string::npos) continue;
      with_version.push_back((*it)[0].str());
    }
  }
  with_version.insert(with_version.end(), plain.begin(), plain.end());
  return with_version;
}

// Whether `text` contains `value`, ignoring case ("Foo 3.2" is named by "foo 3.2").
bool ContainsFolded(const std::string& text, const std::string& value) {
  return !value.empty() && Analyzer::Fold(text).find(Analyzer::Fold(value)) != std::string::npos;
}

std::vector<std::pair<size_t, std::string>> Dates(const std::string& text) {
  static const std::regex kDate(R"(\b(\d{4}-\d{2}-\d{2})\b)");
  std::vector<std::pair<size_t, std::string>> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kDate); it != std::sregex_iterator(); ++it) {
    out.emplace_back(static_cast<size_t>(it->position(1)), (*it)[1].str());
  }
  return out;
}

Status LoadChunksOf(AnswerRounds& rounds, const std::vector<SearchHit>& hits) {
  std::vector<ChunkId> ids;
  for (const SearchHit& h : hits) ids.push_back(h.chunk_id);
  return rounds.LoadChunks(ids);
}

// The chunk's text and spans (none when the chunk is no longer visible).
void SetChunk(const AnswerRounds& rounds, EvidenceCandidate* c) {
  if (const ChunkRecord* record = rounds.Chunk(c->hit.chunk_id)) {
    c->text = record->text;
    c->spans = record->spans;
  }
}

}  // namespace

bool IsMultiHopPlan(const QueryPlan& plan) {
  if (plan.intent != Intent::kMultiHop) return false;
  for (const SubQuery& sq : plan.subqueries) {
    if (HasPlaceholder(sq.text)) return true;
  }
  return false;
}

Result<MultiHopResult> RunMultiHop(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                                   const MultiHopOptions& options) {
  AnswerRounds rounds(ctx, filter);
  return RunMultiHop(rounds, ctx, plan, options);
}

Result<MultiHopResult> RunMultiHop(AnswerRounds& rounds, const AnswerContext& ctx, const QueryPlan& plan,
                                   const MultiHopOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  MultiHopResult out;
  std::map<std::string, std::string> values;
  const std::string question = plan.standalone;
  for (const SubQuery& sq : plan.subqueries) {
    if (sq.id == "q0") continue;
    if (out.hops.size() >= options.max_hops) break;
    if (std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() > options.budget_ms) {
      break;
    }
    HopStep hop;
    hop.id = sq.id;
    hop.query = Bind(sq.text, values);
    if (HasPlaceholder(hop.query)) break;  // an earlier hop found nothing to bind
    SearchOptions so;
    so.query = hop.query;
    so.k = options.k;
    so.with_snippets = false;  // evidence reads the chunk text; snippets are never shown
    auto r = rounds.Search(so);
    if (!r.ok()) {
      if (r.status().code() == StatusCode::kInvalidArgument) break;
      return r.status().WithContext("hop " + sq.id);
    }
    const std::vector<SearchHit>& hits = (*r)->hits;
    ATTEST_RETURN_IF_ERROR(LoadChunksOf(rounds, hits));
    // The hop's sentence: in rank order, the first sentence covering most of the hop's terms (for
    // a bound hop, the one containing the bound value).
    std::vector<std::string> hop_terms = ctx.analyzer->Terms(hop.query);
    std::unordered_set<std::string> want(hop_terms.begin(), hop_terms.end());
    const std::string bound = values.empty() ? "" : values.rbegin()->second;
    double best = -1;
    uint32_t rank = 0;
    for (const SearchHit& h : hits) {
      EvidenceCandidate c;
      c.hit = h;
      SetChunk(rounds, &c);
      c.subquery = sq.id;
      c.rank = ++rank;
      for (const SentenceSpan& span : SplitSentences(c.text)) {
        const std::string sentence = c.text.substr(span.start, span.end - span.start);
        if (!bound.empty() && !ContainsFolded(sentence, bound)) continue;
        std::vector<std::string> st = ctx.analyzer->Terms(sentence);
        double covered = 0;
        for (const auto& t : std::unordered_set<std::string>(st.begin(), st.end())) covered += want.count(t);
        const double score = covered - 0.01 * rank;
        if (score > best) {
          best = score;
          hop.doc_id = h.doc_id;
          hop.chunk_id = h.chunk_id;
          hop.sentence = sentence;
        }
      }
      out.candidates.push_back(std::move(c));
    }
    if (!hop.sentence.empty()) {
      std::vector<std::string> found = CandidateValues(hop.sentence, question + " " + hop.query, /*lower_case=*/true);
      if (!found.empty()) hop.value = found.front();
      hop.supported = !hop.value.empty() && hop.sentence.find(hop.value) != std::string::npos;
      if (!bound.empty()) hop.supported = ContainsFolded(hop.sentence, bound);
    }
    if (!hop.value.empty()) values[sq.id] = hop.value;
    out.hops.push_back(std::move(hop));
  }

  // A date in the question compared, in code, with the date the last hop's sentence gives after
  // the hop's own words ("security fixes until 2026-06-30").
  auto asked = Dates(question);
  if (!asked.empty() && !out.hops.empty() && !out.hops.back().sentence.empty() && out.hops.back().supported) {
    const HopStep& last = out.hops.back();
    auto found = Dates(last.sentence);
    if (!found.empty()) {
      const std::string& when = asked.front().second;
      const std::string& limit = found.front().second;  // the first date after the bound value
      const bool yes = when <= limit;                    // ISO dates compare as strings
      out.verdict = yes ? "yes" : "no";
      out.verdict_text = yes ? "Yes: " + when + " is not after " + limit + "."
                             : "No: " + when + " is after " + limit + ".";
    }
  }
  return out;
}

Result<MultiHopResult> RunBridgeHop(const AnswerContext& ctx, const QueryPlan& plan, const SearchFilter& filter,
                                    const std::vector<EvidenceCandidate>& first_round, const MultiHopOptions& options) {
  AnswerRounds rounds(ctx, filter);
  return RunBridgeHop(rounds, ctx, plan, first_round, options);
}

Result<MultiHopResult> RunBridgeHop(AnswerRounds& rounds, const AnswerContext& ctx, const QueryPlan& plan,
                                    const std::vector<EvidenceCandidate>& first_round, const MultiHopOptions& options,
                                    AnalyzedTexts* analysis) {
  MultiHopResult out;
  const std::string question = plan.standalone;
  const std::string folded_question = Analyzer::Fold(question);
  std::vector<std::string> qterms = ctx.analyzer->Terms(plan.rewritten.empty() ? question : plan.rewritten);
  std::unordered_set<std::string> want(qterms.begin(), qterms.end());
  // Names in the best sentences of the first-round sources, best sources first.
  std::vector<std::string> names;
  std::set<std::string> seen_docs;
  std::set<std::string> seen_names;
  for (const EvidenceCandidate& c : first_round) {
    if (c.subquery != "q0" || seen_docs.size() >= options.bridge_sources) continue;
    if (!seen_docs.insert(c.hit.doc_id).second) continue;
    std::vector<std::pair<double, std::string>> sentences;
    for (const SentenceSpan& span : SplitSentences(c.text)) {
      std::string sentence = c.text.substr(span.start, span.end - span.start);
      std::vector<std::string> st = analysis ? analysis->Terms(sentence) : ctx.analyzer->Terms(sentence);
      double covered = 0;
      for (const auto& t : std::unordered_set<std::string>(st.begin(), st.end())) covered += want.count(t);
      sentences.emplace_back(-covered, std::move(sentence));
    }
    std::stable_sort(sentences.begin(), sentences.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [neg, sentence] : sentences) {
      if (neg == 0) break;  // sentences sharing no word with the question name nothing relevant
      for (const std::string& name : CandidateValues(sentence, question)) {
        const std::string key = Analyzer::Fold(name);
        if (key.size() < 3 || folded_question.find(key) != std::string::npos) continue;
        if (Analyzer::Fold(c.hit.title) == key) continue;  // the source itself
        if (seen_names.insert(key).second) names.push_back(name);
      }
    }
  }
  if (names.size() > options.max_bridges) names.resize(options.max_bridges);
  for (const std::string& name : names) {
    HopStep hop;
    hop.id = "bridge:" + name;
    hop.query = name + " " + (plan.rewritten.empty() ? question : plan.rewritten);
    hop.value = name;
    SearchOptions so;
    so.query = hop.query;
    so.k = 3;
    so.with_snippets = false;  // evidence reads the chunk text; snippets are never shown
    auto r = rounds.Search(so);
    if (!r.ok()) continue;
    const std::vector<SearchHit>& hits = (*r)->hits;
    ATTEST_RETURN_IF_ERROR(LoadChunksOf(rounds, hits));  // first-round chunks are not read again
    uint32_t rank = 0;
    for (const SearchHit& h : hits) {
      EvidenceCandidate c;
      c.hit = h;
      SetChunk(rounds, &c);
      c.subquery = hop.id;
      c.rank = ++rank;
      // The hop is supported when a retrieved source names the bridge.
      if (!hop.supported && c.text.find(name) != std::string::npos) {
        hop.supported = true;
        hop.doc_id = h.doc_id;
        hop.chunk_id = h.chunk_id;
      }
      out.candidates.push_back(std::move(c));
    }
    out.hops.push_back(std::move(hop));
  }
  return out;
}

}  // namespace attest
