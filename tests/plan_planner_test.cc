// The query planner: intents, entities, time, constraints, operators, sub-queries, the validated
// rewrite and follow-ups, including the plan.* expectations of shared/scenarios/seed-scenarios.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "plan/query_plan.h"

namespace attest {
namespace {

constexpr char kToday[] = "2025-10-02";

QueryPlan MustPlan(const std::string& question, const QueryPlan* previous = nullptr,
                   const std::string& today = kToday) {
  PlanArgs args;
  args.question = question;
  args.today = today;
  args.previous = previous;
  Result<QueryPlan> r = PlanQuestion(args, PlannerConfig::Defaults());
  EXPECT_TRUE(r.ok()) << question << ": " << r.status().ToString();
  return r.ok() ? *r : QueryPlan{};
}

Status PlanStatus(const std::string& question) {
  PlanArgs args;
  args.question = question;
  args.today = kToday;
  return PlanQuestion(args, PlannerConfig::Defaults()).status();
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
bool Contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }
std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    const size_t j = s.find(' ', i);
    const size_t e = j == std::string::npos ? s.size() : j;
    if (e > i) out.push_back(s.substr(i, e - i));
    i = e + 1;
  }
  return out;
}

// ---- scenario expectations (seed-scenarios.json) --------------------------------------------------

TEST(PlannerScenarioTest, LatestReleaseDelta) {
  const QueryPlan p = MustPlan("What changed in the latest ExampleDB release for logical replication?");
  EXPECT_EQ(p.intent, Intent::kReleaseDelta);
  EXPECT_EQ(p.time.relative, "latest");
  EXPECT_TRUE(p.time.needs_current_version);
  EXPECT_EQ(p.time.resolved_at, kToday);
  ASSERT_EQ(p.entities.size(), 1u);
  EXPECT_EQ(p.entities[0].text, "ExampleDB");
  EXPECT_EQ(p.entities[0].canonical, "exampledb");
  EXPECT_TRUE(Has(p.topic_terms, "logical replication"));
  EXPECT_EQ(p.resolved_version, "");  // filled by the pipeline
  EXPECT_TRUE(p.needs_search);
  ASSERT_GE(p.subqueries.size(), 2u);
  EXPECT_EQ(p.subqueries[0].id, "q0");
  EXPECT_EQ(p.subqueries[0].text, p.original);
  EXPECT_EQ(p.subqueries[1].text, p.rewritten);
  EXPECT_TRUE(Contains(p.rewritten, "exampledb"));
  EXPECT_TRUE(Contains(p.rewritten, "logical replication"));
}

TEST(PlannerScenarioTest, VersionScopedDefaultNeedsCurrentVersion) {
  const QueryPlan p = MustPlan("What is the default of lr_example_parallel_apply in the latest release?");
  EXPECT_EQ(p.time.relative, "latest");
  EXPECT_TRUE(p.time.needs_current_version);
  EXPECT_NE(p.intent, Intent::kDefinition);
  EXPECT_TRUE(Has(p.topic_terms, "default") || Contains(p.rewritten, "default"));
  EXPECT_TRUE(Contains(p.rewritten, "lr_example_parallel_apply"));
}

TEST(PlannerScenarioTest, NegativeConstraintSurvives) {
  const QueryPlan p = MustPlan("latest ExampleDB logical replication changes that affect subscribers, not publishers");
  EXPECT_EQ(p.constraints.exclude, std::vector<std::string>{"publisher"});
  EXPECT_EQ(p.constraints.scope, std::vector<std::string>{"subscriber"});
  EXPECT_EQ(p.time.relative, "latest");
  EXPECT_EQ(p.intent, Intent::kReleaseDelta);
  for (const std::string& w : Words(p.rewritten)) {
    EXPECT_NE(w, "publisher");
    EXPECT_NE(w, "publishers");
  }
  EXPECT_TRUE(Contains(p.rewritten, "subscriber"));
  const nlohmann::json j = p.ToJson();
  EXPECT_EQ(j["constraints"]["exclude"], nlohmann::json::array({"publisher"}));
  EXPECT_EQ(j["constraints"]["scope"], nlohmann::json::array({"subscriber"}));
}

