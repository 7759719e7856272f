// Entities, constraints and topic terms of a question: conservative, rule-based extraction.
#include <algorithm>
#include <set>

#include "plan/plan_internal.h"

namespace attest::plan_internal {
namespace {

bool HasUpper(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// Capitalised, product-like: starts with an uppercase letter; at the start of a sentence only when
// it also has an inner capital ("ExampleDB") or is all caps ("API").
bool LooksLikeName(const Word& w) {
  if (w.text.empty() || !(w.text[0] >= 'A' && w.text[0] <= 'Z')) return false;
  if (w.lower == "i" || IsStopword(w.lower) || IsQuestionStarter(w.lower) || IsGenericWord(w.lower)) {
    return false;
  }
  if (!w.sentence_start) return true;
  return HasUpper(std::string_view(w.text).substr(1));
}

// Words that end a constraint's object besides punctuation and stopwords.
bool IsMarkerWord(std::string_view w) {
  static const std::set<std::string_view> kMarkers = {
      "not", "except", "excluding", "without", "only", "for", "affect", "affects", "affecting",
      "and", "or", "but", "vs", "versus"};
  return kMarkers.count(w) != 0;
}

// The object of a constraint marker starting at word `i`: articles skipped, then up to 3 content
// words in one clause. Empty when the object is not a plain noun phrase (a number, an entity, a
// pronoun, a time cue, an idiom such as "for example").
std::vector<size_t> TakeObject(const std::vector<Word>& words, size_t i) {
  static const std::set<std::string_view> kNotObjects = {
      "example", "instance", "now", "sure", "free", "me", "us", "you", "him", "her", "it", "them",
      "this", "that", "these", "those", "how", "what", "which", "who", "why", "long", "good",
      "ever", "once", "all", "more", "less", "one", "other"};
  std::vector<size_t> out;
  while (i < words.size() && IsArticle(words[i].lower) && !words[i].boundary_before) ++i;
  for (; i < words.size() && out.size() < 3; ++i) {
    const Word& w = words[i];
    if (!out.empty() && w.boundary_before) break;
    if (out.empty() && w.boundary_before && i > 0) break;
    if (w.role != Role::kNone || IsStopword(w.lower) || IsMarkerWord(w.lower) ||
        IsQuestionStarter(w.lower) || IsGenericWord(w.lower)) {
      break;
    }
    if (out.empty() && (kNotObjects.count(w.lower) != 0 || IsVersionLike(w.lower) ||
                        (w.lower[0] >= '0' && w.lower[0] <= '9'))) {
      return {};
    }
    out.push_back(i);
  }
  return out;
}

std::string PhraseOf(const std::vector<Word>& words, const std::vector<size_t>& idx) {
  std::vector<std::string> parts;
  for (size_t k : idx) parts.push_back(words[k].lower);
  if (parts.size() > 1 && (parts.back() == "side" || parts.back() == "sides")) parts.pop_back();
  std::string s;
  for (const std::string& p : parts) s += (s.empty() ? "" : " ") + p;
  return SingularizePhrase(s);
}

void AddUnique(std::vector<std::string>* v, const std::string& s) {
  if (!s.empty() && std::find(v->begin(), v->end(), s) == v->end()) v->push_back(s);
}

// Alias keys split into lowercase words, longest first.
std::vector<std::pair<std::vector<std::string>, std::string>> AliasWords(const PlannerConfig& config) {
  std::vector<std::pair<std::vector<std::string>, std::string>> out;
  for (const auto& [alias, canonical] : config.aliases) {
    std::vector<std::string> parts;
    for (const Word& w : Tokenize(alias)) parts.push_back(w.lower);
    if (!parts.empty()) out.emplace_back(std::move(parts), canonical);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  return out;
}

}  // namespace

void ExtractEntities(std::vector<Word>* words_ptr, const PlannerConfig& config,
                     std::vector<PlanEntity>* entities, std::vector<std::string>* versions) {
  std::vector<Word>& words = *words_ptr;
  const auto type_of = [&](const std::string& canonical, const char* fallback) {
    const auto it = config.entity_types.find(canonical);
    return it == config.entity_types.end() ? std::string(fallback) : it->second;
  };
  const auto add = [&](size_t from, size_t to, const std::string& canonical, const char* fallback) {
    for (size_t k = from; k < to; ++k) words[k].role = Role::kEntity;
    for (const PlanEntity& e : *entities) {
      if (e.canonical == canonical) return;
    }
    PlanEntity e;
    for (size_t k = from; k < to; ++k) e.text += (k == from ? "" : " ") + words[k].text;
    e.canonical = canonical;
    e.type = type_of(canonical, fallback);
    entities->push_back(std::move(e));
  };
  const auto aliases = AliasWords(config);
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].role != Role::kNone) continue;
    for (const auto& [parts, canonical] : aliases) {
      if (i + parts.size() > words.size()) continue;
      bool match = true;
      for (size_t k = 0; k < parts.size() && match; ++k) {
        match = words[i + k].role == Role::kNone && words[i + k].lower == parts[k];
      }
      if (!match) continue;
      add(i, i + parts.size(), canonical, "software");
      i += parts.size() - 1;
      break;
    }
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].role != Role::kNone || !LooksLikeName(words[i])) continue;
    size_t j = i + 1;
    while (j < words.size() && j - i < 4 && words[j].role == Role::kNone && !words[j].boundary_before &&
           !words[j].text.empty() && words[j].text[0] >= 'A' && words[j].text[0] <= 'Z' &&
           !IsStopword(words[j].lower) && !IsGenericWord(words[j].lower)) {
      ++j;
    }
    std::string canonical;
    for (size_t k = i; k < j; ++k) canonical += (k == i ? "" : " ") + words[k].lower;
    const auto alias = config.aliases.find(canonical);
    add(i, j, alias == config.aliases.end() ? canonical : alias->second, "product");
    i = j - 1;
  }
  // Versions: "ExampleDB 17", "version 17", "release 3.2", "v17".
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].role != Role::kNone || !IsVersionLike(words[i].lower) || IsIsoDate(words[i].lower)) {
      continue;
    }
    const bool after_entity = i > 0 && words[i - 1].role == Role::kEntity && !words[i].boundary_before;
    const bool after_word = i > 0 && (words[i - 1].lower == "version" || words[i - 1].lower == "release");
    const bool v_prefixed = words[i].lower[0] == 'v';
    if (!after_entity && !after_word && !v_prefixed) continue;
    words[i].role = Role::kVersion;
    std::string v = words[i].lower;
    if (v[0] == 'v') v = v.substr(1);
    AddUnique(versions, v);
  }
}

