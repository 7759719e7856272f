// The one model HTTP client (src/models/model_http_client.h): how upstream failures become Status
// codes, checked for every model client (embeddings, chat, chat streaming, rerank) against the local
// OpenAI-protocol test servers over loopback; plus the pure pieces (Retry-After, error bodies, URLs).
#include "models/model_http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "embed/openai_embedder.h"
#include "llm/chat_client.h"
#include "rerank/http_reranker.h"
#include "support/chat_test_server.h"
#include "support/fake_clock.h"
#include "support/rerank_test_server.h"

namespace attest {
namespace {

using testing_support::ChatTestServer;
using testing_support::FakeClock;
using testing_support::OpenAiFault;
using testing_support::OpenAiTestServer;
using testing_support::RerankTestServer;
using ::testing::HasSubstr;

enum class ClientKind { kEmbeddings, kChat, kChatStream, kRerank };

std::string KindName(ClientKind k) {
  switch (k) {
    case ClientKind::kEmbeddings: return "Embeddings";
    case ClientKind::kChat: return "Chat";
    case ClientKind::kChatStream: return "ChatStream";
    case ClientKind::kRerank: return "Rerank";
  }
  return "Unknown";
}

std::string HttpDate(std::chrono::system_clock::time_point t) {
  const time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

// One call of the client of GetParam() against its test server; the Status of the call.
class ModelFailureMappingTest : public ::testing::TestWithParam<ClientKind> {
 protected:
  OpenAiTestServer& server() { return GetParam() == ClientKind::kRerank ? rerank_.server() : chat_.server(); }
  std::string base_url() { return server().base_url(); }

  ModelEndpoint Endpoint(const std::string& base, uint32_t max_retries = 0) {
    ModelEndpoint e;
    e.base_url = base;
    e.model = "m";
    e.timeout_ms = 2000;
    e.connect_timeout_ms = 500;
    e.max_retries = max_retries;
    e.backoff_initial_ms = 5;
    e.backoff_max_ms = 10;
    e.clock = &clock_;
    return e;
  }

  Status Call(const ModelEndpoint& endpoint) {
    switch (GetParam()) {
      case ClientKind::kEmbeddings: {
        OpenAiEmbedderOptions o;
        o.endpoint = endpoint;
        o.dimension = 32;
        auto e = OpenAiEmbedder::Create(o);
        if (!e.ok()) return e.status();
        const std::vector<std::string_view> texts = {"hello world"};
        return (*e)->Embed(texts, EmbedPurpose::kQuery).status();
      }
      case ClientKind::kChat:
      case ClientKind::kChatStream: {
        ChatClientOptions o;
        o.endpoint = endpoint;
        auto c = ChatClient::Create(o);
        if (!c.ok()) return c.status();
        const ChatRequest request{{{"user", "hello"}}, "", std::nullopt};
        if (GetParam() == ClientKind::kChat) return (*c)->Complete(request).status();
        return (*c)->Stream(request, [](std::string_view) { return true; }).status();
      }
      case ClientKind::kRerank: {
        HttpRerankerOptions o;
        o.endpoint = endpoint;
        auto r = HttpReranker::Create(o);
        if (!r.ok()) return r.status();
        return (*r)->Score("solar power", {"solar panels", "wind"}).status();
      }
    }
    return Status::Internal("unknown client kind");
  }
  Status Call() { return Call(Endpoint(base_url())); }

  ChatTestServer chat_;      // embeddings and chat routes
  RerankTestServer rerank_;  // rerank routes
  FakeClock clock_;
};

TEST_P(ModelFailureMappingTest, SucceedsAgainstAHealthyServer) {
  const Status st = Call();
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST_P(ModelFailureMappingTest, Upstream429IsUnavailableCarryingRetryAfterSeconds) {
  server().PushFault(OpenAiFault{.status = 429, .retry_after = "7"});
  const Status st = Call();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_EQ(st.retry_after_seconds(), 7);
  EXPECT_THAT(st.message(), HasSubstr("HTTP 429"));
  EXPECT_THAT(st.message(), HasSubstr(base_url()));
}

TEST_P(ModelFailureMappingTest, Upstream429WithAnHttpDateRetryAfter) {
  server().PushFault(OpenAiFault{.status = 429, .retry_after = HttpDate(clock_.WallNow() + std::chrono::seconds(30))});
  const Status st = Call();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_GE(st.retry_after_seconds(), 28);
  EXPECT_LE(st.retry_after_seconds(), 31);
}

TEST_P(ModelFailureMappingTest, Upstream503WithoutRetryAfterIsUnavailable) {
  server().PushFault(OpenAiFault{.status = 503});
  const Status st = Call();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_EQ(st.retry_after_seconds(), 0);
}

TEST_P(ModelFailureMappingTest, Upstream429IsRetriedAfterTheServersDelay) {
  server().PushFault(OpenAiFault{.status = 429, .retry_after = "2"});
  const Status st = Call(Endpoint(base_url(), /*max_retries=*/1));
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(clock_.delays_ms(), std::vector<int64_t>{2000});
}

TEST_P(ModelFailureMappingTest, Upstream500IsAnUpstreamError) {
  server().PushFault(OpenAiFault{.status = 500}, 2);
  const Status st = Call(Endpoint(base_url(), /*max_retries=*/1));
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("HTTP 500 after 2 attempts"));
  EXPECT_EQ(server().request_count(), 2u);
}

TEST_P(ModelFailureMappingTest, Upstream4xxIsAnUpstreamErrorNamingEndpointAndServerMessage) {
  for (int status : {400, 401, 403, 404, 422}) {
    server().PushFault(OpenAiFault{
        .status = status, .body = R"({"error":{"message":"no such model","type":"invalid_request_error"}})"});
    const Status st = Call(Endpoint(base_url(), /*max_retries=*/2));
    EXPECT_EQ(st.code(), StatusCode::kUpstreamError) << status << ": " << st.ToString();
    EXPECT_THAT(st.message(), HasSubstr("HTTP " + std::to_string(status) + ": invalid_request_error: no such model"));
    EXPECT_THAT(st.message(), HasSubstr("POST " + base_url()));
    EXPECT_THAT(st.message(), HasSubstr("refused the request"));
  }
  EXPECT_EQ(server().request_count(), 5u);  // never retried
}

TEST_P(ModelFailureMappingTest, SlowServerIsDeadlineExceeded) {
  ModelEndpoint e = Endpoint(base_url());
  e.timeout_ms = 200;
  server().PushFault(OpenAiFault{.delay_ms = 1500});
  const Status st = Call(e);
  EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("timed out"));
}

TEST_P(ModelFailureMappingTest, MalformedBodyIsAnUpstreamError) {
  server().PushFault(OpenAiFault{.malformed_json = true});
  const Status st = Call();
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr(base_url()));
}

TEST_P(ModelFailureMappingTest, ConnectionRefusedIsUnavailable) {
  int closed_port = 0;
  {
    OpenAiTestServer gone;
    closed_port = gone.port();
  }
  const Status st = Call(Endpoint("http://127.0.0.1:" + std::to_string(closed_port), /*max_retries=*/1));
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_THAT(st.message(), HasSubstr("after 2 attempts"));
  EXPECT_EQ(clock_.delays_ms().size(), 1u);
}

TEST_P(ModelFailureMappingTest, BadOptionsAreTheOnlyInvalidArgument) {
  ModelEndpoint e = Endpoint(base_url());
  e.api_key = "line\nbreak";
  EXPECT_EQ(Call(e).code(), StatusCode::kInvalidArgument);
  e = Endpoint("ftp://127.0.0.1");
  EXPECT_EQ(Call(e).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server().request_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(AllClients, ModelFailureMappingTest,
                         ::testing::Values(ClientKind::kEmbeddings, ClientKind::kChat, ClientKind::kChatStream,
                                           ClientKind::kRerank),
                         [](const ::testing::TestParamInfo<ClientKind>& info) { return KindName(info.param); });

// ---- the pure pieces ----------------------------------------------------------------------------

HttpResponse WithHeader(int status, const std::string& name, const std::string& value) {
  HttpResponse r;
  r.status = status;
  r.headers.push_back({name, value});
  return r;
}

TEST(ModelHttpStatusTest, RetryAfterForms) {
  const auto now = std::chrono::system_clock::from_time_t(1445412480);  // Wed, 21 Oct 2015 07:28:00 GMT
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "Retry-After", "3"), now), 3000);
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "Retry-After", " 1.5 "), now), 1500);
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "retry-after-ms", "250"), now), 250);
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "Retry-After", "Wed, 21 Oct 2015 07:28:30 GMT"), now), 30000);
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "Retry-After", "Wed, 21 Oct 2015 07:27:00 GMT"), now), 0);  // past
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "Retry-After", "soon"), now), std::nullopt);
  EXPECT_EQ(ServerRetryDelayMs(WithHeader(429, "Retry-After", "-1"), now), std::nullopt);
  EXPECT_EQ(ServerRetryDelayMs(HttpResponse{}, now), std::nullopt);
}

