// Relevance of evidence to a question (docs/answer.md, "Subject and focus"): whether a sentence is
// about the thing the question asks about (its subject) and whether it holds the kind of content
// the question asks for (its focus). Shared by the evidence builder (scoring), the extractive
// writer (the leading sentence) and the verifier (the off_topic check), so that all three agree.
//
// Subjects are compared as identifiers, case-insensitively, after the decorations documentation
// puts around a term: a type or section number in parentheses ("max_wal_senders (integer)",
// "git-rebase(1)"), placeholders ("--onto <newbase>", "--exec=<cmd>"), optional parts ("--[no-]verify"
// is both "--verify" and "--no-verify"), alternatives separated by commas ("-i, --interactive") and
// a leading section number ("19.6.1. Sending Servers"). Leading dashes are optional ("onto" names
// "--onto"); an identifier is never matched by a part of it ("checkpoint_warning" is not
// "checkpoint_completion_target", "core.eol" is not "core.autocrlf").
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "evidence/evidence.h"
#include "plan/query_plan.h"

namespace attest {

// The alternatives a subject names, each as its words (lower case, decorations removed).
// "-i, --interactive" -> {{"-i"}, {"--interactive"}}; "git rebase" -> {{"git", "rebase"}}.
std::vector<std::vector<std::string>> SubjectAlternatives(std::string_view subject);

// True when the passage's subject names the question's subject: every word of one alternative of
// the question's subject is a word of one alternative of the passage's subject ("git rebase" is
// named by the heading "git-rebase(1) Manual Page"; "max_wal_senders" by "max_wal_senders (integer)").
bool SubjectsMatch(std::string_view question_subject, std::string_view passage_subject);

// True when `text` mentions the subject: every word of one of its alternatives occurs in the text
// as a whole identifier.
bool MentionsSubject(std::string_view text, std::string_view subject);

// True when `text` says nothing but the subject's own words: the term line of an entry
// ("max_wal_senders (integer)" under the subject "max_wal_senders (integer)").
bool NamesOnlySubject(std::string_view text, std::string_view subject);

// The subject as a claim names it: decorations in parentheses and a leading section number
// removed ("max_wal_senders (integer)" -> "max_wal_senders"); "" when nothing is left.
std::string SubjectLabel(std::string_view subject);

// Focuses whose answer shows in a sentence's words (value, number, date, version): the verifier
// tests only these.
bool FocusIsTestable(Focus focus);

// True when `sentence` holds content of the focus's kind: kValue a stated value or default ("The
// default is 10.", "defaults to native", "is set to on"), kNumber a number or quantity, kDate a
// date or year, kVersion a version label. Other focuses: true (not testable from words alone).
bool AnswersFocus(Focus focus, std::string_view sentence);

// What a question asks, as the relevance check reads it (QueryPlan::focus and QueryPlan::subject).
struct RelevanceQuestion {
  Focus focus = Focus::kNone;
  std::string subject;  // "" = none recognised: every passage is about it
};

// True when the subject is written as a name (a key, an option, a function, a command, a proper
// noun): one word, or a word holding a digit, an upper-case letter or one of _ . - / ( ) < > [ ] :.
// A lower-case phrase of several plain words ("index without locking writes") is a description.
bool IsNameLike(std::string_view subject);

// The relevance question for one answer. A name stays the subject whatever the evidence. A
// description stays the subject only when a passage of `pack` is about it (its structure names it);
// otherwise it is left out (""): no entry of the evidence defines it, and an entry about something
// else (an option's entry, "CONCURRENTLY") may well answer it.
RelevanceQuestion RelevanceFor(Focus focus, const std::string& subject, const std::vector<EvidencePassage>& pack);

struct RelevanceCheck {
  bool about_subject = true;
  bool answers_focus = true;
  bool ok() const { return about_subject && answers_focus; }
};

// One cited passage read against the question. A passage whose subject is unknown (a source
// without structure: no span, no heading) passes both tests: nothing tells what it is about, and
// on running prose the focus test costs more than it catches (SQuAD v1.1: a "when" answered by
// "during the reign of ..." has no date word; measured -1.2 points of answer containment).
// Otherwise: about the subject when the question names none, the passage's subject names it, or
// the text or the passage's title mentions it (a passage inside another subject's entry that does
// not mention the question's subject is not about it); answers the focus when the focus is not
// testable or `text` (the quoted sentence) holds content of its kind.
RelevanceCheck CheckRelevance(const RelevanceQuestion& question, std::string_view passage_subject,
                              std::string_view title, std::string_view text);

}  // namespace attest
