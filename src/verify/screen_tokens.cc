#include "verify/screen_tokens.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <cctype>

namespace attest::screen {
namespace {

void PushWord(std::string word, std::vector<Tok>* out) {
  const size_t apos = word.find('\'');
  if (apos == std::string::npos) {
    if (!word.empty()) out->push_back({std::move(word), Kind::kWord});
    return;
  }
  std::string base = word.substr(0, apos);
  const std::string tail = word.substr(apos + 1);
  std::string extra;
  if (tail == "t" && base.size() > 1 && base.back() == 'n') {
    base.pop_back();
    if (base == "ca") base = "can";
    if (base == "wo") base = "will";
    if (base == "sha") base = "shall";
    extra = "not";
  } else if (tail == "re") {
    extra = "are";
  } else if (tail == "ll") {
    extra = "will";
  } else if (tail == "d") {
    extra = "would";
  } else if (tail == "ve") {
    extra = "have";
  } else if (tail == "m") {
    extra = "am";
  } else if (tail == "s") {
    if (base == "let") extra = "us";
    if (In(base, {"it", "that", "what", "there", "here", "he", "she", "who", "where"})) extra = "is";
  } else {
    base += tail;  // an apostrophe inside a word
  }
  if (!base.empty()) out->push_back({std::move(base), Kind::kWord});
  if (!extra.empty()) out->push_back({std::move(extra), Kind::kWord});
}

bool LinkChunk(std::string_view chunk) {
  if (chunk.find("://") != std::string_view::npos || chunk.substr(0, 4) == "www.") return true;
  const size_t at = chunk.find('@');
  return at != std::string_view::npos && at > 0 && chunk.find('.', at) != std::string_view::npos;
}

}  // namespace

std::vector<Tok> Tokenize(std::string_view s) {
  std::vector<Tok> out;
  size_t i = 0;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  while (i < s.size()) {
    if (space(s[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && !space(s[j])) ++j;
    std::string_view chunk = s.substr(i, j - i);
    if (LinkChunk(chunk)) {
      while (!chunk.empty() && std::string_view("([<\"'`").find(chunk.front()) != std::string_view::npos) {
        out.push_back({std::string(1, chunk.front()), Kind::kPunct});
        chunk.remove_prefix(1);
      }
      size_t trail = chunk.size();
      while (trail > 0 && std::string_view(".,;:!?)]>\"'`").find(chunk[trail - 1]) != std::string_view::npos) --trail;
      out.push_back({std::string(chunk.substr(0, trail)), Kind::kLink});
      for (size_t k = trail; k < chunk.size(); ++k) out.push_back({std::string(1, chunk[k]), Kind::kPunct});
      i = j;
      continue;
    }
    std::string word;
    const auto* bytes = reinterpret_cast<const uint8_t*>(chunk.data());
    const int32_t len = static_cast<int32_t>(chunk.size());
    for (int32_t k = 0; k < len;) {
      const int32_t start = k;
      UChar32 c;
      U8_NEXT(bytes, k, len, c);
      const bool alnum = c >= 0 && (c < 0x80 ? std::isalnum(c) != 0 : u_isalnum(c) != 0);
      if (alnum) {
        word.append(chunk.substr(start, k - start));
        continue;
      }
      const bool joiner_next = k < len && (std::isalnum(chunk[k]) || static_cast<unsigned char>(chunk[k]) >= 0x80);
      if (c == '\'' && !word.empty() && joiner_next) {
        word.push_back('\'');
        continue;
      }
      PushWord(std::move(word), &out);
      word.clear();
      if (c == '-' && joiner_next && start > 0) continue;  // "role-play": two words, no break
      out.push_back({std::string(chunk.substr(start, k - start)), Kind::kPunct});
    }
    PushWord(std::move(word), &out);
    i = j;
  }
  return out;
}

namespace {

constexpr std::string_view kLeadWords[] = {
    "please",       "kindly",      "now",     "also",     "then",     "and",       "just",
    "simply",       "immediately", "instead", "so",       "but",      "or",        "first",
    "finally",      "next",        "always",  "only",     "really",   "hereafter", "henceforth",
    "additionally", "rather",      "quietly", "secretly", "silently", "actually",  "definitely",
    "absolutely",   "politely",    "briefly", "thus",     "therefore"};
// Nouns that name an AI model. Strong ones are unambiguous; weak ones ("assistant", "model", "bot",
// "agent", "system") need the construction to confirm the address.
constexpr std::string_view kStrongAi[] = {"ai",    "ais",     "llm",    "llms",     "chatbot", "chatbots",
                                          "gpt",   "chatgpt", "claude", "gemini",   "copilot", "bard",
                                          "llama", "mistral", "openai", "anthropic"};
constexpr std::string_view kWeakAi[] = {"assistant", "assistants", "model",      "models",    "bot",
                                        "bots",      "agent",      "agents",     "system",    "systems",
                                        "crawler",   "crawlers",   "summarizer", "summariser"};

}  // namespace

const WordSet kLead = kLeadWords;

size_t Sentence::Ai(size_t i, bool* strong) const {
  size_t k = i;
  if (IsIn(k, {"large", "small"}) && Is(k + 1, "language")) ++k;
  if (Is(k, "language") && IsIn(k + 1, {"model", "models"})) {
    *strong = true;
    return k + 2 - i;
  }
  if (IsIn(k, {"ai", "a"}) && IsIn(k + 1, {"model", "models", "assistant", "assistants", "agent", "agents", "system",
                                           "systems", "tool", "tools", "bot", "bots", "crawler", "crawlers"})) {
    if (Is(k, "a")) return 0;
    *strong = true;
    return k + 2 - i;
  }
  if (IsIn(k, {"virtual", "automated", "digital"}) &&
      IsIn(k + 1, {"assistant", "assistants", "agent", "agents", "reader", "readers"})) {
    *strong = true;
    return k + 2 - i;
  }
  if (k == i && IsIn(k, kStrongAi)) {
    *strong = true;
    // "gpt 4", "gpt 4o": the version is part of the name.
    return (Word(k + 1) && std::isdigit(static_cast<unsigned char>(t[k + 1].w[0]))) ? 2 : 1;
  }
  if (k == i && IsIn(k, kWeakAi)) {
    *strong = false;
    return 1;
  }
  return 0;
}

}  // namespace attest::screen
