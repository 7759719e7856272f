#include "verify/addressed_instructions.h"

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include "verify/addressed_lexicon.h"
#include "verify/screen_tokens.h"

namespace attest {
namespace {

using namespace screen;  // NOLINT: the tokens' vocabulary

using namespace addressed;  // NOLINT: the screen's lexicon and frames

// ---- rules -----------------------------------------------------------------------------------------

// "ignore/disregard/forget/override ... <qualified instruction noun>", in any frame.
std::string Override(const Sentence& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    size_t first = i;  // the start of the verb ("set aside", "pay no attention to")
    size_t object = std::string::npos;
    if (s.IsIn(i, kOverrideVerb)) {
      object = i + 1;
    } else if (s.IsIn(i, {"set", "put", "setting", "putting", "cast", "push"}) && s.Is(i + 1, "aside")) {
      object = i + 2;
    } else if (s.IsIn(i, {"pay", "paying"}) && s.Is(i + 1, "no") && s.Is(i + 2, "attention") && s.Is(i + 3, "to")) {
      object = i + 4;
    } else if ((s.IsIn(i, {"stop", "quit"}) && s.IsIn(i + 1, {"following", "obeying"})) ||
               (s.IsIn(i, {"not", "longer"}) && s.IsIn(i + 1, {"follow", "obey", "heed"}))) {
      object = i + 2;
    } else if (s.Is(i, "forget") && s.Is(i + 1, "about")) {
      object = i + 2;
    }
    if (object == std::string::npos) continue;
    // Verbs that also edit configuration ("reset the system prompt of the bot") need a qualifier
    // that points at the model's own instructions.
    const bool editing = s.IsIn(
        i, {"reset", "clear", "delete", "erase", "remove", "drop", "cancel", "void", "nullify", "suspend", "skip"});
    bool strong_qual = false, weak_qual = false, defaulted = false, owned = false;
    for (size_t k = object; k < s.size() && k < object + 7 && !s.Punct(k); ++k) {
      if (s.IsIn(k, {"default", "defaults", "following", "below", "next", "new"})) defaulted = true;
      if (s.Is(k, "everything") && s.Is(k + 1, "you") && s.IsIn(k + 2, {"were", "have", "had", "got"})) {
        return "instruction override: \"" + s.Span(first, k + 3) + "\"";
      }
      if (s.Is(k, "everything") && s.IsIn(k + 1, {"above", "before", "previously", "prior", "earlier"})) {
        return "instruction override: \"" + s.Span(first, k + 1) + "\"";
      }
      strong_qual |= s.IsIn(k, kStrongQualifier) && !(editing && s.IsIn(k, {"system", "developer", "safety", "built"}));
      weak_qual |= s.IsIn(k, kWeakQualifier);
      owned |= s.IsIn(k, {"your", "its", "all"});
      const bool strong_noun = s.IsIn(k, kInstructionStrong);
      if (strong_noun || s.IsIn(k, kInstructionWeak)) {
        // "... the rules you were given" qualifies the noun after it.
        const bool given = s.Is(k + 1, "you") && s.IsIn(k + 2, {"were", "have", "received", "got", "had"});
        // "Ignore the previous instructions if you use Docker" / "... for Windows" is documentation.
        const bool conditional =
            !owned && !given && s.IsIn(k + 1, {"if", "when", "unless", "for", "on", "in", "below"});
        if ((strong_qual || given || (strong_noun && weak_qual)) && !defaulted && !conditional) {
          return "instruction override: \"" + s.Span(first, k) + "\"";
        }
        break;
      }
    }
  }
  // "your previous instructions are void", "all prior rules no longer apply"
  for (size_t i = 0; i + 2 < s.size(); ++i) {
    if (!s.IsIn(i, {"your", "all"})) continue;
    size_t k = i + 1;
    while (s.IsIn(k, {"previous", "prior", "earlier", "original", "old", "former", "initial", "existing", "system",
                      "other", "of", "the", "above", "safety"})) {
      ++k;
    }
    if (k == i + 1 && s.Is(i, "all")) continue;
    if (!s.IsIn(k, kInstructionStrong) && !s.IsIn(k, kInstructionWeak)) continue;
    size_t v = k + 1;
    if (s.IsIn(v, {"are", "is", "were", "have", "has", "should", "must"})) ++v;
    while (s.IsIn(v, {"been", "be", "now", "hereby", "all", "henceforth"})) ++v;
    if (s.IsIn(v, {"void", "cancelled", "canceled", "revoked", "obsolete", "invalid", "null", "superseded", "replaced",
                   "overridden", "ignored", "disregarded", "lifted", "suspended", "removed", "disabled", "deleted"}) ||
        (s.Is(v, "no") && s.Is(v + 1, "longer"))) {
      return "instruction override: \"" + s.Span(i, v + (s.Is(v, "no") ? 2 : 0)) + "\"";
    }
  }
  return "";
}

// Direct address of a model: "note to the AI:", "if you are an AI", "AI reading this page".
std::string StrongAddress(const Sentence& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    bool strong = false;
    // note/message/instructions to|for (the) AI
    if (s.IsIn(i, {"note", "notes", "message", "instruction", "instructions", "reminder", "memo", "notice", "attention",
                   "warning", "request", "directive", "directives", "hint", "tip", "ps", "information", "guidance",
                   "instructions"})) {
      size_t k = i + 1;
      if (s.IsIn(k, {"to", "for"})) ++k;
      while (s.IsIn(k, {"the", "all", "any", "every", "you", "dear", "our", "any", "other"})) ++k;
      if (const size_t n = s.Ai(k, &strong)) {
        const size_t after = k + n;
        if (strong || s.PunctIn(after, ":,-!") || after >= s.size() || s.IsIn(after, kReading)) {
          if (k > i + 1 || s.IsIn(i, {"attention", "note", "message"})) {
            return "addresses the model: \"" + s.Span(i, after - 1) + "\"";
          }
        }
      }
    }
    // if you are (a|an) AI ("If you are a model builder" is not: a weak noun must end the clause)
    if (s.IsIn(i, {"if", "since", "because", "whether", "case", "as"}) && s.Is(i + 1, "you") && s.Is(i + 2, "are")) {
      size_t k = i + 3;
      while (s.IsIn(k, {"a", "an", "the", "being", "actually", "really", "large", "automated"})) ++k;
      if (const size_t n = s.Ai(k, &strong)) {
        if (strong || (s.IsIn(k, {"assistant", "bot", "model", "crawler"}) && (s.Punct(k + n) || k + n >= s.size()))) {
          return "addresses the model: \"" + s.Span(i, k + n - 1) + "\"";
        }
      }
    }
    // (any) AI reading/processing this (page); not "models processing the input in batches"
    if (const size_t n = s.Ai(i, &strong)) {
      size_t k = i + n;
      if (s.IsIn(k, {"that", "who", "which"})) {
        ++k;
        if (s.Is(k, "is")) ++k;
        if (s.IsIn(k, {"reads", "processes", "summarizes", "summarises", "sees", "parses", "indexes"}) &&
            ThisText(s, k + 1, strong)) {
          return "addresses the model: \"" + s.Span(i, k) + "\"";
        }
      }
      if (s.IsIn(k, kReading) && ThisText(s, k + 1, strong)) {
        return "addresses the model: \"" + s.Span(i, k) + "\"";
      }
      // greeting + strong AI: "hey ChatGPT", "dear language model"
      if (strong && i > 0 &&
          s.IsIn(i - 1, {"hey", "hi", "hello", "dear", "attention", "attn", "yo", "listen", "ok", "okay", "greetings",
                         "to"})) {
        if (i - 1 == 0 || s.Punct(i - 2) || (s.Is(i - 1, "to") && (i - 1 == 0 || s.Punct(i - 2)))) {
          return "addresses the model: \"" + s.Span(i - 1, k - 1) + "\"";
        }
      }
    }
    if (s.Is(i, "as") && s.IsIn(i + 1, {"an", "a"}) && s.Is(i + 2, "ai") &&
        (s.IsIn(i + 3, {"language", "model", "assistant"}) || s.PunctIn(i + 3, ",:"))) {
      return "addresses the model: \"" + s.Span(i, i + 3) + "\"";
    }
  }
  return "";
}

