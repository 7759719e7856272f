// HttpReranker against the local rerank test server: every API shape, order restoration, batching,
// truncation, the retry policy and validation of every malformed answer.
#include "rerank/http_reranker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "models/model_http_client.h"
#include "support/fake_clock.h"
#include "support/rerank_test_server.h"

namespace attest {
namespace {

using testing_support::OpenAiFault;
using testing_support::RecordedRequest;
using testing_support::RerankAnswerFault;
using testing_support::RerankTestServer;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kQuery = "solar panel efficiency in winter";

// Scores 1.0, 0.4, 0.6, 0.0, 0.8 by word overlap: the server's (best-first) order is 0, 4, 2, 1, 3.
std::vector<std::string> FivePassages() {
  return {"Solar panel efficiency in winter drops with snow cover.",
          "Wind turbines in winter.",
          "Panel efficiency depends on temperature; solar output.",
          "A recipe for bread.",
          "In winter, solar panel output is lower."};
}

class HttpRerankerTest : public ::testing::Test {
 protected:
  HttpRerankerOptions Options(RerankApi api = RerankApi::kJina) {
    HttpRerankerOptions o;
    o.endpoint.base_url = server_.base_url();
    o.endpoint.model = "test-reranker";
    o.api = api;
    o.endpoint.timeout_ms = 2000;
    o.endpoint.connect_timeout_ms = 500;
    o.endpoint.backoff_initial_ms = 10;
    o.endpoint.backoff_max_ms = 40;
    o.endpoint.clock = &clock_;
    return o;
  }
  std::unique_ptr<HttpReranker> MakeOrDie(const HttpRerankerOptions& o) {
    auto r = HttpReranker::Create(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  // Scores kQuery against `passages` expecting one error; returns it.
  Status ScoreError(const HttpReranker& r, const std::vector<std::string>& passages) {
    auto s = r.Score(kQuery, passages);
    EXPECT_FALSE(s.ok());
    return s.ok() ? Status::Ok() : s.status();
  }

  RerankTestServer server_;
  testing_support::FakeClock clock_;
};

// ---- every API shape --------------------------------------------------------------------------

class HttpRerankerApiTest : public HttpRerankerTest, public ::testing::WithParamInterface<RerankApi> {};

TEST_P(HttpRerankerApiTest, ScoresComeBackInInputOrder) {
  const RerankApi api = GetParam();
  auto r = MakeOrDie(Options(api));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->name(), std::string(RerankApiName(api)) + ":test-reranker");
  const std::vector<std::string> passages = FivePassages();
  auto scores = r->Score(kQuery, passages);
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  ASSERT_EQ(scores->size(), passages.size());
  const std::vector<double> expected = {1.0, 0.4, 0.6, 0.0, 0.8};
  for (size_t i = 0; i < passages.size(); ++i) {
    EXPECT_DOUBLE_EQ((*scores)[i], expected[i]) << "passage " << i;
    EXPECT_DOUBLE_EQ((*scores)[i], RerankTestServer::OverlapScore(kQuery, passages[i]));
  }

  const std::vector<RecordedRequest> reqs = server_.rerank_requests();
  ASSERT_EQ(reqs.size(), 1u);
  const nlohmann::json& body = reqs[0].json;
  EXPECT_EQ(body["query"], kQuery);
  switch (api) {
    case RerankApi::kTei:
      EXPECT_EQ(reqs[0].path, "/rerank");
      EXPECT_EQ(body["texts"], nlohmann::json(passages));
      EXPECT_EQ(body["raw_scores"], false);
      EXPECT_FALSE(body.contains("model"));
      break;
    case RerankApi::kJina:
    case RerankApi::kCohere:
    case RerankApi::kCohereV2:
      EXPECT_EQ(reqs[0].path, api == RerankApi::kCohereV2 ? "/v2/rerank" : "/v1/rerank");
      EXPECT_EQ(body["model"], "test-reranker");
      EXPECT_EQ(body["documents"], nlohmann::json(passages));
      EXPECT_EQ(body["top_n"], passages.size());
      break;
  }
  EXPECT_EQ(reqs[0].header("content-type"), "application/json");
  EXPECT_EQ(reqs[0].header("authorization"), "");
}

TEST_P(HttpRerankerApiTest, MissingIndexIsNamed) {
  auto r = MakeOrDie(Options(GetParam()));
  ASSERT_NE(r, nullptr);
  server_.PushAnswerFault(RerankAnswerFault::kMissingIndex);
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("1 of 5 passages not scored (index 4)"));
  EXPECT_THAT(st.message(), HasSubstr(server_.base_url()));
  EXPECT_THAT(st.message(), HasSubstr("reranking passages 0..4 of 5"));
}

TEST_P(HttpRerankerApiTest, WrongShapeIsAnUpstreamError) {
  auto r = MakeOrDie(Options(GetParam()));
  ASSERT_NE(r, nullptr);
  server_.PushAnswerFault(RerankAnswerFault::kWrongShape);
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr(GetParam() == RerankApi::kTei ? "expected a JSON array" : "expected a JSON object"));
}

INSTANTIATE_TEST_SUITE_P(AllApis, HttpRerankerApiTest,
                         ::testing::Values(RerankApi::kTei, RerankApi::kJina, RerankApi::kCohere, RerankApi::kCohereV2),
                         [](const auto& info) {
                           std::string n(RerankApiName(info.param));
                           return n == "cohere-v2" ? std::string("cohere_v2") : n;
                         });

// ---- batching, empties, truncation ------------------------------------------------------------

TEST_F(HttpRerankerTest, BatchesOf64AreMergedInOrder) {
  auto o = Options(RerankApi::kTei);
  o.max_batch = 64;
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  std::vector<std::string> passages;
  for (int i = 0; i < 150; ++i) {
    // Overlap varies with i so that each batch is reordered by the server.
    std::string p = "passage " + std::to_string(i);
    if (i % 2 == 0) p += " solar";
    if (i % 3 == 0) p += " panel";
    if (i % 5 == 0) p += " winter efficiency";
    passages.push_back(p);
  }
  auto scores = r->Score(kQuery, passages);
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  ASSERT_EQ(scores->size(), 150u);
  for (size_t i = 0; i < passages.size(); ++i) {
    EXPECT_DOUBLE_EQ((*scores)[i], RerankTestServer::OverlapScore(kQuery, passages[i])) << "passage " << i;
  }
  EXPECT_DOUBLE_EQ((*scores)[30], 0.8);  // solar panel winter efficiency
  const std::vector<RecordedRequest> reqs = server_.rerank_requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].json["texts"].size(), 64u);
  EXPECT_EQ(reqs[1].json["texts"].size(), 64u);
  EXPECT_EQ(reqs[2].json["texts"].size(), 22u);
  EXPECT_EQ(reqs[1].json["texts"][0], passages[64]);
  EXPECT_EQ(r->stats().passages, 150u);
}

