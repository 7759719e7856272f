// The guarded fetcher and its SSRF bar. Two servers of ours on loopback: the "site" on 127.0.0.1,
// which the test policy allows, and an "internal" server on 127.0.0.2 (same port), which must never
// be connected to: every row of the attack table is refused with its named reason and the internal
// server's accepted-connection count stays 0. A control request through an unguarded client shows
// the count does move when something does connect.
#include "crawl/fetcher.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "crawl/address_policy.h"
#include "crawl/cached_fetcher.h"
#include "support/fake_clock.h"
#include "support/loopback_test_server.h"

namespace attest {
namespace {

using testing_support::FakeClock;
using testing_support::LoopbackConnection;
using testing_support::LoopbackRequest;
using testing_support::LoopbackTestServer;

constexpr size_t kCap = size_t{1} << 20;  // the fetcher's body cap in these tests

std::string ReasonOf(const Result<FetchResponse>& r) {
  return r.ok() ? "ok(" + std::to_string(r->status) + ")" : std::string(FetchErrorReason(r.status()));
}

std::string Replace(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

std::string GzipOfZeros(size_t n) {
  z_stream z{};
  deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  std::string out;
  std::string zeros(1 << 16, '\0');
  char buf[1 << 16];
  size_t left = n;
  while (true) {
    const size_t take = std::min(left, zeros.size());
    z.next_in = reinterpret_cast<Bytef*>(zeros.data());
    z.avail_in = static_cast<uInt>(take);
    left -= take;
    const int flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = deflate(&z, flush);
      out.append(buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0);
    if (flush == Z_FINISH && rc == Z_STREAM_END) break;
  }
  deflateEnd(&z);
  return out;
}

void Respond(LoopbackConnection& c, int status, std::vector<std::pair<std::string, std::string>> headers,
             std::string_view body) {
  c.Write(LoopbackTestServer::Response(status, headers, body));
}

class FetcherTest : public ::testing::Test {
 protected:
  FetcherTest() : internal_("127.0.0.2", site_.port()) {
    internal_.Route("/", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 200, {{"Content-Type", "text/plain"}}, "internal secret");
    });
    site_.Route("/ok", [](const LoopbackRequest& r, LoopbackConnection& c) {
      if (r.Header("If-None-Match") == "\"v1\"") {
        Respond(c, 304, {{"ETag", "\"v1\""}}, "");
        return;
      }
      Respond(c, 200,
              {{"Content-Type", "text/html; charset=utf-8"},
               {"ETag", "\"v1\""},
               {"Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"},
               {"Link", "<http://127.0.0.1/canonical>; rel=\"canonical\""},
               {"Retry-After", "120"}},
              "<html><body>hello</body></html>");
    });
    for (int k = 0; k <= 10; ++k) {
      site_.Route("/chain/" + std::to_string(k), [k](const LoopbackRequest&, LoopbackConnection& c) {
        if (k == 10) return Respond(c, 200, {{"Content-Type", "text/plain"}}, "end of chain");
        Respond(c, 302, {{"Location", "/chain/" + std::to_string(k + 1)}}, "");
      });
    }
    site_.Route("/loop/a", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 301, {{"Location", "b"}}, "");
    });
    site_.Route("/loop/b", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 308, {{"Location", "/loop/a"}}, "");
    });
    site_.Route("/big-length", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 200, {{"Content-Type", "text/plain"}}, std::string(2 * kCap, 'x'));
    });
    site_.Route("/big-chunked", [](const LoopbackRequest&, LoopbackConnection& c) {
      if (!c.Write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
                   "Connection: close\r\n\r\n")) return;
      const std::string chunk = "10000\r\n" + std::string(0x10000, 'y') + "\r\n";
      for (size_t sent = 0; sent < 2 * kCap; sent += 0x10000) {
        if (!c.Write(chunk)) return;
      }
      c.Write("0\r\n\r\n");
    });
    site_.Route("/endless", [](const LoopbackRequest&, LoopbackConnection& c) {
      if (!c.Write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
                   "Connection: close\r\n\r\n")) return;
      const std::string chunk = "1000\r\n" + std::string(0x1000, 'z') + "\r\n";
      while (c.Write(chunk)) {
      }
    });
    static const std::string bomb = GzipOfZeros(64 * kCap);  // ~64 KiB that decode to 64 MiB
    site_.Route("/bomb", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 200, {{"Content-Type", "text/html"}, {"Content-Encoding", "gzip"}}, bomb);
    });
    site_.Route("/drip", [](const LoopbackRequest&, LoopbackConnection& c) {
      if (!c.Write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n"
                   "Connection: close\r\n\r\n")) return;
      for (int i = 0; i < 100 && !c.stopping(); ++i) {
        if (!c.Write("d")) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
      }
    });
    site_.Route("/stall", [](const LoopbackRequest&, LoopbackConnection& c) {
      for (int i = 0; i < 40 && !c.stopping(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      Respond(c, 200, {}, "late");
    });
  }

  // Allows 127.0.0.1 (the site) and the test port; everything else is the default policy.
  FetcherOptions TestOptions() {
    FetcherOptions o;
    o.policy.allow = {*ParseCidr("127.0.0.1/32")};
    o.policy.allowed_ports = {80, 443, static_cast<uint16_t>(site_.port())};
    o.max_body_bytes = kCap;
    o.connect_timeout_ms = 2000;
    o.timeout_ms = 5000;
    o.low_speed_bytes_per_s = 1000;
    o.low_speed_seconds = 1;
    o.resolve = [this](std::string_view host, int) -> std::vector<std::string> {
      if (host == "internal.test") return {"127.0.0.2"};
      if (host == "v6-loop.test") return {"::1"};
      if (host == "metadata.test") return {"169.254.169.254"};
      if (host == "private.test") return {"10.1.2.3"};
      if (host == "mixed.test") return {"127.0.0.2", "::ffff:127.0.0.2"};
      if (host == "flip.test") return {flips_++ == 0 ? "127.0.0.1" : "127.0.0.2"};
      if (host == "site.test") return {"127.0.0.1"};
      return {};
    };
    return o;
  }
  // The default policy, plus the test port (so spellings of 127.0.0.1 are refused by address).
  FetcherOptions StrictOptions() {
    FetcherOptions o = TestOptions();
    o.policy.allow.clear();
    return o;
  }

  std::string Expand(std::string s) const {
    s = Replace(std::move(s), "{P}", std::to_string(site_.port()));
    return Replace(std::move(s), "{SITE}", site_.base_url());
  }

  LoopbackTestServer site_{"127.0.0.1"};
  LoopbackTestServer internal_;
  std::atomic<int> flips_{0};
};

