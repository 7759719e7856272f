#include "answer/analyzed_texts.h"

namespace attest {

const std::vector<Token>& AnalyzedTexts::Tokens(std::string_view text) {
  auto [it, inserted] = tokens_.try_emplace(std::string(text));
  if (inserted) {
    analyzer_.Analyze(text, &it->second);
    ++analysed_;
  } else {
    ++reused_;
  }
  return it->second;
}

std::vector<std::string> AnalyzedTexts::Terms(std::string_view text) {
  const std::vector<Token>& tokens = Tokens(text);
  std::vector<std::string> terms;
  terms.reserve(tokens.size());
  for (const Token& t : tokens) terms.push_back(t.term);
  return terms;
}

}  // namespace attest
