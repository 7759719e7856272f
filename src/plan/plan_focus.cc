// Question focus (what kind of content answers) and subject (what the question is about), read from
// the question's structure: the question word and the head noun after it, never a rule per phrasing.
#include <algorithm>
#include <set>

#include "common/strings.h"
#include "plan/plan_internal.h"

namespace attest::plan_internal {
namespace {

bool In(const std::set<std::string_view>& set, std::string_view w) { return set.count(w) != 0; }

bool IsBe(std::string_view w) {
  return w == "is" || w == "are" || w == "was" || w == "were" || w == "be" || w == "'s";
}

bool IsAuxiliary(std::string_view w) { return IsQuestionStarter(w) && !IsQuestionWord(w); }

// The kind of answer a head noun asks for ("the default value", "what year", "which version").
Focus NounFocus(std::string_view w) {
  static const std::set<std::string_view> kValue = {"value", "values", "default", "defaults"};
  static const std::set<std::string_view> kNumber = {
      "number", "numbers", "percentage", "percent", "proportion", "fraction", "amount", "size", "count",
      "total", "population", "quantity", "length", "distance", "duration", "price", "cost", "rate",
      "speed", "temperature", "height", "weight", "age", "ratio", "maximum", "minimum", "limit",
      "capacity", "area", "width", "depth", "sum", "frequency", "score", "salary", "budget"};
  static const std::set<std::string_view> kDate = {"year", "years", "date", "dates", "day", "month",
                                                   "century", "decade", "time", "era", "week"};
  static const std::set<std::string_view> kVersion = {"version", "versions", "release", "releases"};
  static const std::set<std::string_view> kReason = {"reason", "reasons", "cause", "causes", "purpose", "motive",
                                                     "motivation", "rationale"};
  if (In(kValue, w)) return Focus::kValue;
  if (In(kVersion, w)) return Focus::kVersion;
  if (In(kDate, w)) return Focus::kDate;
  if (In(kNumber, w)) return Focus::kNumber;
  if (In(kReason, w)) return Focus::kReason;
  return Focus::kNone;
}

bool LooksPlural(std::string_view w) {
  return w.size() > 3 && w.back() == 's' && Singularize(w) != w && w.find('_') == std::string_view::npos;
}

// Words of a noun phrase: not stopwords, question words, generic words or clause ends.
bool NounPhraseWord(const Word& w) {
  return !IsStopword(w.lower) && !IsQuestionStarter(w.lower) && w.role != Role::kTime &&
         (!IsGenericWord(w.lower) || NounFocus(w.lower) != Focus::kNone);
}

// Lead-ins that do not carry the question: "please", "can you tell me", "do you know", "tell me".
size_t SkipLeadIn(const std::vector<Word>& w) {
  static const std::set<std::string_view> kAsk = {"tell", "show", "give", "explain", "list", "name", "say"};
  size_t i = 0;
  if (i < w.size() && w[i].lower == "please") ++i;
  if (i + 2 < w.size() && IsAuxiliary(w[i].lower) && w[i + 1].lower == "you" &&
      (In(kAsk, w[i + 2].lower) || w[i + 2].lower == "know" || w[i + 2].lower == "please")) {
    i += 2;
    if (w[i].lower == "please") ++i;
    if (i < w.size() && w[i].lower == "know") ++i;
  }
  if (i + 1 < w.size() && (w[i].lower == "tell" || w[i].lower == "show" || w[i].lower == "give") &&
      (w[i + 1].lower == "me" || w[i + 1].lower == "us")) {
    i += 2;
  }
  return i;
}

}  // namespace

FocusParse ParseFocus(const std::vector<Word>& w, Intent intent) {
  FocusParse out;
  const size_t n = w.size();
  const auto word = [&](size_t k) -> std::string_view { return k < n ? std::string_view(w[k].lower) : ""; };
  const auto set = [&](Focus f, size_t end) {
    out.focus = f;
    out.end = std::min(end, n);
    return out;
  };
  // Comparison first: "X vs Y", "difference between", "compare", "differ from".
  for (size_t k = 0; k < n; ++k) {
    const std::string_view x = word(k);
    if (x == "vs" || x == "versus" || x == "compare" || x == "compared" || x == "differ" || x == "differs" ||
        ((x == "difference" || x == "differences") && word(k + 1) == "between")) {
      return set(Focus::kComparison, 0);
    }
  }
  if (intent == Intent::kComparison) return set(Focus::kComparison, 0);
  const size_t start = SkipLeadIn(w);
  if (start >= n) return set(Focus::kNone, 0);
  const std::string_view first = word(start);
  // Imperatives.
  if (first == "list" || first == "enumerate") return set(Focus::kList, start + 1);
  if (first == "name") {
    const bool several = word(start + 1) == "all" || word(start + 1) == "some" || word(start + 1) == "every" ||
                         (start + 1 < n && LooksPlural(word(start + 1))) ||
                         (start + 2 < n && IsArticle(word(start + 1)) && LooksPlural(word(start + 2)));
    return set(several ? Focus::kList : Focus::kName, start + 1);
  }
  if (first == "define" || first == "describe" || (first == "explain" && word(start + 1) != "how" &&
                                                   word(start + 1) != "why")) {
    return set(Focus::kDefinition, start + 1);
  }
  // A question that starts with an auxiliary ("does X support Y?", "is X ...?") asks yes or no.
  if (IsAuxiliary(first)) return set(Focus::kYesNo, start + 1);
  // The question word: the first one, wherever it is ("In what year ...", "... built when?").
  size_t q = start;
  while (q < n && !IsQuestionWord(word(q))) ++q;
  if (q >= n) {
    if (intent == Intent::kHowTo) return set(Focus::kProcedure, start);
    if (intent == Intent::kDefinition) return set(Focus::kDefinition, start);
    return set(Focus::kNone, 0);
  }
  const std::string_view qw = word(q);
  if (qw == "why") return set(Focus::kReason, q + 1);
  if (qw == "who" || qw == "whom" || qw == "whose" || qw == "where") return set(Focus::kName, q + 1);
  if (qw == "when") {
    // "when should I use X" asks for a condition, not a date.
    const bool condition = (word(q + 1) == "should" || word(q + 1) == "would" || word(q + 1) == "do" ||
                            word(q + 1) == "can") &&
                           (word(q + 2) == "i" || word(q + 2) == "you" || word(q + 2) == "we" || word(q + 2) == "one");
    return set(condition ? Focus::kNone : Focus::kDate, q + 1);
  }
  if (qw == "how") {
    static const std::set<std::string_view> kMeasure = {"long", "old", "big", "large", "tall", "far", "often",
                                                       "high", "heavy", "fast", "wide", "deep", "small", "frequently",
                                                       "late", "early", "soon"};
    const std::string_view next = word(q + 1);
    if (next == "many" || next == "much") {
      size_t end = q + 2;
      while (end < n && NounPhraseWord(w[end]) && end < q + 4) ++end;
      return set(Focus::kNumber, end);
    }
    if (In(kMeasure, next)) return set(Focus::kNumber, q + 2);
    if (next == "come") return set(Focus::kReason, q + 2);
    static const std::set<std::string_view> kAgent = {"i", "you", "we", "one", "someone", "users", "a"};
    const bool procedure = next == "to" || (IsAuxiliary(next) && In(kAgent, word(q + 2)));
    if (procedure || intent == Intent::kHowTo) return set(Focus::kProcedure, q + 1);
    return set(Focus::kNone, q + 1);
  }
  size_t k = q + 1;
  const bool be = qw == "what's" || qw == "whats" || IsBe(word(k));
  if (qw != "what's" && qw != "whats" && be) ++k;
  // "what does X do/mean/stand for/refer to": a definition.
  if (word(k) == "does" || word(k) == "do") {
    for (size_t j = k + 1; j < n; ++j) {
      const std::string_view x = word(j);
      if (x == "mean" || x == "means" || x == "stand" || x == "represent" || x == "refer" ||
          (x == "do" && j + 1 == n)) {
        return set(Focus::kDefinition, k + 1);
      }
      if ((x == "return" || x == "output" || x == "print") && j + 1 == n) return set(Focus::kValue, k + 1);
    }
  }
  // A value asked by name ("default", "set to"; not an option named --default, caught above), then
  // the head noun.
  for (size_t j = q + 1; j < n; ++j) {
    if (word(j) == "default" || word(j) == "defaults" || (word(j) == "set" && word(j + 1) == "to")) {
      return set(Focus::kValue, q + 1);
    }
  }
  while (k < n && (IsArticle(word(k)) || word(k) == "kind" || word(k) == "type" || word(k) == "sort") &&
         !(k > q + 1 && w[k].boundary_before)) {
    if (word(k) != "kind" && word(k) != "type" && word(k) != "sort") {
      ++k;
    } else if (word(k + 1) == "of") {
      k += 2;
    } else {
      break;
    }
  }
  // The noun phrase after the question word: up to 3 content words of one clause.
  size_t np_end = k;
  const auto participle = [](std::string_view x) { return x.size() > 3 && x.substr(x.size() - 2) == "ed"; };
  while (np_end < n && np_end < k + 3 && NounPhraseWord(w[np_end]) &&
         (np_end == k || (!w[np_end].boundary_before && !participle(word(np_end))))) {
    ++np_end;
  }
  // Its head noun names the kind of answer: the last word first ("release date"), then the others.
  for (size_t j = np_end; j > k; --j) {
    if (const Focus f = NounFocus(word(j - 1)); f != Focus::kNone) return set(f, j);
  }
  if (np_end == k) {
    return set(be && qw == "which" ? Focus::kName : Focus::kNone, k);  // "what is in ...", "which is"
  }
  if (be) {
    // "what is X" with nothing after the phrase is a definition; "what is the capital of X" is not.
    if (np_end == n || (np_end + 1 == n && w[np_end].boundary_before)) return set(Focus::kDefinition, k);
    if (qw == "which") return set(Focus::kName, np_end);
    const bool plural_list = (word(q + 1) == "are" || word(q + 1) == "were") && LooksPlural(word(np_end - 1));
    return set(plural_list ? Focus::kList : Focus::kNone, plural_list ? np_end : k);
  }
  // "which|what <noun> ...": a name, or several when the noun is plural. A verb right after the
  // question word ("what caused ...") is not a noun.
  const std::string_view head = word(k);
  if (head.size() > 3 && head.substr(head.size() - 2) == "ed") return set(Focus::kNone, k);
  return set(LooksPlural(head) ? Focus::kList : Focus::kName, np_end);
}

}  // namespace attest::plan_internal