struct AttackRow {
  std::string url;
  std::string reason;
  bool strict = false;  // run under the default policy (no allow-list) instead of the test policy
};

// {P} is the port both servers listen on (127.0.0.1 and 127.0.0.2); {SITE} the allowed site.
std::vector<AttackRow> DirectAttacks() {
  const std::string lo = "address_not_global:loopback";
  const std::string md = "address_not_global:metadata";
  return {
      // The internal server (127.0.0.2) spelled every way.
      {"http://127.0.0.2:{P}/", lo},
      {"http://2130706434:{P}/", lo},
      {"http://0177.0.0.2:{P}/", lo},
      {"http://0x7f.0.0.2:{P}/", lo},
      {"http://0x7f000002:{P}/", lo},
      {"http://017700000002:{P}/", lo},
      {"http://127.0.2:{P}/", lo},
      {"http://127.2:{P}/", lo},
      {"http://127.0.0.2.:{P}/", lo},
      {"http://127.000.000.002:{P}/", lo},
      {"http://[::ffff:127.0.0.2]:{P}/", lo},
      {"http://[::ffff:7f00:2]:{P}/", lo},
      {"http://[0:0:0:0:0:ffff:127.0.0.2]:{P}/", lo},
      {"http://[::ffff:0:7f00:2]:{P}/", lo},
      {"http://[::127.0.0.2]:{P}/", lo},
      {"http://[64:ff9b::7f00:2]:{P}/", lo},
      {"http://[2002:7f00:2::]:{P}/", lo},
      {"http://[::1]:{P}/", lo},
      // 127.0.0.1 spelled every way, under the default policy (the site must not be reached either).
      {"http://127.0.0.1:{P}/ok", lo, true},
      {"http://2130706433:{P}/ok", lo, true},
      {"http://0177.0.0.1:{P}/ok", lo, true},
      {"http://0x7f.1:{P}/ok", lo, true},
      {"http://0x7F.0x0.0x0.0x1:{P}/ok", lo, true},
      {"http://127.1:{P}/ok", lo, true},
      {"http://127.0.1:{P}/ok", lo, true},
      {"http://127.0.0.1.:{P}/ok", lo, true},
      {"http://127.000.000.001:{P}/ok", lo, true},
      // The allow-list names 127.0.0.1 itself, not its IPv6 forms.
      {"http://[0:0:0:0:0:ffff:127.0.0.1]:{P}/ok", lo},
      {"http://[::ffff:127.0.0.1]:{P}/ok", lo},
      // The cloud metadata address.
      {"http://169.254.169.254/latest/meta-data/", md},
      {"http://2852039166/", md},
      {"http://0xa9fea9fe/", md},
      {"http://0251.0376.0251.0376/", md},
      {"http://169.254.43518/", md},
      {"http://169.254.169.254./", md},
      {"http://[::ffff:169.254.169.254]/", md},
      {"http://[::ffff:a9fe:a9fe]/", md},
      {"http://[64:ff9b::a9fe:a9fe]/", md},
      {"http://127.0.0.1@169.254.169.254/", md},
      {"http://[fd00:ec2::254]/", "address_not_global:unique_local"},
      // Other non-global ranges.
      {"http://10.0.0.1/", "address_not_global:private"},
      {"http://172.16.0.1/", "address_not_global:private"},
      {"http://192.168.1.1/", "address_not_global:private"},
      {"http://100.64.0.1/", "address_not_global:shared_cgnat"},
      {"http://169.254.1.1/", "address_not_global:link_local"},
      {"http://0.0.0.0:{P}/", "address_not_global:this_network"},
      {"http://0:{P}/", "address_not_global:this_network"},
      {"http://224.0.0.1/", "address_not_global:multicast"},
      {"http://255.255.255.255/", "address_not_global:broadcast"},
      {"http://240.0.0.1/", "address_not_global:reserved"},
      {"http://198.18.0.1/", "address_not_global:benchmarking"},
      {"http://192.0.2.1/", "address_not_global:documentation"},
      {"http://[fe80::1]/", "address_not_global:link_local"},
      {"http://[fe80::1%25lo]:{P}/", "address_not_global:link_local"},
      {"http://[fc00::1]/", "address_not_global:unique_local"},
      {"http://[::]:{P}/", "address_not_global:unspecified"},
      {"http://[ff02::1]/", "address_not_global:multicast"},
      {"http://[2001:db8::1]/", "address_not_global:documentation"},
      {"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "address_not_global:teredo"},
      // localhost names are loopback whatever the resolver says.
      {"http://localhost:{P}/ok", lo},
      {"http://LOCALHOST:{P}/", lo},
      {"http://localhost.:{P}/", lo},
      {"http://foo.localhost:{P}/", lo},
      {"http://a.b.localhost:{P}/ok", lo},
      // Names whose DNS answer is non-global: refused at connect time, on the address itself.
      {"http://internal.test:{P}/", lo},
      {"http://v6-loop.test:{P}/", lo},
      {"http://mixed.test:{P}/", lo},
      {"http://metadata.test/", md},
      {"http://private.test/", "address_not_global:private"},
      // Schemes other than http and https.
      {"file:///etc/passwd", "scheme_not_allowed"},
      {"gopher://127.0.0.2:{P}/_GET%20/", "scheme_not_allowed"},
      {"ftp://127.0.0.2:{P}/", "scheme_not_allowed"},
      {"dict://127.0.0.2:{P}/info", "scheme_not_allowed"},
      {"ldap://127.0.0.2:{P}/", "scheme_not_allowed"},
      {"tftp://127.0.0.2:{P}/x", "scheme_not_allowed"},
      {"javascript:alert(1)", "scheme_not_allowed"},
      {"data:text/html,<script>alert(1)</script>", "scheme_not_allowed"},
      // Ports other than the allowed ones.
      {"http://127.0.0.1:22/", "port_not_allowed"},
      {"http://127.0.0.1:0/", "port_not_allowed"},
      {"http://127.0.0.1:65536/", "port_not_allowed"},
      {"http://127.0.0.1:-1/", "port_not_allowed"},
      {"http://127.0.0.2:6379/", "port_not_allowed"},
      {"https://site.test:8443/", "port_not_allowed"},
      // Credentials in the URL.
      {"http://user:pass@127.0.0.1:{P}/ok", "userinfo_not_allowed"},
      // Not URLs at all.
      {"//127.0.0.2:{P}/", "invalid_url"},
      {"http://127.0.0.2:{P}/a b", "invalid_url"},
  };
}

// Where the site redirects to, for every redirect status.
std::vector<AttackRow> RedirectTargets() {
  const std::string lo = "address_not_global:loopback";
  return {
      {"http://127.0.0.2:{P}/", lo},
      {"http://0x7f.0.0.2:{P}/", lo},
      {"http://[::ffff:127.0.0.2]:{P}/", lo},
      {"//127.0.0.2:{P}/", lo},  // scheme-relative
      {"http://localhost:{P}/", lo},
      {"http://internal.test:{P}/", lo},
      {"http://169.254.169.254/latest/meta-data/", "address_not_global:metadata"},
      {"file:///etc/passwd", "scheme_not_allowed"},
      {"gopher://127.0.0.2:{P}/", "scheme_not_allowed"},
      {"http://127.0.0.1:22/", "port_not_allowed"},
  };
}

TEST_F(FetcherTest, AttackTableIsRefusedWithNamedReasonsAndNeverConnects) {
  const Fetcher test(TestOptions());
  const Fetcher strict(StrictOptions());
  int rows = 0;
  int site_connections_expected = 0;
  for (const AttackRow& row : DirectAttacks()) {
    const std::string url = Expand(row.url);
    const int site_before = site_.accepted();
    const Result<FetchResponse> r = (row.strict ? strict : test).Fetch({.url = url});
    EXPECT_EQ(ReasonOf(r), row.reason) << url << (r.ok() ? "" : " -> " + r.status().message());
    EXPECT_EQ(site_.accepted(), site_before) << url << " reached the allowed site";
    EXPECT_EQ(internal_.accepted(), 0) << url << " reached the internal server";
    ++rows;
  }
  const std::vector<int> codes = {301, 302, 303, 307, 308};
  int route = 0;
  for (const AttackRow& target : RedirectTargets()) {
    for (int code : codes) {
      const std::string path = "/to/" + std::to_string(route++);
      const std::string location = Expand(target.url);
      site_.Route(path, [code, location](const LoopbackRequest&, LoopbackConnection& c) {
        Respond(c, code, {{"Location", location}}, "");
      });
      const Result<FetchResponse> r = test.Fetch({.url = site_.base_url() + path});
      ++site_connections_expected;
      EXPECT_EQ(ReasonOf(r), target.reason) << code << " to " << location;
      EXPECT_EQ(internal_.accepted(), 0) << code << " to " << location << " reached the internal server";
      ++rows;
    }
  }
  EXPECT_GE(rows, 60);
  EXPECT_EQ(site_.accepted(), site_connections_expected);  // only the redirecting requests themselves
  EXPECT_EQ(internal_.accepted(), 0);
  RecordProperty("attack_rows", rows);
  std::printf("attack rows refused: %d\n", rows);

  // Control: the same internal address through a client without the guard is reached, so the
  // counter above would have seen any connection.
  HttpClient unguarded;
  HttpRequest control;
  control.url = internal_.base_url() + "/";
  control.timeout_ms = 2000;
  auto reached = unguarded.Send(control);
  ASSERT_TRUE(reached.ok()) << reached.status().ToString();
  EXPECT_EQ(reached->body, "internal secret");
  EXPECT_EQ(internal_.accepted(), 1);
}

TEST_F(FetcherTest, DnsAnswerThatChangesBetweenFetchesIsCheckedAtConnect) {
  const Fetcher fetcher(TestOptions());
  // First answer: the allowed address. The fetch succeeds.
  const std::string url = "http://flip.test:" + std::to_string(site_.port()) + "/ok";
  Result<FetchResponse> first = fetcher.Fetch({.url = url});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->remote_address, "127.0.0.1");
  // Second answer for the same name and port: the internal address, same port. Nothing before the
  // connect knows it; the open-socket check sees the address and refuses.
  Result<FetchResponse> second = fetcher.Fetch({.url = url});
  EXPECT_EQ(ReasonOf(second), "address_not_global:loopback");
  EXPECT_EQ(internal_.accepted(), 0);
  EXPECT_EQ(flips_.load(), 2);
}

