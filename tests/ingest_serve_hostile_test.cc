// Black-box (issue 10): hostile HTML sent to a real `attest serve` and to `attest ingest`. One
// document of 300,000 nested spans crashed the server for every tenant (SIGSEGV in gumbo's
// recursive destructor), and a 50-byte document failing a gumbo assert() aborted it; each is now
// refused with a named reason, and the server goes on answering.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <string>

#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::MakeCall;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::TempDir;
using testing_support::WriteFile;

std::string NestedSpans(size_t n) {
  std::string html = "<p>";
  for (size_t i = 0; i < n; ++i) html += "<span>";
  return html + "x</p>";
}

std::string CreateAdminKey(const std::string& data) {
  auto r = RunAttest({"--data", data, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out).at("key").get<std::string>();
}

HttpReply Post(const ServeProcess& server, const std::string& key, const std::string& path, const json& body) {
  return HttpRequest(server.port(),
                     MakeCall("POST", path, {{"Authorization", "Bearer " + key}, {"Content-Type", "application/json"}},
                              body.dump()));
}

TEST(IngestServeHostile, Regression_ThreeHundredThousandNestedSpansAreRefusedAndTheServerKeepsServing) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  const std::string key = CreateAdminKey(data);
  ServeProcess server(data, {}, {});
  ASSERT_NE(server.port(), 0) << server.child().out();

  HttpReply put = Post(server, key, "/v1/documents",
                       {{"id", "refunds"}, {"title", "Refund policy"},
                        {"text", "Refunds are paid to the original card within five business days."}});
  ASSERT_EQ(put.status, 200) << put.body;

  const auto t0 = std::chrono::steady_clock::now();
  HttpReply bomb = Post(server, key, "/v1/documents",
                        {{"id", "bomb"}, {"content_type", "html"}, {"text", NestedSpans(300000)}});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(bomb.status, 400) << bomb.body;
  EXPECT_LT(bomb.status, 500) << bomb.body;
  EXPECT_NE(bomb.body.find("html.max_depth"), std::string::npos) << bomb.body;
  EXPECT_LT(seconds, 5.0);

  HttpReply assert_bomb = Post(server, key, "/v1/documents",
                               {{"id", "assert"}, {"content_type", "html"},
                                {"text", "<table><th><svg><select><foreignObject><table><table>"}});
  EXPECT_GE(assert_bomb.status, 400) << assert_bomb.body;
  EXPECT_LT(assert_bomb.status, 500) << assert_bomb.body;
  EXPECT_NE(assert_bomb.body.find("internal checks"), std::string::npos) << assert_bomb.body;

  // Still up, still answering, and nothing of the refused documents was stored.
  HttpReply search = Post(server, key, "/v1/search", {{"query", "refund card"}});
  ASSERT_EQ(search.status, 200) << search.body << server.child().out();
  const json hits = json::parse(search.body).at("hits");
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].at("doc_id").get<std::string>(), "refunds");
  HttpReply missing = HttpRequest(server.port(), MakeCall("GET", "/v1/documents/bomb", {{"Authorization", "Bearer " + key}}));
  EXPECT_EQ(missing.status, 404) << missing.body;
  EXPECT_TRUE(server.child().Running());
}

TEST(IngestServeHostile, Regression_IngestNamesTheHostileFileAndKeepsTheOthers) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "docs" / "bomb.html", NestedSpans(300000));
  WriteFile(tmp.path() / "docs" / "good.html", "<title>Vacuum</title><p>Autovacuum reclaims dead tuples.</p>");
  const auto t0 = std::chrono::steady_clock::now();
  auto r = RunAttest({"--data", data, "ingest", (tmp.path() / "docs").string()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("bomb.html: html: elements nest deeper than 512"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(limit html.max_depth)"), std::string::npos) << r.err;
  EXPECT_LT(seconds, 10.0);
  auto s = RunAttest({"--data", data, "search", "autovacuum", "--json"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("good.html"), std::string::npos) << s.out;
}

}  // namespace
}  // namespace attest