// Regression for the seed's failure: a rewriter adds "publisher" as a neighbour term.
TEST(PlannerScenarioTest, ValidatorRemovesExcludedTermAddedByRewriter) {
  QueryPlan p = MustPlan("latest PostgreSQL logical replication changes that affect subscribers, not publishers");
  p.rewritten = "postgresql logical replication publisher publishers changes release notes";
  p.subqueries[1].text = p.rewritten;
  ASSERT_TRUE(ValidateRewrite(&p).ok());
  for (const std::string& w : Words(p.rewritten)) {
    EXPECT_NE(w, "publisher");
    EXPECT_NE(w, "publishers");
  }
  EXPECT_TRUE(Contains(p.rewritten, "subscriber"));  // the missing scope term was added back
  EXPECT_TRUE(Contains(p.rewritten, "logical replication"));
  EXPECT_EQ(p.subqueries[1].text, p.rewritten);    // the rewrite leg is kept in sync
  bool noted_removal = false, noted_addition = false, noted_check = false;
  for (const std::string& n : p.notes) {
    noted_removal |= Contains(n, "removed excluded term 'publisher'");
    noted_addition |= Contains(n, "added missing scope term 'subscriber'");
    noted_check |= Contains(n, "post-retrieval check");
  }
  EXPECT_TRUE(noted_removal);
  EXPECT_TRUE(noted_addition);
  EXPECT_TRUE(noted_check);
  EXPECT_EQ(p.entities.at(0).canonical, "postgresql");
}

// A contradiction costs the excluded constraint (with a note), never the question (issue 12).
TEST(PlannerScenarioTest, ValidatorDropsContradiction) {
  QueryPlan p = MustPlan("replication changes");
  p.constraints.scope = {"publisher"};
  p.constraints.exclude = {"publishers"};
  ASSERT_TRUE(ValidateRewrite(&p).ok());
  EXPECT_TRUE(p.constraints.exclude.empty());
  EXPECT_TRUE(Has(p.constraints.scope, "publisher"));
  EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                          [](const std::string& n) { return Contains(n, "dropped exclude 'publishers'"); }));
  const QueryPlan q = MustPlan("changes only for publishers, not publishers");
  EXPECT_TRUE(q.constraints.exclude.empty());
  EXPECT_TRUE(Has(q.constraints.scope, "publisher"));
}

// Regression (issue 12): HTTP 400 "constraint exclude 'safe choice' cannot be kept out of the rewrite".
TEST(PlannerScenarioTest, Issue12ExcludedQuotedPhraseStillPlans) {
  const QueryPlan p = MustPlan(R"(Which setting is, for most users, not the "safe choice" for replication?)");
  EXPECT_TRUE(p.constraints.exclude.empty());
  EXPECT_FALSE(Has(p.operators.phrases, "safe choice"));  // negated and quoted: no phrase filter either
  EXPECT_TRUE(Contains(p.subqueries.at(0).text, "safe choice"));
  EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                          [](const std::string& n) { return Contains(n, "dropped exclude 'safe choice'"); }));
  EXPECT_TRUE(std::any_of(p.notes.begin(), p.notes.end(),
                          [](const std::string& n) { return Contains(n, "not used as a phrase filter"); }));
  // Empty constraint terms are dropped, not refused.
  QueryPlan e = MustPlan("replication changes");
  e.constraints.exclude = {"  "};
  e.constraints.scope = {""};
  ASSERT_TRUE(ValidateRewrite(&e).ok());
  EXPECT_TRUE(e.constraints.exclude.empty());
  EXPECT_TRUE(e.constraints.scope.empty());
}

