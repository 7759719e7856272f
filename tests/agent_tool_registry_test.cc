// The tool boundary of a bounded loop (agent/tool_registry.h): forbidden names cannot be registered,
// unknown names fail closed and run nothing, the step budget holds and every attempt is recorded;
// the default tools validate the model's arguments.
#include <gtest/gtest.h>

#include <atomic>

#include "agent/default_tools.h"
#include "agent/tool_registry.h"
#include "text/analyzer.h"

namespace attest {
namespace {

ToolSpec Echo(std::string name, std::atomic<int>* runs = nullptr) {
  return {std::move(name), "echo", ToolCapability::kRetrieve, nlohmann::json::object(),
          [runs](const nlohmann::json& a) -> Result<nlohmann::json> {
            if (runs) ++*runs;
            return a;
          }};
}

TEST(ToolRegistryTest, ForbiddenNamesFailAtConstruction) {
  for (const std::string& name : ToolRegistry::ForbiddenNames()) {
    auto r = ToolRegistry::Create({Echo("search"), Echo(name)});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find(name), std::string::npos) << r.status().message();
  }
  // Variants of the listed names are refused by pattern, whatever their case.
  for (const char* name : {"Finalize_Answer", "finalize", "write_manifest", "manifest", "answer", "answer_directly",
                           "FORGE_MANIFEST", "save_manifest_v2", "prefinalize"}) {
    EXPECT_FALSE(ToolRegistry::Create({Echo(name)}).ok()) << name;
    EXPECT_TRUE(ToolRegistry::IsForbiddenToolName(name)) << name;
  }
  // Names that only look alike are allowed ("answers" inside a name is not a prefix).
  EXPECT_FALSE(ToolRegistry::IsForbiddenToolName("search_answers_archive"));
  EXPECT_TRUE(ToolRegistry::Create({Echo("search_answers_archive")}).ok());
}

TEST(ToolRegistryTest, MalformedDuplicateOrHandlerlessToolsAreRefused) {
  EXPECT_FALSE(ToolRegistry::Create({Echo("")}).ok());
  EXPECT_FALSE(ToolRegistry::Create({Echo("Search")}).ok());
  EXPECT_FALSE(ToolRegistry::Create({Echo("search tool")}).ok());
  EXPECT_FALSE(ToolRegistry::Create({Echo(std::string(65, 'a'))}).ok());
  EXPECT_FALSE(ToolRegistry::Create({Echo("search"), Echo("search")}).ok());
  ToolSpec no_handler = Echo("read");
  no_handler.handler = nullptr;
  EXPECT_FALSE(ToolRegistry::Create({no_handler}).ok());
  ToolSpec bad_schema = Echo("read");
  bad_schema.parameters = nlohmann::json::array();
  EXPECT_FALSE(ToolRegistry::Create({bad_schema}).ok());
}

TEST(ToolRegistryTest, UnknownNamesFailClosedAndRunNothing) {
  std::atomic<int> runs{0};
  auto reg = ToolRegistry::Create({Echo("search", &runs)});
  ASSERT_TRUE(reg.ok());
  for (const char* name : {"finalize_answer", "build_manifest", "Search", "search ", "", "shell"}) {
    auto r = reg->Dispatch({name, nlohmann::json::object()});
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_EQ(r.status().code(), StatusCode::kNotFound) << name;
  }
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(reg->Dispatch({"search", nlohmann::json::array()}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(runs.load(), 0);
  auto ok = reg->Dispatch({"search", {{"query", "x"}}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["query"], "x");
  EXPECT_EQ(runs.load(), 1);
  const nlohmann::json tools = reg->OpenAiTools();
  ASSERT_EQ(tools.size(), 1u);
  EXPECT_EQ(tools[0]["function"]["name"], "search");
}

TEST(ToolSessionTest, BudgetHoldsAndEveryAttemptIsRecorded) {
  std::atomic<int> runs{0};
  auto reg = ToolRegistry::Create({Echo("search", &runs)});
  ASSERT_TRUE(reg.ok());
  ToolSession s(*reg, 3);
  EXPECT_TRUE(s.Call({"search", {{"q", 1}}}).ok());
  EXPECT_EQ(s.Call({"finalize_answer", {{"text", "42"}}}).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(s.Call({"search", {{"q", 2}}}).ok());
  EXPECT_EQ(s.Call({"search", {{"q", 3}}}).status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(runs.load(), 2);
  EXPECT_EQ(s.steps_used(), 3u);
  ASSERT_EQ(s.attempts().size(), 4u);
  EXPECT_EQ(s.attempts()[1].name, "finalize_answer");
  EXPECT_EQ(s.attempts()[1].code, StatusCode::kNotFound);
  EXPECT_EQ(s.attempts()[3].code, StatusCode::kResourceExhausted);
  EXPECT_EQ(s.attempts()[0].code, StatusCode::kOk);
}

TEST(DefaultAgentToolsTest, RetrieveMeasureCalculateWithValidatedArguments) {
  Analyzer analyzer;
  std::string last_query;
  size_t last_k = 0;
  AgentToolDeps deps;
  deps.search = [&](const std::string& q, size_t k) -> Result<nlohmann::json> {
    last_query = q, last_k = k;
    return nlohmann::json::array({{{"id", "d1"}}});
  };
  deps.read_document = [](const std::string& id) -> Result<nlohmann::json> {
    if (id != "d1") return Status::NotFound("no document '" + id + "'");
    return nlohmann::json{{"id", "d1"}};
  };
  deps.analyzer = &analyzer;
  auto reg = DefaultAgentTools(deps);
  ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  EXPECT_EQ(reg->size(), 4u);
  for (const char* forbidden : {"finalize_answer", "build_manifest", "answer_without_evidence"}) EXPECT_FALSE(reg->Has(forbidden));

  ASSERT_TRUE(reg->Dispatch({"search", {{"query", "wal senders"}, {"k", 5}}}).ok());
  EXPECT_EQ(last_query, "wal senders");
  EXPECT_EQ(last_k, 5u);
  EXPECT_EQ(reg->Dispatch({"search", {{"query", "x"}, {"k", 500}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(reg->Dispatch({"search", {{"query", 7}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(reg->Dispatch({"search", {{"query", std::string(5000, 'a')}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(reg->Dispatch({"read_document", {{"id", "d2"}}}).status().code(), StatusCode::kNotFound);

  auto m = reg->Dispatch({"measure_overlap", {{"claim", "The WAL senders limit is ten"}, {"passage", "max_wal_senders limits WAL senders"}}});
  ASSERT_TRUE(m.ok());
  EXPECT_GT((*m)["overlap"].get<double>(), 0.0);
  EXPECT_LT((*m)["overlap"].get<double>(), 1.0);
  auto none = reg->Dispatch({"measure_overlap", {{"claim", "penguins"}, {"passage", "max_wal_senders limits WAL senders"}}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)["overlap"].get<double>(), 0.0);

  auto c = reg->Dispatch({"calculate", {{"expression", "17 * 23"}}});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)["value"].get<double>(), 391.0);
  EXPECT_EQ(reg->Dispatch({"calculate", {{"expression", "what is love"}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(reg->Dispatch({"calculate", {{"expression", "1 / 0"}}}).status().code(), StatusCode::kInvalidArgument);

  AgentToolDeps missing = deps;
  missing.search = nullptr;
  EXPECT_FALSE(DefaultAgentTools(missing).ok());
}

}  // namespace
}  // namespace attest
