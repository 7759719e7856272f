// The server's crawl sources (`attest serve --crawl-config FILE`), black-box: the real server
// crawls a loopback site on its schedule, the page becomes searchable through the HTTP API, a
// change is picked up by a later pass, and /metrics shows the crawl counters; a bad configuration
// file is a usage error naming the field.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

#include "support/http_test_client.h"
#include "support/process.h"
#include "support/test_site_server.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::BearerRequest;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::SiteResponse;
using testing_support::TempDir;
using testing_support::TestSiteServer;
using testing_support::WriteFile;

SiteResponse Html(const std::string& body) {
  SiteResponse r;
  r.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  r.body = body;
  return r;
}

template <class Pred>
bool WaitFor(Pred pred, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

std::vector<std::string> SearchIds(uint16_t port, const std::string& query) {
  auto r = BearerRequest(port, "POST", "/v1/search", "", json{{"query", query}}.dump());
  std::vector<std::string> ids;
  if (r.status != 200) return ids;
  json j = json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("hits")) return ids;
  for (const json& h : j["hits"]) {
    if (h.contains("doc_id")) ids.push_back(h["doc_id"].get<std::string>());
    else if (h.contains("id")) ids.push_back(h["id"].get<std::string>());
  }
  return ids;
}

TEST(ServeCrawlTest, TheServerCrawlsALoopbackSiteAndThePageBecomesSearchable) {
  TestSiteServer site;
  site.SetRoute("/index.html", Html("<html><head><title>Home</title></head><body><h1>Home</h1><p>Welcome to "
                                    "the handbook.</p><a href=\"/runbook.html\">runbook</a></body></html>"));
  site.SetRoute("/runbook.html", Html("<html><head><title>Runbook</title></head><body><h1>Runbook</h1><p>Restart "
                                      "the quokkaservice daemon when the queue stalls.</p></body></html>"));
  ASSERT_TRUE(site.Start().ok());
  TempDir tmp;
  const std::string config = tmp.str("crawl.json");
  json source = {{"name", "handbook"},
                 {"interval_seconds", 1},
                 {"seeds", {site.Url("/index.html")}},
                 {"delay_ms", 10},
                 {"allow_addresses", {"127.0.0.1/32"}},
                 {"allow_ports", {site.port()}},
                 {"revisit_min_seconds", 1},
                 {"revisit_max_seconds", 1},
                 {"source_type", "runbook"}};
  WriteFile(config, json{{"sources", {source}}}.dump());
  ServeProcess server(tmp.str("data"), {"--embedder", "none"}, {"--allow-anonymous", "--crawl-config", config});
  ASSERT_NE(server.port(), 0) << server.child().out();
  const uint16_t port = server.port();
  const std::string runbook = site.Url("/runbook.html");
  ASSERT_TRUE(WaitFor([&] { return SearchIds(port, "quokkaservice") == std::vector<std::string>{runbook}; }, 30))
      << server.child().out();

  // A later pass (every second, revisits due after 1 s) picks up a change.
  site.SetRoute("/runbook.html", Html("<html><head><title>Runbook</title></head><body><h1>Runbook</h1><p>Restart "
                                      "the wombatservice daemon when the queue stalls.</p></body></html>"));
  EXPECT_TRUE(WaitFor([&] { return SearchIds(port, "wombatservice") == std::vector<std::string>{runbook}; }, 30));
  EXPECT_TRUE(SearchIds(port, "quokkaservice").empty());

  auto metrics = BearerRequest(port, "GET", "/metrics", "");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("attest_crawl_pages_fetched_total{source=\"handbook\"}"), std::string::npos)
      << metrics.body.substr(0, 2000);
  EXPECT_NE(metrics.body.find("attest_crawl_not_modified_total{source=\"handbook\"}"), std::string::npos);
  EXPECT_NE(metrics.body.find("attest_crawl_last_pass_end_timestamp_seconds{source=\"handbook\"}"),
            std::string::npos);
  EXPECT_NE(metrics.body.find("attest_crawl_passes_total"), std::string::npos);
}

TEST(ServeCrawlTest, ABadConfigurationIsAUsageErrorNamingTheField) {
  TempDir tmp;
  const std::string config = tmp.str("crawl.json");
  WriteFile(config, R"({"sources": [{"name": "x", "seeds": ["http://a.example/"], "workers": "four"}]})");
  auto r = RunAttest({"--data", tmp.str("data"), "serve", "--port", "0", "--crawl-config", config});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sources[0].workers: must be an integer"), std::string::npos) << r.err;
  WriteFile(config, R"({"sources": [{"name": "x", "seeds": ["http://a.example/"], "wokers": 2}]})");
  r = RunAttest({"--data", tmp.str("data"), "serve", "--port", "0", "--crawl-config", config});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sources[0].wokers: unknown field"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace attest
