// docs_qa_bars: the bars of the docs-qa sets (../shared/datasets/docs-qa/README.md) through the real
// binary, `attest eval --task docs`, once per documentation folder. Its arguments come from
// CMakeLists.txt (ATTEST_DOCS_QA_BARS, ATTEST_DOCS_QA_CORPORA: the one place they are set):
//   --bars=<set>:<metric>=<minimum>[,...]   a set is "<folder>/<file stem>" of docs-qa, a metric a key of
//                                           its JSON report (success@1, mrr@10, correct, any_claim...)
//   --corpora=<folder>=<dir>[,...]          the documentation folder each docs-qa folder was made from
// Every file a bar names is run; each corpus is one test (DocsQaBars.<folder>). When the datasets or a
// documentation folder are absent, the test says so and is reported skipped, never passed.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "support/process.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::DatasetsDir;
using testing_support::RunAttest;
using testing_support::TempDir;

struct Bar {
  std::string set;     // "git/defaults_qa"
  std::string metric;  // "correct"
  double minimum = 0;
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Prints up to `n` rows of a set that scored wrong, with the harness's reason.
void PrintWrongRows(const std::string& details_file, const std::string& set, size_t n) {
  std::ifstream in(details_file);
  for (std::string line; n > 0 && std::getline(in, line);) {
    nlohmann::json d = nlohmann::json::parse(line, nullptr, false);
    if (d.is_discarded() || d["set"] != set) continue;
    const bool right = d.contains("correct") ? d["correct"].get<bool>() : d.value("success@1", false);
    if (right) continue;
    std::cout << "  " << d["id"].get<std::string>() << " \"" << d["query"].get<std::string>()
              << "\": " << d["reason"].get<std::string>() << "\n";
    --n;
  }
}

void CheckCorpus(const std::string& folder, const std::string& corpus_dir, const std::vector<Bar>& bars) {
  const std::string datasets = DatasetsDir();
  if (datasets.empty()) GTEST_SKIP() << "../shared/datasets is absent: docs-qa bars of " << folder << " not checked";
  const fs::path docs_qa = fs::path(datasets) / "docs-qa";
  if (!fs::is_directory(docs_qa)) GTEST_SKIP() << docs_qa.string() << " is absent: docs-qa bars of " << folder << " not checked";
  if (!fs::is_directory(corpus_dir)) {
    GTEST_SKIP() << "documentation folder " << corpus_dir << " is absent (scripts/bootstrap installs git-doc and "
                 << "sqlite3-doc): docs-qa bars of " << folder << " not checked";
  }
  std::vector<std::string> sets;
  std::string files;
  for (const Bar& b : bars) {
    if (std::find(sets.begin(), sets.end(), b.set) != sets.end()) continue;
    sets.push_back(b.set);
    const fs::path file = docs_qa / (b.set + ".jsonl");
    ASSERT_TRUE(fs::is_regular_file(file)) << file.string() << " is missing: the bar on " << b.set << " cannot be checked";
    files += (files.empty() ? "" : ",") + file.string();
  }
  TempDir tmp;
  const std::string json_file = tmp.str("report.json"), details = tmp.str("details.jsonl");
  auto r = RunAttest({"eval", "--task", "docs", "--corpus", corpus_dir, "--questions", files, "--json", json_file,
                      "--details", details});
  std::cout << r.out;
  // 3: the folder holds files ingestion rejects (changelog.gz...), named on stderr; the rest is stored.
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 3) << "exit " << r.exit_code << "\n" << r.err;
  std::ifstream in(json_file);
  nlohmann::json report = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(report.is_discarded()) << "no JSON report in " << json_file;
  std::map<std::string, nlohmann::json> by_set;
  for (const auto& s : report["sets"]) by_set[s["set"].get<std::string>()] = s;
  std::vector<std::string> below;
  for (const Bar& b : bars) {
    ASSERT_TRUE(by_set.count(b.set)) << "the report has no set " << b.set;
    const nlohmann::json& s = by_set[b.set];
    ASSERT_TRUE(s.contains(b.metric) && s[b.metric].is_number()) << b.set << " reports no metric " << b.metric;
    const double value = s[b.metric].get<double>();
    std::printf("bar %-20s %-10s %.4f (minimum %.4f) %s\n", b.set.c_str(), b.metric.c_str(), value, b.minimum,
                value >= b.minimum ? "ok" : "BELOW");
    EXPECT_EQ(s["missing_relevant"], 0) << b.set << ": rows whose relevant page the store lacks";
    EXPECT_GE(value, b.minimum) << b.set << " " << b.metric << " is below its bar";
    if (value < b.minimum && std::find(below.begin(), below.end(), b.set) == below.end()) below.push_back(b.set);
  }
  for (const std::string& set : below) {
    std::cout << "some rows of " << set << " that scored wrong:\n";
    PrintWrongRows(details, set, 5);
  }
}

class CorpusBars : public ::testing::Test {
 public:
  CorpusBars(std::string folder, std::string dir, std::vector<Bar> bars)
      : folder_(std::move(folder)), dir_(std::move(dir)), bars_(std::move(bars)) {}
  void TestBody() override { CheckCorpus(folder_, dir_, bars_); }

 private:
  std::string folder_, dir_;
  std::vector<Bar> bars_;
};

}  // namespace
}  // namespace attest

int main(int argc, char** argv) {
  using namespace attest;
  ::testing::InitGoogleTest(&argc, argv);
  std::string bars_arg, corpora_arg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--bars=", 0) == 0) bars_arg = a.substr(7);
    else if (a.rfind("--corpora=", 0) == 0) corpora_arg = a.substr(10);
    else {
      std::cerr << "docs_qa_bars: unknown argument " << a << "\n";
      return 2;
    }
  }
  std::map<std::string, std::string> corpora;  // docs-qa folder -> documentation folder
  for (const std::string& item : Split(corpora_arg, ',')) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      std::cerr << "docs_qa_bars: --corpora item '" << item << "' is not folder=dir\n";
      return 2;
    }
    corpora[item.substr(0, eq)] = item.substr(eq + 1);
  }
  std::map<std::string, std::vector<Bar>> by_folder;
  for (const std::string& item : Split(bars_arg, ',')) {
    const size_t colon = item.find(':'), eq = item.rfind('=');
    const size_t slash = item.find('/');
    char* end = nullptr;
    const double minimum = eq == std::string::npos ? 0 : std::strtod(item.c_str() + eq + 1, &end);
    if (colon == std::string::npos || eq == std::string::npos || eq < colon || slash > colon || !end || *end) {
      std::cerr << "docs_qa_bars: --bars item '" << item << "' is not <folder>/<set>:<metric>=<minimum>\n";
      return 2;
    }
    const std::string folder = item.substr(0, slash);
    if (!corpora.count(folder)) {
      std::cerr << "docs_qa_bars: no --corpora entry for the docs-qa folder '" << folder << "'\n";
      return 2;
    }
    by_folder[folder].push_back({item.substr(0, colon), item.substr(colon + 1, eq - colon - 1), minimum});
  }
  if (by_folder.empty()) {
    std::cerr << "docs_qa_bars: no bar given (--bars=<folder>/<set>:<metric>=<minimum>,...)\n";
    return 2;
  }
  for (const auto& [folder, bars] : by_folder) {
    const std::string dir = corpora[folder];
    ::testing::RegisterTest("DocsQaBars", folder.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [folder, dir, bars]() -> ::testing::Test* { return new CorpusBars(folder, dir, bars); });
  }
  return RUN_ALL_TESTS();
}
