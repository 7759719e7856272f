// ValidateRewrite: no rewrite may silently drop a constraint (the seed's "publisher" failure: a
// rewriter adds "publisher" as a neighbour term to a question that excluded publishers).
#include <algorithm>

#include "common/strings.h"
#include "plan/plan_internal.h"
#include "plan/query_plan.h"

namespace attest {
namespace {

using plan_internal::Singularize;
using plan_internal::SplitSpaces;

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool SameWord(const std::string& a, const std::string& b) { return a == b || Singularize(a) == Singularize(b); }

// Index of the first occurrence of `phrase` (word sequence, plural-insensitive) in `words`.
std::optional<size_t> FindPhrase(const std::vector<std::string>& words, const std::vector<std::string>& phrase) {
  if (phrase.empty() || phrase.size() > words.size()) return std::nullopt;
  for (size_t i = 0; i + phrase.size() <= words.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < phrase.size() && match; ++k) match = SameWord(words[i + k], phrase[k]);
    if (match) return i;
  }
  return std::nullopt;
}

bool ContainsAllWords(const std::vector<std::string>& words, const std::vector<std::string>& needed) {
  return std::all_of(needed.begin(), needed.end(), [&](const std::string& n) {
    return std::any_of(words.begin(), words.end(), [&](const std::string& w) { return SameWord(w, n); });
  });
}

// The words of a quoted phrase that the rewrite must contain: its space-separated tokens that are
// not stopwords, without a leading + or - (which the lexical query syntax reads as an operator).
std::vector<std::string> PhraseWords(const std::string& phrase) {
  std::vector<std::string> out;
  for (std::string w : SplitSpaces(AsciiLower(phrase))) {
    size_t b = 0;
    while (b < w.size() && (w[b] == '-' || w[b] == '+')) ++b;
    w.erase(0, b);
    if (!w.empty() && !plan_internal::IsStopword(w)) out.push_back(w);
  }
  return out;
}

// Drops the constraints that cannot be honoured, each with a note: a planner problem costs
// quality (a constraint less), never availability.
void DropUnsoundConstraints(QueryPlan* plan) {
  const auto drop_empty = [&](std::vector<std::string>* terms, const char* kind) {
    const auto end = std::remove_if(terms->begin(), terms->end(), [](const std::string& t) { return Trim(t).empty(); });
    if (end != terms->end()) plan->notes.push_back(std::string("validator: dropped an empty ") + kind + " term");
    terms->erase(end, terms->end());
  };
  drop_empty(&plan->constraints.exclude, "exclude");
  drop_empty(&plan->constraints.scope, "scope");
  std::vector<std::string> kept;
  std::vector<std::string> contradicted_phrases;
  for (const std::string& e : plan->constraints.exclude) {
    const std::vector<std::string> phrase = SplitSpaces(AsciiLower(e));
    std::string why;
    for (const std::string& s : plan->constraints.scope) {
      // A scope term that is, or contains, the excluded phrase would put it back in the rewrite.
      if (SameWord(AsciiLower(e), AsciiLower(s)) || FindPhrase(SplitSpaces(AsciiLower(s)), phrase)) {
        why = "it is also in scope ('" + s + "')";
      }
    }
    for (const std::string& p : plan->operators.phrases) {
      // A quoted phrase must appear; excluding (part of) it would leave nothing to retrieve.
      const std::vector<std::string> needed = PhraseWords(p);
      if (why.empty() && FindPhrase(needed, phrase)) {
        why = "it is inside the quoted phrase \"" + p + "\"";
        contradicted_phrases.push_back(p);
      }
    }
    if (why.empty()) {
      kept.push_back(e);
    } else {
      plan->notes.push_back("validator: dropped exclude '" + e + "': " + why);
    }
  }
  plan->constraints.exclude = std::move(kept);
  // A phrase both quoted and negated ('not the "safe choice"') is neither a filter nor an
  // exclusion: the question's words still retrieve, and a corpus without the phrase is no reason
  // to return nothing.
  for (const std::string& p : contradicted_phrases) {
    auto& phrases = plan->operators.phrases;
    const auto at = std::find(phrases.begin(), phrases.end(), p);
    if (at == phrases.end()) continue;
    phrases.erase(at);
    plan->notes.push_back("validator: quoted phrase \"" + p + "\" is negated in the question: not used as a phrase filter");
  }
}

}  // namespace