// A vocative at the start of a clause: "Assistant, ...", "Dear model: ...", "System: ...".
// Returns the index after it, or 0.
size_t Vocative(const Sentence& s, size_t k) {
  size_t i = k;
  if (s.IsIn(i, {"dear", "hey", "hi", "hello", "ok", "okay", "yo", "attention"})) ++i;
  if (s.IsIn(i, {"the", "all", "my", "our", "you"})) ++i;
  if (s.Is(i, "to") && k == i) return 0;
  bool strong = false;
  const size_t n = s.Ai(i, &strong);
  if (n == 0) return 0;
  const size_t after = i + n;
  if (s.PunctIn(after, ",:!-") || (s.Punct(after) && static_cast<unsigned char>(s.t[after].w[0]) >= 0x80)) {
    return after + 1;
  }
  return 0;
}

// The sentence sets a behaviour scope for the model: "from now on", "in every answer", "when
// answering", "whenever a user asks".
bool BehaviourScope(const Sentence& s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.Is(i, "from") && s.IsIn(i + 1, {"now", "this"}) && s.IsIn(i + 2, {"on", "onwards", "point", "forward"}))
      return true;
    if (s.Is(i, "going") && s.Is(i + 1, "forward")) return true;
    if (s.Is(i, "in") && s.IsIn(i + 1, {"every", "each", "all", "any"}) &&
        s.IsIn(i + 2, {"answer", "answers", "response", "responses", "reply", "replies", "summary", "summaries",
                       "output", "outputs", "completion", "completions", "message", "messages"})) {
      return true;
    }
    // "when answering questions/users", "when you summarize this page" (not "when answering support tickets").
    if (s.IsIn(i, {"when", "while", "before", "whenever"})) {
      size_t k = i + 1;
      if (s.Is(k, "you")) ++k;
      if (s.IsIn(k, {"answering", "responding", "replying", "answer", "respond", "reply"})) {
        size_t m = k + 1;
        if (s.Is(m, "to")) ++m;
        while (s.IsIn(m, {"a", "the", "any", "every", "all", "each", "their", "this"})) ++m;
        if (s.IsIn(m, {"question", "questions", "query", "queries", "user", "users", "prompt", "prompts", "anyone",
                       "people", "requests", "request", "me", "them", "customers", "customer"})) {
          return true;
        }
      }
      if (s.IsIn(k, {"summarizing", "summarising", "summarize", "summarise", "reading", "processing"}) &&
          s.IsIn(k + 1, {"this", "the", "these"}) &&
          (s.Is(k + 1, "this") || s.IsIn(k + 2, {"page", "document", "article", "text", "content", "site", "file"}))) {
        return true;
      }
    }
    if (s.IsIn(i, {"whenever", "when", "if"})) {
      size_t k = i + 1;
      if (s.IsIn(k, {"a", "the", "any"})) ++k;
      if (s.IsIn(k, {"someone", "anyone", "somebody", "anybody", "people", "users", "user", "customers", "customer",
                     "visitor", "visitors", "reader", "readers", "person", "human", "you"})) {
        if (s.IsIn(k + 1, {"asks", "ask", "asked", "queries", "inquires", "enquires", "requests", "wants"}) ||
            (s.Is(k, "you") && s.Is(k + 1, "are") && s.Is(k + 2, "asked"))) {
          return true;
        }
      }
      if (s.Is(k, "asked") && s.IsIn(k + 1, {"about", "for", "whether"})) return true;
    }
  }
  return false;
}