TEST(PlannerScenarioTest, CalculationsNeedNoSearch) {
  const QueryPlan c = MustPlan("convert 30 C to F");
  EXPECT_EQ(c.intent, Intent::kCalculation);
  EXPECT_FALSE(c.needs_search);
  ASSERT_TRUE(c.calculation.has_value());
  EXPECT_DOUBLE_EQ(c.calculation->value, 86);
  EXPECT_TRUE(Contains(c.calculation->text, "86"));
  const QueryPlan m = MustPlan("what is 17 * 23");
  EXPECT_FALSE(m.needs_search);
  ASSERT_TRUE(m.calculation.has_value());
  EXPECT_DOUBLE_EQ(m.calculation->value, 391);
  EXPECT_EQ(m.ToJson()["calculation"]["value"], 391.0);
  EXPECT_EQ(PlanStatus("what is 1/0").code(), StatusCode::kInvalidArgument);
}

TEST(PlannerScenarioTest, FollowUpFromThread) {
  const QueryPlan prev = MustPlan("What changed in ExampleDB 17 for logical replication on publishers?");
  EXPECT_TRUE(Has(prev.constraints.scope, "publisher"));
  EXPECT_EQ(prev.mentioned_versions, std::vector<std::string>{"17"});
  const QueryPlan p = MustPlan("and for subscribers?", &prev);
  EXPECT_TRUE(Contains(p.standalone, "17")) << p.standalone;
  EXPECT_TRUE(Contains(p.standalone, "logical replication")) << p.standalone;
  EXPECT_TRUE(Contains(p.standalone, "subscriber")) << p.standalone;
  EXPECT_FALSE(Contains(p.standalone, "publisher")) << p.standalone;  // replaced, not carried
  EXPECT_EQ(p.original, "and for subscribers?");
  EXPECT_EQ(p.subqueries.at(0).text, p.standalone);
  EXPECT_TRUE(Has(p.constraints.scope, "subscriber"));
  EXPECT_EQ(p.intent, Intent::kReleaseDelta);
  EXPECT_EQ(p.entities.at(0).canonical, "exampledb");
}

TEST(PlannerScenarioTest, FollowUpCarriesResolvedVersionAndTime) {
  QueryPlan prev = MustPlan("What changed in the latest ExampleDB release for logical replication?");
  prev.resolved_version = "17";
  const QueryPlan p = MustPlan("and for subscribers?", &prev);
  EXPECT_TRUE(Contains(p.standalone, "17")) << p.standalone;
  EXPECT_TRUE(Contains(p.standalone, "logical replication")) << p.standalone;
  EXPECT_TRUE(Contains(p.standalone, "subscriber")) << p.standalone;
  EXPECT_EQ(p.time.relative, "latest");
  EXPECT_TRUE(Contains(p.rewritten, "subscriber"));
  EXPECT_TRUE(Contains(p.rewritten, "17"));
}

TEST(PlannerScenarioTest, FollowUpCarriesExcludeAndResolvesPronoun) {
  const QueryPlan prev = MustPlan("ExampleDB replication changes, not publishers");
  const QueryPlan p = MustPlan("what about row filters?", &prev);
  EXPECT_TRUE(Has(p.constraints.exclude, "publisher")) << p.standalone;
  EXPECT_TRUE(Contains(p.standalone, "row filters")) << p.standalone;
  const QueryPlan install_prev = MustPlan("What is the Example CLI?");
  const QueryPlan install = MustPlan("how do I install it?", &install_prev);
  EXPECT_TRUE(Contains(install.standalone, "Example CLI")) << install.standalone;
  EXPECT_EQ(install.intent, Intent::kHowTo);
  // Not a follow-up: a full question with its own entity.
  const QueryPlan other = MustPlan("How long does Acme shipping take?", &prev);
  EXPECT_EQ(other.standalone, other.original);
}

