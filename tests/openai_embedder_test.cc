// OpenAiEmbedder against the local OpenAI-protocol test server: ordering, batching, auth,
// dimension handling, retry policy and validation of every malformed answer.
#include "embed/openai_embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "support/fake_clock.h"
#include "support/openai_test_server.h"

namespace attest {
namespace {

using testing_support::OpenAiFault;
using testing_support::OpenAiTestServer;
using testing_support::OpenAiTestServerOptions;
using ::testing::HasSubstr;

constexpr uint32_t kDim = 32;

class OpenAiEmbedderTest : public ::testing::Test {
 protected:
  OpenAiEmbedderOptions Options(const OpenAiTestServer& server) {
    OpenAiEmbedderOptions o;
    o.endpoint.base_url = server.base_url();
    o.endpoint.model = "test-model";
    o.dimension = kDim;
    o.endpoint.timeout_ms = 2000;
    o.endpoint.connect_timeout_ms = 500;
    o.endpoint.backoff_initial_ms = 10;
    o.endpoint.backoff_max_ms = 40;
    o.version = "v1";
    o.endpoint.clock = &clock_;
    return o;
  }
  std::unique_ptr<OpenAiEmbedder> MakeOrDie(const OpenAiEmbedderOptions& o) {
    auto e = OpenAiEmbedder::Create(o);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  static std::vector<std::string_view> Views(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

  testing_support::FakeClock clock_;
};

std::vector<std::string> NumberedTexts(size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back("text number " + std::to_string(i) + " word" + std::to_string(i * 7));
  return out;
}

// {"index": i, "embedding": [1, 1, ..., last]} with kDim components.
std::string Row(int index, const std::string& last) {
  std::string row = "{\"index\":" + std::to_string(index) + ",\"embedding\":[";
  for (uint32_t k = 0; k + 1 < kDim; ++k) row += "1,";
  return row + last + "]}";
}

std::string BodyWithRows(const std::vector<std::string>& rows) {
  std::string body = "{\"data\":[";
  for (size_t i = 0; i < rows.size(); ++i) body += (i ? "," : "") + rows[i];
  return body + "]}";
}

void ExpectRowsMatchServer(const std::vector<float>& got, const std::vector<std::string>& texts, const std::string& prefix) {
  ASSERT_EQ(got.size(), texts.size() * kDim);
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::vector<float> want = OpenAiTestServer::HashEmbedding(prefix + texts[i], kDim);
    for (uint32_t k = 0; k < kDim; ++k) {
      ASSERT_NEAR(got[i * kDim + k], want[k], 1e-6) << "row " << i << " component " << k;
    }
  }
}

TEST_F(OpenAiEmbedderTest, RowsFollowIndexEvenWhenServerShuffles) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim, .shuffle_response = true});
  auto e = MakeOrDie(Options(server));
  ASSERT_NE(e, nullptr);
  const std::vector<std::string> texts = {"alpha beta", "gamma delta", "epsilon", "zeta eta theta", "iota kappa"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectRowsMatchServer(*got, texts, "");
  // The server really did scramble the order.
  HttpClient raw;
  HttpRequest req{.method = "POST",
                  .url = e->endpoint(),
                  .headers = {{"Content-Type", "application/json"}},
                  .body = server.requests()[0].body};
  auto answer = raw.Send(req);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  ASSERT_EQ(answer->status, 200) << answer->body;
  std::vector<int> order;
  const nlohmann::json parsed = nlohmann::json::parse(answer->body);
  for (const auto& item : parsed.at("data")) order.push_back(item.at("index").get<int>());
  EXPECT_EQ(order.size(), texts.size());
  EXPECT_FALSE(std::is_sorted(order.begin(), order.end())) << ::testing::PrintToString(order);
  server.ClearRequests();
  auto again = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_TRUE(again.ok());
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].path, "/v1/embeddings");
  EXPECT_EQ(reqs[0].json["model"], "test-model");
  EXPECT_EQ(reqs[0].json["encoding_format"], "float");
  EXPECT_EQ(reqs[0].json["input"].size(), texts.size());
  EXPECT_EQ(e->identity().name, "openai:test-model");
  EXPECT_EQ(e->identity().dim, kDim);
  EXPECT_EQ(e->identity().version, "v1");
  // Rows are unit length, and texts sharing words are closer than unrelated ones.
  double norm = 0;
  for (uint32_t k = 0; k < kDim; ++k) norm += double((*got)[k]) * (*got)[k];
  EXPECT_NEAR(norm, 1.0, 1e-5);
}