TEST_F(FetcherTest, DnsAnswerThatChangesWithinARedirectChainIsCheckedAtConnect) {
  const Fetcher fetcher(TestOptions());
  const std::string target = "http://flip.test:" + std::to_string(site_.port()) + "/ok";
  site_.Route("/to-flip", [target](const LoopbackRequest&, LoopbackConnection& c) {
    Respond(c, 302, {{"Location", target}}, "");
  });
  flips_ = 1;  // the name already answered once (the allowed address); now it answers 127.0.0.2
  EXPECT_EQ(ReasonOf(fetcher.Fetch({.url = site_.base_url() + "/to-flip"})), "address_not_global:loopback");
  EXPECT_EQ(internal_.accepted(), 0);
}

TEST_F(FetcherTest, RedirectsAreFollowedByHandUpToTheLimit) {
  const Fetcher fetcher(TestOptions());
  // Exactly five redirects: followed.
  Result<FetchResponse> r = fetcher.Fetch({.url = site_.base_url() + "/chain/5"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "end of chain");
  EXPECT_EQ(r->redirects.size(), 5u);
  EXPECT_EQ(r->final_url, site_.base_url() + "/chain/10");
  // Six: refused.
  EXPECT_EQ(ReasonOf(fetcher.Fetch({.url = site_.base_url() + "/chain/4"})), "too_many_redirects");
  EXPECT_EQ(ReasonOf(fetcher.Fetch({.url = site_.base_url() + "/chain/0"})), "too_many_redirects");
  // A loop is named as such, before the limit.
  EXPECT_EQ(ReasonOf(fetcher.Fetch({.url = site_.base_url() + "/loop/a"})), "redirect_loop");
  EXPECT_EQ(internal_.accepted(), 0);
}

TEST_F(FetcherTest, BodiesAreCappedOnTheirDecodedSize) {
  const Fetcher fetcher(TestOptions());
  for (const char* path : {"/big-length", "/big-chunked", "/endless", "/bomb"}) {
    SCOPED_TRACE(path);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(ReasonOf(fetcher.Fetch({.url = site_.base_url() + path})), "body_too_large") << path;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4)) << path;
  }
  EXPECT_EQ(internal_.accepted(), 0);
}