// Regression (found by query_planner_fuzz): a short question after a calculation inherited the
// calculation intent while still needing search.
TEST(PlannerScenarioTest, FollowUpAfterCalculationIsAFreshQuestion) {
  const QueryPlan calc = MustPlan("convert 30 C to F");
  const QueryPlan p = MustPlan("and the refund policy?", &calc);
  EXPECT_NE(p.intent, Intent::kCalculation);
  EXPECT_TRUE(p.needs_search);
  EXPECT_FALSE(p.calculation.has_value());
  EXPECT_EQ(p.standalone, "and the refund policy?");
}

// ---- intents ----------------------------------------------------------------------------------------

TEST(PlannerIntentTest, Greetings) {
  for (const char* q : {"hi", "Hello!", "thanks", "thank you so much", "good morning"}) {
    const QueryPlan p = MustPlan(q);
    EXPECT_EQ(p.intent, Intent::kGreeting) << q;
    EXPECT_FALSE(p.needs_search) << q;
  }
  EXPECT_NE(MustPlan("hi, how do I install the Example CLI?").intent, Intent::kGreeting);
}

TEST(PlannerIntentTest, ComparisonHasOneSubQueryPerSide) {
  for (const char* q : {"ExampleDB vs Postgres replication", "compare ExampleDB and Postgres replication",
                        "What is the difference between ExampleDB and Postgres replication?"}) {
    const QueryPlan p = MustPlan(q);
    EXPECT_EQ(p.intent, Intent::kComparison) << q;
    ASSERT_EQ(p.subqueries.size(), 3u) << q;
    EXPECT_TRUE(Contains(p.subqueries[1].text, "ExampleDB")) << p.subqueries[1].text;
    EXPECT_TRUE(Contains(p.subqueries[2].text, "Postgres")) << p.subqueries[2].text;
    EXPECT_EQ(p.subqueries[1].purpose.rfind("side: ", 0), 0u);
  }
}

TEST(PlannerIntentTest, MultiHop) {
  const QueryPlan p = MustPlan("Will the framework behind orders-api still receive security fixes on 2026-09-01?");
  EXPECT_EQ(p.intent, Intent::kMultiHop);
  ASSERT_EQ(p.subqueries.size(), 3u);
  EXPECT_EQ(p.subqueries[1].text, "framework orders-api");
  EXPECT_TRUE(Contains(p.subqueries[2].text, "{q1}"));
  EXPECT_TRUE(Contains(p.subqueries[2].text, "security fixes"));
  EXPECT_EQ(p.time.relative, "explicit");
  EXPECT_EQ(p.time.from, "2026-09-01");
  const QueryPlan book = MustPlan("Who is the author of the book that won the Hugo award in 1990?");
  EXPECT_EQ(book.intent, Intent::kMultiHop);
  ASSERT_EQ(book.subqueries.size(), 3u);
  EXPECT_TRUE(Contains(book.subqueries[1].text, "book"));
  EXPECT_TRUE(Contains(book.subqueries[2].text, "author"));
}

TEST(PlannerIntentTest, MultiPartQuestionHasTwoSubQueries) {
  const QueryPlan p = MustPlan("How long does Acme shipping take, and what is the refund policy?");
  ASSERT_EQ(p.subqueries.size(), 3u);
  EXPECT_EQ(p.subqueries[1].text, "How long does Acme shipping take");
  EXPECT_TRUE(Contains(p.subqueries[2].text, "refund policy"));
  EXPECT_TRUE(Contains(p.subqueries[2].text, "Acme"));  // the entity of part 1 is carried
  EXPECT_EQ(p.entities.at(0).canonical, "acme");
}

TEST(PlannerIntentTest, HowToDefinitionNavigationalFact) {
  EXPECT_EQ(MustPlan("How do I install the Example CLI?").intent, Intent::kHowTo);
  EXPECT_EQ(MustPlan("how to configure logical replication").intent, Intent::kHowTo);
  EXPECT_EQ(MustPlan("What is logical replication?").intent, Intent::kDefinition);
  EXPECT_EQ(MustPlan("define idempotency").intent, Intent::kDefinition);
  EXPECT_EQ(MustPlan("ExampleDB website").intent, Intent::kNavigational);
  EXPECT_EQ(MustPlan("Who is the chief executive of Acme?").intent, Intent::kFact);
  EXPECT_EQ(MustPlan("acme refund policy").intent, Intent::kFact);
}