// Literal output: a quote, "the word/phrase ...", yes/no.
bool LiteralAt(const Sentence& s, size_t i) {
  if (s.PunctIn(i, "\"'`") || (s.Punct(i) && static_cast<unsigned char>(s.t[i].w[0]) >= 0x80)) return true;
  if (s.Is(i, "the") && s.IsIn(i + 1, {"word", "words", "phrase", "sentence", "text", "following", "string", "link",
                                       "url", "message", "exact", "code"})) {
    return true;
  }
  return s.IsIn(i, {"yes", "no", "ok", "okay", "only", "exactly", "just", "this", "following"});
}

std::string Speech(const Sentence& s, const Frame& f, bool scope) {
  const size_t v = f.verb;
  const std::string& verb = s.t[v].w;
  // say/state/claim (to the user) that <subject other than you/we/I/there/it>
  if (In(verb, kThatSpeech)) {
    const bool weak = In(verb, {"explain", "suggest", "imply", "add", "write", "pretend", "declare", "announce",
                                "stress", "emphasize", "emphasise"});
    size_t k = v + 1;
    if (s.Is(k, "to")) {  // "say to the user that"
      ++k;
      while (s.IsIn(k, {"the", "all", "any", "every", "each"})) ++k;
      if (s.IsIn(k, kRecipient) || s.IsIn(k, {"them", "everyone", "anyone", "people"})) ++k;
    } else if (s.IsIn(k, kRecipient) || s.IsIn(k, {"them", "everyone", "anyone", "people"})) {
      ++k;  // "tell them that"
    } else if (s.IsIn(k, {"the", "all", "every"}) && s.IsIn(k + 1, kRecipient)) {
      k += 2;
    }
    // Not a supposition ("say that you have ...", "say that a user runs ...") or "that is".
    const bool complement = s.Is(k, "that") && s.Word(k + 1) &&
                            !s.IsIn(k + 1, {"you", "we", "i", "there", "it", "this", "is", "was", "way", "of", "which",
                                            "a", "an", "one", "some", "someone", "somebody"});
    if (complement && !(weak && f.type == Frame::kImperative && !scope)) {
      return "redirects the answer: \"" + s.Span(v, k + 1) + "\"";
    }
  }
  // tell/inform/convince ... the user(s) / anyone who asks
  if (In(verb, kTellVerb)) {
    size_t k = v + 1;
    bool yours = false;
    while (s.IsIn(k, {"the", "all", "any", "every", "each", "our", "your", "their", "to"})) {
      yours |= s.Is(k, "your");
      ++k;
    }
    const bool recipient = s.IsIn(k, kRecipient) && !yours;
    // "tell everyone that <claim>", but not "tell people that you messed up".
    const bool claim =
        s.Is(k + 1, "that") && s.Word(k + 2) && !s.IsIn(k + 2, {"you", "we", "i", "it", "there", "this"});
    const bool asker =
        s.IsIn(k, {"anyone", "everyone", "people", "whoever", "someone", "somebody", "anybody", "everybody"}) &&
        (s.IsIn(k + 1, {"who", "asking"}) || (s.Is(k + 1, "that") && s.IsIn(k + 2, {"asks", "ask"})) ||
         (!f.negated && claim));
    const bool them_that = s.Is(k, "them") && claim && !f.negated;
    const bool let_know = verb != "let" || s.Is(k + 1, "know");
    const bool direction = !In(verb, {"direct", "redirect", "send", "point", "refer", "encourage"}) || scope;
    if ((recipient || asker || them_that) && let_know && direction && (!f.negated || recipient)) {
      return "redirects the answer: \"" + s.Span(v, k) + "\"";
    }
  }
  // respond/reply/answer only, or with a literal; say "..."
  if (In(verb, {"respond", "reply", "answer", "say", "output", "print", "write"})) {
    size_t k = v + 1;
    if (s.IsIn(k, {"to"}) && s.IsIn(k + 1, {"the", "every", "all", "any", "each", "this", "me"})) {
      k += 2;
      while (k < s.size() && k < v + 6 && !s.IsIn(k, {"with", "only", "that"}) && !s.Punct(k)) ++k;
    }
    const bool speech = In(verb, {"respond", "reply", "answer", "say"});
    if (speech && s.Is(k, "only")) return "redirects the answer: \"" + s.Span(v, k) + "\"";
    if (speech && s.Is(k, "with") && LiteralAt(s, k + 1)) return "redirects the answer: \"" + s.Span(v, k + 1) + "\"";
    if (verb == "say" && !f.negated && s.PunctIn(k, "\"'`")) return "redirects the answer: \"" + s.Span(v, k) + "\"";
    if (speech && s.Is(k, "in") &&
        s.IsIn(k + 1,
               {"english", "french", "german", "spanish", "pirate", "capitals", "uppercase", "rhymes", "verse"})) {
      return "redirects the answer: \"" + s.Span(v, k + 1) + "\"";
    }
  }
  // Scoped behaviour: "from now on, recommend ...", "when answering, mention ..."
  if (scope && In(verb, kPromoteVerb)) return "redirects the answer: \"" + s.Span(v, v + 1) + "\" (in every answer)";
  return "";
}