TEST_F(OpenAiEmbedderTest, BatchesOf64Split150Inputs) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto e = MakeOrDie(Options(server));
  ASSERT_NE(e, nullptr);
  const auto texts = NumberedTexts(150);
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectRowsMatchServer(*got, texts, "");
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].json["input"].size(), 64u);
  EXPECT_EQ(reqs[1].json["input"].size(), 64u);
  EXPECT_EQ(reqs[2].json["input"].size(), 22u);
  EXPECT_EQ(reqs[2].json["input"][21], texts[149]);
  EXPECT_EQ(e->stats().texts, 150u);
}

TEST_F(OpenAiEmbedderTest, AuthorizationHeaderSentIffKeyGiven) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim, .required_api_key = "sk-secret"});
  auto o = Options(server);
  const std::vector<std::string> texts = {"hello world"};
  {
    auto e = MakeOrDie(o);
    ASSERT_NE(e, nullptr);
    auto got = e->Embed(Views(texts), EmbedPurpose::kQuery);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kUpstreamError);  // our configuration, not the caller's input
    EXPECT_THAT(got.status().message(), HasSubstr("HTTP 401"));
    EXPECT_THAT(got.status().message(), HasSubstr("Incorrect API key provided."));
    ASSERT_EQ(server.request_count(), 1u);  // 401 is not retried
    EXPECT_EQ(server.requests()[0].header("authorization"), "");
  }
  o.endpoint.api_key = "sk-secret";
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  auto got = e->Embed(Views(texts), EmbedPurpose::kQuery);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(server.requests().back().header("authorization"), "Bearer sk-secret");
  // The key never appears in errors or identity.
  EXPECT_EQ(e->identity().version.find("sk-"), std::string::npos);
}

TEST_F(OpenAiEmbedderTest, DimensionZeroIsLearnedByAProbeThenEnforced) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = 24});
  auto o = Options(server);
  o.dimension = 0;
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->identity().dim, 24u);
  EXPECT_EQ(server.request_count(), 1u);
  server.PushFault(OpenAiFault{.wrong_dim = 25});
  const std::vector<std::string> texts = {"one", "two"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(got.ok());
  EXPECT_THAT(got.status().message(), HasSubstr("expected 24, got 25"));
}

TEST_F(OpenAiEmbedderTest, PrefixesFollowPurposeAndBlankTextsGetZeroRowsWithoutRequests) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto o = Options(server);
  o.query_prefix = "query: ";
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  const std::vector<std::string> texts = {"first doc", "", "  \n", "second doc"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].json["input"], nlohmann::json({"first doc", "second doc"}));
  for (uint32_t k = 0; k < kDim; ++k) {
    EXPECT_EQ((*got)[1 * kDim + k], 0.0f);
    EXPECT_EQ((*got)[2 * kDim + k], 0.0f);
  }
  const std::vector<float> want = OpenAiTestServer::HashEmbedding("second doc", kDim);
  EXPECT_NEAR((*got)[3 * kDim + 0], want[0], 1e-6);

  const std::vector<std::string> queries = {"what is it"};
  auto q = e->Embed(Views(queries), EmbedPurpose::kQuery);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(server.requests().back().json["input"][0], "query: what is it");

  const std::vector<std::string> blanks = {"", " "};
  auto z = e->Embed(Views(blanks), EmbedPurpose::kDocument);
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->size(), 2 * kDim);
  auto none = e->Embed({}, EmbedPurpose::kDocument);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(server.request_count(), 2u);
}

