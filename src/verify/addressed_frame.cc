// Clause frames of the addressed-instruction screen (addressed_lexicon.h).
#include "verify/addressed_lexicon.h"

#include <initializer_list>

namespace attest::addressed {

using namespace screen;  // NOLINT: the tokens' vocabulary

// After "AI reading ...": this text ("this", "these", "the following", "the page/document/..."),
// or, for an unambiguous AI noun, the end of the clause ("To any AI reading: ...").
bool ThisText(const Sentence& s, size_t k, bool strong_ai) {
  if (s.IsIn(k, {"this", "these", "following"})) return true;
  if (s.IsIn(k, {"the", "my", "our"}) &&
      s.IsIn(k + 1, {"following", "page", "pages", "document", "documents", "text", "content", "article", "site",
                     "website", "file", "passage", "message", "email", "comment", "section", "post"})) {
    return true;
  }
  return strong_ai && (s.Punct(k) || k >= s.size());
}



bool ClauseBreak(const Sentence& s, size_t i) { return s.Punct(i) || s.IsIn(i, {"and", "then", "but", "or", "so"}); }

Frame ReadFrame(const Sentence& s, size_t k) {
  Frame f;
  size_t j = k;
  for (int guard = 0; guard < 8; ++guard) {
    if (s.IsIn(j, kLead)) {
      ++j;
    } else if (s.Is(j, "do") && s.Is(j + 1, "not")) {
      f.negated = true;
      j += 2;
    } else if (s.Is(j, "never")) {
      f.negated = true;
      ++j;
    } else if (s.Is(j, "make") && s.Is(j + 1, "sure")) {
      j += 2 + (s.IsIn(j + 2, {"to", "you"}) ? 1 : 0);
    } else if ((s.Is(j, "be") && s.Is(j + 1, "sure") && s.Is(j + 2, "to")) ||
               (s.Is(j, "remember") && s.Is(j + 1, "to")) || (s.Is(j, "feel") && s.Is(j + 1, "free"))) {
      j += 2 + (s.Is(j + 2, "to") ? 1 : 0);
    } else if (s.Is(j, "from") && s.IsIn(j + 1, {"now", "this", "here"})) {
      j += 2;
      while (s.IsIn(j, {"point", "on", "onwards", "forward", "out"})) ++j;
    } else {
      break;
    }
  }
  auto verb_after = [&](size_t v, Frame::Type type) {
    while (s.IsIn(v, kAdverb) || s.Is(v, "to")) {
      if (s.IsIn(v, {"not", "never"})) f.negated = true;
      ++v;
    }
    if (s.Word(v)) {
      f.type = type;
      f.verb = v;
    }
    return f;
  };
  if (s.Is(j, "you")) {
    size_t m = j + 1;
    while (s.IsIn(m, kAdverb)) ++m;
    // "you are (hereby|now) asked/instructed/told ... to <verb>"
    const size_t passive = m + 1 + (s.Is(m, "are") && s.IsIn(m + 1, {"hereby", "now"}) ? 1 : 0);
    if (s.Is(m, "are") &&
        s.IsIn(passive, {"asked", "requested", "instructed", "directed", "ordered", "told", "required", "commanded",
                         "expected", "supposed", "meant", "going"}) &&
        s.Is(passive + 1, "to")) {
      return verb_after(passive + 2, Frame::kRequest);
    }
    if (s.IsIn(m, {"must", "should", "shall", "will"})) return verb_after(m + 1, Frame::kYou);
    if (s.IsIn(m, {"need", "have", "ought", "are"}) && s.Is(m + 1, "to")) return verb_after(m + 2, Frame::kYou);
    return f;
  }
  if (s.Is(j, "i") && s.IsIn(j + 1, {"want", "need", "would", "ask", "request", "command", "order", "instruct",
                                     "demand", "expect", "beg", "urge"})) {
    size_t m = j + 2;
    if (s.Is(m, "like") || s.Is(m, "love")) ++m;
    if (s.Is(m, "you") && s.Is(m + 1, "to")) return verb_after(m + 2, Frame::kRequest);
    return f;
  }
  if (s.IsIn(j, {"could", "can", "would", "will"}) && s.Is(j + 1, "you")) return verb_after(j + 2, Frame::kRequest);
  if (s.IsIn(j, {"your", "the"})) {
    size_t m = j + 1;
    while (s.IsIn(m, {"new", "real", "actual", "only", "next", "primary", "main", "true", "sole", "updated", "first"}))
      ++m;
    if (s.IsIn(m, {"task", "job", "goal", "role", "mission", "purpose", "objective", "instruction", "instructions",
                   "assignment", "duty", "directive", "priority", "orders"}) &&
        s.IsIn(m + 1, {"is", "are", "will", "now"})) {
      size_t v = m + 2;
      while (s.IsIn(v, {"be", "is", "now"})) ++v;
      if (s.Is(v, "to")) return verb_after(v + 1, Frame::kRequest);
    }
  }
  if (s.Is(j, "it") && s.Is(j + 1, "is") &&
      s.IsIn(j + 2,
             {"important", "essential", "critical", "vital", "imperative", "crucial", "mandatory", "necessary"})) {
    size_t v = j + 3;
    if (s.Is(v, "that") && s.Is(v + 1, "you")) return verb_after(v + 2, Frame::kRequest);
    if (s.Is(v, "for") && s.Is(v + 1, "you") && s.Is(v + 2, "to")) return verb_after(v + 3, Frame::kRequest);
    return f;
  }
  {
    size_t m = j;
    if (s.IsIn(m, {"the", "all", "any", "every", "each"})) ++m;
    bool strong = false;
    if (const size_t n = s.Ai(m, &strong)) {
      size_t v = m + n;
      while (s.IsIn(v, kAdverb)) ++v;
      if (s.IsIn(v, {"must", "should", "shall", "will"})) return verb_after(v + 1, Frame::kModel);
      if (s.IsIn(v, {"need", "have", "ought", "is", "are"}) && s.Is(v + 1, "to"))
        return verb_after(v + 2, Frame::kModel);
      return f;
    }
  }
  if (s.Word(j)) {
    f.type = Frame::kImperative;
    f.verb = j;
  }
  return f;
}

bool IsDirective(const Frame& f) { return f.type != Frame::kNone; }

}  // namespace attest::addressed
