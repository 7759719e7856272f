// The research-mode scenarios of tests/scenarios/research.json (attest-scenarios/1 with
// "answer_mode": "research"): a bridge through a team's page, two people compared, a hop limit of
// one, a bridge into a page the caller may not read, and an exploratory question answered by topic. Every expectation must hold.
#include <gtest/gtest.h>

#include <string>

#include "eval/scenario_runner.h"

namespace attest {
namespace {

TEST(ResearchScenariosTest, EveryScenarioPasses) {
  const std::string path = std::string(ATTEST_SOURCE_DIR) + "/tests/scenarios/research.json";
  auto results = RunScenarioFile(path, ScenarioRunOptions{});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 5u);
  for (const ScenarioResult& s : *results) {
    std::string why = s.error;
    for (const ExpectationResult& e : s.expectations) {
      if (!e.passed) why += "\n  " + e.key + ": " + e.detail;
    }
    EXPECT_TRUE(s.passed) << s.id << why;
    EXPECT_FALSE(s.expectations.empty()) << s.id;
  }
}

TEST(ResearchScenariosTest, AnUnknownAnswerModeIsAnError) {
  const std::string json = R"({"format": "attest-scenarios/1", "scenarios": [{"id": "x", "answer_mode": "deep",
    "documents": [{"id": "d", "title": "T", "text": "Some text.", "tenant": "default", "acl": ["public"]}],
    "identity": {"tenant": "default", "user": "u", "groups": ["public"]}, "question": "What?",
    "expect": {"outcome": "answer"}}]})";
  auto results = RunScenarioJson(json, "x");
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_FALSE(results->front().passed);
  EXPECT_NE(results->front().error.find("answer_mode"), std::string::npos) << results->front().error;
}

}  // namespace
}  // namespace attest
