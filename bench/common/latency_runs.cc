#include "common/latency_runs.h"

#include <algorithm>
#include <fstream>

#include <nlohmann/json.hpp>

namespace attest::bench {

std::vector<std::string> LoadQuestions(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] == '{') {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.contains("text") && j["text"].is_string()) out.push_back(j["text"].get<std::string>());
    } else {
      out.push_back(line);
    }
  }
  return out;
}

double Percentile(std::vector<double> samples, double p) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  size_t i = static_cast<size_t>(p * (samples.size() - 1) + 0.5);
  return samples[std::min(i, samples.size() - 1)];
}

Spread Summarize(std::vector<double> rounds) {
  if (rounds.empty()) return {};
  std::sort(rounds.begin(), rounds.end());
  return {rounds[rounds.size() / 2], rounds.front(), rounds.back()};
}

}  // namespace attest::bench