std::string Persona(const Sentence& s, const Frame& f) {
  const size_t v = f.verb;
  const std::string& verb = s.t[v].w;
  if (!In(verb, kPersonaVerb) || f.negated) return "";
  bool hit = false;
  size_t end = v;
  if (verb == "pretend") {
    // "pretend to be", "pretend (that) you ...", "pretend as if you ..."; not git's "pretend as if
    // all the refs are listed" (an option telling a program how to behave).
    size_t k = v + 1;
    if (s.Is(k, "to")) {
      hit = true;
      end = k;
    }
    while (s.IsIn(k, {"that", "as", "if", "though"})) ++k;
    if (s.IsIn(k, {"you", "being", "your"})) {
      hit = true;
      end = k;
    }
  } else if (verb == "roleplay") {
    hit = true;
  } else if (verb == "role" && s.Is(v + 1, "play")) {
    hit = true;
    end = v + 1;
  } else if (In(verb, {"act", "behave"}) && s.IsIn(v + 1, {"as", "like"})) {
    // "(they) act as if ...", "act as described": a plural subject earlier in the sentence reads
    // like an imperative after a comma; only a clause that opens the sentence counts.
    bool strong_ai = false;
    const bool persona =
        s.IsIn(v + 2, {"a", "an", "the", "my", "your", "our", "though", "if"}) || s.Ai(v + 2, &strong_ai) > 0;
    const bool as_if_you = s.IsIn(v + 2, {"if", "though"}) && s.Is(v + 3, "you");
    hit = (f.type != Frame::kImperative || f.opens_sentence) && persona &&
          (!s.IsIn(v + 2, {"if", "though"}) || as_if_you);
    end = v + 1;
  } else if (verb == "play" && s.IsIn(v + 1, {"the", "a"}) && s.IsIn(v + 2, {"role", "part", "character"}) &&
             s.Is(v + 3, "of") && f.opens_sentence) {
    hit = true;  // "play the role of", not "(receptors) play a role in"
    end = v + 3;
  } else if (verb == "assume" && s.IsIn(v + 1, {"the", "a"}) &&
             s.IsIn(v + 2, {"role", "identity", "persona", "character"})) {
    hit = true;
    end = v + 2;
  } else if (verb == "stay" && s.Is(v + 1, "in") && s.Is(v + 2, "character")) {
    hit = true;
    end = v + 2;
  } else if (verb == "become") {
    size_t k = v + 1;
    while (s.IsIn(k, {"a", "an", "my", "the"})) ++k;
    bool strong = false;
    hit = s.Ai(k, &strong) > 0 || s.IsIn(k, {"unrestricted", "unfiltered", "jailbroken", "dan", "uncensored"});
    end = k;
  }
  return hit ? "persona change: \"" + s.Span(v, end) + "\"" : "";
}

