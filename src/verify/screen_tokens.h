// Words, links and punctuation of folded text, read by the injection screen's structural rules
// (addressed_instructions.h, credential_request.h).
//
// Tokenize(): runs of letters and digits (any script) are words; a chunk holding "://", starting with
// "www." or shaped like an e-mail address is one link token; every other character is punctuation.
// Contractions are expanded ("don't" -> "do not", "you're" -> "you are", "let's" -> "let us"; a
// possessive "'s" is dropped); a hyphen between letters splits a word without punctuation
// ("role-play" -> "role", "play").
//
// Thread-safety: pure functions and immutable data.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attest::screen {

enum class Kind { kWord, kPunct, kLink };

struct Tok {
  std::string w;
  Kind kind = Kind::kWord;
};

std::vector<Tok> Tokenize(std::string_view folded);

using Words = std::initializer_list<std::string_view>;
using WordSet = std::span<const std::string_view>;

inline bool In(std::string_view w, Words set) { return std::find(set.begin(), set.end(), w) != set.end(); }
inline bool In(std::string_view w, WordSet set) { return std::find(set.begin(), set.end(), w) != set.end(); }

// Words that may open an imperative clause before its verb ("please", "kindly", "now", "always" ...).
extern const WordSet kLead;

// Index-checked access to the tokens of one passage.
struct Sentence {
  const std::vector<Tok>& t;

  size_t size() const { return t.size(); }
  bool Word(size_t i) const { return i < t.size() && t[i].kind == Kind::kWord; }
  bool Is(size_t i, std::string_view w) const { return Word(i) && t[i].w == w; }
  bool IsIn(size_t i, Words set) const { return Word(i) && In(t[i].w, set); }
  bool IsIn(size_t i, WordSet set) const { return Word(i) && In(t[i].w, set); }
  bool Punct(size_t i) const { return i < t.size() && t[i].kind == Kind::kPunct; }
  bool PunctIn(size_t i, std::string_view chars) const {
    return Punct(i) && t[i].w.size() == 1 && chars.find(t[i].w[0]) != std::string_view::npos;
  }
  // The words from `b` to `e` inclusive, joined by spaces (punctuation kept as is).
  std::string Span(size_t b, size_t e) const {
    std::string out;
    for (size_t k = b; k <= e && k < t.size(); ++k) {
      if (!out.empty() && t[k].kind != Kind::kPunct) out.push_back(' ');
      out += t[k].w;
    }
    return out;
  }
  // Length of an AI noun phrase at `i` ("ai", "language model", "chatgpt 4", "assistant"; 0 =
  // none); *strong tells whether it is unambiguous (weak: assistant, model, bot, agent, system).
  size_t Ai(size_t i, bool* strong) const;
};

}  // namespace attest::screen