TEST_F(FetcherTest, SlowDripAndStallAreCutByTheLowSpeedLimitAndTheTimeout) {
  const Fetcher fetcher(TestOptions());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ReasonOf(fetcher.Fetch({.url = site_.base_url() + "/drip"})), "too_slow");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  FetcherOptions no_low_speed = TestOptions();
  no_low_speed.low_speed_bytes_per_s = 0;
  const Fetcher patient(no_low_speed);
  EXPECT_EQ(ReasonOf(patient.Fetch({.url = site_.base_url() + "/stall", .timeout_ms = 800})), "timeout");
}

TEST_F(FetcherTest, ResponseHeadersConditionalRequestsAndUserAgent) {
  const Fetcher fetcher(TestOptions());
  Result<FetchResponse> r = fetcher.Fetch({.url = site_.base_url() + "/ok"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->not_modified);
  EXPECT_EQ(r->etag(), "\"v1\"");
  EXPECT_EQ(r->last_modified(), "Tue, 01 Dec 2026 10:00:00 GMT");
  EXPECT_EQ(r->content_type(), "text/html; charset=utf-8");
  EXPECT_EQ(r->retry_after(), "120");
  EXPECT_THAT(std::string(r->link()), ::testing::HasSubstr("rel=\"canonical\""));
  EXPECT_EQ(r->body, "<html><body>hello</body></html>");
  Result<FetchResponse> again =
      fetcher.Fetch({.url = site_.base_url() + "/ok", .if_none_match = "\"v1\"",
                     .if_modified_since = "Tue, 01 Dec 2026 10:00:00 GMT"});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->not_modified);
  EXPECT_EQ(again->status, 304);
  const std::vector<LoopbackRequest> seen = site_.recorded();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_THAT(seen[0].Header("User-Agent"), ::testing::StartsWith("AttestBot/"));
  EXPECT_THAT(seen[0].Header("Accept-Encoding"), ::testing::HasSubstr("gzip"));
  EXPECT_EQ(seen[1].Header("If-None-Match"), "\"v1\"");
  EXPECT_EQ(seen[1].Header("If-Modified-Since"), "Tue, 01 Dec 2026 10:00:00 GMT");
}

