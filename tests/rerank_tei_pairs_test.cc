// TeiPairScorer (TEI's POST /predict with [query, passage] pairs) against the local rerank test
// server: the request shape, pairs of different queries in one call, scores equal to /rerank's,
// TEI's batch size limit, failures and slowness, and validation of every malformed answer.
#include "rerank/tei_pair_scorer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/fake_clock.h"
#include "support/rerank_test_server.h"

namespace attest {
namespace {

using testing_support::OpenAiFault;
using testing_support::RecordedRequest;
using testing_support::RerankTestServer;
using ::testing::HasSubstr;

class TeiPairScorerTest : public ::testing::Test {
 protected:
  TeiPairScorerOptions Options() {
    TeiPairScorerOptions o;
    o.endpoint.base_url = server_.base_url();
    o.endpoint.model = "test-reranker";
    o.endpoint.timeout_ms = 2000;
    o.endpoint.connect_timeout_ms = 500;
    o.endpoint.backoff_initial_ms = 10;
    o.endpoint.backoff_max_ms = 40;
    o.endpoint.clock = &clock_;
    return o;
  }
  std::unique_ptr<TeiPairScorer> MakeOrDie(const TeiPairScorerOptions& o) {
    auto r = TeiPairScorer::Create(o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  RerankTestServer server_;
  testing_support::FakeClock clock_;
};

TEST_F(TeiPairScorerTest, ScoresPairsOfDifferentQueriesInOneCall) {
  auto s = MakeOrDie(Options());
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name(), "tei-predict:test-reranker");
  EXPECT_EQ(s->endpoint(), server_.base_url() + "/predict");
  const std::vector<RerankPair> pairs = {{"solar panel winter", "Solar panels in winter."},
                                         {"bread recipe", "A recipe for bread."},
                                         {"solar panel winter", "Wind turbines."}};
  auto scores = s->ScorePairs(pairs);
  ASSERT_TRUE(scores.ok()) << scores.status().ToString();
  ASSERT_EQ(scores->size(), 3u);
  for (size_t i = 0; i < pairs.size(); ++i) {
    EXPECT_DOUBLE_EQ((*scores)[i], RerankTestServer::OverlapScore(pairs[i].query, pairs[i].passage)) << i;
  }
  const std::vector<RecordedRequest> reqs = server_.rerank_requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].path, "/predict");
  EXPECT_EQ(reqs[0].json["inputs"], nlohmann::json::parse(R"([["solar panel winter", "Solar panels in winter."],
      ["bread recipe", "A recipe for bread."], ["solar panel winter", "Wind turbines."]])"));
  EXPECT_EQ(reqs[0].json["truncate"], true);
  EXPECT_EQ(reqs[0].json["raw_scores"], false);
  EXPECT_EQ(s->stats().pairs, 3u);
}

TEST_F(TeiPairScorerTest, ScoresEqualThoseOfRerank) {
  // The same pairs through /rerank (one query) and /predict score the same.
  HttpRerankerOptions ro;
  ro.endpoint.base_url = server_.base_url();
  ro.endpoint.model = "test-reranker";
  ro.api = RerankApi::kTei;
  auto rerank = HttpReranker::Create(ro);
  ASSERT_TRUE(rerank.ok());
  const std::string q = "solar panel efficiency in winter";
  const std::vector<std::string> passages = {"Solar panel efficiency in winter drops.", "Wind turbines in winter.",
                                             "A recipe for bread."};
  auto via_rerank = (*rerank)->Score(q, passages);
  ASSERT_TRUE(via_rerank.ok());
  auto s = MakeOrDie(Options());
  std::vector<RerankPair> pairs;
  for (const std::string& p : passages) pairs.push_back({q, p});
  auto via_predict = s->ScorePairs(pairs);
  ASSERT_TRUE(via_predict.ok());
  EXPECT_EQ(*via_rerank, *via_predict);
}

TEST_F(TeiPairScorerTest, LongPassagesAreCut) {
  TeiPairScorerOptions o = Options();
  o.max_passage_chars = 5;
  auto s = MakeOrDie(o);
  ASSERT_TRUE(s->ScorePairs({{"q", "h\xC3\xA9llo world"}}).ok());
  EXPECT_EQ(server_.rerank_requests()[0].json["inputs"][0][1], "h\xC3\xA9llo");
  EXPECT_EQ(s->stats().truncated, 1u);
}

TEST_F(TeiPairScorerTest, MoreInputsThanTheServerAllowsIsAnUpstreamError) {
  server_.set_max_client_batch(2);
  auto s = MakeOrDie(Options());
  auto r = s->ScorePairs({{"q", "a"}, {"q", "b"}, {"q", "c"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUpstreamError);
  EXPECT_THAT(r.status().message(), HasSubstr("413"));
  EXPECT_THAT(r.status().message(), HasSubstr("maximum allowed batch size 2"));
}

TEST_F(TeiPairScorerTest, OverloadIsRetriedThenUnavailable) {
  server_.server().PushFault(OpenAiFault{.status = 503}, 1);
  auto s = MakeOrDie(Options());
  ASSERT_TRUE(s->ScorePairs({{"q", "a"}}).ok());
  EXPECT_EQ(s->stats().retries, 1u);
  server_.server().PushFault(OpenAiFault{.status = 503}, 3);
  TeiPairScorerOptions o = Options();
  o.endpoint.max_retries = 2;
  auto t = MakeOrDie(o);
  auto r = t->ScorePairs({{"q", "a"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
}

TEST_F(TeiPairScorerTest, ASlowServerTimesOut) {
  server_.set_model_delay_ms(600);
  TeiPairScorerOptions o = Options();
  o.endpoint.timeout_ms = 200;
  o.endpoint.max_retries = 0;
  auto s = MakeOrDie(o);
  auto r = s->ScorePairs({{"q", "a"}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(TeiPairScorerTest, TooManyPairsForOneCallIsRefusedBeforeSending) {
  TeiPairScorerOptions o = Options();
  o.max_pairs = 2;
  auto s = MakeOrDie(o);
  EXPECT_EQ(s->ScorePairs({{"q", "a"}, {"q", "b"}, {"q", "c"}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(server_.rerank_requests().empty());
  o.max_pairs = 0;
  EXPECT_EQ(TeiPairScorer::Create(o).status().code(), StatusCode::kInvalidArgument);
}

TEST(ParsePredictResponse, ValidAnswer) {
  auto r = ParsePredictResponse(R"([[{"score":0.9,"label":"LABEL_0"}],[{"score":-1.5,"label":"LABEL_0"}]])", 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (std::vector<double>{0.9, -1.5}));
}

TEST(ParsePredictResponse, EveryMalformedAnswerIsNamed) {
  struct Case {
    const char* body;
    size_t count;
    const char* says;
  };
  const Case cases[] = {
      {R"({"error":"x"})", 1, "expected a JSON array"},
      {R"([[{"score":0.5}]])", 2, "1 entries for 2 pairs"},
      {R"([{"score":0.5,"label":"LABEL_0"}])", 1, "a single-input answer?"},
      {R"([[{"score":0.5,"label":"a"},{"score":0.1,"label":"b"}]])", 1, "has 2 predictions"},
      {R"([[]])", 1, "has 0 predictions"},
      {R"([[{"label":"a"}]])", 1, "has no \"score\""},
      {R"([[{"score":"0.5"}]])", 1, "score must be a number"},
      {R"([[{"score":1e400}]])", 1, "malformed JSON"},
      {R"([[7]])", 1, "[0][0] must be an object"},
      {R"([[{"score":0.5}])", 1, "malformed JSON"},
  };
  for (const Case& c : cases) {
    auto r = ParsePredictResponse(c.body, c.count);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << c.body;
    EXPECT_THAT(r.status().message(), HasSubstr(c.says)) << c.body;
  }
}

}  // namespace
}  // namespace attest