// ---- entities, time, constraints, operators -------------------------------------------------------

TEST(PlannerEntityTest, AliasesAndNames) {
  const QueryPlan p = MustPlan("Is PG faster than pgsql or Postgres?");
  ASSERT_EQ(p.entities.size(), 1u);  // all three are one canonical entity
  EXPECT_EQ(p.entities[0].canonical, "postgresql");
  EXPECT_EQ(p.entities[0].type, "software");
  // Word boundaries: "pg" inside "upgrade" is not an alias.
  EXPECT_TRUE(MustPlan("how to upgrade safely").entities.empty());
  const QueryPlan multi = MustPlan("what does elastic search index?");
  ASSERT_EQ(multi.entities.size(), 1u);
  EXPECT_EQ(multi.entities[0].canonical, "elasticsearch");
  const QueryPlan names = MustPlan("Does the Example CLI work with ExampleDB?");
  ASSERT_EQ(names.entities.size(), 2u);
  EXPECT_EQ(names.entities[0].canonical, "example cli");
  EXPECT_EQ(names.entities[1].canonical, "exampledb");
  EXPECT_EQ(names.entities[1].type, "product");
}

TEST(PlannerEntityTest, ConfigFromJson) {
  Result<PlannerConfig> c = PlannerConfig::FromJson(
      R"({"aliases": {"EDB": "exampledb", "example database": "exampledb"}, "entity_types": {"exampledb": "software"}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->aliases.at("pg"), "postgresql");  // defaults kept
  PlanArgs args{"is the example database fast", kToday, nullptr};
  Result<QueryPlan> p = PlanQuestion(args, *c);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->entities.size(), 1u);
  EXPECT_EQ(p->entities[0].canonical, "exampledb");
  EXPECT_EQ(p->entities[0].type, "software");
  const auto err = [](const std::string& j) { return PlannerConfig::FromJson(j).status().message(); };
  EXPECT_TRUE(Contains(err("[1]"), "object"));
  EXPECT_TRUE(Contains(err("{\"alias\": {}}"), "'alias'"));
  EXPECT_TRUE(Contains(err("{\"aliases\": {\"pg\": 3}}"), "aliases.pg"));
  EXPECT_TRUE(Contains(err("{\"aliases\": []}"), "'aliases'"));
  EXPECT_TRUE(Contains(err("{\"aliases\": {\"pg\": \"\"}}"), "aliases.pg"));
  EXPECT_TRUE(Contains(err("{nope"), "not valid JSON"));
}

TEST(PlannerTimeTest, RelativeAndExplicit) {
  struct Case { const char* q; const char* relative; const char* from; const char* to; };
  const Case cases[] = {
      {"ExampleDB changes this year", "this_year", "2025-01-01", "2025-10-02"},
      {"ExampleDB changes this quarter", "this_quarter", "2025-10-01", "2025-10-02"},
      {"ExampleDB changes this month", "this_month", "2025-10-01", "2025-10-02"},
      {"outages in the last 7 days", "last_n_days", "2025-09-25", "2025-10-02"},
      {"outages in the past 2 weeks", "last_n_days", "2025-09-18", "2025-10-02"},
      {"outages in the last 3 months", "last_n_days", "2025-07-02", "2025-10-02"},
      {"outages since 2024", "since", "2024-01-01", "2025-10-02"},
      {"outages since March 2024", "since", "2024-03-01", "2025-10-02"},
      {"outages in 2023", "explicit", "2023-01-01", "2023-12-31"},
      {"outages on 2025-06-30", "explicit", "2025-06-30", "2025-06-30"},
      {"outages yesterday", "explicit", "2025-10-01", "2025-10-01"},
      {"outages today", "explicit", "2025-10-02", "2025-10-02"},
  };
  for (const Case& c : cases) {
    const QueryPlan p = MustPlan(c.q);
    EXPECT_EQ(p.time.relative, c.relative) << c.q;
    EXPECT_EQ(p.time.from.value_or(""), c.from) << c.q;
    EXPECT_EQ(p.time.to.value_or(""), c.to) << c.q;
  }
  const QueryPlan cur = MustPlan("What is the current version of ExampleDB?");
  EXPECT_EQ(cur.time.relative, "current");
  EXPECT_TRUE(cur.time.needs_current_version);
  const QueryPlan news = MustPlan("most recent outage report");
  EXPECT_EQ(news.time.relative, "latest");
  EXPECT_FALSE(news.time.needs_current_version);  // no versioned entity, no release
  const QueryPlan leap = MustPlan("outages in the last 1 month", nullptr, "2024-03-31");
  EXPECT_EQ(leap.time.from, "2024-02-29");
  EXPECT_EQ(MustPlan("outages", nullptr, "2025-10-02").time.relative, "");
}