TEST_F(FetcherTest, EnvironmentProxyIsIgnored) {
  // A proxy named by the environment would make the connect check see the proxy's address, not
  // the server's: the fetcher must go straight to the server.
  LoopbackTestServer proxy("127.0.0.3");
  setenv("http_proxy", proxy.base_url().c_str(), 1);
  setenv("HTTP_PROXY", proxy.base_url().c_str(), 1);
  setenv("all_proxy", proxy.base_url().c_str(), 1);
  const Fetcher fetcher(TestOptions());
  Result<FetchResponse> r = fetcher.Fetch({.url = site_.base_url() + "/ok"});
  unsetenv("http_proxy");
  unsetenv("HTTP_PROXY");
  unsetenv("all_proxy");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(proxy.accepted(), 0);
}

TEST(AddressPolicyTest, ClassifiesRangesAndEmbeddedForms) {
  struct Case {
    const char* address;
    const char* range;  // "" = global
  };
  const Case cases[] = {
      {"8.8.8.8", ""},
      {"1.1.1.1", ""},
      {"172.15.255.255", ""},
      {"172.32.0.0", ""},
      {"100.63.255.255", ""},
      {"100.128.0.0", ""},
      {"198.20.0.0", ""},
      {"127.255.255.255", "loopback"},
      {"172.31.255.255", "private"},
      {"100.127.255.255", "shared_cgnat"},
      {"198.19.255.255", "benchmarking"},
      {"192.0.0.8", "ietf_protocol"},
      {"192.88.99.1", "relay_anycast"},
      {"203.0.113.9", "documentation"},
      {"198.51.100.1", "documentation"},
      {"239.255.255.250", "multicast"},
      {"255.255.255.254", "reserved"},
      {"2606:4700:4700::1111", ""},
      {"2a00:1450:4001::200e", ""},
      {"::ffff:8.8.8.8", ""},
      {"64:ff9b::808:808", ""},
      {"2002:808:808::1", ""},
      {"::8.8.8.8", "ipv4_compatible"},
      {"::ffff:10.0.0.1", "private"},
      {"2002:a9fe:a9fe::", "metadata"},
      {"2002:c0a8:0101::1", "private"},
      {"64:ff9b:1::1", "nat64_local"},
      {"100::1", "discard"},
      {"2001:2::1", "benchmarking"},
      {"2001:10::1", "ietf_protocol"},
      {"3fff::1", "documentation"},
      {"fec0::1", "site_local"},
      {"fdff:ffff::1", "unique_local"},
      {"febf::1", "link_local"},
      {"4000::1", "reserved"},
      {"::2", "this_network"},  // ::0.0.0.2, judged by the IPv4 rules
  };
  for (const Case& c : cases) {
    const auto a = ParseIpAddress(c.address);
    ASSERT_TRUE(a.has_value()) << c.address;
    EXPECT_EQ(NonGlobalRange(*a), c.range) << c.address;
  }
  // Only strict dotted quads parse: other spellings are the URL parser's business.
  for (const char* bad : {"127.1", "0x7f.0.0.1", "256.0.0.1", "1.2.3.4.5", "01234.0.0.1", "", "[::1", "::g"}) {
    EXPECT_FALSE(ParseIpAddress(bad).has_value()) << bad;
  }
}

