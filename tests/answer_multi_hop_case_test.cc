// Issue 12: an entity written in lower case can be a hop's bridge. The seed's multi-hop scenario
// with the runtime written "foo 3.2" in the catalogue (and "Foo 3.2" in its lifecycle page), asked
// in lower case and with another phrasing, still chains the two hops and compares the dates in code.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "eval/scenario_runner.h"

namespace attest {
namespace {

std::string Scenario(const std::string& catalogue, const std::string& question) {
  nlohmann::json doc = {
      {"format", "attest-scenarios/1"},
      {"scenarios",
       {{{"id", "lower-case-bridge"},
         {"now", "2026-05-01T09:00:00Z"},
         {"documents",
          {{{"id", "C1"}, {"title", "Service catalogue: orders-api"}, {"text", catalogue}, {"tenant", "default"},
            {"acl", {"public"}}, {"source_type", "system_of_record"}, {"published", "2026-04-14"}},
           {{"id", "C2"}, {"title", "Service catalogue: orders-web"},
            {"text", "orders-web: runtime Bar 5.1, owner storefront, updated 2026-03-02."}, {"tenant", "default"},
            {"acl", {"public"}}, {"source_type", "system_of_record"}, {"published", "2026-03-02"}},
           {{"id", "L1"}, {"title", "Foo lifecycle"},
            {"text", "Foo 3.2: security fixes until 2026-06-30; end of life 2026-12-31. Foo 3.3: security fixes "
                     "until 2027-06-30."},
            {"tenant", "default"}, {"acl", {"public"}}, {"source_type", "official"}, {"published", "2025-11-01"}},
           {{"id", "W1"}, {"title", "Wiki: payments team"},
            {"text", "The payments-platform team owns orders-api and billing-api."}, {"tenant", "default"},
            {"acl", {"public"}}, {"source_type", "wiki"}, {"published", "2025-01-10"}}}},
         {"identity", {{"tenant", "default"}, {"user", "u1"}, {"groups", {"public"}}}},
         {"question", question},
         {"expect",
          {{"outcome", "answer"}, {"hops_min", 2}, {"cites_all", {"C1", "L1"}}, {"cites_none", {"C2"}},
           {"answer_contains", {"2026-06-30"}}, {"verdict", "no"}}}}}}};
  return doc.dump();
}

void ExpectPasses(const std::string& catalogue, const std::string& question) {
  auto r = RunScenarioJson(Scenario(catalogue, question), "lower-case-bridge");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  const ScenarioResult& s = r->front();
  std::string why = s.error;
  for (const ExpectationResult& e : s.expectations) {
    if (!e.passed) why += "\n  " + e.key + ": " + e.detail;
  }
  EXPECT_TRUE(s.passed) << question << why;
}

TEST(MultiHopCaseTest, LowerCaseBridgeValue) {
  ExpectPasses("orders-api: runtime foo 3.2, owner payments-platform, updated 2026-04-14.",
               "Will the framework behind orders-api still receive security fixes on 2026-09-01?");
}

TEST(MultiHopCaseTest, LowerCaseQuestion) {
  ExpectPasses("orders-api: runtime Foo 3.2, owner payments-platform, updated 2026-04-14.",
               "will the framework behind orders-api still receive security fixes on 2026-09-01");
}

}  // namespace
}  // namespace attest