TEST_F(HttpRerankerTest, EmptyPassageListMakesNoCall) {
  auto r = MakeOrDie(Options());
  ASSERT_NE(r, nullptr);
  auto scores = r->Score(kQuery, {});
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  EXPECT_TRUE(scores->empty());
  EXPECT_EQ(server_.server().request_count(), 0u);
}

TEST_F(HttpRerankerTest, BlankPassagesAreNotSentAndScoreLowest) {
  auto r = MakeOrDie(Options());
  ASSERT_NE(r, nullptr);
  std::vector<std::string> passages = {"solar panel", "", "solar panel efficiency in winter", "  \n"};
  auto scores = r->Score(kQuery, passages);
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  EXPECT_THAT(*scores, ::testing::ElementsAre(0.4, 0.4, 1.0, 0.4));
  const auto reqs = server_.rerank_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].json["documents"].size(), 2u);

  auto all_blank = r->Score(kQuery, {"", " "});
  ASSERT_TRUE(all_blank.ok()) << all_blank.status().ToString();
  EXPECT_THAT(*all_blank, ::testing::ElementsAre(0.0, 0.0));
  EXPECT_EQ(server_.rerank_requests().size(), 1u);
}

TEST_F(HttpRerankerTest, EmptyQueryIsInvalidArgument) {
  auto r = MakeOrDie(Options());
  ASSERT_NE(r, nullptr);
  auto scores = r->Score("  ", FivePassages());
  ASSERT_FALSE(scores.ok());
  EXPECT_EQ(scores.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(server_.server().request_count(), 0u);
}

TEST_F(HttpRerankerTest, LongPassagesAreCutAtCodePoints) {
  auto o = Options(RerankApi::kTei);
  o.max_passage_chars = 10;
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  // "é" is two bytes: 12 code points, 24 bytes.
  std::string accented;
  for (int i = 0; i < 12; ++i) accented += "\xC3\xA9";
  auto scores = r->Score(kQuery, {accented, "short"});
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  const auto reqs = server_.rerank_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].json["texts"][0].get<std::string>(), accented.substr(0, 20));
  EXPECT_EQ(reqs[0].json["texts"][1], "short");
  EXPECT_EQ(r->stats().truncated, 1u);
  EXPECT_EQ(TruncateUtf8("abc", 0), "abc");
  EXPECT_EQ(TruncateUtf8("abcdef", 3), "abc");
  EXPECT_EQ(TruncateUtf8("a\xC3\xA9" "b", 2), "a\xC3\xA9");
}

