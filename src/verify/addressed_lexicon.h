// The vocabulary and clause frames of the addressed-instruction screen (addressed_instructions.h
// describes the rules). Internal to src/verify.
//
// Thread-safety: constants and pure functions.
#pragma once

#include <cstddef>
#include <string_view>

#include "verify/screen_tokens.h"

namespace attest::addressed {

using screen::Sentence;

// ---- lexicon ---------------------------------------------------------------------------------------

inline constexpr std::string_view kAdverb[] = {"now",       "also",        "always", "never",      "not",     "only",
                                        "instead",   "immediately", "simply", "just",       "then",    "henceforth",
                                        "hereafter", "kindly",      "please", "absolutely", "strictly"};
inline constexpr std::string_view kOverrideVerb[] = {
    "ignore",     "ignoring", "disregard",  "disregarding", "forget",     "forgetting", "override",
    "overriding", "overrule", "bypass",     "bypassing",    "circumvent", "discard",    "discarding",
    "drop",       "abandon",  "abandoning", "neglect",      "disobey",    "disobeying", "skip",
    "cancel",     "void",     "nullify",    "erase",        "delete",     "clear",      "reset",
    "suspend",    "violate",  "break",      "ditch",        "scrap",      "unlearn",    "remove"};
// Nouns for the model's instructions. Strong ones take any qualifier ("ignore all instructions");
// weak ones also name ordinary things in technical text ("override any conflicting command line
// options", "drop existing rules") and need a qualifier that points back at the model's instructions.
inline constexpr std::string_view kInstructionStrong[] = {
    "instruction", "instructions", "guidance",     "guideline", "guidelines", "directive",  "directives", "prompt",
    "prompts",     "programming",  "conditioning", "persona",   "guardrails", "safeguards", "briefing"};
inline constexpr std::string_view kInstructionWeak[] = {
    "rule",         "rules",      "direction",   "directions", "training", "constraint", "constraints", "restriction",
    "restrictions", "policy",     "policies",    "context",    "command",  "commands",   "orders",      "messages",
    "filters",      "principles", "limitations", "boundaries", "ethics",   "setup",      "brief"};
inline constexpr std::string_view kStrongQualifier[] = {"previous",  "prior",  "earlier",   "above", "preceding", "original",
                                                 "initial",   "former", "foregoing", "your",  "its",       "system",
                                                 "developer", "given",  "safety",    "built"};
inline constexpr std::string_view kWeakQualifier[] = {"all",   "any",   "every", "existing", "other",
                                               "those", "these", "old",   "content"};
inline constexpr std::string_view kThatSpeech[] = {"say",     "state",    "claim",  "assert",  "insist",    "declare",
                                            "answer",  "respond",  "reply",  "mention", "emphasize", "emphasise",
                                            "stress",  "announce", "write",  "add",     "explain",   "tell",
                                            "suggest", "imply",    "pretend"};
inline constexpr std::string_view kTellVerb[] = {"tell",   "inform",   "notify",   "advise", "warn",     "remind", "instruct",
                                          "urge",   "convince", "persuade", "assure", "reassure", "let",    "encourage",
                                          "direct", "redirect", "send",     "point",  "refer"};
inline constexpr std::string_view kRecipient[] = {"user",       "users",     "reader",    "readers",    "visitor",  "visitors",
                                           "customer",   "customers", "requester", "requesters", "asker",    "askers",
                                           "questioner", "human",     "humans",    "person",     "requestor"};
inline constexpr std::string_view kRevealVerb[] = {"reveal",    "print", "show",   "repeat", "output", "leak",     "display",
                                            "disclose",  "share", "dump",   "recite", "tell",   "give",     "provide",
                                            "list",      "spell", "write",  "copy",   "return", "echo",     "summarize",
                                            "summarise", "quote", "expose", "paste",  "send",   "translate"};
inline constexpr std::string_view kSystemQualifier[] = {"system",   "initial",   "hidden",       "original", "secret",
                                                 "internal", "developer", "confidential", "your",     "preprompt",
                                                 "pre",      "starting",  "base"};
inline constexpr std::string_view kSystemNoun[] = {"prompt", "prompts",    "instructions", "instruction", "message",
                                            "rules",  "guidelines", "directives",   "preprompt",   "programming"};
inline constexpr std::string_view kPersonaVerb[] = {"pretend", "roleplay", "act",    "behave", "play",
                                             "assume",  "stay",     "become", "role"};
inline constexpr std::string_view kPromoteVerb[] = {
    "recommend", "promote",    "endorse",    "mention", "cite",   "link",   "include",  "insert", "add",
    "advertise", "praise",     "describe",   "call",    "refer",  "direct", "redirect", "send",   "point",
    "say",       "tell",       "answer",     "respond", "reply",  "state",  "claim",    "rank",   "rate",
    "prefer",    "prioritize", "prioritise", "favor",   "favour", "append", "prepend",  "begin",  "start",
    "end",       "finish",     "conclude",   "write",   "use",    "output"};
// Verbs that make an imperative after a vocative ("Assistant, <verb> ...").
inline constexpr std::string_view kBroadVerb[] = {
    "recommend", "promote",   "endorse",  "mention", "cite",     "link",       "include",   "insert",   "add",
    "use",       "visit",     "open",     "click",   "download", "run",        "execute",   "install",  "send",
    "forward",   "email",     "contact",  "call",    "go",       "navigate",   "redirect",  "follow",   "obey",
    "comply",    "do",        "make",     "ensure",  "avoid",    "refuse",     "stop",      "start",    "begin",
    "continue",  "keep",      "remember", "treat",   "consider", "prioritize", "prefer",    "describe", "summarize",
    "summarise", "translate", "praise",   "rate",    "rank",     "suggest",    "direct",    "give",     "provide",
    "return",    "write",     "generate", "produce", "create",   "append",     "prepend",   "end",      "finish",
    "conclude",  "help",      "answer",   "respond", "reply",    "say",        "tell",      "state",    "claim",
    "print",     "output",    "reveal",   "show",    "repeat",   "ignore",     "disregard", "forget",   "override",
    "pretend",   "act",       "insist",   "confirm", "note",     "inform",     "warn",      "advise",   "explain",
    "list",      "delete",    "remove",   "change",  "replace",  "format",     "reply",     "be",       "stay",
    "only",      "never",     "always",   "please"};
inline constexpr std::string_view kReading[] = {
    "reading", "processing", "summarizing", "summarising", "parsing",  "indexing",  "crawling", "scanning", "seeing",
    "viewing", "ingesting",  "analyzing",   "analysing",   "scraping", "reviewing", "handling", "answering"};

// ---- clause frames ---------------------------------------------------------------------------------

// The start of a directive: where the verb is and how the clause addresses someone.
struct Frame {
  enum Type { kNone, kImperative, kYou, kModel, kRequest } type = kNone;
  size_t verb = 0;
  bool negated = false;
  bool opens_sentence = false;  // the clause starts the sentence (or follows ':', ';', a vocative)
};

// After "AI reading ...": this text ("this", "these", "the following", "the page/document/..."),
// or, for an unambiguous AI noun, the end of the clause ("To any AI reading: ...").
bool ThisText(const Sentence& s, size_t k, bool strong_ai);
// Punctuation or a coordinating word ends a clause.
bool ClauseBreak(const Sentence& s, size_t i);
// Reads the directive frame of the clause starting at word k.
Frame ReadFrame(const Sentence& s, size_t k);
bool IsDirective(const Frame& f);

}  // namespace attest::addressed