TEST(AddressPolicyTest, AllowListPortsAndSchemes) {
  AddressPolicyOptions options;
  options.allow = {*ParseCidr("127.0.0.1"), *ParseCidr("10.8.0.0/16")};
  options.allowed_ports = {443};
  const AddressPolicy policy(options);
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("127.0.0.1"), 443), "");
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("127.0.0.2"), 443), "address_not_global:loopback");
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("10.8.200.1"), 443), "");
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("10.9.0.1"), 443), "address_not_global:private");
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("::ffff:127.0.0.1"), 443), "address_not_global:loopback");
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("8.8.8.8"), 80), "port_not_allowed");
  EXPECT_EQ(policy.CheckPeer(*ParseIpAddress("8.8.8.8"), 443), "");
  EXPECT_TRUE(AddressPolicy::SchemeAllowed("HTTPS"));
  EXPECT_FALSE(AddressPolicy::SchemeAllowed("ftp"));
  EXPECT_FALSE(ParseCidr("10.0.0.0/33").ok());
  EXPECT_FALSE(ParseCidr("example.com/8").ok());
  EXPECT_TRUE(ParseCidr("fc00::/7").ok());
}

// ----- The page cache ------------------------------------------------------------------------

class CachedFetcherTest : public FetcherTest {
 protected:
  CachedFetcherTest() {
    site_.Route("/page", [this](const LoopbackRequest& r, LoopbackConnection& c) {
      const std::string etag = "\"" + std::to_string(version_.load()) + "\"";
      if (r.Header("If-None-Match") == etag) return Respond(c, 304, {{"ETag", etag}}, "");
      Respond(c, 200, {{"Content-Type", "text/html"}, {"ETag", etag}}, "page v" + std::to_string(version_.load()));
    });
    site_.Route("/feed", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 200, {{"Content-Type", "application/atom+xml"}, {"Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT"}},
              "<feed/>");
    });
    site_.Route("/private", [](const LoopbackRequest&, LoopbackConnection& c) {
      Respond(c, 200, {{"Content-Type", "text/html"}, {"Cache-Control", "no-store"}}, "secret");
    });
    for (int i = 0; i < 4; ++i) {
      site_.Route("/blob/" + std::to_string(i), [](const LoopbackRequest&, LoopbackConnection& c) {
        Respond(c, 200, {{"Content-Type", "text/plain"}}, std::string(1000, 'b'));
      });
    }
  }
  std::atomic<int> version_{1};
  FakeClock clock_;
};