TEST_F(HttpRerankerTest, ApiKeyIsSentAsBearer) {
  auto o = Options();
  o.endpoint.api_key = "sekret-123";
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->Score(kQuery, FivePassages()).ok());
  const auto reqs = server_.rerank_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].header("authorization"), "Bearer sekret-123");
}

TEST_F(HttpRerankerTest, ConcurrentCallsAreIndependent) {
  auto r = MakeOrDie(Options(RerankApi::kCohere));
  ASSERT_NE(r, nullptr);
  std::vector<std::vector<double>> results(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::string> passages = FivePassages();
      passages.push_back("solar thread " + std::to_string(t));
      auto s = r->Score(kQuery, passages);
      if (s.ok()) results[t] = *s;
    });
  }
  for (std::thread& th : threads) th.join();
  for (const auto& res : results) {
    ASSERT_EQ(res.size(), 6u);
    EXPECT_DOUBLE_EQ(res[0], 1.0);
    EXPECT_DOUBLE_EQ(res[5], 0.2);
  }
  EXPECT_EQ(r->stats().requests, 4u);
  EXPECT_EQ(r->stats().passages, 24u);
}

// ---- retry policy -----------------------------------------------------------------------------

TEST_F(HttpRerankerTest, RetriesA429ThenSucceedsHonouringRetryAfter) {
  auto r = MakeOrDie(Options());
  ASSERT_NE(r, nullptr);
  server_.server().PushFault(OpenAiFault{.status = 429, .retry_after = "3"});
  auto scores = r->Score(kQuery, FivePassages());
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  EXPECT_DOUBLE_EQ((*scores)[0], 1.0);
  EXPECT_EQ(server_.rerank_requests().size(), 2u);
  EXPECT_THAT(clock_.delays_ms(), ::testing::ElementsAre(3000));
  EXPECT_EQ(r->stats().retries, 1u);
}

TEST_F(HttpRerankerTest, Persistent500FailsAfterTheRetries) {
  auto o = Options();
  o.endpoint.max_retries = 2;
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  server_.server().PushFault(OpenAiFault{.status = 500}, 3);
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("HTTP 500 after 3 attempts"));
  EXPECT_THAT(st.message(), HasSubstr("injected fault"));
  EXPECT_THAT(st.message(), HasSubstr("POST " + server_.base_url() + "/v1/rerank (jina:test-reranker)"));
  EXPECT_EQ(server_.rerank_requests().size(), 3u);
  ASSERT_EQ(clock_.delays_ms().size(), 2u);
  for (int64_t d : clock_.delays_ms()) {
    EXPECT_GE(d, 5);
    EXPECT_LE(d, 40);
  }
}

