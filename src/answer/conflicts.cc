#include "answer/conflicts.h"

#include <algorithm>
#include <set>

#include "text/analyzer.h"

namespace attest {
namespace {

struct Reading {
  std::set<std::string> content;  // terms other than values
  std::set<std::string> values;   // numbers and switch words
  bool negated = false;
};

bool IsNumber(const std::string& t) {
  return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.' || c == '-'; }) &&
         std::any_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Switch words, stemmed, each mapped to its canonical polarity value.
std::string SwitchValue(const std::string& t) {
  if (t == "on" || t == "enabl" || t == "true" || t == "ye") return "on";
  if (t == "off" || t == "disabl" || t == "fals") return "off";
  return "";
}

Reading Read(const Analyzer& analyzer, const std::string& text) {
  Reading r;
  // The lexical analyzer drops stopwords ("on", "no", "not" among them): read them from the words.
  const std::string folded = Analyzer::Fold(text);
  std::string word;
  auto flush = [&] {
    if (word == "not" || word == "no" || word == "never" || word == "cannot" || word.ends_with("n't")) r.negated = true;
    if (word == "on" || word == "off") r.values.insert(word);
    word.clear();
  };
  for (char c : folded) {
    if ((c >= 'a' && c <= 'z') || c == '\'') {
      word.push_back(c);
    } else {
      flush();
    }
  }
  flush();
  for (const std::string& t : analyzer.Terms(text)) {
    if (IsNumber(t)) {
      r.values.insert(t);
    } else if (std::string v = SwitchValue(t); !v.empty()) {
      r.values.insert(v);
    } else {
      r.content.insert(t);
    }
  }
  return r;
}

double Jaccard(const std::set<std::string>& a, const std::set<std::string>& b) {
  if (a.empty() || b.empty()) return 0;
  size_t in = 0;
  for (const auto& t : a) in += b.count(t);
  return double(in) / double(a.size() + b.size() - in);
}

}  // namespace

std::vector<Conflict> FindConflicts(const std::vector<const EvidencePassage*>& passages) {
  static const Analyzer analyzer;
  std::vector<Reading> readings;
  for (const EvidencePassage* p : passages) readings.push_back(Read(analyzer, p->text));
  std::vector<Conflict> out;
  for (size_t i = 0; i < passages.size(); ++i) {
    for (size_t j = i + 1; j < passages.size(); ++j) {
      const EvidencePassage& a = *passages[i];
      const EvidencePassage& b = *passages[j];
      if (a.doc_id == b.doc_id) continue;
      if (!a.version.empty() && !b.version.empty() && a.version != b.version) continue;
      const Reading& ra = readings[i];
      const Reading& rb = readings[j];
      if (Jaccard(ra.content, rb.content) < 0.5) continue;  // not about the same thing
      std::string reason;
      std::vector<std::string> only_a, only_b;
      std::set_difference(ra.values.begin(), ra.values.end(), rb.values.begin(), rb.values.end(),
                          std::back_inserter(only_a));
      std::set_difference(rb.values.begin(), rb.values.end(), ra.values.begin(), ra.values.end(),
                          std::back_inserter(only_b));
      if (!only_a.empty() && !only_b.empty()) {
        reason = only_a.front() + " vs " + only_b.front();
      } else if (ra.negated != rb.negated) {
        reason = "negated in one";
      }
      if (!reason.empty()) out.push_back(Conflict{i, j, reason});
    }
  }
  return out;
}

}  // namespace attest