TEST_F(OpenAiEmbedderTest, RateLimitedThenSucceedsHonouringRetryAfter) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto o = Options(server);
  o.endpoint.retry_after_max_ms = 1500;
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  server.PushFault(OpenAiFault{.status = 429, .retry_after = "1"});
  server.PushFault(OpenAiFault{.status = 429, .retry_after = "120"});  // capped
  server.PushFault(OpenAiFault{.status = 429});                        // computed backoff
  const std::vector<std::string> texts = {"rate limited text"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectRowsMatchServer(*got, texts, "");
  EXPECT_EQ(server.request_count(), 4u);
  EXPECT_EQ(e->stats().retries, 3u);
  ASSERT_EQ(clock_.delays_ms().size(), 3u);
  EXPECT_EQ(clock_.delays_ms()[0], 1000);
  EXPECT_EQ(clock_.delays_ms()[1], 1500);
  // Third attempt (attempt index 2): 10 * 2^2 = 40 ms, jittered into [20, 40].
  EXPECT_GE(clock_.delays_ms()[2], 20);
  EXPECT_LE(clock_.delays_ms()[2], 40);
}

TEST_F(OpenAiEmbedderTest, ServerErrorsExhaustRetriesAndNameTheStatus) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto o = Options(server);
  o.endpoint.max_retries = 3;
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  server.PushFault(OpenAiFault{.status = 500}, 4);
  const std::vector<std::string> texts = {"x"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(got.status().message(), HasSubstr("HTTP 500 after 4 attempts"));
  EXPECT_THAT(got.status().message(), HasSubstr("injected fault"));
  EXPECT_THAT(got.status().message(), HasSubstr(server.base_url() + "/v1/embeddings"));
  EXPECT_EQ(server.request_count(), 4u);
  ASSERT_EQ(clock_.delays_ms().size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const int64_t full = std::min<int64_t>(10 << i, 40);
    EXPECT_GE(clock_.delays_ms()[i], full / 2) << i;
    EXPECT_LE(clock_.delays_ms()[i], full) << i;
  }
}

TEST_F(OpenAiEmbedderTest, BadRequestIsNotRetriedAndSurfacesTheServerMessage) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto e = MakeOrDie(Options(server));
  ASSERT_NE(e, nullptr);
  server.PushFault(OpenAiFault{
      .status = 400,
      .body = R"({"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}})"});
  const std::vector<std::string> texts = {"too long"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(got.status().message(),
              HasSubstr("HTTP 400: invalid_request_error: This model's maximum context length is 8192 tokens"));
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_TRUE(clock_.delays_ms().empty());

  // A non-JSON error body is quoted up to 200 bytes; 404 (a wrong URL or model) is kUpstreamError too.
  server.PushFault(OpenAiFault{.status = 404, .body = std::string(200, 'a') + "TAIL"});
  got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(got.status().message(), HasSubstr(std::string(200, 'a')));
  EXPECT_EQ(got.status().message().find("TAIL"), std::string::npos);
}

TEST_F(OpenAiEmbedderTest, SlowResponseTimesOutAndIsRetried) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto o = Options(server);
  o.endpoint.timeout_ms = 200;
  o.endpoint.max_retries = 0;
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  server.PushFault(OpenAiFault{.delay_ms = 700});
  const std::vector<std::string> texts = {"slow"};
  const auto start = std::chrono::steady_clock::now();
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(got.status().message(), HasSubstr("timed out"));
  EXPECT_THAT(got.status().message(), HasSubstr("timeout 200 ms"));
  EXPECT_LT(elapsed, std::chrono::milliseconds(600));

  // With one retry the second (fast) attempt succeeds.
  o.endpoint.max_retries = 1;
  auto e2 = MakeOrDie(o);
  ASSERT_NE(e2, nullptr);
  server.PushFault(OpenAiFault{.delay_ms = 700});
  got = e2->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(e2->stats().retries, 1u);
}