TEST_F(HttpRerankerTest, BadRequestIsNotRetriedAndItsMessageSurfaces) {
  auto r = MakeOrDie(Options(RerankApi::kCohereV2));
  ASSERT_NE(r, nullptr);
  server_.server().PushFault(
      OpenAiFault{.status = 400, .body = R"({"id":"x","message":"invalid request: model 'test-reranker' not found"})"});
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("HTTP 400: invalid request: model 'test-reranker' not found"));
  EXPECT_THAT(st.message(), Not(HasSubstr("attempts")));
  EXPECT_EQ(server_.rerank_requests().size(), 1u);
  EXPECT_TRUE(clock_.delays_ms().empty());
}

TEST_F(HttpRerankerTest, ServerValidationErrorsSurfacePerShape) {
  // A model-less Jina request is refused by the server with FastAPI's {"detail": ...}.
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"detail":"model is required"})"), "model is required");
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"detail":[{"loc":["body"],"msg":"field required"}]})"), "field required");
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"error":"Input validation error","error_type":"Validation"})"),
            "Input validation error");
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"error":{"message":"bad","type":"invalid_request_error"}})"),
            "invalid_request_error: bad");
  EXPECT_EQ(ExtractHttpErrorMessage("plain\ntext"), "plain text");
  EXPECT_EQ(ExtractHttpErrorMessage(""), "(empty body)");
  EXPECT_EQ(ExtractHttpErrorMessage(R"({"code":1e400})"), R"({"code":1e400})");  // no throw on overflow
  // End to end: TEI answers 422 to a request without texts; simulate with a verbatim body.
  auto r = MakeOrDie(Options(RerankApi::kTei));
  ASSERT_NE(r, nullptr);
  server_.server().PushFault(
      OpenAiFault{.status = 422, .body = R"({"error":"`texts` cannot be empty","error_type":"Validation"})"});
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("HTTP 422: `texts` cannot be empty"));
}

TEST_F(HttpRerankerTest, TimeoutIsDeadlineExceededNamingTheUrl) {
  auto o = Options();
  o.endpoint.timeout_ms = 200;
  o.endpoint.max_retries = 1;
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  server_.server().PushFault(OpenAiFault{.delay_ms = 1500}, 2);
  const auto start = std::chrono::steady_clock::now();
  const Status st = ScoreError(*r, FivePassages());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(st.message(), HasSubstr("timed out"));
  EXPECT_THAT(st.message(), HasSubstr("after 2 attempts"));
  EXPECT_THAT(st.message(), HasSubstr(server_.base_url() + "/v1/rerank"));
  EXPECT_LT(elapsed, std::chrono::milliseconds(1200));
  EXPECT_EQ(clock_.delays_ms().size(), 1u);
}

TEST_F(HttpRerankerTest, WrongPathIsAnUpstreamError) {
  auto o = Options();
  o.endpoint.base_url = server_.base_url() + "/nothing/here";
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("/nothing/here/v1/rerank"));
  EXPECT_EQ(server_.server().request_count(), 1u);
}

TEST_F(HttpRerankerTest, CredentialsInTheUrlAreRedacted) {
  auto o = Options();
  o.endpoint.base_url = "http://user:hunter2@127.0.0.1:" + std::to_string(server_.server().port());
  auto r = MakeOrDie(o);
  ASSERT_NE(r, nullptr);
  server_.server().PushFault(OpenAiFault{.status = 403});
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("http://***@127.0.0.1:"));
  EXPECT_THAT(st.message(), Not(HasSubstr("hunter2")));
}

// ---- malformed answers ------------------------------------------------------------------------

