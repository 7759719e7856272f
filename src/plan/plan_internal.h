// Internal pieces of the query planner shared by its .cc files: the word tokenizer, word lists,
// the singulariser, operator parsing and the time, entity and constraint extractors.
// Not part of the planner's interface (see plan/query_plan.h). Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "plan/query_plan.h"

namespace attest::plan_internal {

// What a word of the question was used for; words keep the first role assigned.
enum class Role { kNone, kStop, kTime, kEntity, kVersion, kMarker, kExclude, kScope, kGeneric };

struct Word {
  std::string text;    // as written, surrounding punctuation trimmed
  std::string lower;   // ASCII-lowercased
  size_t start = 0, end = 0;    // byte offsets in the analysed text
  bool boundary_before = false;  // punctuation (, ; : ? ! . ( )) or start of text before this word
  bool sentence_start = false;   // first word, or after . ? !
  Role role = Role::kNone;
};

// Words: maximal runs of letters, digits, non-ASCII bytes and inner _ - . ' / + #, with leading and
// trailing . - ' / trimmed. "orders-api", "lr_example_parallel_apply", "15.4", "2026-09-01" are
// one word each.
std::vector<Word> Tokenize(std::string_view text);

std::vector<std::string> SplitSpaces(std::string_view s);

// Articles, prepositions, pronouns, auxiliaries, conjunctions (a superset of Lucene's 33 words).
bool IsStopword(std::string_view lower);
// what, how, when, where, who, whom, whose, which, why.
bool IsQuestionWord(std::string_view lower);
// Words that start a question part: question words plus is/are/does/do/can/should/will/...
bool IsQuestionStarter(std::string_view lower);
// Words too generic to discriminate ("changed", "release", "tell", ...).
bool IsGenericWord(std::string_view lower);
bool IsArticle(std::string_view lower);
bool IsAllDigits(std::string_view s);
// "17", "3.2", "v17", "15.4.1".
bool IsVersionLike(std::string_view lower);
bool IsIsoDate(std::string_view s);

// Small rule set: -ies -> -y, -sses -> -ss, -xes/-ches/-shes -> drop "es", words ending in -ss,
// -us, -is unchanged, other -s dropped (only for words longer than 3 letters).
std::string Singularize(std::string_view lower_word);
// Singularises the last word of a space-separated phrase.
std::string SingularizePhrase(std::string_view lower_phrase);

// Parses quoted phrases and site:/before:/after:/version:/type: operators into `ops`; returns the
// text with operators removed and quotes dropped (phrase words kept). Unknown foo:bar stays text.
// kInvalidArgument naming the operator for a missing or malformed value.
Result<std::string> ExtractOperators(std::string_view text, PlanOperators* ops);

// Time cues against `today` (a validated YYYY-MM-DD). Marks the cue words kTime. Sets
// `*latest_cue` when latest/newest/most recent/current appear.
void ExtractTime(std::vector<Word>* words, std::string_view today, PlanTime* time, bool* latest_cue);

// Alias-table entities (multi-word aliases first), then capitalised product-like names; versions
// written after an entity ("ExampleDB 17", "version 17") go to `versions`.
void ExtractEntities(std::vector<Word>* words, const PlannerConfig& config,
                     std::vector<PlanEntity>* entities, std::vector<std::string>* versions);

// exclude: not/except/without/excluding/other than X; scope: only/for/on <plural>/affect(s)/
// affecting X. Marks marker and constraint words.
void ExtractConstraints(std::vector<Word>* words, PlanConstraints* constraints);

// Content phrases: runs of unassigned or scope words (stopwords, question and generic words
// removed), lowercase, in order, de-duplicated.
std::vector<std::string> TopicTerms(std::vector<Word>* words);

// The question's focus (docs/planner.md, "Focus and subject") and `end`, the index of the first word
// after the words that carry it ("what is the default value | of X").
struct FocusParse {
  Focus focus = Focus::kNone;
  size_t end = 0;
};
FocusParse ParseFocus(const std::vector<Word>& words, Intent intent);

struct SubjectArgs {
  std::string_view text;  // the analysed question (operators removed, backticks kept)
  const std::vector<Word>& words;
  const FocusParse& focus;
  const PlanOperators& operators;
  const PlanConstraints& constraints;
  const std::vector<PlanEntity>& entities;
};
// What the question asks about, as written: an identifier (`code`, a quoted name, --option, call(),
// snake_case, dotted.key, CAPS KEYWORDS, CamelCase), else the noun phrase after "of"/"about", a
// named entity after the focus words, or the noun phrase after them; "" when none.
std::string FindSubject(const SubjectArgs& args);

// Date helpers over YYYY-MM-DD strings (validated by the caller).
struct Ymd {
  int y = 0, m = 0, d = 0;
};
std::optional<Ymd> ParseYmd(std::string_view s);
std::string FormatYmd(int y, int m, int d);
std::string AddDays(std::string_view ymd, int days);

}  // namespace attest::plan_internal