TEST_F(CachedFetcherTest, ServesFreshHitsRevalidatesStaleOnesAndRefetchesChanges) {
  const Fetcher fetcher(TestOptions());
  CachedFetcher cache(fetcher, {.clock = &clock_});
  const std::string url = site_.base_url() + "/page";
  Result<FetchResponse> r = cache.Fetch({.url = url});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->cache, CacheUse::kNone);
  EXPECT_EQ(r->body, "page v1");
  r = cache.Fetch({.url = url});
  EXPECT_EQ(r->cache, CacheUse::kHit);
  EXPECT_EQ(site_.requests(), 1);
  // text/html is fresh for 600 s: past that, a revalidation answered 304 serves the cached body.
  clock_.SleepFor(std::chrono::seconds(601));
  r = cache.Fetch({.url = url});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->cache, CacheUse::kRevalidated);
  EXPECT_EQ(r->body, "page v1");
  EXPECT_EQ(site_.requests(), 2);
  EXPECT_EQ(site_.recorded().back().Header("If-None-Match"), "\"1\"");
  // Refreshed: a hit again.
  EXPECT_EQ(cache.Fetch({.url = url})->cache, CacheUse::kHit);
  // The page changes; once stale, the revalidation gets a 200 and the new body.
  version_ = 2;
  clock_.SleepFor(std::chrono::seconds(601));
  r = cache.Fetch({.url = url});
  EXPECT_EQ(r->cache, CacheUse::kNone);
  EXPECT_EQ(r->body, "page v2");
  const PageCacheStats s = cache.stats();
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.revalidated, 1u);
  EXPECT_EQ(s.misses, 2u);
}

