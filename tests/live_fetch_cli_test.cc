// `attest ask --live-fetch` through the real binary, with the production SSRF policy (no address
// exempted, ports 80 and 443): documents whose stored URLs name internal addresses are refused with
// the fetcher's reasons and a server of ours on 127.0.0.2 is never connected to; the flags are
// checked; the JSON carries the freshness block.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "support/loopback_test_server.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::LoopbackConnection;
using testing_support::LoopbackRequest;
using testing_support::LoopbackTestServer;
using testing_support::RunAttest;
using testing_support::TempDir;
using testing_support::WriteFile;

std::string Line(const std::string& id, const std::string& url) {
  return "{\"_id\":\"" + id + "\",\"title\":\"ExampleDB download " + id +
         "\",\"text\":\"The current release of ExampleDB is 17.2 (" + id + ").\",\"metadata\":{\"url\":\"" + url +
         "\"}}\n";
}

TEST(LiveFetchCli, InternalAddressesAreRefusedWithNamedReasonsAndNeverConnected) {
  LoopbackTestServer internal("127.0.0.2");
  internal.Route("/admin", [](const LoopbackRequest&, LoopbackConnection& c) {
    c.Write(LoopbackTestServer::Response(200, {{"Content-Type", "text/html"}}, "<p>secret</p>"));
  });
  TempDir tmp;
  const std::string data = tmp.str("data");
  const std::string on_port = "http://127.0.0.2:" + std::to_string(internal.port()) + "/admin";
  WriteFile(tmp.path() / "d.jsonl", Line("a", "http://127.0.0.2/admin") + Line("b", "http://169.254.169.254/latest/meta-data/") +
                                        Line("c", "http://[::1]/") + Line("d", on_port) + Line("e", "http://10.0.0.7/"));
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  auto r = RunAttest({"--data", data, "ask", "--json", "--live-fetch", "--live-fetch-hosts", "any",
                      "--live-fetch-max-age", "0", "--live-fetch-max-urls", "5", "--live-fetch-over-fetch", "1",
                      "What is the current release of ExampleDB?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& live = j["freshness"]["live_fetch"];
  EXPECT_EQ(live["decision"], "fetched") << j["freshness"].dump(2);
  EXPECT_EQ(live["attempted"], 5);
  EXPECT_EQ(live["succeeded"], 0);
  EXPECT_EQ(live["failed"], 5);
  EXPECT_EQ(live["failures"]["address_not_global:loopback"], 2) << live.dump(2);
  EXPECT_EQ(live["failures"]["address_not_global:metadata"], 1);
  EXPECT_EQ(live["failures"]["address_not_global:private"], 1);
  EXPECT_EQ(live["failures"]["port_not_allowed"], 1);
  std::string degraded;
  for (const auto& d : j["degraded"]) degraded += d.get<std::string>() + "\n";
  EXPECT_NE(degraded.find("live_fetch: http://169.254.169.254/latest/meta-data/: address_not_global:metadata"),
            std::string::npos) << degraded;
  EXPECT_NE(degraded.find("live_fetch: " + on_port + ": port_not_allowed"), std::string::npos) << degraded;
  EXPECT_EQ(internal.accepted(), 0);
  // The answer still comes from the stored text, with its freshness.
  EXPECT_EQ(j["outcome"], "answer");
  EXPECT_FALSE(j["freshness"]["newest_fetched_at"].get<std::string>().empty());
  EXPECT_GE(j["freshness"]["index_lag_seconds"].get<int64_t>(), 0);
  for (const auto& s : j["sources"]) EXPECT_FALSE(s["fetched_at"].get<std::string>().empty());
}

TEST(LiveFetchCli, FlagsAreChecked) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  WriteFile(tmp.path() / "d.jsonl", Line("a", "https://docs.example.org/a"));
  ASSERT_EQ(RunAttest({"--data", data, "ingest", tmp.str("d.jsonl")}).exit_code, 0);
  auto r = RunAttest({"--data", data, "ask", "--live-fetch", "What is the current release?"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--live-fetch needs --live-fetch-hosts"), std::string::npos) << r.err;
  r = RunAttest({"--data", data, "ask", "--live-fetch-hosts", "docs.example.org", "What is the current release?"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--live-fetch-hosts is given without --live-fetch"), std::string::npos) << r.err;
  r = RunAttest({"--data", data, "ask", "--live-fetch", "--live-fetch-hosts", "docs.example.org:8080",
                 "What is the current release?"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'docs.example.org:8080' is not a host name"), std::string::npos) << r.err;
  // Without --live-fetch the answer says so.
  r = RunAttest({"--data", data, "ask", "--json", "What is the current release of ExampleDB?"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["freshness"]["live_fetch"]["decision"], "off");
}

}  // namespace
}  // namespace attest
