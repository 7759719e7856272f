// ChatClient against the scripted chat route of the local OpenAI-protocol test server: plain and
// streamed completions, SSE framing split at awkward places, retries, timeouts, refusals and every
// malformed answer.
#include "llm/chat_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "llm/sse_stream.h"
#include "support/fake_clock.h"
#include "support/chat_test_server.h"

namespace attest {
namespace {

using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::OpenAiFault;
using ::testing::HasSubstr;

class ChatClientTest : public ::testing::Test {
 protected:
  ChatClientOptions Options() {
    ChatClientOptions o;
    o.endpoint.base_url = server_.base_url();
    o.endpoint.model = "test-chat";
    o.endpoint.timeout_ms = 3000;
    o.endpoint.connect_timeout_ms = 500;
    o.endpoint.backoff_initial_ms = 5;
    o.endpoint.backoff_max_ms = 20;
    o.endpoint.clock = &clock_;
    return o;
  }
  std::unique_ptr<ChatClient> Make(ChatClientOptions o) {
    auto c = ChatClient::Create(std::move(o));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  static ChatRequest Hello() { return ChatRequest{{{"system", "be brief"}, {"user", "hello"}}, "", std::nullopt}; }

  ChatTestServer server_;
  testing_support::FakeClock clock_;
};

TEST_F(ChatClientTest, CompleteReturnsContentUsageAndSendsTheRequestFields) {
  ChatReply reply;
  reply.content = "Hi there.";
  reply.prompt_tokens = 42;
  reply.completion_tokens = 3;
  server_.PushReply(reply);
  ChatClientOptions o = Options();
  o.seed = 7;
  o.max_tokens = 99;
  auto client = Make(o);
  ChatRequest req = Hello();
  req.response_format_json = R"({"type":"json_object"})";
  auto r = client->Complete(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->content, "Hi there.");
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->prompt_tokens, 42u);
  EXPECT_EQ(r->completion_tokens, 3u);
  EXPECT_EQ(r->model, "test-chat");
  EXPECT_FALSE(r->refused());
  auto reqs = server_.chat_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["model"], "test-chat");
  EXPECT_EQ(reqs[0]["temperature"], 0.0);
  EXPECT_EQ(reqs[0]["max_tokens"], 99);
  EXPECT_EQ(reqs[0]["seed"], 7);
  EXPECT_EQ(reqs[0]["messages"][0]["role"], "system");
  EXPECT_EQ(reqs[0]["messages"][1]["content"], "hello");
  EXPECT_EQ(reqs[0]["response_format"]["type"], "json_object");
  EXPECT_FALSE(reqs[0].contains("stream"));
  EXPECT_EQ(client->stats().prompt_tokens, 42u);
}

TEST_F(ChatClientTest, ApiKeyIsSentAsBearer) {
  ChatClientOptions o = Options();
  o.endpoint.api_key = "sekrit";
  auto client = Make(o);
  ASSERT_TRUE(client->Complete(Hello()).ok());
  EXPECT_EQ(server_.server().requests().back().header("authorization"), "Bearer sekrit");
}

TEST_F(ChatClientTest, BadOptionsAndRequestsAreRejectedWithoutSending) {
  ChatClientOptions o = Options();
  o.endpoint.model = "";
  EXPECT_EQ(ChatClient::Create(o).status().code(), StatusCode::kInvalidArgument);
  o = Options();
  o.endpoint.base_url = "ftp://x";
  EXPECT_EQ(ChatClient::Create(o).status().code(), StatusCode::kInvalidArgument);
  o = Options();
  o.temperature = 3;
  EXPECT_EQ(ChatClient::Create(o).status().code(), StatusCode::kInvalidArgument);
  auto client = Make(Options());
  ChatRequest req = Hello();
  req.response_format_json = "{not json";
  auto r = client->Complete(req);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("response_format"));
  req = Hello();
  req.messages[0].role = "tool";
  EXPECT_EQ(client->Complete(req).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client->Complete(ChatRequest{}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server_.server().request_count(), 0u);
}

TEST_F(ChatClientTest, EndpointResolution) {
  EXPECT_EQ(*ResolveChatEndpoint("http://h:1"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(*ResolveChatEndpoint("http://h:1/v1/"), "http://h:1/v1/chat/completions");
  EXPECT_EQ(*ResolveChatEndpoint("http://h:1/v1/chat/completions"), "http://h:1/v1/chat/completions");
  EXPECT_FALSE(ResolveChatEndpoint("h:1").ok());
  EXPECT_FALSE(ResolveChatEndpoint("http://h:1/?x=1").ok());
}

TEST_F(ChatClientTest, StreamDeliversDeltasAndUsageEvenWhenSplitAtEveryByte) {
  for (size_t split : {size_t{0}, size_t{1}, size_t{7}}) {
    for (bool crlf : {false, true}) {
      SCOPED_TRACE("split " + std::to_string(split) + " crlf " + std::to_string(crlf));
      ChatReply reply;
      reply.content = "Streaming \"works\" [1].\nÜnïcode too.";
      reply.split_every = split;
      reply.crlf = crlf;
      reply.prompt_tokens = 5;
      reply.completion_tokens = 9;
      server_.PushReply(reply);
      ChatClientOptions o = Options();
      o.endpoint.max_retries = 0;  // a retry would hide a framing bug behind the next reply
      auto client = Make(o);
      std::string seen;
      int deltas = 0;
      auto r = client->Stream(Hello(), [&](std::string_view d) {
        seen += d;
        ++deltas;
        return true;
      });
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(seen, reply.content);
      EXPECT_EQ(r->content, reply.content);
      EXPECT_GT(deltas, 3);
      EXPECT_EQ(r->finish_reason, "stop");
      EXPECT_EQ(r->prompt_tokens, 5u);
      EXPECT_EQ(r->completion_tokens, 9u);
    }
  }
  auto reqs = server_.chat_requests();
  ASSERT_FALSE(reqs.empty());
  EXPECT_EQ(reqs.back()["stream"], true);
  EXPECT_EQ(reqs.back()["stream_options"]["include_usage"], true);
}

TEST_F(ChatClientTest, SseStreamGivesTheSameEventsForEverySplit) {
  const std::string body =
      ": comment\r\n\r\ndata: {\"a\":1}\r\n\r\nevent: x\ndata: line1\ndata:line2\n\nid: 3\rdata: [DONE]\r\r";
  std::vector<SseEvent> whole;
  SseStream one;
  ASSERT_TRUE(one.Feed(body, &whole).ok());
  one.Finish(&whole);
  ASSERT_EQ(whole.size(), 3u);
  EXPECT_EQ(whole[0].data, "{\"a\":1}");
  EXPECT_EQ(whole[1].type, "x");
  EXPECT_EQ(whole[1].data, "line1\nline2");
  EXPECT_EQ(whole[2].data, "[DONE]");
  for (size_t cut = 0; cut <= body.size(); ++cut) {
    for (size_t cut2 = cut; cut2 <= body.size(); cut2 += 5) {
      SseStream s;
      std::vector<SseEvent> got;
      ASSERT_TRUE(s.Feed(std::string_view(body).substr(0, cut), &got).ok());
      ASSERT_TRUE(s.Feed(std::string_view(body).substr(cut, cut2 - cut), &got).ok());
      ASSERT_TRUE(s.Feed(std::string_view(body).substr(cut2), &got).ok());
      s.Finish(&got);
      ASSERT_EQ(got.size(), whole.size()) << "cuts " << cut << "," << cut2;
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_EQ(got[i].data, whole[i].data);
        EXPECT_EQ(got[i].type, whole[i].type);
      }
    }
  }
  // A last event without its blank line is dispatched by Finish(); an endless line is an error.
  SseStream tail;
  std::vector<SseEvent> got;
  ASSERT_TRUE(tail.Feed("data: [DONE]", &got).ok());
  EXPECT_TRUE(got.empty());
  tail.Finish(&got);
  ASSERT_EQ(got.size(), 1u);
  SseStream small(16);
  EXPECT_EQ(small.Feed(std::string(40, 'x'), &got).code(), StatusCode::kResourceExhausted);
}

TEST_F(ChatClientTest, MalformedStreamChunksAreErrorsNotCrashes) {
  std::string d;
  ChatStreamAccumulator a;
  EXPECT_EQ(a.Apply("{\"choices\": [", &d).code(), StatusCode::kCorruption);
  EXPECT_EQ(a.Apply("[1,2]", &d).code(), StatusCode::kCorruption);
  EXPECT_EQ(a.Apply(R"({"choices": "x"})", &d).code(), StatusCode::kCorruption);
  EXPECT_EQ(a.Apply(R"({"choices": [{"delta": {"content": 5}}]})", &d).code(), StatusCode::kCorruption);
  EXPECT_EQ(a.Apply(R"({"choices": [], "usage": {"prompt_tokens": -1}})", &d).code(), StatusCode::kCorruption);
  EXPECT_EQ(a.Apply(std::string(200, '[') + std::string(200, ']'), &d).code(), StatusCode::kCorruption);
  ASSERT_TRUE(a.Apply(R"({"choices": [{"delta": {"content": "ab"}}]})", &d).ok());
  EXPECT_EQ(d, "ab");
  auto cut = a.Finish();
  EXPECT_EQ(cut.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(cut.status().message(), HasSubstr("truncated"));
  auto err = a.Apply(R"({"error": {"message": "model overloaded", "type": "server_error"}})", &d);
  EXPECT_EQ(err.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(err.message(), HasSubstr("model overloaded"));
}

TEST_F(ChatClientTest, TruncatedStreamAndMidStreamErrorAreReported) {
  ChatReply cut;
  cut.content = "This answer never ends";
  cut.truncate = true;
  server_.PushReply(cut);
  auto client = Make(Options());
  auto r = client->Stream(Hello(), [](std::string_view) { return true; });
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r.status().message(), HasSubstr("truncated"));

  ChatReply err;
  err.content = "Partial answer";
  err.error_event = "the GPU caught fire";
  server_.PushReply(err);
  r = client->Stream(Hello(), [](std::string_view) { return true; });
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r.status().message(), HasSubstr("the GPU caught fire"));
}

TEST_F(ChatClientTest, StreamStoppedByTheCallerIsCancelled) {
  ChatReply reply;
  reply.content = "one two three four five six seven";
  server_.PushReply(reply);
  auto client = Make(Options());
  int calls = 0;
  auto r = client->Stream(Hello(), [&](std::string_view) { return ++calls < 2; });
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(calls, 2);
}

TEST_F(ChatClientTest, ServerThatIgnoresStreamIsAcceptedAsOneDelta) {
  ChatReply reply;
  reply.raw_body = ChatTestServer::CompletionBody(ChatReply{.content = "Whole answer."}, "m");
  server_.PushReply(reply);
  auto client = Make(Options());
  std::vector<std::string> deltas;
  auto r = client->Stream(Hello(), [&](std::string_view d) {
    deltas.emplace_back(d);
    return true;
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(deltas, std::vector<std::string>{"Whole answer."});
  EXPECT_EQ(r->model, "m");
}

TEST_F(ChatClientTest, MalformedCompletionsAreUpstreamErrorsNamingTheField) {
  auto client = Make(Options());
  server_.server().PushFault(OpenAiFault{.malformed_json = true});
  auto r = client->Complete(Hello());
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r.status().message(), HasSubstr("malformed JSON"));
  server_.PushReply(ChatReply{.raw_body = R"({"choices": [{"message": {"content": 5}}]})"});
  r = client->Complete(Hello());
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r.status().message(), HasSubstr("choices[0].message.content"));
  server_.PushReply(ChatReply{.raw_body = R"({"choices": []})"});
  EXPECT_EQ(client->Complete(Hello()).status().code(), StatusCode::kUpstreamError);
  server_.PushReply(ChatReply{.raw_body = R"({"object": "list"})"});
  EXPECT_THAT(client->Complete(Hello()).status().message(), HasSubstr("choices"));
}

TEST_F(ChatClientTest, RateLimitThenOkRetriesHonouringRetryAfter) {
  auto client = Make(Options());
  server_.server().PushFault(OpenAiFault{.status = 429, .retry_after = "0"});
  server_.server().PushFault(OpenAiFault{.status = 503});
  auto r = client->Complete(Hello());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(client->stats().retries, 2u);
  ASSERT_EQ(clock_.delays_ms().size(), 2u);
  EXPECT_EQ(clock_.delays_ms()[0], 0);  // Retry-After: 0
  EXPECT_LE(clock_.delays_ms()[1], 10);  // backoff: 5 ms * 2^1 with jitter
}

TEST_F(ChatClientTest, RetriesAreBoundedAndClientErrorsAreNotRetried) {
  auto client = Make(Options());  // max_retries 2
  server_.server().PushFault(OpenAiFault{.status = 500}, 3);
  ChatCallInfo info;
  auto r = client->Complete(Hello(), &info);
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r.status().message(), HasSubstr("after 3 attempts"));
  EXPECT_EQ(info.attempts, 3u);
  server_.server().PushFault(OpenAiFault{.status = 400});
  r = client->Complete(Hello(), &info);
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_EQ(info.http_status, 400);
  EXPECT_EQ(info.attempts, 1u);
  server_.server().PushFault(OpenAiFault{.status = 404});
  EXPECT_EQ(client->Complete(Hello()).status().code(), StatusCode::kUpstreamError);
}

TEST_F(ChatClientTest, SlowServerTimesOut) {
  ChatClientOptions o = Options();
  o.endpoint.timeout_ms = 200;
  o.endpoint.max_retries = 0;
  auto client = Make(o);
  server_.server().PushFault(OpenAiFault{.delay_ms = 2000});
  const auto t0 = std::chrono::steady_clock::now();
  ChatCallInfo info;
  auto r = client->Complete(Hello(), &info);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(info.failure, HttpFailure::kTimeout);
  EXPECT_LT(ms.count(), 1500);
  // A stream whose pieces come too slowly times out too.
  ChatReply slow;
  slow.content = "slow slow slow slow";
  slow.split_every = 20;
  slow.piece_delay_ms = 150;
  server_.PushReply(slow);
  r = client->Stream(Hello(), [](std::string_view) { return true; });
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(ChatClientTest, RefusalsAreSurfaced) {
  auto client = Make(Options());
  server_.PushReply(ChatReply{.refusal = "I can't help with that."});
  auto r = client->Complete(Hello());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->refused());
  EXPECT_EQ(r->refusal, "I can't help with that.");
  EXPECT_EQ(r->content, "");

  server_.PushReply(ChatReply{.content = "", .finish_reason = "content_filter"});
  r = client->Complete(Hello());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->refused());
  EXPECT_THAT(r->refusal, HasSubstr("content_filter"));

  server_.PushReply(ChatReply{.refusal = "No, sorry."});
  std::string seen;
  r = client->Stream(Hello(), [&](std::string_view d) {
    seen += d;
    return true;
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->refusal, "No, sorry.");
  EXPECT_EQ(seen, "");  // refusal text is not content
}

}  // namespace
}  // namespace attest