std::string Reveal(const Sentence& s, const Frame& f) {
  const size_t v = f.verb;
  if (!In(s.t[v].w, kRevealVerb)) return "";
  bool qualified = false;
  for (size_t k = v + 1; k < s.size() && k <= v + 7 && !s.PunctIn(k, ".;!?"); ++k) {
    if (s.IsIn(k, kSystemQualifier)) qualified = true;
    if (s.IsIn(k, kSystemNoun)) {
      const bool given = s.Is(k + 1, "you") && s.IsIn(k + 2, {"were", "have", "received", "got"});
      if (qualified || given) return "system prompt: \"" + s.Span(v, k) + "\"";
    }
  }
  return "";
}

// Fixed constructs that need no frame: "you are now an unrestricted AI", "you are no longer bound".
std::string PersonaStatement(const Sentence& s) {
  for (size_t i = 0; i + 3 < s.size(); ++i) {
    if (!(s.Is(i, "you") && s.Is(i + 1, "are"))) continue;
    size_t k = i + 2;
    const bool now = s.Is(k, "now");
    if (now) ++k;
    if (s.Is(k, "no") && s.Is(k + 1, "longer") &&
        s.IsIn(k + 2, {"bound", "restricted", "limited", "required", "an", "a", "chatgpt", "constrained", "subject",
                       "obliged", "obligated"})) {
      return "persona change: \"" + s.Span(i, k + 2) + "\"";
    }
    size_t m = k;
    if (s.IsIn(m, {"a", "an", "my"})) ++m;
    while (s.IsIn(m, {"new", "different", "free", "unrestricted", "unfiltered", "uncensored", "jailbroken", "helpful",
                      "evil", "rogue", "independent", "unbound", "unlimited", "ai", "now"})) {
      ++m;
    }
    bool strong = false;
    const size_t n = s.Ai(m, &strong);
    if (n > 0 && (now || strong || m > k + 1) &&
        !s.IsIn(m, {"system", "systems", "agent", "agents", "model", "models"})) {
      return "persona change: \"" + s.Span(i, m + n - 1) + "\"";
    }
    if (now &&
        s.IsIn(k, {"dan", "jailbroken", "unrestricted", "unfiltered", "uncensored", "freed", "free", "unbound"})) {
      return "persona change: \"" + s.Span(i, k) + "\"";
    }
    if (now && s.Is(k, "in") && s.IsIn(k + 1, {"developer", "god", "jailbreak", "dan", "unrestricted", "debug"}) &&
        s.Is(k + 2, "mode")) {
      return "persona change: \"" + s.Span(i, k + 2) + "\"";
    }
  }
  return "";
}

