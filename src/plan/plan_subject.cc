// The subject of a question: the thing it asks about. Identifiers as written first (they name one
// entry of a documentation tree), else the noun phrase the question is about.
#include <algorithm>
#include <cctype>

#include "common/strings.h"
#include "plan/plan_internal.h"

namespace attest::plan_internal {
namespace {

bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

struct RawToken {
  std::string text;         // surrounding punctuation trimmed; a trailing "()" kept
  bool ends_clause = false;  // punctuation was trimmed after it
};

std::vector<RawToken> RawTokens(std::string_view text) {
  std::vector<RawToken> out;
  for (std::string t : SplitSpaces(text)) {
    RawToken r;
    size_t b = 0;
    while (b < t.size() && std::string_view("\"'([{<`").find(t[b]) != std::string_view::npos) ++b;
    t.erase(0, b);
    while (!t.empty()) {
      if (t.size() > 2 && t.compare(t.size() - 2, 2, "()") == 0) break;
      if (std::string_view("\"'.,;:?!)]}>`").find(t.back()) == std::string_view::npos) break;
      r.ends_clause |= std::string_view(".,;:?!").find(t.back()) != std::string_view::npos;
      t.pop_back();
    }
    r.text = std::move(t);
    if (!r.text.empty()) out.push_back(std::move(r));
  }
  return out;
}

// "--onto", "--onto=<newbase>" -> "--onto"; "-x".
std::string Option(std::string_view t) {
  if (t.size() >= 3 && t[0] == '-' && t[1] == '-' && IsAlpha(t[2])) {
    size_t e = 2;
    while (e < t.size() && IsIdentChar(t[e])) ++e;
    return std::string(t.substr(0, e));
  }
  if (t.size() == 2 && t[0] == '-' && IsAlpha(t[1])) return std::string(t);
  return "";
}

// "sqlite3_prepare_v2()" -> "sqlite3_prepare_v2".
std::string Call(std::string_view t) {
  if (t.size() < 3 || t.substr(t.size() - 2) != "()") return "";
  t.remove_suffix(2);
  if (!(IsAlpha(t[0]) || t[0] == '_')) return "";
  const bool ok = std::all_of(t.begin(), t.end(), [](char c) { return IsIdentChar(c) || c == '.' || c == ':'; });
  return ok ? std::string(t) : "";
}

bool IsSnakeCase(std::string_view t) {
  return t.find('_') != std::string_view::npos && std::any_of(t.begin(), t.end(), IsAlpha) &&
         std::all_of(t.begin(), t.end(), [](char c) { return IsIdentChar(c) || c == '.' || c == ':'; });
}

// "core.eol", "postgresql.conf", "git-config.html": dotted parts of letters, the last with a letter
// (not a version), first and last at least 2 characters (not "e.g").
bool IsDottedKey(std::string_view t) {
  if (t.find('.') == std::string_view::npos || !IsAlpha(t[0])) return false;
  std::vector<std::string_view> parts;
  size_t s = 0;
  for (size_t e; (e = t.find('.', s)) != std::string_view::npos; s = e + 1) parts.push_back(t.substr(s, e - s));
  parts.push_back(t.substr(s));
  for (std::string_view p : parts) {
    if (p.empty() || !std::all_of(p.begin(), p.end(), IsIdentChar)) return false;
  }
  return parts.front().size() >= 2 && parts.back().size() >= 2 && std::any_of(parts.back().begin(), parts.back().end(), IsAlpha);
}

// "getElementById", "ExampleDB", "PostgreSQL": a lowercase letter followed later by a capital.
bool IsCamelCase(std::string_view t) {
  if (t.size() < 4 || !std::all_of(t.begin(), t.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; })) {
    return false;
  }
  for (size_t k = 1; k + 1 <= t.size() - 1; ++k) {
    if (IsLower(t[k]) && IsUpper(t[k + 1])) return true;
  }
  return false;
}

bool IsCapsWord(std::string_view t) {
  return t.size() >= 2 && std::all_of(t.begin(), t.end(), [](char c) { return IsUpper(c) || c == '_'; });
}

bool IsKnownName(const std::string& candidate, const std::vector<PlanEntity>& entities) {
  const std::string l = AsciiLower(candidate);
  return std::any_of(entities.begin(), entities.end(),
                     [&](const PlanEntity& e) {
                       return e.type != "product" && (AsciiLower(e.text) == l || e.canonical == l);
                     });
}

// The question's own text from the first word to the last ("Panthers' quarterback", "P = NP").
std::string Span(std::string_view text, const Word* first, const Word* last) {
  if (first == nullptr || last == nullptr || last->end > text.size() || first->start >= last->end) return "";
  return CollapseWhitespace(text.substr(first->start, last->end - first->start), Nbsp::kKeep);
}

bool IsParticiple(std::string_view lower) {
  return lower.size() > 3 && lower.substr(lower.size() - 2) == "ed" && lower.substr(lower.size() - 3) != "eed";
}

bool Excluded(const std::string& candidate, const PlanConstraints& constraints) {
  const std::string l = AsciiLower(candidate);
  return std::any_of(constraints.exclude.begin(), constraints.exclude.end(),
                     [&](const std::string& e) { return SingularizePhrase(l) == e || l == e; });
}

// The identifier the question names, best kind first: `code`, a quoted name, an option, a call, a
// snake_case or dotted key, a run of SQL-style capitals ("CREATE INDEX"), one capitalised keyword
// of 3+ letters ("MERGE"), a CamelCase name. Product names of the question's entities
// ("PostgreSQL") are its scope, not its subject.
std::string IdentifierSubject(std::string_view text, const PlanOperators& ops, const PlanConstraints& constraints,
                              const std::vector<PlanEntity>& entities) {
  std::vector<std::string> best(8);
  const auto offer = [&](size_t rank, const std::string& s) {
    if (!s.empty() && best[rank].empty() && s.size() <= 80 && !Excluded(s, constraints)) best[rank] = s;
  };
  if (const size_t open = text.find('`'); open != std::string_view::npos) {
    const size_t close = text.find('`', open + 1);
    if (close != std::string_view::npos) offer(0, std::string(Trim(text.substr(open + 1, close - open - 1))));
  }
  for (const std::string& p : ops.phrases) {
    if (SplitSpaces(p).size() <= 4) offer(1, p);
  }
  const std::vector<RawToken> tokens = RawTokens(text);
  const bool has_lower = std::any_of(text.begin(), text.end(), IsLower);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i].text;
    offer(2, Option(t));
    offer(3, Call(t));
    if (IsSnakeCase(t) || IsDottedKey(t)) offer(4, t);
    if (has_lower && IsCapsWord(t) && i + 1 < tokens.size() && !tokens[i].ends_clause && IsCapsWord(tokens[i + 1].text)) {
      std::string run = t;
      size_t last = i, stop_words = IsStopword(AsciiLower(t)) || IsQuestionStarter(AsciiLower(t)) ? 1 : 0;
      for (size_t j = i + 1; j < tokens.size() && IsCapsWord(tokens[j].text); ++j) {
        run += " " + tokens[j].text;
        last = j;
        stop_words += IsStopword(AsciiLower(tokens[j].text)) || IsQuestionStarter(AsciiLower(tokens[j].text));
        if (tokens[j].ends_clause) break;
      }
      // Keywords ("CREATE INDEX", "ON CONFLICT"), not shouted English ("WHAT IS THE DEFAULT").
      if (2 * stop_words <= last - i + 1) offer(5, run);
      i = last;
      continue;
    }
    if (has_lower && IsCapsWord(t) && t.size() >= 3 && i > 0 && !IsKnownName(t, entities)) offer(6, t);
    if (IsCamelCase(t) && !IsKnownName(t, entities)) offer(7, t);
  }
  for (const std::string& s : best) {
    if (!s.empty()) return s;
  }
  return "";
}