TEST_F(OpenAiEmbedderTest, WrongDimensionNamesExpectedAndGot) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto e = MakeOrDie(Options(server));
  ASSERT_NE(e, nullptr);
  server.PushFault(OpenAiFault{.wrong_dim = 16});
  const std::vector<std::string> texts = {"a", "b"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(got.status().message(), HasSubstr("dimension mismatch: expected 32, got 16"));
  EXPECT_EQ(server.request_count(), 1u);  // a bad answer is not retried
}

TEST_F(OpenAiEmbedderTest, MalformedAnswersAreUpstreamErrors) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim});
  auto e = MakeOrDie(Options(server));
  ASSERT_NE(e, nullptr);
  const std::vector<std::string> texts = {"a b", "c d", "e f"};
  struct Case {
    OpenAiFault fault;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {OpenAiFault{.malformed_json = true}, "malformed JSON"},
      {OpenAiFault{.missing_items = 1}, "expected 3 embeddings for 3 inputs, got 2"},
      {OpenAiFault{.duplicate_index = true}, "duplicate index"},
      {OpenAiFault{.non_finite = true}, "is not a finite float"},
      {OpenAiFault{.body = R"({"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":[1]},{"index":2,"embedding":[1]}]})"},
       "must be an array of numbers, not string"},
      {OpenAiFault{.body = R"({"data":[{"index":5,"embedding":[1]},{"index":1,"embedding":[1]},{"index":2,"embedding":[1]}]})"},
       "index 5 is out of range 0..2"},
      {OpenAiFault{.body = R"({"data":[{"embedding":[1]},{"index":1,"embedding":[1]},{"index":2,"embedding":[1]}]})"},
       "has no \"index\""},
      {OpenAiFault{.body = BodyWithRows({Row(0, "\"x\""), Row(1, "1"), Row(2, "1")})}, "data[0].embedding[31] must be a number, not string"},
      {OpenAiFault{.body = BodyWithRows({Row(0, "1"), Row(1, "null"), Row(2, "1")})}, "must be a number, not null"},
      {OpenAiFault{.body = R"({"object":"list"})"}, "missing \"data\""},
      {OpenAiFault{.body = std::string(100, '[') + std::string(100, ']')}, "nested deeper"},
  };
  for (const Case& c : cases) {
    server.PushFault(c.fault);
    auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
    ASSERT_FALSE(got.ok()) << c.expect;
    EXPECT_EQ(got.status().code(), StatusCode::kUpstreamError) << got.status().ToString();
    EXPECT_THAT(got.status().message(), HasSubstr(c.expect));
  }
  EXPECT_EQ(server.request_count(), cases.size());
}

TEST_F(OpenAiEmbedderTest, ConnectionRefusedIsRetriedThenReported) {
  int closed_port = 0;
  {
    OpenAiTestServer gone;
    closed_port = gone.port();
  }
  OpenAiEmbedderOptions o;
  o.endpoint.base_url = "http://127.0.0.1:" + std::to_string(closed_port) + "/v1/";
  o.endpoint.model = "m";
  o.dimension = 8;
  o.endpoint.max_retries = 2;
  o.endpoint.backoff_initial_ms = 1;
  o.endpoint.backoff_max_ms = 2;
  o.endpoint.clock = &clock_;
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->endpoint(), "http://127.0.0.1:" + std::to_string(closed_port) + "/v1/embeddings");
  const std::vector<std::string> texts = {"x"};
  auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(got.status().message(), HasSubstr("connection failed"));
  EXPECT_THAT(got.status().message(), HasSubstr("127.0.0.1:" + std::to_string(closed_port)));
  EXPECT_THAT(got.status().message(), HasSubstr("after 3 attempts"));
  EXPECT_EQ(clock_.delays_ms().size(), 2u);

  // With dimension 0 the probe fails inside Create().
  o.dimension = 0;
  o.endpoint.max_retries = 0;
  auto c = OpenAiEmbedder::Create(o);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("probing the embedding dimension"));
}

