// Research mode through `attest serve` (the real binary on an ephemeral port, docs/research.md):
// /v1/answer with mode "research" runs the rounds within its limits and reports them; the event
// stream announces each round (stage "research", its queries and the documents read so far); bad
// research fields are refused with 400 naming the field; the MCP ask tool takes the mode.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::RunAttest;
using testing_support::TempDir;

// The founder's page shares no word with the question: only a second round finds it.
constexpr const char* kQuestion = "Which instrument does the founder of the Northgate Strings perform on?";

class ServeResearchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    auto r = RunAttest({"--data", data_, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    key_ = json::parse(r.out).at("key").get<std::string>();
    server_ = std::make_unique<testing_support::ServeProcess>(data_, std::vector<std::string>{},
                                                              std::vector<std::string>{});
    port_ = server_->port();
    ASSERT_NE(port_, 0) << server_->child().out();
    const json docs = json::array(
        {{{"id", "northgate"}, {"title", "Northgate Strings"},
          {"text", "The Northgate Strings is a chamber group founded in 1950 by Mira Okafor. It plays in barns."}},
         {{"id", "okafor"}, {"title", "Mira Okafor"},
          {"text", "Mira Okafor is a conductor and cellist. Mira Okafor is a native of Brevik Falls."}},
         {{"id", "copperfield"}, {"title", "Copperfield Winds"},
          {"text", "The Copperfield Winds is a chamber group founded in 1951 by Teodor Vance."}},
         {{"id", "vance"}, {"title", "Teodor Vance"},
          {"text", "Teodor Vance is a conductor. Teodor Vance is a native of Ossenheim."}},
         {{"id", "brevik"}, {"title", "Brevik Falls"},
          {"text", "Brevik Falls is a settlement on a tidal river with 4000 inhabitants."}}});
    for (const json& d : docs) ASSERT_EQ(Call("/v1/documents", d.dump()).status, 200);
  }

  HttpReply Call(const std::string& path, const std::string& body) {
    HttpCall c;
    c.method = "POST";
    c.path = path;
    c.body = body;
    c.headers["Authorization"] = "Bearer " + key_;
    return HttpRequest(port_, c);
  }

  TempDir dir_;
  std::string data_, key_;
  std::unique_ptr<testing_support::ServeProcess> server_;
  uint16_t port_ = 0;
};

TEST_F(ServeResearchTest, AnswersInRoundsWithinTheLimits) {
  const json req = {{"query", kQuestion}, {"mode", "research"}, {"research", {{"max_hops", 3}}}};
  HttpReply r = Call("/v1/answer", req.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  const json body = json::parse(r.body);
  ASSERT_TRUE(body.contains("research")) << r.body;
  const json& research = body["research"];
  EXPECT_EQ(research["limits"]["max_hops"], 3);
  EXPECT_LE(research["hops"].get<int>(), 3);
  EXPECT_EQ(research["hops"].get<size_t>(), research["rounds"].size() + 1);
  ASSERT_FALSE(research["rounds"].empty()) << r.body;
  EXPECT_EQ(research["rounds"][0]["queries"][0].get<std::string>().rfind("Mira Okafor", 0), 0u) << r.body;
  const std::string stop = research["stop"];
  EXPECT_TRUE(stop == "no_gap" || stop == "max_hops") << stop;
  bool okafor = false, northgate = false;
  for (const json& s : body["sources"]) {
    okafor |= s["doc_id"] == "okafor";
    northgate |= s["doc_id"] == "northgate";
  }
  EXPECT_TRUE(okafor && northgate) << r.body;

  // Standard mode: no research report.
  r = Call("/v1/answer", json{{"query", kQuestion}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(json::parse(r.body).contains("research"));
}

TEST_F(ServeResearchTest, TheStreamAnnouncesEveryRound) {
  const json req = {{"query", kQuestion},
                    {"mode", "research"},
                    {"stream", true}};
  HttpReply r = Call("/v1/answer", req.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  // event: progress / data: {"stage":"research","round":2,"queries":[...],"documents":n,...}
  size_t research_events = 0;
  for (size_t at = r.body.find("event: progress"); at != std::string::npos;
       at = r.body.find("event: progress", at + 1)) {
    const size_t data = r.body.find("data: ", at);
    ASSERT_NE(data, std::string::npos);
    const json event = json::parse(r.body.substr(data + 6, r.body.find('\n', data) - data - 6), nullptr, false);
    ASSERT_TRUE(event.is_object()) << r.body.substr(at, 200);
    if (event.value("stage", "") != "research") continue;
    ++research_events;
    EXPECT_GE(event["round"].get<int>(), 2);
    EXPECT_FALSE(event["queries"].empty());
    EXPECT_GT(event["documents"].get<int>(), 0);
    EXPECT_TRUE(event["decided_by"] == "deterministic");
  }
  EXPECT_GE(research_events, 1u) << r.body;
}

TEST_F(ServeResearchTest, BadResearchFieldsAreRefusedByName) {
  struct Case {
    json body;
    const char* field;
  };
  const Case cases[] = {
      {{{"query", kQuestion}, {"mode", "deep"}}, "mode"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", {{"max_hops", 0}}}}, "research.max_hops"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", {{"max_hops", 17}}}}, "research.max_hops"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", {{"max_cost", -1}}}}, "research.max_cost"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", {{"max_cost", "1"}}}}, "research.max_cost"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", {{"max_ms", 1.5}}}}, "research.max_ms"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", {{"rounds", 2}}}}, "research"},
      {{{"query", kQuestion}, {"mode", "research"}, {"research", 3}}, "research"},
  };
  for (const Case& c : cases) {
    HttpReply r = Call("/v1/answer", c.body.dump());
    EXPECT_EQ(r.status, 400) << c.body.dump() << " -> " << r.body;
    EXPECT_NE(r.body.find(c.field), std::string::npos) << c.body.dump() << " -> " << r.body;
  }
}

TEST_F(ServeResearchTest, TheMcpAskToolTakesTheMode) {
  const json call = {{"jsonrpc", "2.0"},
                     {"id", 7},
                     {"method", "tools/call"},
                     {"params",
                      {{"name", "ask"},
                       {"arguments", {{"question", kQuestion}, {"mode", "research"}, {"research", {{"max_hops", 2}}}}}}}};
  HttpCall c;
  c.method = "POST";
  c.path = "/mcp";
  c.body = call.dump();
  c.headers["Authorization"] = "Bearer " + key_;
  c.headers["Accept"] = "application/json, text/event-stream";
  c.headers["Content-Type"] = "application/json";
  c.headers["MCP-Protocol-Version"] = "2025-06-18";
  HttpReply r = HttpRequest(port_, c);
  ASSERT_EQ(r.status, 200) << r.body;
  const json reply = json::parse(r.body, nullptr, false);
  ASSERT_TRUE(reply.is_object()) << r.body;
  ASSERT_TRUE(reply.contains("result")) << r.body;
  EXPECT_FALSE(reply["result"].value("isError", false)) << r.body;
  // An invalid mode is the tool's error, naming the argument.
  json bad = call;
  bad["params"]["arguments"]["mode"] = "deep";
  c.body = bad.dump();
  r = HttpRequest(port_, c);
  ASSERT_EQ(r.status, 200) << r.body;
  const json bad_reply = json::parse(r.body, nullptr, false);
  ASSERT_TRUE(bad_reply.is_object()) << r.body;
  const bool refused = bad_reply.contains("error") || bad_reply["result"].value("isError", false);
  EXPECT_TRUE(refused) << r.body;
  EXPECT_NE(r.body.find("mode"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace attest