// Up to 5 content words from `k` (articles skipped) in one clause; a trailing participle dropped
// ("Eiffel Tower built" -> "Eiffel Tower"), and after do-support the clause's closing verb ("how
// long does a checkpoint take" -> "checkpoint"). A lone word right before an article or preposition
// is a verb ("who wrote the git book", "what caused the fire"): the phrase after it is taken.
std::string NounPhraseAt(std::string_view text, const std::vector<Word>& w, size_t k) {
  bool do_support = false;
  while (k < w.size() && (IsArticle(w[k].lower) || IsStopword(w[k].lower) || IsQuestionStarter(w[k].lower)) &&
         w[k].lower != "of" && w[k].lower != "about") {
    do_support |= w[k].lower == "do" || w[k].lower == "does" || w[k].lower == "did";
    ++k;
  }
  if (k + 1 < w.size() && !w[k + 1].boundary_before && IsStopword(w[k + 1].lower) && w[k + 1].lower != "of" &&
      !IsStopword(w[k].lower) && w[k].role != Role::kEntity) {
    std::string rest = NounPhraseAt(text, w, k + 1);
    if (!rest.empty()) return rest;
  }
  std::vector<const Word*> np;
  for (; k < w.size() && np.size() < 5; ++k) {
    const Word& x = w[k];
    if (!np.empty() && x.boundary_before) break;
    if (IsStopword(x.lower) || IsQuestionStarter(x.lower) || IsGenericWord(x.lower) || x.role == Role::kTime ||
        x.role == Role::kExclude || x.role == Role::kMarker) {
      break;
    }
    np.push_back(&x);
  }
  while (np.size() > 1 && IsParticiple(np.back()->lower)) np.pop_back();
  if (np.size() > 1 && IsParticiple(np.front()->lower)) np.erase(np.begin());  // "introduced logical replication"
  const bool closes = k >= w.size() || w[k].boundary_before;
  if (do_support && closes && np.size() > 1) np.pop_back();
  return Span(text, np.empty() ? nullptr : np.front(), np.empty() ? nullptr : np.back());
}

}  // namespace