void ExtractConstraints(std::vector<Word>* words_ptr, PlanConstraints* constraints) {
  std::vector<Word>& words = *words_ptr;
  const auto word = [&](size_t k) -> std::string_view {
    return k < words.size() ? std::string_view(words[k].lower) : std::string_view();
  };
  const auto apply = [&](size_t marker_from, size_t marker_to, size_t object_at, bool exclude) {
    const std::vector<size_t> obj = TakeObject(words, object_at);
    if (obj.empty()) return false;
    for (size_t k = marker_from; k < marker_to; ++k) words[k].role = Role::kMarker;
    for (size_t k : obj) words[k].role = exclude ? Role::kExclude : Role::kScope;
    AddUnique(exclude ? &constraints->exclude : &constraints->scope, PhraseOf(words, obj));
    return true;
  };
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].role != Role::kNone) continue;
    const std::string_view w = word(i);
    const bool prep_next = word(i + 1) == "for" || word(i + 1) == "on" || word(i + 1) == "in" ||
                           word(i + 1) == "about" || word(i + 1) == "including";
    const std::string_view next = word(i + 1);
    const bool gerund = next.size() > 4 && next.substr(next.size() - 3) == "ing";
    if (w == "without" && gerund) {
      // "without locking writes", "without restarting": how the wanted solution works, not a kind
      // of source to leave out (an exclusion would drop the very sentences that explain it).
      continue;
    }
    if (w == "except" || w == "excluding" || w == "without") {
      apply(i, prep_next ? i + 2 : i + 1, prep_next ? i + 2 : i + 1, true);
    } else if (w == "other" && word(i + 1) == "than") {
      apply(i, i + 2, i + 2, true);
    } else if (w == "not") {
      // Conservative: "..., not X", "but not X", "and not X", "not for X"; never "does not work".
      const bool clause_start = words[i].boundary_before || i == 0 ||
                                word(i - 1) == "but" || word(i - 1) == "and" || word(i - 1) == "or";
      if (prep_next) {
        apply(i, i + 2, i + 2, true);
      } else if (clause_start) {
        apply(i, i + 1, i + 1, true);
      }
    } else if (w == "only") {
      apply(i, prep_next ? i + 2 : i + 1, prep_next ? i + 2 : i + 1, false);
    } else if (w == "for") {
      apply(i, i + 1, i + 1, false);
    } else if (w == "affect" || w == "affects" || w == "affecting") {
      apply(i, i + 1, i + 1, false);
    } else if (w == "on" && i + 1 < words.size()) {
      // "on publishers": a single plural common noun closing the clause.
      const Word& next = words[i + 1];
      const bool closes = i + 2 >= words.size() || words[i + 2].boundary_before;
      if (closes && next.role == Role::kNone && next.lower.size() > 3 && next.lower.back() == 's' &&
          !HasUpper(next.text) && Singularize(next.lower) != next.lower) {
        apply(i, i + 1, i + 1, false);
      }
    }
  }
}

std::vector<std::string> TopicTerms(std::vector<Word>* words_ptr) {
  std::vector<Word>& words = *words_ptr;
  std::vector<std::string> out;
  std::string run;
  const auto flush = [&] {
    AddUnique(&out, run);
    run.clear();
  };
  for (Word& w : words) {
    if (w.boundary_before) flush();
    const bool content = (w.role == Role::kNone || w.role == Role::kScope) && !IsStopword(w.lower) &&
                         !IsQuestionStarter(w.lower) && !IsGenericWord(w.lower) && !IsIsoDate(w.lower);
    if (!content) {
      if (w.role == Role::kNone) w.role = IsGenericWord(w.lower) ? Role::kGeneric : Role::kStop;
      flush();
      continue;
    }
    run += (run.empty() ? "" : " ") + w.lower;
  }
  flush();
  return out;
}

}  // namespace attest::plan_internal