TEST_F(OpenAiEmbedderTest, ConcurrentCallersGetTheirOwnRows) {
  OpenAiTestServer server(OpenAiTestServerOptions{.dim = kDim, .shuffle_response = true});
  auto o = Options(server);
  o.batch_size = 7;
  auto e = MakeOrDie(o);
  ASSERT_NE(e, nullptr);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> texts;
      for (int i = 0; i < 30; ++i) texts.push_back("thread" + std::to_string(t) + " item" + std::to_string(i));
      auto got = e->Embed(Views(texts), EmbedPurpose::kDocument);
      if (!got.ok()) {
        failures[t] = 1;
        return;
      }
      for (size_t i = 0; i < texts.size(); ++i) {
        const auto want = OpenAiTestServer::HashEmbedding(texts[i], kDim);
        for (uint32_t k = 0; k < kDim; ++k) {
          if (std::fabs((*got)[i * kDim + k] - want[k]) > 1e-6) failures[t] = 2;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
  EXPECT_EQ(server.request_count(), 4u * 5u);  // ceil(30 / 7) = 5 batches each
}

TEST(OpenAiEmbedderOptionsTest, CreateRejectsInvalidOptions) {
  auto fails_with = [](OpenAiEmbedderOptions o, const std::string& needle) {
    auto e = OpenAiEmbedder::Create(o);
    ASSERT_FALSE(e.ok()) << needle;
    EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(e.status().message(), HasSubstr(needle));
  };
  OpenAiEmbedderOptions good;
  good.endpoint.base_url = "http://127.0.0.1:9";
  good.endpoint.model = "m";
  good.dimension = 4;
  auto o = good;
  o.endpoint.base_url = "ftp://host";
  fails_with(o, "must start with http:// or https://");
  o.endpoint.base_url = "localhost:8080";
  fails_with(o, "must start with http:// or https://");
  o.endpoint.base_url = "http://";
  fails_with(o, "has no host");
  o.endpoint.base_url = "http://user:pw@host/v1?x=1";
  fails_with(o, "must not contain a query");
  o = good;
  o.endpoint.model = "";
  fails_with(o, "model must not be empty");
  o = good;
  o.batch_size = 0;
  fails_with(o, "batch_size must be in 1..2048, got 0");
  o.batch_size = 2049;
  fails_with(o, "got 2049");
  o = good;
  o.endpoint.timeout_ms = 0;
  fails_with(o, "timeout_ms must be positive");
  o = good;
  o.endpoint.backoff_initial_ms = 100;
  o.endpoint.backoff_max_ms = 50;
  fails_with(o, "backoff");
  o = good;
  o.endpoint.max_retries = 1000;
  fails_with(o, "max_retries");
  // A valid configuration with a known dimension needs no server.
  auto e = OpenAiEmbedder::Create(good);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
}

TEST(OpenAiEmbedderOptionsTest, EndpointAcceptsBaseWithOrWithoutSlashAndV1) {
  for (const char* base : {"http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/", "http://h:1/v1/embeddings"}) {
    auto r = ResolveEmbeddingsEndpoint(base);
    ASSERT_TRUE(r.ok()) << base;
    EXPECT_EQ(*r, "http://h:1/v1/embeddings") << base;
  }
  auto r = ResolveEmbeddingsEndpoint("https://api.example.com/openai/v1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, "https://api.example.com/openai/v1/embeddings");
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// A number too large for a double makes nlohmann::json throw out_of_range, not parse_error: the
// client must turn it into an error, not crash.
TEST_F(OpenAiEmbedderTest, NumbersBeyondDoubleAreAnErrorNotACrash) {
  OpenAiTestServer server;
  auto e = MakeOrDie(Options(server));
  ASSERT_TRUE(e);
  OpenAiFault f;
  f.body = BodyWithRows({Row(0, "1e400")});
  server.PushFault(f, 1);
  std::vector<std::string> texts = {"one"};
  auto r = e->Embed(Views(texts), EmbedPurpose::kDocument);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError) << r.status().ToString();
}

}  // namespace
}  // namespace attest
