// Black-box tests of the error boundary under `attest serve` (the real binary on an ephemeral port)
// with the LLM writer against a local OpenAI-compatible chat server that fails: a model server's
// failure is the server's problem, never a 4xx that blames the caller (docs/design.md, "Errors").
//
// The model client (src/models) reports an upstream 429/503 as Status::Unavailable with the
// server's Retry-After, a 5xx as UpstreamError and a timeout as DeadlineExceeded; FromStatus and
// the one HTTP table (server/error_response.cc) turn them into 503 + Retry-After, 502 and 504 on
// field "model".
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/chat_test_server.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatTestServer;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::OpenAiFault;
using testing_support::RunAttest;
using testing_support::TempDir;

// The chat client's attempts for one request: the first and its max_retries (2) retries.
constexpr int kAttempts = 3;

class ServeUpstreamErrorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    auto r = RunAttest({"--data", data_, "keys", "create", "--json", "--tenant", "acme", "--user", "root", "--admin"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    key_ = json::parse(r.out).at("key").get<std::string>();
    server_ = std::make_unique<testing_support::ServeProcess>(
        data_, std::vector<std::string>{"--llm-url", chat_.base_url(), "--llm-model", "m"},
        std::vector<std::string>{});
    port_ = server_->port();
    ASSERT_NE(port_, 0) << server_->child().out();
    json doc = {{"id", "deploys"}, {"title", "Deployment procedure"},
                {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the "
                         "platform team before traffic moves."}};
    ASSERT_EQ(Call("/v1/documents", doc.dump()).status, 200);
  }

  HttpReply Call(const std::string& path, const std::string& body) {
    HttpCall c;
    c.method = "POST";
    c.path = path;
    c.body = body;
    c.headers["Authorization"] = "Bearer " + key_;
    return HttpRequest(port_, c);
  }
  HttpReply AskLlm() {
    return Call("/v1/answer", R"({"query":"How are deployments released and approved?","writer":"llm"})");
  }
  void FailChat(int status, const std::string& retry_after = "") {
    OpenAiFault fault;
    fault.status = status;
    fault.retry_after = retry_after;
    chat_.server().PushFault(fault, kAttempts);
  }
  // The reply is `status` with error `code` on field "model".
  static void ExpectModelError(const HttpReply& r, int status, const std::string& code) {
    EXPECT_EQ(r.status, status) << r.body;
    json body = json::parse(r.body, nullptr, false);
    const json e = body.is_object() && body.contains("error") ? body["error"] : json::object();
    EXPECT_EQ(e.value("code", ""), code) << r.body;
    EXPECT_EQ(e.value("field", ""), "model") << r.body;
  }

  TempDir dir_;
  std::string data_, key_;
  ChatTestServer chat_;
  std::unique_ptr<testing_support::ServeProcess> server_;
  uint16_t port_ = 0;
};

TEST_F(ServeUpstreamErrorTest, ChatServerWorksWithoutFaults) {
  HttpReply r = AskLlm();
  EXPECT_EQ(r.status, 200) << r.body;
}

// Issue 11: the chat model's 429 reached the client as 413 payload_too_large with field "writer"
// (blaming the caller's request), and a 500 as an unexplained 500.
TEST_F(ServeUpstreamErrorTest, Regression_UpstreamChat429IsNot413OnWriter) {
  FailChat(429, "1");
  HttpReply r = AskLlm();
  ExpectModelError(r, 503, "model_unavailable");
}

TEST_F(ServeUpstreamErrorTest, UpstreamChat5xxIsNever4xx) {
  FailChat(500);
  HttpReply r = AskLlm();
  EXPECT_GE(r.status, 500) << r.body;
}

// The server's Retry-After reaches the caller (the client waited it out twice before giving up).
TEST_F(ServeUpstreamErrorTest, UpstreamChat429Is503WithRetryAfterAndFieldModel) {
  FailChat(429, "2");
  HttpReply r = AskLlm();
  ExpectModelError(r, 503, "model_unavailable");
  EXPECT_EQ(r.Header("retry-after"), "2") << r.body;
}

TEST_F(ServeUpstreamErrorTest, UpstreamChat5xxIs502) {
  FailChat(500);
  ExpectModelError(AskLlm(), 502, "upstream_error");
}

}  // namespace
}  // namespace attest
