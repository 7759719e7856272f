// PlanQuestion: validation of the untrusted question, operators, greeting and calculation,
// follow-up rewriting, then intent, entities, time, constraints, topic terms, sub-queries and the
// validated keyword rewrite.
#include <algorithm>
#include <set>

#include "common/strings.h"
#include "ingest/text_util.h"
#include "plan/plan_internal.h"
#include "plan/query_plan.h"

namespace attest {
namespace {

using namespace plan_internal;  // NOLINT(google-build-using-namespace): internal helpers of this component

std::string JoinWords(const std::vector<Word>& words, size_t from, size_t to, bool content_only) {
  std::string out;
  for (size_t k = from; k < to && k < words.size(); ++k) {
    if (content_only && (IsStopword(words[k].lower) || IsQuestionStarter(words[k].lower))) continue;
    out += (out.empty() ? "" : " ") + words[k].text;
  }
  return out;
}

bool StartsWith(const std::vector<Word>& w, std::initializer_list<std::string_view> seq) {
  if (w.size() < seq.size()) return false;
  size_t k = 0;
  for (std::string_view s : seq) {
    if (w[k++].lower != s) return false;
  }
  return true;
}

bool HasWord(const std::vector<Word>& w, std::string_view s) {
  return std::any_of(w.begin(), w.end(), [&](const Word& x) { return x.lower == s; });
}

bool IsGreeting(const std::vector<Word>& words) {
  static const std::set<std::string_view> kFirst = {"hi", "hello", "hey", "thanks", "thank", "thx",
                                                    "cheers", "greetings", "good", "bye", "goodbye", "howdy"};
  static const std::set<std::string_view> kAny = {
      "hi", "hello", "hey", "thanks", "thank", "thx", "cheers", "greetings", "good", "morning",
      "afternoon", "evening", "day", "you", "there", "so", "much", "a", "lot", "bye", "goodbye",
      "howdy", "all", "attest", "again", "very"};
  if (words.empty() || words.size() > 6 || kFirst.count(words[0].lower) == 0) return false;
  if (words[0].lower == "good" && (words.size() < 2 || kAny.count(words[1].lower) == 0)) return false;
  return std::all_of(words.begin(), words.end(), [](const Word& w) { return kAny.count(w.lower) != 0; });
}

// Side of a comparison: up to 4 words next to the separator, stopping at stopwords and clause ends.
std::string Side(const std::vector<Word>& words, size_t from, size_t to, bool backwards) {
  std::vector<size_t> idx;
  if (backwards) {
    for (size_t k = to; k > from && idx.size() < 4; --k) {
      const Word& w = words[k - 1];
      if (IsStopword(w.lower) || IsQuestionStarter(w.lower) || IsGenericWord(w.lower)) break;
      idx.insert(idx.begin(), k - 1);
      if (w.boundary_before) break;
    }
  } else {
    for (size_t k = from; k < to && idx.size() < 4; ++k) {
      const Word& w = words[k];
      if ((k > from && w.boundary_before) || IsStopword(w.lower) || IsGenericWord(w.lower)) break;
      idx.push_back(k);
    }
  }
  std::string out;
  for (size_t k : idx) out += (out.empty() ? "" : " ") + words[k].text;
  return out;
}

// Sub-queries are run as lexical queries, where a leading '-' or '+' on a word is an operator: a
// question's "--onto" or "-x" option would exclude the very pages that document it. The sign is
// dropped (the analyzer drops it from the indexed text too).
std::string LiteralForRetrieval(const std::string& text) {
  std::string out;
  for (const std::string& token : SplitSpaces(text)) {
    size_t b = 0;
    while (b < token.size() && (token[b] == '-' || token[b] == '+')) ++b;
    if (b < token.size()) out += (out.empty() ? "" : " ") + token.substr(b);
  }
  return out;
}

struct Analysis {
  std::vector<Word> words;
  bool latest_cue = false;
};

// Intent and intent-specific sub-queries (after q0), from the analysed words of `text`.
void ClassifyAndDecompose(const std::string& text, Analysis* a, QueryPlan* plan) {
  const std::vector<Word>& w = a->words;
  std::vector<SubQuery> subs;
  const auto sub = [&](std::string t, std::string purpose) {
    subs.push_back({"q" + std::to_string(subs.size() + 1), CollapseWhitespace(t, Nbsp::kKeep), std::move(purpose)});
  };
  std::string shared;  // topic terms that are on neither side of a comparison
  // Comparison: "X vs Y", "compare X and|with|to Y", "difference(s) between X and Y".
  for (size_t i = 0; i < w.size() && subs.empty(); ++i) {
    std::string left, right;
    if ((w[i].lower == "vs" || w[i].lower == "versus") && i > 0) {
      left = Side(w, 0, i, true);
      right = Side(w, i + 1, w.size(), false);
    } else if (w[i].lower == "compare" || ((w[i].lower == "difference" || w[i].lower == "differences") &&
                                           i + 1 < w.size() && w[i + 1].lower == "between")) {
      const size_t start = w[i].lower == "compare" ? i + 1 : i + 2;
      for (size_t k = start + 1; k < w.size(); ++k) {
        if (w[k].lower == "and" || w[k].lower == "with" || w[k].lower == "to") {
          size_t s = start;
          while (s < k && IsArticle(w[s].lower)) ++s;
          left = Side(w, s, k, false);
          size_t r = k + 1;
          while (r < w.size() && IsArticle(w[r].lower)) ++r;
          right = Side(w, r, w.size(), false);
          break;
        }
      }
    }
    if (left.empty() || right.empty()) continue;
    for (const std::string& t : plan->topic_terms) {
      if (AsciiLower(left).find(t) == std::string::npos && AsciiLower(right).find(t) == std::string::npos) {
        shared += (shared.empty() ? "" : " ") + t;
      }
    }
    plan->intent = Intent::kComparison;
    sub(left + " " + shared, "side: " + left);
    sub(right + " " + shared, "side: " + right);
  }
  // Multi-hop: "the <X> behind <Y> ...", "the <X> of the <Y> that|which|who ...".
  static const std::set<std::string_view> kVerbs = {
      "still", "receive", "receives", "get", "gets", "have", "has", "use", "uses", "support",
      "supports", "run", "runs", "is", "are", "was", "were", "will", "be", "been", "does", "do",
      "did", "can", "could", "should", "would", "need", "needs", "reach", "reaches"};
  for (size_t i = 1; i < w.size() && subs.empty(); ++i) {
    if (w[i].lower == "behind" && !IsStopword(w[i - 1].lower)) {
      std::string bridge = w[i - 1].lower;
      size_t k = i + 1;
      while (k < w.size() && IsArticle(w[k].lower)) ++k;
      const size_t bridge_from = k;
      for (; k < w.size() && !IsStopword(w[k].lower) && kVerbs.count(w[k].lower) == 0 &&
             (k == bridge_from || !w[k].boundary_before);
           ++k) {
        bridge += " " + w[k].text;
      }
      if (k == bridge_from) continue;
      std::string rest;
      for (size_t r = k; r < w.size(); ++r) {
        const Word& x = w[r];
        if (IsStopword(x.lower) || IsQuestionStarter(x.lower) || kVerbs.count(x.lower) || x.role == Role::kTime) {
          continue;
        }
        rest += (rest.empty() ? "" : " ") + x.text;
      }
      plan->intent = Intent::kMultiHop;
      sub(bridge, "hop 1: find the " + w[i - 1].lower + " behind " + JoinWords(w, bridge_from, k, false));
      sub("{q1} " + rest, "hop 2: uses the value found by q1");
    } else if (w[i].lower == "of" && i + 2 < w.size() && IsArticle(w[i + 1].lower) &&
               !IsStopword(w[i - 1].lower)) {
      size_t rel = 0;
      for (size_t k = i + 2; k < w.size() && k < i + 6; ++k) {
        if (w[k].lower == "that" || w[k].lower == "which" || w[k].lower == "who" || w[k].lower == "whose") {
          rel = k;
          break;
        }
      }
      if (rel == 0) continue;
      plan->intent = Intent::kMultiHop;
      sub(JoinWords(w, i + 2, w.size(), true), "hop 1: find the entity described after '" + w[i - 1].lower + " of'");
      sub("{q1} " + w[i - 1].lower, "hop 2: the " + w[i - 1].lower + " of the value found by q1");
    }
  }
  const std::string l = " " + AsciiLower(CollapseWhitespace(text, Nbsp::kKeep)) + " ";
  const auto has = [&](std::string_view p) { return l.find(p) != std::string::npos; };
  if (subs.empty()) {
    const bool change_word = HasWord(w, "changes") || HasWord(w, "changed") || HasWord(w, "change");
    const bool release_context = HasWord(w, "release") || HasWord(w, "releases") || HasWord(w, "version") ||
                                 a->latest_cue || !plan->mentioned_versions.empty();
    // For the weaker cues a release must be named with its number ("in version 17") or be the latest:
    // "the new ABC logo", "a red version of", "SR 99 improved" are not about a release.
    const bool release_named = a->latest_cue || (!plan->mentioned_versions.empty() &&
                                                 (HasWord(w, "release") || HasWord(w, "version")));
    // Weaker cues of what a release brought: they count only after the how-to check.
    const bool novelty_word = HasWord(w, "new") || HasWord(w, "added") || HasWord(w, "updated") ||
                              HasWord(w, "updates") || HasWord(w, "improvements") || HasWord(w, "improved") ||
                              HasWord(w, "different") || HasWord(w, "differences") || HasWord(w, "removed");
    // "how do|does|can|could|should|would|might I|you|we|one ...": the asker wants to do something.
    static const std::set<std::string_view> kAgents = {"i", "you", "we", "one", "someone", "users"};
    size_t lead = 0;
    if (!w.empty() && w[0].lower == "please") lead = 1;
    if (lead + 2 < w.size() && (w[lead].lower == "tell" || w[lead].lower == "show" || w[lead].lower == "explain")) {
      lead += w[lead + 1].lower == "me" || w[lead + 1].lower == "us" ? 2 : 1;
    }
    const bool how_agent = lead + 2 < w.size() && w[lead].lower == "how" &&
                           IsQuestionStarter(w[lead + 1].lower) && !IsQuestionWord(w[lead + 1].lower) &&
                           kAgents.count(w[lead + 2].lower) != 0;
    const bool how_to_words = (lead + 1 < w.size() && w[lead].lower == "how" && w[lead + 1].lower == "to") ||
                              has(" steps to ") || has(" steps for ") || has(" best way to ") ||
                              has(" is there a way to ") || has(" instructions for ") || has(" how-to ");
    if (has(" what changed ") || has(" what has changed ") || has(" what's new ") || has(" whats new ") ||
        has(" what is new ") || has(" what's changed ") || has(" whats changed ") || has(" changelog ") ||
        has(" change log ") || has(" release notes ") || has(" new features ") ||
        (change_word && release_context)) {
      plan->intent = Intent::kReleaseDelta;
    } else if (how_agent || how_to_words) {
      plan->intent = Intent::kHowTo;
    } else if (novelty_word && release_named &&
               (w.empty() || !IsQuestionStarter(w[0].lower) || w[0].lower == "what")) {
      plan->intent = Intent::kReleaseDelta;  // "new features in ExampleDB 17", "what was added in version 3"
    } else if (has(" homepage ") || has(" home page ") || has(" website ") || has(" web site ") ||
               has(" login page ") || has(" download page ") || has(" link to ") ||
               StartsWith(w, {"go", "to"})) {
      plan->intent = Intent::kNavigational;
    } else {
      size_t start = 0, stop = w.size();
      if (StartsWith(w, {"what", "is"}) || StartsWith(w, {"what", "are"}) || StartsWith(w, {"definition", "of"}) ||
          StartsWith(w, {"meaning", "of"})) {
        start = 2;
      } else if (StartsWith(w, {"what's"}) || StartsWith(w, {"whats"}) || StartsWith(w, {"define"})) {
        start = 1;
      } else if ((StartsWith(w, {"what", "does"}) || StartsWith(w, {"what", "do"})) && w.size() >= 4 &&
                 (w.back().lower == "mean" || (w.back().lower == "for" && w[w.size() - 2].lower == "stand"))) {
        // "what does X mean", "what does X stand for"
        start = 2;
        stop = w.size() - (w.back().lower == "mean" ? 1 : 2);
      }
      if (StartsWith(w, {"what", "is", "meant", "by"})) start = 4;  // "what is meant by X"
      if (start > 0) {
        while (start < stop && IsArticle(w[start].lower)) ++start;
        const size_t n = stop > start ? stop - start : 0;
        bool plain = n >= 1 && n <= 3;
        for (size_t k = start; k < stop && plain; ++k) plain = !IsStopword(w[k].lower) && w[k].role != Role::kTime;
        if (plain) plan->intent = Intent::kDefinition;
      }
    }
    // Multi-part: "<question>, and <question word> ...": one sub-query per part.
    for (size_t i = 2; i + 1 < w.size() && subs.empty(); ++i) {
      if (w[i].lower != "and" || !IsQuestionStarter(w[i + 1].lower)) continue;
      std::string first(Trim(std::string_view(text).substr(0, w[i].start)));
      while (!first.empty() && (first.back() == ',' || first.back() == ';')) first.pop_back();
      std::string second(Trim(std::string_view(text).substr(w[i + 1].start)));
      while (!second.empty() && (second.back() == '?' || second.back() == '.')) second.pop_back();
      const std::string second_lower = AsciiLower(second);
      std::string carried;
      for (const PlanEntity& e : plan->entities) {
        if (second_lower.find(AsciiLower(e.text)) == std::string::npos) carried += " " + e.text;
      }
      sub(first, "part 1");
      sub(second + (carried.empty() ? "" : " for" + carried), "part 2");
    }
  }
  plan->notes.push_back(std::string("intent: ") + IntentName(plan->intent));
  plan->subqueries.push_back({"q0", plan->standalone, "original"});
  for (SubQuery& q : subs) {
    q.id = "q" + std::to_string(plan->subqueries.size());
    plan->subqueries.push_back(std::move(q));
  }
}

// The rewrite: entity canonicals, mentioned versions, topic-term words and scope terms.
std::string BuildRewrite(const QueryPlan& plan) {
  std::vector<std::string> words;
  const auto add_words = [&](const std::string& s) {
    for (const std::string& x : SplitSpaces(AsciiLower(s))) {
      // One form per word: "subscribers" and the scope term "subscriber" are the same term.
      const bool seen = std::any_of(words.begin(), words.end(), [&](const std::string& y) {
        return y == x || Singularize(y) == Singularize(x);
      });
      if (!seen) words.push_back(x);
    }
  };
  for (const PlanEntity& e : plan.entities) add_words(e.canonical);
  // The subject's words as the tokenizer keeps them ("max_wal_senders", "core.eol", "onto"), so an
  // identifier stays one term of the rewrite.
  // A possessive is the same word ("Roald Dahl" after the entity "roald dahl's").
  const auto base = [](std::string w) {
    if (w.size() > 2 && w.compare(w.size() - 2, 2, "'s") == 0) w.resize(w.size() - 2);
    return Singularize(w);
  };
  for (const Word& w : Tokenize(plan.subject)) {
    const bool named = std::any_of(words.begin(), words.end(), [&](const std::string& y) { return base(y) == base(w.lower); });
    if (!IsStopword(w.lower) && !named) add_words(w.lower);
  }
  for (const std::string& v : plan.mentioned_versions) add_words(v);
  // Scope terms before topic terms, so their singular form is the one kept.
  for (const std::string& s : plan.constraints.scope) add_words(s);
  for (const std::string& t : plan.topic_terms) add_words(t);
  if (plan.intent == Intent::kReleaseDelta) add_words("release");
  return CollapseWhitespace(
      [&] {
        std::string out;
        for (const std::string& x : words) out += " " + x;
        return out;
      }(),
      Nbsp::kKeep);
}

void Analyse(const std::string& text, std::string_view today, const PlannerConfig& config, QueryPlan* plan) {
  Analysis a;
  a.words = Tokenize(text);
  ExtractTime(&a.words, today, &plan->time, &a.latest_cue);
  ExtractEntities(&a.words, config, &plan->entities, &plan->mentioned_versions);
  ExtractConstraints(&a.words, &plan->constraints);
  plan->topic_terms = TopicTerms(&a.words);
  plan->time.needs_current_version =
      a.latest_cue && (!plan->entities.empty() || HasWord(a.words, "release") || HasWord(a.words, "releases") ||
                       HasWord(a.words, "version") || HasWord(a.words, "versions"));
  ClassifyAndDecompose(text, &a, plan);
  const FocusParse focus = ParseFocus(a.words, plan->intent);
  plan->focus = focus.focus;
  plan->subject = FindSubject({text, a.words, focus, plan->operators, plan->constraints, plan->entities});
  plan->notes.push_back(std::string("focus: ") + FocusName(plan->focus) +
                        (plan->subject.empty() ? "" : "; subject: " + plan->subject));
  plan->rewritten = BuildRewrite(*plan);
  if (plan->subqueries.size() == 1) plan->subqueries.push_back({"q1", plan->rewritten, "rewrite"});
  for (SubQuery& q : plan->subqueries) q.text = LiteralForRetrieval(q.text);
}

bool IsFollowUp(const std::vector<Word>& words, const QueryPlan& candidate) {
  if (StartsWith(words, {"and"}) || StartsWith(words, {"what", "about"}) || StartsWith(words, {"how", "about"})) {
    return true;
  }
  return words.size() <= 8 && candidate.entities.empty() && candidate.mentioned_versions.empty();
}

// Builds the standalone question of a follow-up from the previous turn's plan.
std::string BuildStandalone(const std::string& text, const QueryPlan& prev, const QueryPlan& candidate) {
  std::vector<Word> words = Tokenize(text);
  size_t skip = 0;
  if (StartsWith(words, {"and", "what", "about"}) || StartsWith(words, {"and", "how", "about"})) {
    skip = 3;
  } else if (StartsWith(words, {"what", "about"}) || StartsWith(words, {"how", "about"})) {
    skip = 2;
  } else if (StartsWith(words, {"and"})) {
    skip = 1;
  }
  std::string content = skip < words.size() ? std::string(Trim(std::string_view(text).substr(words[skip].start))) : "";
  while (!content.empty() && (content.back() == '?' || content.back() == '.' || content.back() == '!')) {
    content.pop_back();
  }
  std::string context;
  const auto add = [&](const std::string& s) {
    if (!s.empty()) context += (context.empty() ? "" : " ") + s;
  };
  if ((prev.time.relative == "latest" || prev.time.relative == "current") && prev.resolved_version.empty()) {
    add(prev.time.relative);
  }
  for (const PlanEntity& e : prev.entities) add(e.text);
  if (!prev.resolved_version.empty()) {
    add(prev.resolved_version);
  } else {
    for (const std::string& v : prev.mentioned_versions) add(v);
  }
  const std::vector<std::string>& new_scope = candidate.constraints.scope;
  const auto is_prev_scope = [&](const std::string& t) {
    const std::string s = SingularizePhrase(t);
    return std::find(prev.constraints.scope.begin(), prev.constraints.scope.end(), s) != prev.constraints.scope.end();
  };
  for (const std::string& t : prev.topic_terms) {
    const bool scope = is_prev_scope(t);
    const bool single = t.find(' ') == std::string::npos;
    if (scope && single && !new_scope.empty()) continue;  // replaced by the follow-up's scope
    if (AsciiLower(content).find(t) != std::string::npos) continue;
    add(scope ? "for " + t : t);
  }
  std::string standalone;
  const bool own_question = !words.empty() && skip < words.size() && IsQuestionStarter(words[skip].lower);
  if (own_question) {
    // "how do I install it?" -> the pronoun stands for the previous entity, else append the context.
    std::string replaced;
    bool did = false;
    for (size_t k = skip; k < words.size(); ++k) {
      const bool pronoun = words[k].lower == "it" || words[k].lower == "that" || words[k].lower == "this";
      replaced += (replaced.empty() ? "" : " ") + (pronoun && !did && !context.empty() ? context : words[k].text);
      did |= pronoun && !context.empty();
    }
    standalone = did ? replaced : content + " " + context;
  } else {
    std::string frame;
    if (prev.intent == Intent::kReleaseDelta) frame = "What changed in";
    if (prev.intent == Intent::kHowTo) frame = "How to use";
    standalone = frame + " " + context + " " + content;
  }
  for (const std::string& e : prev.constraints.exclude) {
    if (std::find(new_scope.begin(), new_scope.end(), e) == new_scope.end()) standalone += ", not " + e;
  }
  return CollapseWhitespace(standalone, Nbsp::kKeep) + "?";
}

}  // namespace

Result<QueryPlan> PlanQuestion(const PlanArgs& args, const PlannerConfig& config) {
  const std::string& q = args.question;
  if (q.size() > 4 * kMaxQuestionChars) {  // cannot be kMaxQuestionChars code points: refuse before decoding
    return Status::InvalidArgument("question: longer than " + std::to_string(kMaxQuestionChars) + " characters (" +
                                   std::to_string(q.size()) + " bytes)");
  }
  if (const std::optional<size_t> bad = ingest::FindInvalidUtf8(q)) {
    return Status::InvalidArgument("question: invalid UTF-8 at byte " + std::to_string(*bad));
  }
  // Code points, as the HTTP API counts them (docs/http_api.md, "Limits"): never bytes or UTF-16 units.
  const size_t chars = static_cast<size_t>(
      std::count_if(q.begin(), q.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  if (chars > kMaxQuestionChars) {
    return Status::InvalidArgument("question: " + std::to_string(chars) + " characters; the limit is " +
                                   std::to_string(kMaxQuestionChars));
  }
  if (Trim(q).empty()) return Status::InvalidArgument("question: empty");
  if (!IsIsoDate(args.today)) {
    return Status::InvalidArgument("today: expected a YYYY-MM-DD date, got '" + args.today.substr(0, 40) + "'");
  }
  QueryPlan plan;
  plan.original = q;
  plan.time.resolved_at = args.today;
  ATTEST_ASSIGN_OR_RETURN(std::string text, ExtractOperators(q, &plan.operators));
  const std::vector<Word> words = Tokenize(text);
  if (IsGreeting(words)) {
    plan.standalone = text;
    plan.intent = Intent::kGreeting;
    plan.needs_search = false;
    plan.subqueries.push_back({"q0", text, "original"});
    plan.notes.push_back("intent: greeting; no search");
    return plan;
  }
  Result<std::optional<Calculation>> calc = Calculate(text);
  if (!calc.ok()) return calc.status();
  if (calc->has_value()) {
    plan.standalone = text;
    plan.intent = Intent::kCalculation;
    plan.needs_search = false;
    plan.calculation = std::move(*calc).value();
    plan.subqueries.push_back({"q0", text, "original"});
    plan.notes.push_back("intent: calculation; computed in code, no search");
    return plan;
  }
  if (text.empty()) return Status::InvalidArgument("question: nothing left after operators");
  plan.standalone = text;
  Analyse(text, args.today, config, &plan);
  // A greeting or a calculation has no retrieval context to carry over.
  if (args.previous != nullptr && args.previous->needs_search && IsFollowUp(words, plan)) {
    const QueryPlan& prev = *args.previous;
    QueryPlan follow;
    follow.original = q;
    follow.operators = plan.operators;
    follow.time.resolved_at = args.today;
    follow.standalone = BuildStandalone(text, prev, plan);
    if (follow.standalone.size() > 16 * kMaxQuestionChars) {  // bytes: four questions' worth
      return Status::InvalidArgument("question: follow-up context too long");
    }
    Analyse(follow.standalone, args.today, config, &follow);
    if (follow.time.relative.empty() && !prev.time.relative.empty()) {
      const std::string at = follow.time.resolved_at;
      follow.time = prev.time;
      follow.time.resolved_at = at;
      follow.notes.push_back("time carried over from the previous turn: " + prev.time.relative);
    }
    if (follow.intent == Intent::kFact && prev.intent != Intent::kFact) follow.intent = prev.intent;
    follow.notes.insert(follow.notes.begin(), "follow-up: rewritten from the previous turn as '" + follow.standalone + "'");
    plan = std::move(follow);
  }
  ATTEST_RETURN_IF_ERROR(ValidateRewrite(&plan));
  return plan;
}

}  // namespace attest
