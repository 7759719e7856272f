// `attest serve --live-fetch` through the real binary with the production SSRF policy: the answer
// body and the stream's `done` event carry the freshness block (as_of, index lag, newest cited
// source, what live fetch did), pages on internal addresses are refused with the fetcher's reason
// as notices and never connected to, and /metrics exports the live fetch counters, the page cache
// and the index lag.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/http_test_client.h"
#include "support/loopback_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::CreateApiKey;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::LoopbackConnection;
using testing_support::LoopbackRequest;
using testing_support::LoopbackTestServer;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;

TEST(LiveFetchServe, AnswersShowFreshnessAndMetricsCountLiveFetch) {
  LoopbackTestServer internal("127.0.0.2");
  TempDir dir;
  const std::string data = dir.str("data");
  const std::string admin = CreateApiKey(data, {"--tenant", "acme", "--user", "root", "--admin"});
  testing_support::ServeProcess server(
      data, {}, {"--live-fetch", "--live-fetch-hosts", "any", "--live-fetch-max-age", "0", "--deadline-ms", "5000"});
  ASSERT_NE(server.port(), 0) << server.child().out();
  auto call = [&](const std::string& method, const std::string& path, const std::string& body,
                  std::map<std::string, std::string> headers = {}) {
    HttpCall c;
    c.method = method;
    c.path = path;
    c.body = body;
    c.headers = std::move(headers);
    c.headers["Authorization"] = "Bearer " + admin;
    return HttpRequest(server.port(), c);
  };
  json doc = {{"id", "download"},
              {"title", "ExampleDB download"},
              {"url", "http://127.0.0.2/download"},
              {"updated", "2025-01-10"},
              {"text", "The current release of ExampleDB is 17.2, with binaries for Linux."}};
  HttpReply put = call("POST", "/v1/documents", doc.dump());
  ASSERT_EQ(put.status, 200) << put.body;

  HttpReply a = call("POST", "/v1/answer", R"({"query":"What is the current release of ExampleDB?"})");
  ASSERT_EQ(a.status, 200) << a.body;
  json body = json::parse(a.body);
  ASSERT_EQ(body["outcome"], "answer") << a.body;
  const json& f = body["freshness"];
  EXPECT_EQ(f["as_of"], body["as_of"]);
  EXPECT_GE(f["index_lag_seconds"].get<int64_t>(), 0);
  EXPECT_EQ(f["newest_source_date"], "2025-01-10");
  EXPECT_EQ(f["newest_source"], "S1");
  EXPECT_FALSE(f["newest_fetched_at"].get<std::string>().empty());
  EXPECT_EQ(f["live_fetch"]["decision"], "fetched") << f.dump(2);
  EXPECT_EQ(f["live_fetch"]["failures"]["address_not_global:loopback"], 1) << f.dump(2);
  bool notice = false;
  for (const auto& d : body["degraded"]) {
    notice |= d.get<std::string>() == "live_fetch: http://127.0.0.2/download: address_not_global:loopback";
  }
  EXPECT_TRUE(notice) << body["degraded"].dump();
  EXPECT_FALSE(body["sources"][0]["fetched_at"].get<std::string>().empty());

  // The stream's done event carries the same block.
  HttpCall sc;
  sc.method = "POST";
  sc.path = "/v1/answer";
  sc.headers = {{"Authorization", "Bearer " + admin}, {"Accept", "text/event-stream"}};
  sc.body = R"({"query":"What is the current release of ExampleDB?"})";
  std::vector<SseEvent> events;
  ASSERT_EQ(SseRequest(server.port(), sc, &events).status, 200);
  bool done = false, progress = false, cards = false;
  for (const SseEvent& e : events) {
    if (e.event == "progress") progress |= json::parse(e.data)["stage"] == "live_fetch";
    if (e.event == "sources") {
      const json sources = json::parse(e.data);
      for (const auto& card : sources["sources"]) {
        cards = true;
        EXPECT_FALSE(card["fetched_at"].get<std::string>().empty()) << e.data;
      }
    }
    if (e.event != "done") continue;
    done = true;
    json d = json::parse(e.data);
    EXPECT_EQ(d["freshness"]["live_fetch"]["decision"], "fetched") << e.data;
    EXPECT_EQ(d["freshness"]["newest_source_date"], "2025-01-10");
  }
  EXPECT_TRUE(done);
  EXPECT_TRUE(progress);
  EXPECT_TRUE(cards);
  EXPECT_EQ(internal.accepted(), 0);

  HttpCall mc;
  mc.path = "/metrics";
  HttpReply m = HttpRequest(server.port(), mc);
  ASSERT_EQ(m.status, 200);
  for (const char* line : {"attest_live_fetch_decisions_total{decision=\"fetched\"} 2",
                           "attest_live_fetch_pages_total{result=\"attempted\"} 2",
                           "attest_live_fetch_pages_total{result=\"failed\"} 2",
                           "attest_live_fetch_failures_total{reason=\"address_not_global:loopback\"} 2",
                           "attest_degraded_total{reason=\"live_fetch\"} 2", "attest_index_lag_seconds ",
                           "attest_index_last_commit_timestamp_seconds ", "attest_page_cache_requests{result=\"hit\"} 0",
                           "attest_page_cache_requests{result=\"miss\"} "}) {
    EXPECT_NE(m.body.find(line), std::string::npos) << line << "\n" << m.body;
  }
}

}  // namespace
}  // namespace attest