TEST(PlannerConstraintTest, ExcludeAndScopeRules) {
  const QueryPlan a = MustPlan("replication settings except replicas");
  EXPECT_EQ(a.constraints.exclude, std::vector<std::string>{"replica"});
  const QueryPlan b = MustPlan("backup tools without plugins");
  EXPECT_EQ(b.constraints.exclude, std::vector<std::string>{"plugin"});
  const QueryPlan c = MustPlan("error codes excluding warnings");
  EXPECT_EQ(c.constraints.exclude, std::vector<std::string>{"warning"});
  const QueryPlan d = MustPlan("security advisories only for libraries");
  EXPECT_EQ(d.constraints.scope, std::vector<std::string>{"library"});
  const QueryPlan e = MustPlan("bugs affecting subscribers");
  EXPECT_EQ(e.constraints.scope, std::vector<std::string>{"subscriber"});
  const QueryPlan f = MustPlan("changes not for the publisher side");
  EXPECT_EQ(f.constraints.exclude, std::vector<std::string>{"publisher"});
  // Conservative: "for example" is not scope, "does not" is not an exclusion.
  EXPECT_TRUE(MustPlan("what is a lock, for example a row lock").constraints.scope.empty());
  EXPECT_TRUE(MustPlan("replication does not start").constraints.exclude.empty());
  EXPECT_TRUE(MustPlan("retention for 30 days").constraints.scope.empty());
  for (const QueryPlan* p : {&a, &b, &c}) {
    for (const std::string& w : Words(p->rewritten)) EXPECT_NE(w, p->constraints.exclude[0]) << p->rewritten;
  }
  EXPECT_TRUE(Contains(d.rewritten, "library"));
}

TEST(PlannerOperatorTest, ParsedAndStripped) {
  const QueryPlan p = MustPlan(
      "\"parallel apply\" site:Docs.Example.org before:2025-01-01 after:2024-01-01 version:17 type:release_notes "
      "foo:bar streaming");
  EXPECT_EQ(p.operators.phrases, std::vector<std::string>{"parallel apply"});
  EXPECT_EQ(p.operators.sites, std::vector<std::string>{"docs.example.org"});
  EXPECT_EQ(p.operators.before, "2025-01-01");
  EXPECT_EQ(p.operators.after, "2024-01-01");
  EXPECT_EQ(p.operators.versions, std::vector<std::string>{"17"});
  EXPECT_EQ(p.operators.types, std::vector<std::string>{"release_notes"});
  EXPECT_EQ(p.subqueries[0].text, "parallel apply foo:bar streaming");
  EXPECT_TRUE(Contains(p.rewritten, "parallel apply"));
  bool site_note = false;
  for (const std::string& n : p.notes) site_note |= Contains(n, "site:docs.example.org");
  EXPECT_TRUE(site_note);
  const nlohmann::json j = p.ToJson();
  EXPECT_EQ(j["operators"]["before"], "2025-01-01");
  EXPECT_EQ(j["operators"]["sites"][0], "docs.example.org");
}