TEST_F(HttpRerankerTest, MalformedAnswersAreUpstreamErrorsNamingTheProblem) {
  auto r = MakeOrDie(Options());
  ASSERT_NE(r, nullptr);
  struct Case {
    RerankAnswerFault fault;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {RerankAnswerFault::kDuplicateIndex, "duplicate index"},
      {RerankAnswerFault::kOutOfRangeIndex, ".index 5 is out of range 0..4"},
      {RerankAnswerFault::kNonFiniteScore, "number overflow parsing '1e400'"},
      {RerankAnswerFault::kStringScore, "results[0].relevance_score must be a number, not string"},
  };
  for (const Case& c : cases) {
    server_.PushAnswerFault(c.fault);
    const Status st = ScoreError(*r, FivePassages());
    EXPECT_EQ(st.code(), StatusCode::kUpstreamError) << c.expect;
    EXPECT_THAT(st.message(), HasSubstr(c.expect));
  }
  server_.server().PushFault(OpenAiFault{.malformed_json = true});
  const Status st = ScoreError(*r, FivePassages());
  EXPECT_EQ(st.code(), StatusCode::kUpstreamError);
  EXPECT_THAT(st.message(), HasSubstr("malformed JSON"));
  EXPECT_TRUE(clock_.delays_ms().empty());  // a bad 2xx answer is not retried
}

TEST(RerankParseTest, RejectsEveryBadShape) {
  auto err = [](RerankApi api, std::string_view body, size_t n) {
    auto r = ParseRerankResponse(api, body, n);
    return r.ok() ? std::string("OK") : r.status().message();
  };
  EXPECT_THAT(err(RerankApi::kTei, R"([{"index":1,"score":0.5},{"index":0,"score":-2}])", 2), "OK");
  auto ok = ParseRerankResponse(RerankApi::kTei, R"([{"index":1,"score":0.5},{"index":0,"score":-2}])", 2);
  ASSERT_TRUE(ok.ok());
  EXPECT_THAT(*ok, ::testing::ElementsAre(-2.0, 0.5));
  EXPECT_THAT(err(RerankApi::kTei, R"([{"index":0.0,"score":1}])", 1), HasSubstr("index must be an integer"));
  EXPECT_THAT(err(RerankApi::kTei, R"([{"index":-1,"score":1}])", 1), HasSubstr("out of range"));
  EXPECT_THAT(err(RerankApi::kTei, R"([{"index":18446744073709551615,"score":1}])", 1), HasSubstr("out of range"));
  EXPECT_THAT(err(RerankApi::kTei, R"([{"index":0}])", 1), HasSubstr("has no \"score\""));
  EXPECT_THAT(err(RerankApi::kTei, R"([{"score":1}])", 1), HasSubstr("has no \"index\""));
  EXPECT_THAT(err(RerankApi::kTei, R"([1])", 1), HasSubstr("must be an object"));
  EXPECT_THAT(err(RerankApi::kTei, R"({"results":[]})", 1), HasSubstr("a Jina/Cohere answer?"));
  EXPECT_THAT(err(RerankApi::kJina, R"([])", 1), HasSubstr("a TEI answer?"));
  EXPECT_THAT(err(RerankApi::kJina, R"({"data":[]})", 1), HasSubstr("missing \"results\""));
  EXPECT_THAT(err(RerankApi::kJina, R"({"results":{}})", 1), HasSubstr("must be an array"));
  EXPECT_THAT(err(RerankApi::kJina, R"({"results":[{"index":0,"score":1}]})", 1),
              HasSubstr("has no \"relevance_score\""));
  EXPECT_THAT(err(RerankApi::kJina, R"({"results":[]})", 12),
              HasSubstr("12 of 12 passages not scored (index 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ...)"));
  EXPECT_THAT(err(RerankApi::kJina, std::string(100, '[') + std::string(100, ']'), 1), HasSubstr("nested deeper"));
  EXPECT_THAT(err(RerankApi::kJina, "", 1), HasSubstr("malformed JSON"));
  // Regression: nlohmann throws out_of_range (not parse_error) on a number that overflows a double.
  EXPECT_THAT(err(RerankApi::kTei, R"([{"index":0,"score":-1e400}])", 1), HasSubstr("number overflow"));
}

// ---- options and endpoints --------------------------------------------------------------------

