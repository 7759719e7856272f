// The answer pipeline's configuration (EngineOptions::planner_config_json, source_hierarchy_json)
// is parsed once when the engine opens: a wrong one fails Engine::Open naming which, a right one is
// used by every answer, and an answer's own JSON (AskOptions) replaces it for that answer only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "attest/answer.h"
#include "attest/engine.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::TempDir;
using testing_support::WriteFile;

const char* kCorpus =
    R"J({"_id":"a","title":"Autovacuum","text":"Autovacuum reclaims storage occupied by dead tuples. It runs in the background."})J"
    "\n";

EngineOptions OptionsIn(const TempDir& tmp) {
  EngineOptions eo;
  eo.data_dir = tmp.str("data");
  eo.embedder.kind = EmbedderKind::kNone;
  return eo;
}

// The canonical names of the entities the answer's plan found.
std::vector<std::string> PlannedEntities(Engine& engine, const std::string& question, const std::string& own = "") {
  AskOptions ao;
  ao.question = question;
  ao.planner_config_json = own;
  auto got = engine.Ask(ao);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  std::vector<std::string> out;
  if (!got.ok()) return out;
  const nlohmann::json plan = nlohmann::json::parse(got->plan_json);
  for (const auto& e : plan["entities"]) out.push_back(e.value("canonical", ""));
  return out;
}

TEST(EngineAnswerConfig, AWrongConfigurationFailsOpenNamingWhichOne) {
  TempDir tmp;
  EngineOptions eo = OptionsIn(tmp);
  eo.planner_config_json = R"({"aliases": {"av": 3}})";
  auto engine = Engine::Open(eo);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(engine.status().message().find("planner configuration"), std::string::npos) << engine.status().ToString();

  eo.planner_config_json.clear();
  eo.source_hierarchy_json = R"({"wiki": {"rank": "high"}})";
  engine = Engine::Open(eo);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find("source hierarchy"), std::string::npos) << engine.status().ToString();
}

TEST(EngineAnswerConfig, TheEnginesAliasesServeEveryAnswerAndAnAnswersOwnReplacesThem) {
  TempDir tmp;
  WriteFile(tmp.path() / "c.jsonl", kCorpus);
  EngineOptions eo = OptionsIn(tmp);
  eo.planner_config_json = R"({"aliases": {"avac": "autovacuum"}, "entity_types": {"autovacuum": "software"}})";
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  IngestOptions io;
  io.paths = {tmp.str("c.jsonl")};
  ASSERT_TRUE((*engine)->Ingest(io).ok());

  const std::string question = "What does avac reclaim?";
  for (int i = 0; i < 2; ++i) {  // parsed once, used by each answer
    EXPECT_EQ(PlannedEntities(**engine, question), std::vector<std::string>{"autovacuum"});
  }
  // An answer's own configuration is the defaults plus its entries, without the engine's.
  EXPECT_TRUE(PlannedEntities(**engine, question, R"({"aliases": {"pgx": "postgresql"}})").empty());
  // An engine without the configuration does not know the alias.
  engine->reset();
  auto plain = Engine::Open(OptionsIn(tmp));
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(PlannedEntities(**plain, question).empty());
}

}  // namespace
}  // namespace attest
