// Property: a natural question never fails planning (issue 12: "a planner failure should cost
// quality, never availability"). Every question of the shared QA sets, and variants of each
// (casing, punctuation, quotes, negations), plans; its focus and subject are sane.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/strings.h"
#include "plan/query_plan.h"

namespace attest {
namespace {

namespace fs = std::filesystem;

fs::path DatasetsDir() {
  if (const char* env = std::getenv("ATTEST_DATASETS"); env && *env) return env;
  return fs::path(ATTEST_SOURCE_DIR) / ".." / "shared" / "datasets";
}

std::vector<std::string> LoadQuestions(const fs::path& file) {
  std::vector<std::string> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("text") && j["text"].is_string()) out.push_back(j["text"].get<std::string>());
  }
  return out;
}

std::vector<std::string> Variants(const std::string& q, std::mt19937* rng) {
  std::vector<std::string> v = {q, AsciiLower(q)};
  std::string upper = q;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  v.push_back(upper);
  std::string bare;
  for (char c : q) {
    if (c != '?' && c != ',' && c != '.' && c != '"') bare += c;
  }
  v.push_back(bare);
  v.push_back("\"" + q + "\"");
  v.push_back(q + "??");
  v.push_back("please, " + q);
  const std::vector<std::string> words = [&] {
    std::vector<std::string> w;
    std::string cur;
    for (char c : bare + " ") {
      if (c == ' ') {
        if (!cur.empty()) w.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    return w;
  }();
  if (words.size() >= 3) {
    std::uniform_int_distribution<size_t> pick(0, words.size() - 2);
    const size_t a = pick(*rng);
    const std::string two = words[a] + " " + words[a + 1];
    v.push_back(q + ", not \"" + two + "\"");                       // negated quoted phrase
    v.push_back(q + " not " + words[a] + " only for " + words[a]);  // excluded and in scope
    v.push_back("\"" + two + "\" " + q + " without " + words[a + 1]);
    v.push_back(q + " \"" + words[a]);  // a stray quote
    v.push_back("--" + words[a] + " " + q + " -" + words[a + 1].substr(0, 1));
  }
  return v;
}

void CheckSane(const std::string& question, const QueryPlan& p) {
  const std::string focus = FocusName(p.focus);
  ASSERT_FALSE(focus.empty()) << question;
  if (!p.subject.empty()) {
    EXPECT_EQ(std::string(Trim(p.subject)), p.subject) << question;
    EXPECT_LE(p.subject.size(), 200u) << question;
    const auto alnum = [](const std::string& x) {
      std::string out;
      for (char c : AsciiLower(x)) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80) out += c;
      }
      return out;
    };
    EXPECT_NE(alnum(question).find(alnum(p.subject)), std::string::npos)
        << "subject '" << p.subject << "' is not in: " << question;
  }
  for (const SubQuery& q : p.subqueries) {
    // No word of a sub-query reads as a lexical operator (+term, -term).
    for (size_t k = 0; k + 1 < q.text.size(); ++k) {
      const bool word_start = k == 0 || q.text[k - 1] == ' ';
      EXPECT_FALSE(word_start && (q.text[k] == '-' || q.text[k] == '+') && q.text[k + 1] != ' ')
          << question << " -> " << q.text;
    }
  }
}

size_t PlanAll(const std::vector<std::string>& questions) {
  std::mt19937 rng(12);
  size_t planned = 0;
  for (const std::string& q : questions) {
    for (const std::string& v : Variants(q, &rng)) {
      // Nothing to ask (no letter or digit): refusing it is not a planner failure.
      if (std::none_of(v.begin(), v.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; })) {
        continue;
      }
      PlanArgs args;
      args.question = v;
      args.today = "2025-10-02";
      const Result<QueryPlan> r = PlanQuestion(args, PlannerConfig::Defaults());
      if (!r.ok()) {
        ADD_FAILURE() << "planning failed for: " << v << "\n  " << r.status().ToString();
        continue;
      }
      CheckSane(v, *r);
      ++planned;
    }
  }
  return planned;
}

TEST(PlanRobustnessTest, EveryDatasetQuestionAndItsVariantsPlans) {
  const std::vector<std::string> sets = {"squad-v1.1-dev-half", "squad-v2.0-dev-half/answerable",
                                         "squad-v2.0-dev-half/unanswerable", "hotpotqa-dev-250"};
  size_t found = 0;
  for (const std::string& set : sets) {
    const fs::path file = DatasetsDir() / set / "beir" / "queries.jsonl";
    if (!fs::exists(file)) continue;
    ++found;
    const std::vector<std::string> questions = LoadQuestions(file);
    EXPECT_GT(questions.size(), 100u) << file;
    EXPECT_GE(PlanAll(questions), questions.size()) << file;
  }
  if (found == 0) GTEST_SKIP() << "no QA dataset under " << DatasetsDir() << " (set ATTEST_DATASETS)";
}

// Documentation-style questions and their variants, independent of the datasets.
TEST(PlanRobustnessTest, DocumentationQuestionsPlan) {
  const std::vector<std::string> questions = {
      R"(Which setting is, for most users, not the "safe choice" for replication?)",
      "What is the default value of core.eol?", "What does the --onto option of git rebase do?",
      "what does `git stash pop` do", "Is VACUUM FULL, not VACUUM, what locks the table?",
      "sqlite3_prepare_v2() vs sqlite3_prepare()", "only for publishers, not publishers",
      "not \"not\"", "\"\"", "' ' '", "-", "--", "???", "not", "vs", "what", "why not?",
      "How do I run git rebase -i without --autosquash, except on main?"};
  EXPECT_GE(PlanAll(questions), questions.size());
}

}  // namespace
}  // namespace attest
