// HttpClient against the local test server: statuses as responses, headers, body cap, streaming
// with abort, request validation and URL redaction.
#include "net/http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "support/openai_test_server.h"

namespace attest {
namespace {

using testing_support::OpenAiFault;
using testing_support::OpenAiTestServer;
using ::testing::HasSubstr;

// Serves `n` bytes of a repeating pattern at GET /bytes/<n>.
void AddBytesRoute(OpenAiTestServer& server, const std::string& path, size_t n) {
  server.AddRoute("GET", path, [n](const httplib::Request&, const OpenAiFault&, httplib::Response& res) {
    std::string body(n, 'x');
    for (size_t i = 0; i < n; ++i) body[i] = static_cast<char>('a' + i % 26);
    res.status = 200;
    res.set_header("X-Test", "yes");
    res.set_content(body, "application/octet-stream");
  });
}

HttpRequest Get(const std::string& url) {
  HttpRequest r;
  r.method = "GET";
  r.url = url;
  r.timeout_ms = 2000;
  return r;
}

TEST(HttpClientTest, ErrorStatusesAreResponsesWithHeadersAndBody) {
  OpenAiTestServer server;
  HttpClient client;
  server.PushFault(OpenAiFault{.status = 503, .retry_after = "7"});
  HttpFailure failure = HttpFailure::kOther;
  auto r = client.Send(Get(server.base_url() + "/anything"), &failure);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(failure, HttpFailure::kNone);
  EXPECT_EQ(r->status, 503);
  ASSERT_TRUE(r->Header("RETRY-AFTER").has_value());
  EXPECT_EQ(*r->Header("retry-after"), "7");
  EXPECT_FALSE(r->Header("x-absent").has_value());
  EXPECT_THAT(r->body, HasSubstr("injected fault: HTTP 503"));
  // Unknown route: the server's 404 comes back as a response too.
  r = client.Send(Get(server.base_url() + "/nope"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 404);
}

TEST(HttpClientTest, PostSendsMethodHeadersAndBody) {
  OpenAiTestServer server;
  HttpClient client;
  HttpRequest req;
  req.method = "PUT";
  req.url = server.base_url() + "/put-here";
  req.headers = {{"Content-Type", "application/json"}, {"X-Custom", "v1"}};
  req.body = std::string(5000, 'b');  // large enough that curl would otherwise send Expect: 100-continue
  auto r = client.Send(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "PUT");
  EXPECT_EQ(reqs[0].path, "/put-here");
  EXPECT_EQ(reqs[0].header("x-custom"), "v1");
  EXPECT_EQ(reqs[0].header("expect"), "");
  EXPECT_EQ(reqs[0].body, req.body);
  // A body does not silently turn another method into POST.
  req.method = "GET";
  req.body = "{}";
  r = client.Send(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(server.requests().back().method, "GET");
}

TEST(HttpClientTest, BodyLargerThanCapIsResourceExhausted) {
  OpenAiTestServer server;
  AddBytesRoute(server, "/big", 100000);
  AddBytesRoute(server, "/small", 1000);
  HttpClient client(HttpClientOptions{.max_response_bytes = 4096});
  HttpFailure failure = HttpFailure::kNone;
  auto r = client.Send(Get(server.base_url() + "/big"), &failure);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(failure, HttpFailure::kBodyTooLarge);
  EXPECT_THAT(r.status().message(), HasSubstr("4096-byte limit"));
  EXPECT_THAT(r.status().message(), HasSubstr("/big"));
  // The same client (and pooled handle) still works for a small body.
  r = client.Send(Get(server.base_url() + "/small"), &failure);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body.size(), 1000u);
  EXPECT_EQ(r->body.substr(0, 3), "abc");
}

TEST(HttpClientTest, StreamingDeliversChunksAndCanAbort) {
  OpenAiTestServer server;
  AddBytesRoute(server, "/stream", 300000);
  HttpClient client;
  std::string streamed;
  int chunks = 0;
  auto r = client.SendStreaming(Get(server.base_url() + "/stream"), [&](std::string_view c) {
    streamed.append(c);
    ++chunks;
    return true;
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(r->body.empty());
  ASSERT_EQ(streamed.size(), 300000u);
  EXPECT_EQ(streamed[26], 'a');
  EXPECT_GT(chunks, 1);

  HttpFailure failure = HttpFailure::kNone;
  size_t seen = 0;
  r = client.SendStreaming(Get(server.base_url() + "/stream"), [&](std::string_view c) {
    seen += c.size();
    return false;
  }, &failure);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(failure, HttpFailure::kAborted);
  EXPECT_LT(seen, 300000u);

  // A non-2xx body is collected for the caller instead of streamed.
  server.PushFault(OpenAiFault{.status = 429});
  bool called = false;
  r = client.SendStreaming(Get(server.base_url() + "/stream"), [&](std::string_view) { return called = true; });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 429);
  EXPECT_FALSE(called);
  EXPECT_THAT(r->body, HasSubstr("rate_limit_error"));
}

TEST(HttpClientTest, RejectsBadRequestsBeforeSending) {
  HttpClient client;
  HttpFailure failure = HttpFailure::kNone;
  auto r = client.Send(Get("file:///etc/passwd"), &failure);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(failure, HttpFailure::kInvalidRequest);
  HttpRequest bad = Get("http://127.0.0.1:9/");
  bad.headers = {{"X-Evil", "a\r\nInjected: 1"}};
  r = client.Send(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("invalid header \"X-Evil\""));
  bad = Get("http://127.0.0.1:9/");
  bad.method = "GET /x";
  EXPECT_FALSE(client.Send(bad).ok());
}

TEST(HttpClientTest, ConnectionRefusedIsATransientConnectFailure) {
  int closed_port = 0;
  {
    OpenAiTestServer gone;
    closed_port = gone.port();
  }
  HttpClient client;
  HttpFailure failure = HttpFailure::kNone;
  auto r = client.Send(Get("http://user:pw@127.0.0.1:" + std::to_string(closed_port) + "/x"), &failure);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kIOError);
  EXPECT_EQ(failure, HttpFailure::kConnect);
  EXPECT_TRUE(IsTransientHttpFailure(failure));
  EXPECT_THAT(r.status().message(), HasSubstr("GET http://***@127.0.0.1:" + std::to_string(closed_port) + "/x"));
  EXPECT_EQ(r.status().message().find("pw"), std::string::npos);
}

TEST(HttpClientTest, ConnectGuardSeesEveryAddressAndCanRefuseIt) {
  OpenAiTestServer server;
  AddBytesRoute(server, "/small", 10);
  std::vector<std::string> seen;
  std::mutex mu;
  HttpClientOptions options;
  options.connect_guard = [&](const HttpPeer& peer) -> std::string {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(std::to_string(peer.bytes[0]) + "." + std::to_string(peer.bytes[3]) + ":" + std::to_string(peer.port));
    return peer.bytes[3] == 1 ? "" : "refused_for_test";
  };
  HttpClient client(options);
  auto ok = client.Send(Get(server.base_url() + "/small"));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->remote_address, "127.0.0.1");
  // A name resolved (by override) to an address the guard refuses: never connected, kBlocked.
  HttpRequest req = Get("http://guarded.test:" + std::to_string(server.port()) + "/small");
  req.resolve = {"guarded.test:" + std::to_string(server.port()) + ":127.0.0.2"};
  HttpFailure failure = HttpFailure::kNone;
  std::string reason;
  auto r = client.Send(req, &failure, &reason);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(failure, HttpFailure::kBlocked);
  EXPECT_EQ(reason, "refused_for_test");
  EXPECT_THAT(r.status().message(), HasSubstr("refused_for_test"));
  const std::string port = std::to_string(server.port());
  EXPECT_THAT(seen, ::testing::ElementsAre("127.1:" + port, "127.2:" + port));
}

TEST(HttpClientTest, RedactUrlRemovesOnlyCredentials) {
  EXPECT_EQ(RedactUrl("https://u:p@host:1/a@b"), "https://***@host:1/a@b");
  EXPECT_EQ(RedactUrl("http://host/path@x"), "http://host/path@x");
  EXPECT_EQ(RedactUrl("not a url"), "not a url");
}

}  // namespace
}  // namespace attest