TEST(PlannerOperatorTest, MalformedValuesNameTheOperator) {
  const Status a = PlanStatus("release notes before:2025-13-01");
  EXPECT_EQ(a.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(a.message(), "before:")) << a.message();
  const Status b = PlanStatus("release notes after:yesterday");
  EXPECT_TRUE(Contains(b.message(), "after:")) << b.message();
  EXPECT_TRUE(Contains(PlanStatus("x site:").message(), "site:"));
  EXPECT_TRUE(Contains(PlanStatus("x site:exa$mple.org").message(), "site:"));
  EXPECT_TRUE(Contains(PlanStatus("x after:2025-01-01 before:2024-01-01").message(), "empty date range"));
}

// ---- untrusted input and JSON -------------------------------------------------------------------

TEST(PlannerInputTest, RejectsBadInput) {
  EXPECT_EQ(PlanStatus("").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanStatus("   \n ").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanStatus(std::string(2001, 'a')).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(PlanStatus(std::string(2000, 'a')).ok());
  EXPECT_EQ(PlanStatus("caf\xC3").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanStatus("bad \xFF byte").code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(PlanStatus("café über naïve").ok());
  PlanArgs args{"hello", "2025-02-30", nullptr};
  // The limit is in code points, as in the HTTP API: 2,000 two-byte letters are 4,000 bytes.
  std::string cyrillic;
  for (int i = 0; i < 2000; ++i) cyrillic += "\xD1\x8F";
  EXPECT_TRUE(PlanStatus(cyrillic).ok()) << PlanStatus(cyrillic).message();
  EXPECT_EQ(PlanStatus(cyrillic + "\xD1\x8F").code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(PlanStatus(cyrillic + "\xD1\x8F").message(), "2001 characters"));
  EXPECT_EQ(PlanQuestion(args, PlannerConfig::Defaults()).status().code(), StatusCode::kInvalidArgument);
  args.today = "";
  EXPECT_EQ(PlanQuestion(args, PlannerConfig::Defaults()).status().code(), StatusCode::kInvalidArgument);
}

TEST(PlannerJsonTest, EveryFieldWithStableKeys) {
  const QueryPlan p = MustPlan("What changed in the latest ExampleDB release for logical replication?");
  const nlohmann::json j = p.ToJson();
  for (const char* key : {"original", "standalone", "intent", "entities", "topic_terms", "mentioned_versions",
                          "time", "constraints", "operators", "subqueries", "rewritten", "needs_search",
                          "calculation", "resolved_version", "notes"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["intent"], "release_delta");
  EXPECT_EQ(j["time"]["relative"], "latest");
  EXPECT_TRUE(j["time"]["from"].is_null());
  EXPECT_EQ(j["time"]["needs_current_version"], true);
  EXPECT_EQ(j["entities"][0]["canonical"], "exampledb");
  EXPECT_EQ(j["subqueries"][0]["id"], "q0");
  EXPECT_TRUE(j["calculation"].is_null());
  EXPECT_EQ(std::string(IntentName(Intent::kMultiHop)), "multi_hop");
  EXPECT_EQ(std::string(IntentName(Intent::kHowTo)), "how_to");
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// "without <verb>ing" describes how the wanted solution works: it must not become an exclusion
// (which would drop the sentences that explain it); "without <noun>" still excludes.
TEST(PlannerConstraintTest, WithoutAGerundIsNotAnExclusion) {
  const QueryPlan p = MustPlan("How do I create an index without locking writes on the table?");
  EXPECT_TRUE(p.constraints.exclude.empty()) << p.ToJson().dump();
  const QueryPlan q = MustPlan("logical replication changes without publishers");
  ASSERT_EQ(q.constraints.exclude.size(), 1u) << q.ToJson().dump();
  EXPECT_EQ(q.constraints.exclude[0], "publisher");
}

}  // namespace
}  // namespace attest
