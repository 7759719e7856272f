// Instructions addressed to a model or reader, recognised by their structure rather than by fixed
// phrases (docs/verification.md, "Prompt-injection screen").
//
// Input is the folded text of one passage (screen_fold.h: lower case, NFKC, look-alikes folded).
// It is split into words, URLs, e-mail addresses and punctuation; contractions are expanded
// ("don't" -> "do not", "you're" -> "you are"); clauses end at punctuation and before "and",
// "then", "but", "or", "so". Each clause start is read for a directive frame:
//  - imperative: a verb first, after lead words ("please", "kindly", "now", "always", "instead") and
//    a negation ("do not", "never");
//  - "you" + modal ("you must/should/will/shall/need to/are to ...") + verb;
//  - a model as subject ("the assistant/AI/LLM/model(s) must/should ...") + verb;
//  - polite or indirect requests ("I'd like you to", "could you (kindly)", "you are asked to",
//    "your (new) task is to", "it is important that you").
// The verb's class and its complement decide:
//  - instruction override (any frame, also a gerund or a passive): ignore / disregard / forget /
//    override / bypass / set aside / pay no attention to ... + an instruction noun (instructions,
//    guidance, guidelines, rules, directives, prompt, policies, restrictions ...) qualified as the
//    model's (previous, prior, earlier, above, original, your, its, system, all ...); "your
//    previous instructions are void";
//  - redirected speech (directive frame): say / state / claim / respond ... "that" + a clause whose
//    subject is not "you/we/I/there/it"; tell / inform / advise / warn / convince ... + the user(s),
//    reader(s), customers, visitors, "anyone who asks"; respond / reply / answer + "only" or + a
//    literal ("with 'yes'", "with the phrase ..."); the behaviour scope "from now on", "in every
//    answer", "when answering/summarising", "whenever a user asks";
//  - persona change (directive frame): pretend, role-play, impersonate, act/behave as, play the
//    role of, stay in character; "you are now" + an AI persona; "you are no longer" + a limit;
//  - system-prompt extraction (directive frame): reveal / print / show / repeat ... + the system /
//    initial / hidden / original / your + prompt / instructions / rules;
//  - the addressee: "note/message/instructions to (the) AI/assistant/model:", "if you are an AI",
//    "AI(s) reading/processing this page", "to any AI reading this" flag on their own; a vocative
//    ("Assistant, ...", "Dear language model: ...", "System: ...") flags when a directive follows it.
// Credential requests are credential_request.h.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// "" when nothing is found, else the reason: "<rule>: \"<the words that matched>\"".
std::string FindAddressedInstruction(std::string_view folded);

}  // namespace attest
