#include "answer/overview.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace attest {
namespace {

using TermSet = std::set<std::string>;

double Jaccard(const TermSet& a, const TermSet& b) {
  if (a.empty() || b.empty()) return 0;
  size_t both = 0;
  for (const std::string& t : a) both += b.count(t);
  return double(both) / double(a.size() + b.size() - both);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Source {
  std::string doc_id, title;
  std::vector<std::string> ids;         // pack ids
  TermSet terms;                        // its own terms (not the question's)
  std::map<std::string, size_t> counts;
};

}  // namespace

bool IsExploratory(const QueryPlan& plan) {
  const std::string q = Lower(plan.standalone.empty() ? plan.original : plan.standalone);
  static const std::regex kTradeOffs(
      R"(\b(trade-?offs?|pros and cons|advantages and disadvantages|strengths and weaknesses|overview of|landscape of)\b)");
  static const std::regex kSurvey(
      R"(^\s*(what|which|how many)\s+(are|were|kinds|types|sorts)\b.*\b(approaches|ways|options|alternatives|methods|strategies|techniques|kinds|types|schools of thought|designs)\b)");
  return std::regex_search(q, kTradeOffs) || std::regex_search(q, kSurvey);
}

std::vector<std::string> SurveyTerms(const Analyzer& analyzer) {
  return analyzer.Terms(
      "approach approaches way ways option options alternative alternatives method methods strategy strategies "
      "technique techniques kind kinds type types trade-off trade-offs tradeoff tradeoffs trade off offs pros cons "
      "advantages disadvantages strengths weaknesses overview landscape");
}

AnswerOverview BuildOverview(const OverviewArgs& args) {
  AnswerOverview out;
  out.built = true;
  const Analyzer& analyzer = *args.analyzer;
  const std::string question = args.plan->standalone.empty() ? args.plan->original : args.plan->standalone;
  const std::vector<std::string> qv = analyzer.Terms(question);
  const TermSet qterms(qv.begin(), qv.end());
  std::vector<Source> sources;
  for (const EvidencePassage& p : *args.pack) {
    if (p.flagged) continue;
    auto it = std::find_if(sources.begin(), sources.end(), [&](const Source& s) { return s.doc_id == p.doc_id; });
    if (it == sources.end()) {
      sources.push_back(Source{p.doc_id, p.title, {}, {}, {}});
      it = sources.end() - 1;
    }
    it->ids.push_back(p.id);
    for (const std::string& t : analyzer.Terms(p.title + " " + p.text)) {
      if (qterms.count(t) || t.size() < 3) continue;
      it->terms.insert(t);
      ++it->counts[t];
    }
  }
  std::vector<std::pair<OverviewTopic, TermSet>> topics;  // the topic and its first source's terms
  for (const Source& s : sources) {
    size_t best = topics.size();
    double best_sim = -1;
    for (size_t i = 0; i < topics.size(); ++i) {
      const double sim = Jaccard(s.terms, topics[i].second);
      if (sim > best_sim) {
        best_sim = sim;
        best = i;
      }
    }
    if (best == topics.size() || (best_sim < args.same_topic && topics.size() < args.max_topics)) {
      OverviewTopic t;
      t.label = s.title;
      if (t.label.empty() && !s.counts.empty()) {
        t.label = std::max_element(s.counts.begin(), s.counts.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; })
                      ->first;
      }
      topics.emplace_back(std::move(t), s.terms);
      best = topics.size() - 1;
    }
    OverviewTopic& t = topics[best].first;
    t.doc_ids.push_back(s.doc_id);
    t.sources.insert(t.sources.end(), s.ids.begin(), s.ids.end());
  }
  for (auto& [t, terms] : topics) out.topics.push_back(std::move(t));
  out.viewpoints = out.topics.size();
  out.sources = sources.size();
  if (out.viewpoints == 0) {
    out.coverage = "no usable source";
  } else if (out.viewpoints == 1) {
    out.coverage = "the sources give one viewpoint only (" + std::to_string(out.sources) +
                   " source" + (out.sources == 1 ? "" : "s") + "): other approaches may exist that the index does not hold";
  } else {
    out.coverage = std::to_string(out.viewpoints) + " viewpoints from " + std::to_string(out.sources) + " sources";
  }
  return out;
}

std::vector<EvidencePassage> OverviewWriterPack(const AnswerOverview& overview,
                                                const std::vector<EvidencePassage>& pack) {
  std::vector<EvidencePassage> out;
  double top = 0;
  for (const EvidencePassage& p : pack) top = std::max(top, p.score);
  for (const OverviewTopic& t : overview.topics) {
    // The topic's best passage: the first of its ids in pack order (the pack is best first).
    for (const EvidencePassage& p : pack) {
      if (std::find(t.sources.begin(), t.sources.end(), p.id) == t.sources.end() || p.flagged) continue;
      EvidencePassage chosen = p;
      chosen.score = top;
      out.push_back(std::move(chosen));
      break;
    }
  }
  return out;
}

}  // namespace attest
