// attest check FILE...: runs scenario files and prints pass/fail per scenario and expectation.
#include <nlohmann/json.hpp>

#include <cstdio>

#include "eval/scenario_runner.h"
#include "cli/commands.h"

namespace attest::cli {

int RunCheck(const GlobalArgs& g, const std::vector<std::string>& files, bool json, uint32_t shards) {
  ScenarioRunOptions options;
  options.threads = g.threads ? g.threads : 1;
  options.shards = shards;
  nlohmann::json all = nlohmann::json::array();
  size_t passed = 0, total = 0;
  bool file_error = false;
  for (const std::string& file : files) {
    auto results = RunScenarioFile(file, options);
    if (!results.ok()) {
      std::fprintf(stderr, "attest: %s\n", results.status().ToString().c_str());
      file_error = true;
      continue;
    }
    for (const ScenarioResult& r : *results) {
      ++total;
      passed += r.passed;
      if (json) {
        nlohmann::json ex = nlohmann::json::array();
        for (const auto& e : r.expectations) ex.push_back({{"key", e.key}, {"passed", e.passed}, {"detail", e.detail}});
        all.push_back({{"file", file}, {"id", r.id}, {"question", r.question}, {"passed", r.passed},
                       {"error", r.error}, {"ms", r.ms}, {"expectations", ex}});
        continue;
      }
      std::printf("%s  %s%s%s (%.0f ms)\n", r.passed ? "PASS" : "FAIL", r.id.c_str(), r.question.empty() ? "" : ": ",
                  r.question.c_str(), r.ms);
      if (!r.error.empty()) std::printf("      error: %s\n", r.error.c_str());
      for (const auto& e : r.expectations) {
        if (!r.passed || !e.passed) {
          std::printf("      %s %s: %s\n", e.passed ? "ok  " : "FAIL", e.key.c_str(), e.detail.c_str());
        }
      }
    }
  }
  if (json) {
    std::printf("%s\n", nlohmann::json({{"passed", passed}, {"total", total}, {"scenarios", all}}).dump(2).c_str());
  } else {
    std::printf("%zu of %zu scenario checks passed\n", passed, total);
  }
  if (file_error) return kExitFailure;
  return passed == total ? kExitOk : kExitFailure;
}

}  // namespace attest::cli