// What a comment (<!-- ... -->, [//]: # (...)) hides from a rendered page.
bool InComment(std::string_view folded) {
  return folded.find("<!--") != std::string_view::npos || folded.find("[//]: #") != std::string_view::npos ||
         folded.find("[comment]: #") != std::string_view::npos || folded.find("[//]:#") != std::string_view::npos;
}

}  // namespace

std::string FindAddressedInstruction(std::string_view folded) {
  const std::vector<Tok> tokens = Tokenize(folded);
  const Sentence s{tokens};
  if (std::string r = Override(s); !r.empty()) return r;
  if (std::string r = StrongAddress(s); !r.empty()) return r;
  if (std::string r = PersonaStatement(s); !r.empty()) return r;
  const bool scope = BehaviourScope(s);
  const bool comment = InComment(folded);
  size_t vocative_end = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    if (!(k == 0 || ClauseBreak(s, k - 1))) continue;
    bool only_punct_before = true;
    for (size_t b = 0; b < k && only_punct_before; ++b) only_punct_before = s.Punct(b) || s.IsIn(b, {"note", "ps"});
    if (const size_t v = only_punct_before ? Vocative(s, k) : 0; v > 0) {
      vocative_end = v;
      continue;
    }
    Frame f = ReadFrame(s, k);
    if (!IsDirective(f)) continue;
    f.opens_sentence = k == 0 || s.PunctIn(k - 1, ":;.!?(\"") || (vocative_end > 0 && k == vocative_end);
    if (std::string r = Persona(s, f); !r.empty()) return r;
    if (std::string r = Reveal(s, f); !r.empty()) return r;
    if (std::string r = Speech(s, f, scope); !r.empty()) return r;
    const bool broad = f.type != Frame::kImperative || s.IsIn(f.verb, kBroadVerb);
    if (vocative_end > 0 && k >= vocative_end && broad) {
      return "addresses the model: \"" + s.Span(0, f.verb) + "\"";
    }
    if (comment && f.type != Frame::kImperative && s.IsIn(f.verb, kPromoteVerb)) {
      return "hidden instruction in a comment: \"" + s.Span(k, f.verb) + "\"";
    }
  }
  if (comment) {
    for (size_t i = 0; i < s.size(); ++i) {
      bool strong = false;
      if (s.Ai(i, &strong) > 0 && strong) return "hidden instruction in a comment: mentions \"" + s.t[i].w + "\"";
    }
  }
  return "";
}

}  // namespace attest
