// Black-box tests of `attest serve` under operational trouble (the real binary on an ephemeral
// port): an audit log that cannot be written (the disk refuses: a file size limit set on the
// running server with prlimit, the way a full disk refuses), and the query limit measured the same
// way by every route.
#include <signal.h>
#include <sys/resource.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve_ops_util.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using ops_test::Body;
using ops_test::Call;
using ops_test::CreateKey;
using ops_test::ErrorCode;
using testing_support::HttpReply;
using testing_support::ServeProcess;
using testing_support::TempDir;

// A query of exactly `code_points` code points: Cyrillic words (2 bytes per letter), a few emoji
// (4 bytes, two UTF-16 code units each) and ASCII spaces, so bytes, UTF-16 code units and code
// points all differ.
std::string QueryOf(size_t code_points) {
  const std::string word = "\xD0\xB2\xD0\xBE\xD0\xB7\xD0\xB2\xD1\x80\xD0\xB0\xD1\x82";  // возврат: 7 letters
  const std::string emoji = "\xF0\x9F\x93\x84";                                           // U+1F4C4
  std::string q = "refund ";
  size_t n = 7;
  for (int i = 0; n + 8 + 1 <= code_points; ++i) {
    q += (i % 25 == 24) ? emoji + emoji + emoji + emoji + emoji + emoji + emoji : word;
    q += ' ';
    n += 8;
  }
  while (n < code_points) {
    q += "\xD1\x8F";  // я
    ++n;
  }
  return q;
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

class ServeQueryLimitTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = dir_->str("data");
    admin_ = CreateKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    server_ = new ServeProcess(data_, {}, {});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    json doc = {{"id", "refunds"}, {"title", "Refund policy"},
                {"text", "Refunds are paid within thirty days of purchase. The refund goes to the original card."}};
    HttpReply r = Call(server_->port(), "POST", "/v1/documents", admin_, doc.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static HttpReply Post(const std::string& route, const std::string& query) {
    return Call(server_->port(), "POST", route, admin_, json{{"query", query}}.dump());
  }

  static TempDir* dir_;
  static std::string data_, admin_;
  static ServeProcess* server_;
};

TempDir* ServeQueryLimitTest::dir_ = nullptr;
ServeProcess* ServeQueryLimitTest::server_ = nullptr;
std::string ServeQueryLimitTest::data_, ServeQueryLimitTest::admin_;

// /v1/search counted code points, /v1/answer bytes: a 2,000-character question in Cyrillic was a
// search but "longer than 2000 bytes" as a question. Both routes count Unicode code points after
// NFC normalization and trimming.
TEST_F(ServeQueryLimitTest, Regression_SearchAndAnswerMeasureTheQueryLimitAlike) {
  const std::string at_limit = QueryOf(2000);
  ASSERT_EQ(CodePoints(at_limit), 2000u);
  ASSERT_GT(at_limit.size(), 3000u);  // far more bytes than code points
  for (const char* route : {"/v1/search", "/v1/answer"}) {
    HttpReply ok = Post(route, "  " + at_limit + "\n");
    EXPECT_EQ(ok.status, 200) << route << ": " << ok.body.substr(0, 400);

    HttpReply over = Post(route, at_limit + "\xD1\x8F");
    EXPECT_EQ(over.status, 400) << route << ": " << over.body.substr(0, 400);
    EXPECT_EQ(ErrorCode(over), "invalid_request") << route;
    json e = Body(over)["error"];
    EXPECT_EQ(e.value("field", ""), "query") << route;
    EXPECT_NE(e.value("message", "").find("2001 characters"), std::string::npos) << route << ": " << e.dump();
  }
}

// The limit applies after NFC: 2,000 letters written decomposed (letter + combining mark, 4,000
// code points as sent) are 2,000 characters, on both routes.
TEST_F(ServeQueryLimitTest, QueryLimitIsCountedAfterNfcOnBothRoutes) {
  std::string decomposed = "refund ";
  for (int i = 0; i < 1993; ++i) decomposed += "\xD0\xB5\xCC\x88";  // е + U+0308 = ё after NFC
  ASSERT_EQ(CodePoints(decomposed), 7u + 2 * 1993u);
  for (const char* route : {"/v1/search", "/v1/answer"}) {
    HttpReply ok = Post(route, decomposed);
    EXPECT_EQ(ok.status, 200) << route << ": " << ok.body.substr(0, 400);
    HttpReply over = Post(route, decomposed + "\xD0\xB5\xCC\x88");
    EXPECT_EQ(over.status, 400) << route << ": " << over.body.substr(0, 400);
    EXPECT_EQ(Body(over)["error"].value("field", ""), "query") << route;
  }
}

// ---- the audit log during a disk outage ------------------------------------------------------

size_t LinesOf(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

// Waits up to `seconds` for `pred`.
template <class Pred>
bool WaitFor(Pred pred, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

// Makes every write of process `pid` that would extend a file past `bytes` fail with EFBIG (the
// server ignores SIGXFSZ, inherited from this test), as a full disk fails them with ENOSPC. "" or
// why it could not.
std::string LimitFileSize(pid_t pid, rlim_t bytes) {
  struct rlimit lim{bytes, RLIM_INFINITY};
  if (::prlimit(pid, RLIMIT_FSIZE, &lim, nullptr) != 0) return std::string("prlimit: ") + std::strerror(errno);
  return "";
}

double SecondsOf(const std::function<void()>& fn) {
  const auto t0 = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// While the audit log could not be written, every request took a second more (Append waited for
// room), the in-memory queue grew past its limit and /readyz said 200. Now: readiness is 503 naming
// the audit log while writes fail; the queue holds at most --audit-queue records; a request that
// would need one more is refused at once with 503 audit_unavailable and Retry-After; when the disk
// takes writes again every record held is written (none lost) and readiness is 200 again.
TEST(ServeAuditOutage, Regression_AuditOutageMakesReadyz503) {
  TempDir dir;
  const std::string data = dir.str("data");
  const std::string audit = dir.str("audit.jsonl");
  const std::string admin = CreateKey(data, {"--tenant", "acme", "--user", "root", "--admin"});
  const std::string reader = CreateKey(data, {"--tenant", "acme", "--user", "alice"});
  struct sigaction ignore{}, previous{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGXFSZ, &ignore, &previous), 0);  // inherited by the server: EFBIG, not death
  ServeProcess server(data, {}, {"--audit-log", audit, "--audit-queue", "8"});
  ::sigaction(SIGXFSZ, &previous, nullptr);
  ASSERT_NE(server.port(), 0) << server.child().out();
  const uint16_t port = server.port();

  json doc = {{"id", "refunds"}, {"title", "Refund policy"},
              {"text", "Refunds are paid within thirty days of purchase. The refund goes to the original card."}};
  ASSERT_EQ(Call(port, "POST", "/v1/documents", admin, doc.dump()).status, 200);
  const std::string query = json{{"query", "refund policy"}}.dump();
  ASSERT_EQ(Call(port, "POST", "/v1/search", reader, query).status, 200);
  ASSERT_TRUE(WaitFor([&] { return LinesOf(audit) == 2; }, 10)) << LinesOf(audit);
  ASSERT_EQ(Call(port, "GET", "/readyz", "").status, 200);

  // The outage: the audit file cannot grow.
  std::error_code ec;
  if (std::string why = LimitFileSize(server.child().pid(), std::filesystem::file_size(audit, ec)); !why.empty()) {
    GTEST_SKIP() << "cannot limit the server's file size (" << why << ")";
  }
  HttpReply first = Call(port, "POST", "/v1/search", reader, query);
  EXPECT_EQ(first.status, 200) << first.body;  // room in the queue: served, its record held
  HttpReply ready;
  ASSERT_TRUE(WaitFor([&] { return (ready = Call(port, "GET", "/readyz", "")).status == 503; }, 10))
      << "readyz stayed " << ready.status << " while the audit log could not be written: " << ready.body;
  EXPECT_NE(ready.body.find("audit"), std::string::npos) << ready.body;
  EXPECT_NE(ready.body.find("File too large"), std::string::npos) << ready.body;  // the write error, named

  // Fill the queue: each request is answered at once, served while there is room, then refused.
  size_t served = 1, refused = 0;
  HttpReply last;
  for (int i = 0; i < 20; ++i) {
    const double seconds = SecondsOf([&] { last = Call(port, "POST", "/v1/search", reader, query); });
    EXPECT_LT(seconds, 1.0) << "request " << i << " waited for the audit log";
    if (last.status == 200) {
      ++served;
    } else {
      ++refused;
      EXPECT_EQ(last.status, 503) << last.body;
      EXPECT_EQ(ErrorCode(last), "audit_unavailable") << last.body;
      EXPECT_FALSE(last.Header("retry-after").empty());
    }
  }
  EXPECT_EQ(served, 8u) << "the queue held more (or fewer) records than --audit-queue";
  EXPECT_EQ(refused, 20u + 1 - served);
  // A write is refused before it is applied (it would need a record too).
  json other = {{"id", "returns"}, {"title", "Returns"}, {"text", "Returns are accepted within ninety days."}};
  HttpReply put = Call(port, "POST", "/v1/documents", admin, other.dump());
  EXPECT_EQ(put.status, 503) << put.body;
  EXPECT_EQ(ErrorCode(put), "audit_unavailable");
  // Unaudited routes still answer; metrics show the state.
  EXPECT_EQ(Call(port, "GET", "/healthz", "").status, 200);
  HttpReply metrics = Call(port, "GET", "/metrics", "");
  EXPECT_NE(metrics.body.find("attest_audit_held_records 8"), std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("attest_audit_writable 0"), std::string::npos);
  EXPECT_NE(metrics.body.find("attest_audit_refused_total"), std::string::npos);
  EXPECT_EQ(LinesOf(audit), 2u);

  // The disk recovers: everything held is written, readiness returns, requests are served.
  ASSERT_EQ(LimitFileSize(server.child().pid(), RLIM_INFINITY), "");
  ASSERT_TRUE(WaitFor([&] { return Call(port, "GET", "/readyz", "").status == 200; }, 10));
  EXPECT_TRUE(WaitFor([&] { return LinesOf(audit) == 2 + served; }, 10)) << LinesOf(audit);
  EXPECT_EQ(Call(port, "POST", "/v1/search", reader, query).status, 200);
  EXPECT_EQ(Call(port, "GET", "/v1/documents/returns", admin).status, 404);  // never ran (a 404 is not audited)
  EXPECT_TRUE(WaitFor([&] { return LinesOf(audit) == 3 + served; }, 10)) << LinesOf(audit);
  EXPECT_NE(Call(port, "GET", "/metrics", "").body.find("attest_audit_writable 1"), std::string::npos);
}

}  // namespace
}  // namespace attest
