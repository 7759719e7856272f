// Question focus and subject (docs/planner.md, "Focus and subject"): table-driven over varied
// phrasings, casing and punctuation, so that no rule is keyed to one wording.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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

struct Case {
  const char* question;
  Focus focus;
  const char* subject;  // nullptr: not checked
};

TEST(PlanFocusTest, FocusAndSubjectFromTheQuestionsStructure) {
  const std::vector<Case> cases = {
      // value / default
      {"What is the default value of core.eol?", Focus::kValue, "core.eol"},
      {"What is the default value of max_wal_senders?", Focus::kValue, "max_wal_senders"},
      {"what's the default for core.autocrlf", Focus::kValue, "core.autocrlf"},
      {"WHAT IS THE DEFAULT VALUE OF max_wal_senders", Focus::kValue, "max_wal_senders"},
      {"What is max_wal_senders set to by default?", Focus::kValue, "max_wal_senders"},
      {"What does core.eol default to?", Focus::kValue, "core.eol"},
      {"What value does checkpoint_timeout take", Focus::kValue, "checkpoint_timeout"},
      {"What is the default port of PostgreSQL?", Focus::kValue, "port"},
      {"What does sqlite3_prepare_v2() return?", Focus::kValue, "sqlite3_prepare_v2"},
      // number
      {"How many people live in Warsaw?", Focus::kNumber, "Warsaw"},
      {"how much memory does shared_buffers use", Focus::kNumber, "shared_buffers"},
      {"How long does a checkpoint take?", Focus::kNumber, "checkpoint"},
      {"What percentage of students passed?", Focus::kNumber, "students"},
      {"what size is the WAL segment", Focus::kNumber, nullptr},
      // date
      {"When was the Eiffel Tower built?", Focus::kDate, "Eiffel Tower"},
      {"when was the eiffel tower completed", Focus::kDate, "eiffel tower"},
      {"In what year did the Normans conquer England?", Focus::kDate, "Normans"},
      {"The tower was finished in what year?", Focus::kDate, nullptr},
      {"Can you tell me when git 2.0 was released?", Focus::kDate, nullptr},
      // version
      {"Which version introduced logical replication?", Focus::kVersion, "logical replication"},
      {"Since which release does PostgreSQL support MERGE?", Focus::kVersion, "MERGE"},
      {"in what version was --autosquash added", Focus::kVersion, "--autosquash"},
      // name
      {"Who wrote the git book?", Focus::kName, "git book"},
      {"What city hosted the 2012 Olympics?", Focus::kName, "Olympics"},
      {"Which setting controls the WAL level?", Focus::kName, nullptr},
      {"Where is pg_hba.conf stored?", Focus::kName, "pg_hba.conf"},
      // definition
      {"What does the --onto option of git rebase do?", Focus::kDefinition, "--onto"},
      {"What is PostgreSQL?", Focus::kDefinition, "PostgreSQL"},
      {"what is a partial index", Focus::kDefinition, "partial index"},
      {"Define checkpoint_timeout", Focus::kDefinition, "checkpoint_timeout"},
      {"What does CREATE INDEX do?", Focus::kDefinition, "CREATE INDEX"},
      {"What is `git stash`?", Focus::kDefinition, "git stash"},
      {"what does -x mean for git cherry-pick", Focus::kDefinition, "-x"},
      {"What does getElementById do?", Focus::kDefinition, "getElementById"},
      {"What does the --default option of git config do?", Focus::kDefinition, "--default"},
      // keyword queries are their own subject
      {"git am", Focus::kNone, "git am"},
      {"vacuum full", Focus::kNone, "vacuum full"},
      {"sqlite3_prepare_v2", Focus::kNone, "sqlite3_prepare_v2"},
      // procedure
      {"How do I create an index in SQLite?", Focus::kProcedure, nullptr},
      {"how to undo a commit", Focus::kProcedure, nullptr},
      {"How can one rotate the logs?", Focus::kProcedure, nullptr},
      // yes / no
      {"Does git rebase support --autosquash?", Focus::kYesNo, "--autosquash"},
      {"is fsync safe to turn off", Focus::kYesNo, nullptr},
      {"Can I rename a column with ALTER TABLE?", Focus::kYesNo, "ALTER TABLE"},
      // list
      {"List the options of git log", Focus::kList, nullptr},
      {"What are the benefits of WAL?", Focus::kList, "WAL"},
      {"Which countries border France?", Focus::kList, nullptr},
      {"name all the hooks git runs", Focus::kList, nullptr},
      // comparison
      {"merge vs rebase", Focus::kComparison, nullptr},
      {"What is the difference between DELETE and TRUNCATE?", Focus::kComparison, nullptr},
      {"How does a view differ from a table?", Focus::kComparison, nullptr},
      // reason
      {"Why does git gc prune loose objects?", Focus::kReason, nullptr},
      {"What is the purpose of the pg_hba.conf file?", Focus::kReason, "pg_hba.conf"},
      {"how come VACUUM FULL locks the table", Focus::kReason, "VACUUM FULL"},
  };
  for (const Case& c : cases) {
    const QueryPlan p = Plan(c.question);
    EXPECT_EQ(FocusName(p.focus), std::string(FocusName(c.focus))) << c.question;
    if (c.subject != nullptr) EXPECT_EQ(p.subject, c.subject) << c.question;
  }
}

TEST(PlanFocusTest, SubjectKeepsItsFormInTheRewriteAndIdentifiersAreNotOperators) {
  const QueryPlan p = Plan("What does the --onto option of git rebase do?");
  EXPECT_NE(p.rewritten.find("onto"), std::string::npos);
  EXPECT_NE(p.rewritten.find("git rebase"), std::string::npos);  // the command stays a retrieval term
  for (const SubQuery& q : p.subqueries) {
    EXPECT_EQ(q.text.find(" -"), std::string::npos) << q.text;  // "--onto" would be a lexical NOT
    EXPECT_NE(q.text[0], '-');
  }
  const QueryPlan v = Plan("What is the default value of core.eol?");
  EXPECT_NE(v.rewritten.find("core.eol"), std::string::npos);
  const QueryPlan s = Plan("what is max_wal_senders");
  EXPECT_NE(s.rewritten.find("max_wal_senders"), std::string::npos);
}

TEST(PlanFocusTest, FocusAndSubjectAreInTheJson) {
  const nlohmann::json j = Plan("What is the default value of max_wal_senders?").ToJson();
  EXPECT_EQ(j["focus"], "value");
  EXPECT_EQ(j["subject"], "max_wal_senders");
  const nlohmann::json g = Plan("hello").ToJson();
  EXPECT_EQ(g["focus"], "none");
  EXPECT_EQ(g["subject"], "");
}

// A negated quoted phrase is not the subject.
TEST(PlanFocusTest, ExcludedPhraseIsNotTheSubject) {
  const QueryPlan p = Plan(R"(Which setting is, for most users, not the "safe choice" for replication?)");
  EXPECT_EQ(p.focus, Focus::kName);
  EXPECT_NE(p.subject, "safe choice");
}

}  // namespace
}  // namespace attest