namespace {

// Surrounding punctuation and a possessive ("Luther's" -> "Luther") are not part of the name.
std::string Tidy(std::string s) {
  const auto junk = [](char c) { return std::string_view("\"'.,;:?!() \t\n\r\f\v").find(c) != std::string_view::npos; };
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "()") == 0) s.resize(s.size() - 2);
  while (!s.empty() && junk(s.back())) s.pop_back();
  if (s.size() > 2 && s.compare(s.size() - 2, 2, "'s") == 0) s.resize(s.size() - 2);
  size_t b = 0;
  while (b < s.size() && junk(s[b])) ++b;
  s.erase(0, b);
  const bool named = std::any_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
  });
  return named ? s : "";
}

std::string FindSubjectRaw(const SubjectArgs& a);

}  // namespace

std::string FindSubject(const SubjectArgs& a) { return Tidy(FindSubjectRaw(a)); }

namespace {

std::string FindSubjectRaw(const SubjectArgs& a) {
  if (std::string id = IdentifierSubject(a.text, a.operators, a.constraints, a.entities); !id.empty()) return id;
  const std::vector<Word>& w = a.words;
  // A short keyword query ("git am", "vacuum full") is its own subject.
  const bool question = std::any_of(w.begin(), w.end(), [](const Word& x) { return IsQuestionStarter(x.lower); });
  if (a.focus.focus == Focus::kNone && !question && !w.empty() && w.size() <= 4) return Span(a.text, &w.front(), &w.back());
  const size_t from = std::min(a.focus.end, w.size());
  // "the default port of X": the setting named after "default" is the subject.
  if (a.focus.focus == Focus::kValue) {
    for (size_t k = 0; k + 1 < w.size(); ++k) {
      if (w[k].lower != "default") continue;
      size_t j = k + 1;
      while (j < w.size() && j < k + 4 && !w[j].boundary_before && !IsStopword(w[j].lower) &&
             !IsQuestionStarter(w[j].lower) && w[j].lower != "value" && w[j].lower != "values" &&
             w[j].lower != "setting" && !IsParticiple(w[j].lower)) {
        ++j;
      }
      if (j > k + 1) return Span(a.text, &w[k + 1], &w[j - 1]);
    }
  }
  // The phrase after "of" / "about" ("the default value of the checkpoint timeout").
  for (size_t k = from; k < w.size(); ++k) {
    if (w[k].lower != "of" && w[k].lower != "about") continue;
    if (k + 1 < w.size() && w[k + 1].role == Role::kEntity) break;  // the entity below
    if (std::string np = NounPhraseAt(a.text, w, k + 1); !np.empty()) return np;
  }
  // A named entity after the focus words ("When was the Eiffel Tower built?").
  for (size_t k = from; k < w.size(); ++k) {
    if (w[k].role != Role::kEntity) continue;
    size_t j = k + 1;
    while (j < w.size() && w[j].role == Role::kEntity && !w[j].boundary_before) ++j;
    return Span(a.text, &w[k], &w[j - 1]);
  }
  if (std::string np = NounPhraseAt(a.text, w, from); !np.empty()) return np;
  if (!a.entities.empty()) return a.entities.front().text;
  return NounPhraseAt(a.text, w, 0);  // "Antigone was a play made by whom?"
}

}  // namespace

}  // namespace attest::plan_internal
