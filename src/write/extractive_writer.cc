#include "write/extractive_writer.h"

#include <set>

#include "text/analyzer.h"

namespace attest {
namespace {

// A passage scoring below this share of the best one is not worth a sentence of the answer.
constexpr double kMinRelativeScore = 0.4;

std::set<std::string> ContentTerms(const Analyzer& analyzer, const std::string& text) {
  std::vector<std::string> terms = analyzer.Terms(text);
  return std::set<std::string>(terms.begin(), terms.end());
}

// Share of `a`'s terms that `b` has.
double Overlap(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty()) return 1.0;
  size_t in = 0;
  for (const auto& t : a) in += b.count(t);
  return double(in) / double(a.size());
}

// The quote, naming the passage's subject when the passage is about the question's subject and
// the quote does not say it ("max_wal_senders: The default is 10."). The quote stays verbatim.
std::string ClaimText(const RelevanceQuestion& asks, const EvidencePassage& p) {
  if (asks.subject.empty() || p.subject.empty() || !SubjectsMatch(asks.subject, p.subject)) return p.text;
  if (MentionsSubject(p.text, p.subject) || MentionsSubject(p.text, asks.subject)) return p.text;
  const std::string label = SubjectLabel(p.subject);
  return label.empty() ? p.text : label + ": " + p.text;
}

}  // namespace

Result<Draft> ExtractiveWriter::Write(const WriteArgs& args) {
  if (!args.pack) return Status::InvalidArgument("extractive writer: no evidence pack");
  static const Analyzer analyzer;
  Draft draft;
  std::vector<std::set<std::string>> said;
  std::string text;
  double best = 0;
  for (const EvidencePassage& p : *args.pack) {
    if (!p.flagged) best = std::max(best, p.score);
  }
  // Passages that answer the question first (pack order within each group): those whose subject
  // (the source's structure) names the question's subject, then those that only mention it.
  std::vector<const EvidencePassage*> order, mentions, rest;
  for (const EvidencePassage& p : *args.pack) {
    if (p.flagged || p.text.empty()) continue;
    // A sentence made only of its source's title words ("Sparrow dashboard note." in a note so
    // titled) is a label, not a statement: quoting it verbatim answers nothing.
    if (NamesOnlySubject(p.text, p.title)) continue;
    // A passage without a subject (a source without structure) keeps its place in the pack order;
    // an entry's term line alone ("max_wal_senders (integer)") never leads.
    if (p.subject.empty()) {
      order.push_back(&p);
      continue;
    }
    if (!CheckRelevance(args.asks, p.subject, p.title, p.text).ok() || NamesOnlySubject(p.text, p.subject)) {
      rest.push_back(&p);
      continue;
    }
    const bool named = args.asks.subject.empty() || SubjectsMatch(args.asks.subject, p.subject);
    (named ? order : mentions).push_back(&p);
  }
  order.insert(order.end(), mentions.begin(), mentions.end());
  const EvidencePassage* lead = order.empty() ? nullptr : order.front();
  order.insert(order.end(), rest.begin(), rest.end());
  for (const EvidencePassage* pp : order) {
    const EvidencePassage& p = *pp;
    if (draft.claims.size() >= args.max_sentences) break;
    if (&p != lead && p.score < kMinRelativeScore * best) continue;  // filler far below the best evidence
    std::set<std::string> terms = ContentTerms(analyzer, p.text);
    // A repeat says nothing new: most of its words were said and it adds no number. A sentence that
    // differs in a value is not a repeat but possibly a disagreement, which the pipeline handles.
    bool repeats = false;
    for (const auto& s : said) {
      bool new_value = false;
      for (const auto& t : terms) {
        if (!s.count(t) && t.find_first_of("0123456789") != std::string::npos) new_value = true;
      }
      repeats |= Overlap(terms, s) >= 0.7 && !new_value;
    }
    if (repeats) continue;
    said.push_back(terms);
    DraftClaim c;
    c.id = "c" + std::to_string(draft.claims.size() + 1);
    c.text = ClaimText(args.asks, p);
    c.cites.push_back(Citation{p.id, p.text});
    // The same sentence in other documents of the pack: cited too (each quote is verbatim there).
    for (const EvidencePassage& copy : *args.pack) {
      if (&copy != &p && !copy.flagged && copy.doc_id != p.doc_id && copy.text == p.text) {
        c.cites.push_back(Citation{copy.id, copy.text});
      }
    }
    if (!text.empty()) text.push_back(' ');
    text += c.text;
    draft.claims.push_back(std::move(c));
  }
  if (args.on_delta && !text.empty()) args.on_delta(text);
  return draft;
}

}  // namespace attest