TEST(ModelHttpStatusTest, EveryStatusMapsToAModelCode) {
  const auto now = std::chrono::system_clock::now();
  for (int status = 300; status <= 599; ++status) {
    const Status st = ModelHttpStatus("POST http://h/x (model m)", WithHeader(status, "Retry-After", "2"), "", now);
    const bool unavailable = status == 429 || status == 503;
    EXPECT_EQ(st.code(), unavailable ? StatusCode::kUnavailable : StatusCode::kUpstreamError) << status;
    EXPECT_EQ(st.retry_after_seconds(), unavailable ? 2 : 0) << status;
    EXPECT_THAT(st.message(), HasSubstr("POST http://h/x (model m): HTTP " + std::to_string(status)));
  }
  // Fractions of a second round up: a client that waits the whole time is not early.
  EXPECT_EQ(ModelHttpStatus("w", WithHeader(429, "retry-after-ms", "1200"), "", now).retry_after_seconds(), 2);
}

TEST(ModelHttpStatusTest, TransportFailures) {
  const Status error = Status::IOError("POST http://h/x: something");
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kTimeout, error, "").code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kConnect, error, "").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kDns, error, "").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kTransfer, error, "").code(), StatusCode::kUnavailable);
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kTls, error, "").code(), StatusCode::kUpstreamError);
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kBodyTooLarge, error, "").code(), StatusCode::kUpstreamError);
  EXPECT_EQ(ModelTransportStatus(HttpFailure::kTimeout, error, " after 3 attempts").message(),
            "POST http://h/x: something after 3 attempts");
}

TEST(ModelHttpStatusTest, ErrorBodyMessages) {
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"error":{"message":"bad key","type":"auth"}})"), "auth: bad key");
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"error":"model not found"})"), "model not found");
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"message":"rate limited"})"), "rate limited");
  EXPECT_EQ(ExtractHttpErrorMessage("plain\ntext"), "plain text");
  EXPECT_EQ(ExtractHttpErrorMessage(""), "(empty body)");
  EXPECT_EQ(ExtractHttpErrorMessage(std::string(300, 'a')), std::string(200, 'a'));
}

TEST(ModelHttpStatusTest, UrlResolution) {
  const ModelPath path{"/v1", "/embeddings", "/v1/embeddings"};
  for (const char* base : {"http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/embeddings"}) {
    auto r = ResolveModelUrl("c", base, path);
    ASSERT_TRUE(r.ok()) << base;
    EXPECT_EQ(*r, "http://h:1/v1/embeddings") << base;
  }
  auto bad = ResolveModelUrl("some client", "http://u:secret@h 1", path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("some client: base_url"));
  EXPECT_THAT(bad.status().message(), ::testing::Not(HasSubstr("secret")));
}

}  // namespace
}  // namespace attest