TEST_F(CachedFetcherTest, TtlDependsOnContentTypeAndNoStoreIsNotKept) {
  const Fetcher fetcher(TestOptions());
  CachedFetcher cache(fetcher, {.clock = &clock_});
  ASSERT_TRUE(cache.Fetch({.url = site_.base_url() + "/feed"}).ok());
  clock_.SleepFor(std::chrono::seconds(301));  // feeds: 300 s
  Result<FetchResponse> r = cache.Fetch({.url = site_.base_url() + "/feed"});
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->cache, CacheUse::kHit);
  EXPECT_EQ(site_.recorded().back().Header("If-Modified-Since"), "Tue, 01 Dec 2026 10:00:00 GMT");
  ASSERT_TRUE(cache.Fetch({.url = site_.base_url() + "/private"}).ok());
  EXPECT_EQ(cache.Fetch({.url = site_.base_url() + "/private"})->cache, CacheUse::kNone);
  // A failure is not cached and not hidden.
  EXPECT_EQ(ReasonOf(cache.Fetch({.url = "http://127.0.0.2:" + std::to_string(site_.port()) + "/"})),
            "address_not_global:loopback");
}

TEST_F(CachedFetcherTest, BoundedByBytesLeastRecentlyUsedFirst) {
  const Fetcher fetcher(TestOptions());
  CachedFetcher cache(fetcher, {.max_bytes = 3500, .clock = &clock_});
  const auto blob = [&](int i) { return site_.base_url() + "/blob/" + std::to_string(i); };
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(cache.Fetch({.url = blob(i)}).ok());
  EXPECT_EQ(cache.Fetch({.url = blob(0)})->cache, CacheUse::kHit);  // 0 is now the most recent
  ASSERT_TRUE(cache.Fetch({.url = blob(3)}).ok());                   // evicts 1, the least recent
  const PageCacheStats s = cache.stats();
  EXPECT_EQ(s.evictions, 1u);
  EXPECT_LE(s.bytes, 3500u);
  EXPECT_EQ(cache.Fetch({.url = blob(0)})->cache, CacheUse::kHit);
  EXPECT_EQ(cache.Fetch({.url = blob(2)})->cache, CacheUse::kHit);
  EXPECT_EQ(cache.Fetch({.url = blob(1)})->cache, CacheUse::kNone);
}

}  // namespace
}  // namespace attest
