// Terminal presentation for the CLI: a progress bar (only when stderr is a terminal) and
// highlighted snippets (ANSI bold on a terminal, [[...]] markers otherwise).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "attest/engine.h"

namespace attest::cli {

bool StderrIsTerminal();
bool StdoutIsTerminal();

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  void Update(uint64_t done, uint64_t total);
  void Finish();

 private:
  std::string label_;
  bool enabled_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
};

std::string RenderHighlighted(const std::string& text, const std::vector<Highlight>& highlights, bool ansi);
std::string HumanBytes(uint64_t bytes);

}  // namespace attest::cli