TEST(RerankOptionsTest, EndpointResolution) {
  auto ep = [](std::string_view base, RerankApi api) {
    auto r = ResolveRerankEndpoint(base, api);
    return r.ok() ? *r : "ERR: " + r.status().message();
  };
  EXPECT_EQ(ep("http://h:1", RerankApi::kTei), "http://h:1/rerank");
  EXPECT_EQ(ep("http://h:1/", RerankApi::kJina), "http://h:1/v1/rerank");
  EXPECT_EQ(ep("http://h:1/v1", RerankApi::kCohere), "http://h:1/v1/rerank");
  EXPECT_EQ(ep("https://api.cohere.com/v2/", RerankApi::kCohereV2), "https://api.cohere.com/v2/rerank");
  EXPECT_EQ(ep("https://api.cohere.com", RerankApi::kCohereV2), "https://api.cohere.com/v2/rerank");
  EXPECT_EQ(ep("https://api.jina.ai/v1/rerank", RerankApi::kJina), "https://api.jina.ai/v1/rerank");
  EXPECT_THAT(ep("ftp://h", RerankApi::kJina), HasSubstr("must start with http:// or https://"));
  EXPECT_THAT(ep("h:1", RerankApi::kJina), HasSubstr("must start with"));
  EXPECT_THAT(ep("http://", RerankApi::kJina), HasSubstr("has no host"));
  EXPECT_THAT(ep("http://h/x?y=1", RerankApi::kJina), HasSubstr("query or fragment"));
  EXPECT_THAT(ep("http://h x", RerankApi::kJina), HasSubstr("whitespace"));
  EXPECT_THAT(ep("http://u:pw@h:1 x", RerankApi::kJina), Not(HasSubstr("pw")));
}

TEST(RerankOptionsTest, BadOptionsAreRejected) {
  HttpRerankerOptions good;
  good.endpoint.base_url = "http://127.0.0.1:1";
  good.endpoint.model = "m";
  ASSERT_TRUE(HttpReranker::Create(good).ok());
  auto bad = [&](auto mutate, const std::string& expect) {
    HttpRerankerOptions o = good;
    mutate(o);
    auto r = HttpReranker::Create(o);
    ASSERT_FALSE(r.ok()) << expect;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(expect));
  };
  bad([](HttpRerankerOptions& o) { o.endpoint.model.clear(); }, "model must not be empty");
  bad([](HttpRerankerOptions& o) { o.max_batch = 0; }, "max_batch must be in 1..1024");
  bad([](HttpRerankerOptions& o) { o.max_batch = 5000; }, "max_batch must be in 1..1024");
  bad([](HttpRerankerOptions& o) { o.endpoint.timeout_ms = 0; }, "timeout_ms must be positive");
  bad([](HttpRerankerOptions& o) { o.endpoint.max_retries = 50; }, "max_retries must be at most 20");
  bad([](HttpRerankerOptions& o) { o.endpoint.backoff_max_ms = 1; }, "backoff must satisfy");
  bad([](HttpRerankerOptions& o) { o.endpoint.base_url = "nope"; }, "base_url");
}

TEST(RerankOptionsTest, ApiNamesRoundTrip) {
  for (RerankApi api : {RerankApi::kTei, RerankApi::kJina, RerankApi::kCohere, RerankApi::kCohereV2}) {
    auto parsed = ParseRerankApi(RerankApiName(api));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, api);
  }
  EXPECT_FALSE(ParseRerankApi("openai").ok());
}

TEST(RerankOptionsTest, ConnectionRefusedIsUnavailableAfterRetries) {
  HttpRerankerOptions o;
  o.endpoint.base_url = "http://127.0.0.1:1";  // nothing listens on port 1
  o.endpoint.model = "m";
  o.endpoint.max_retries = 1;
  testing_support::FakeClock clock;
  o.endpoint.clock = &clock;
  auto r = HttpReranker::Create(o);
  ASSERT_TRUE(r.ok());
  auto s = (*r)->Score("q", {"p"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.status().message(), HasSubstr("http://127.0.0.1:1/v1/rerank"));
  EXPECT_THAT(s.status().message(), HasSubstr("after 2 attempts"));
}

}  // namespace
}  // namespace attest
