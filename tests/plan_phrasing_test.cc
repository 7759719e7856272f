// Time words, intents and entities in their common synonyms, phrasings and casing (issue 12), not
// only in the seed scenarios' wording. Table-driven; today is 2025-10-02.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plan/query_plan.h"

namespace attest {
namespace {

QueryPlan Plan(const std::string& question) {
  PlanArgs args;
  args.question = question;
  args.today = "2025-10-02";
  Result<QueryPlan> r = PlanQuestion(args, PlannerConfig::Defaults());
  EXPECT_TRUE(r.ok()) << question << ": " << r.status().ToString();
  return r.ok() ? *r : QueryPlan{};
}

struct TimeCase {
  const char* question;
  const char* relative;
  const char* from;  // nullptr: no bound
  const char* to;
};

TEST(PlanPhrasingTest, TimeWords) {
  const std::vector<TimeCase> cases = {
      {"ExampleDB changes in the last 30 days", "last_n_days", "2025-09-02", "2025-10-02"},
      {"ExampleDB changes in the PAST THIRTY DAYS", "last_n_days", "2025-09-02", "2025-10-02"},
      {"exampledb changes over the previous two weeks", "last_n_days", "2025-09-18", "2025-10-02"},
      {"changes during the prior 2 weeks", "last_n_days", "2025-09-18", "2025-10-02"},
      {"what broke in the last couple of months", "last_n_days", "2025-08-02", "2025-10-02"},
      {"incidents in the last few days", "last_n_days", "2025-09-29", "2025-10-02"},
      {"releases in the past quarter", "last_n_days", "2025-07-02", "2025-10-02"},
      {"outages in the last fortnight", "last_n_days", "2025-09-18", "2025-10-02"},
      {"errors in the last 48 hours", "last_n_days", "2025-09-30", "2025-10-02"},
      {"changes this past week", "last_n_days", "2025-09-25", "2025-10-02"},
      {"what shipped year to date", "this_year", "2025-01-01", "2025-10-02"},
      {"what shipped this Year", "this_year", "2025-01-01", "2025-10-02"},
      {"papers between 2021 and 2023", "explicit", "2021-01-01", "2023-12-31"},
      {"papers from 2019 to 2020", "explicit", "2019-01-01", "2020-12-31"},
      {"what changed after 2023", "since", "2024-01-01", "2025-10-02"},
      {"what changed Since March 2024", "since", "2024-03-01", "2025-10-02"},
      {"the newest ExampleDB release", "latest", nullptr, nullptr},
      {"the most recent ExampleDB release", "latest", nullptr, nullptr},
      {"the last release of ExampleDB", "latest", nullptr, nullptr},
      {"is the up-to-date ExampleDB faster", "latest", nullptr, nullptr},
      {"which ExampleDB version is supported nowadays", "current", nullptr, nullptr},
      {"which ExampleDB version is supported at present", "current", nullptr, nullptr},
      {"which ExampleDB version is CURRENTLY supported", "current", nullptr, nullptr},
  };
  for (const TimeCase& c : cases) {
    const QueryPlan p = Plan(c.question);
    EXPECT_EQ(p.time.relative, c.relative) << c.question;
    EXPECT_EQ(p.time.from.value_or(""), c.from ? c.from : "") << c.question;
    EXPECT_EQ(p.time.to.value_or(""), c.to ? c.to : "") << c.question;
  }
  // "latest"/"current" about a versioned entity needs the current version, in any casing.
  EXPECT_TRUE(Plan("NEWEST exampledb VERSION").time.needs_current_version);
  EXPECT_TRUE(Plan("the last release of ExampleDB").time.needs_current_version);
  // Not a period: "the last of the Mohicans", "past the end".
  EXPECT_EQ(Plan("who wrote the last of the Mohicans").time.relative, "");
}

struct IntentCase {
  const char* question;
  Intent intent;
};

TEST(PlanPhrasingTest, Intents) {
  const std::vector<IntentCase> cases = {
      {"How do I create a subscription?", Intent::kHowTo},
      {"how can one create a subscription", Intent::kHowTo},
      {"HOW SHOULD WE ROTATE THE LOGS", Intent::kHowTo},
      {"How does someone reset a password?", Intent::kHowTo},
      {"please tell me how to reset a password", Intent::kHowTo},
      {"What's the best way to back up a database?", Intent::kHowTo},
      {"Is there a way to undo a rebase?", Intent::kHowTo},
      {"steps for upgrading ExampleDB", Intent::kHowTo},
      {"What changed in ExampleDB 17?", Intent::kReleaseDelta},
      {"what's changed in exampledb 17", Intent::kReleaseDelta},
      {"What's new in version 17?", Intent::kReleaseDelta},
      {"new features in ExampleDB 17", Intent::kReleaseDelta},
      {"What was added in version 17?", Intent::kReleaseDelta},
      {"ExampleDB 17 change log", Intent::kReleaseDelta},
      {"How do I create a new subscription in ExampleDB 17?", Intent::kHowTo},
      {"What was removed in release 3.2?", Intent::kReleaseDelta},
      {"What New Orleans stadium was considered for Super Bowl 50?", Intent::kFact},
      {"What network uses a red version of the new ABC logo?", Intent::kFact},
      {"What is WAL?", Intent::kDefinition},
      {"what does WAL mean", Intent::kDefinition},
      {"What does MVCC stand for?", Intent::kDefinition},
      {"what is meant by vacuum", Intent::kDefinition},
      {"Define checkpoint", Intent::kDefinition},
      {"merge vs rebase", Intent::kComparison},
      {"Merge VERSUS rebase", Intent::kComparison},
      {"What is the difference between merge and rebase?", Intent::kComparison},
      {"compare merge with rebase", Intent::kComparison},
  };
  for (const IntentCase& c : cases) {
    EXPECT_STREQ(IntentName(Plan(c.question).intent), IntentName(c.intent)) << c.question;
  }
}

TEST(PlanPhrasingTest, EntitiesInAnyCasingAndAlias) {
  for (const char* q : {"latest postgres release", "latest POSTGRES release", "latest Postgres release",
                        "latest pg release", "latest PostgreSQL release", "latest pgsql release"}) {
    const QueryPlan p = Plan(q);
    ASSERT_FALSE(p.entities.empty()) << q;
    EXPECT_EQ(p.entities[0].canonical, "postgresql") << q;
    EXPECT_TRUE(p.time.needs_current_version) << q;
  }
  EXPECT_EQ(Plan("how do I index in Elastic Search").entities.at(0).canonical, "elasticsearch");
  EXPECT_EQ(Plan("ExampleDB 17 changes").mentioned_versions, std::vector<std::string>{"17"});
  EXPECT_EQ(Plan("changes in exampledb version 17").mentioned_versions, std::vector<std::string>{"17"});
  // A lower-case bridge: the hop chain does not depend on the casing of the name it goes through.
  const QueryPlan hop = Plan("will the framework behind orders-api still receive security fixes on 2026-09-01?");
  EXPECT_EQ(hop.intent, Intent::kMultiHop);
  ASSERT_GE(hop.subqueries.size(), 3u);
  EXPECT_EQ(hop.subqueries[1].text, "framework orders-api");
}

}  // namespace
}  // namespace attest