Status ValidateRewrite(QueryPlan* plan) {
  DropUnsoundConstraints(plan);
  const std::string before = plan->rewritten;
  std::vector<std::string> words = SplitSpaces(AsciiLower(plan->rewritten));
  // Exclude terms never appear as positive terms: remove each occurrence (plural forms too).
  for (const std::string& e : plan->constraints.exclude) {
    const std::vector<std::string> phrase = SplitSpaces(AsciiLower(e));
    bool removed = false;
    while (const std::optional<size_t> at = FindPhrase(words, phrase)) {
      words.erase(words.begin() + static_cast<long>(*at), words.begin() + static_cast<long>(*at + phrase.size()));
      removed = true;
    }
    if (removed) plan->notes.push_back("validator: removed excluded term '" + e + "' from the rewrite");
    plan->notes.push_back("exclude '" + e + "': enforced by the pipeline as a post-retrieval check");
  }
  // Scope terms are always present.
  for (const std::string& s : plan->constraints.scope) {
    const std::vector<std::string> phrase = SplitSpaces(AsciiLower(s));
    if (FindPhrase(words, phrase)) continue;
    for (const std::string& w : phrase) words.push_back(w);
    plan->notes.push_back("validator: added missing scope term '" + s + "' to the rewrite");
  }
  // Quoted phrases: their content words are present (the phrase itself is a pipeline filter).
  for (const std::string& p : plan->operators.phrases) {
    const std::vector<std::string> needed = PhraseWords(p);
    if (!ContainsAllWords(words, needed)) {
      for (const std::string& w : needed) {
        if (!ContainsAllWords(words, {w})) words.push_back(w);
      }
      plan->notes.push_back("validator: added the words of phrase \"" + p + "\" to the rewrite");
    }
    plan->notes.push_back("phrase \"" + p + "\": enforced by the pipeline as a phrase filter");
  }
  for (const std::string& s : plan->operators.sites) plan->notes.push_back("site:" + s + ": enforced by the pipeline as a filter");
  for (const std::string& v : plan->operators.versions) plan->notes.push_back("version:" + v + ": enforced by the pipeline as a filter");
  for (const std::string& t : plan->operators.types) plan->notes.push_back("type:" + t + ": enforced by the pipeline as a filter");
  if (plan->operators.before) plan->notes.push_back("before:" + *plan->operators.before + ": enforced by the pipeline as a date filter");
  if (plan->operators.after) plan->notes.push_back("after:" + *plan->operators.after + ": enforced by the pipeline as a date filter");
  // A scope term may share a word with an exclude phrase only if that exclude is multi-word; a
  // final check keeps the guarantee exact.
  for (const std::string& e : plan->constraints.exclude) {
    const std::vector<std::string> phrase = SplitSpaces(AsciiLower(e));
    bool removed = false;
    while (const std::optional<size_t> at = FindPhrase(words, phrase)) {
      words.erase(words.begin() + static_cast<long>(*at), words.begin() + static_cast<long>(*at + phrase.size()));
      removed = true;
    }
    if (removed) plan->notes.push_back("validator: removed excluded term '" + e + "' again after the additions");
  }
  // De-duplicate, keeping the first occurrence.
  std::vector<std::string> unique;
  for (const std::string& w : words) {
    if (std::find(unique.begin(), unique.end(), w) == unique.end()) unique.push_back(w);
  }
  plan->rewritten = Join(unique);
  for (SubQuery& q : plan->subqueries) {
    if (q.purpose == "rewrite" && q.text == before) q.text = plan->rewritten;
  }
  return Status::Ok();
}

}  // namespace attest
