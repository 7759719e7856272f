// The texts one answer analyses, each analysed once (issue 16, "work done once"): the bridge hop's
// sentences, the evidence builder's sentences (the same sentences of the same chunks), the
// answerability check's quotes (packed sentences) and contexts (their chunks) ask for the same
// text again and again; the tokens are kept by text.
//
// Thread-safety: none; one answer uses it from one thread. References it returns stay valid for its
// lifetime.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/analyzer.h"

namespace attest {

class AnalyzedTexts {
 public:
  explicit AnalyzedTexts(const Analyzer& analyzer) : analyzer_(analyzer) {}

  const Analyzer& analyzer() const { return analyzer_; }

  // analyzer().Analyze(text, &tokens), computed on the first call for this text.
  const std::vector<Token>& Tokens(std::string_view text);
  // analyzer().Terms(text), from Tokens(text).
  std::vector<std::string> Terms(std::string_view text);

  size_t analysed() const { return analysed_; }
  size_t reused() const { return reused_; }

 private:
  const Analyzer& analyzer_;
  std::unordered_map<std::string, std::vector<Token>> tokens_;  // node-based: values never move
  size_t analysed_ = 0;
  size_t reused_ = 0;
};

}  // namespace attest
