// Black-box tests of `attest serve`: the real binary on an ephemeral port, spoken to over HTTP and
// SSE. Covers every route, the error contract, identity and isolation, caches, revocation, audit.
#include <csignal>
#include <fstream>
#include <future>
#include <regex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::CreateApiKey;
using testing_support::RunAttest;
using testing_support::SetPrincipal;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;

using Server = testing_support::ServeProcess;

class ServeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = dir_->str("data");
    admin_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    alice_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "alice"});
    bob_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "bob"});
    carol_ = CreateApiKey(data_, {"--tenant", "bolt", "--user", "carol"});
    limited_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "lim", "--rate", "0.5"});
    SetPrincipal(data_, "acme", "alice", "eng");
    SetPrincipal(data_, "acme", "bob", "sales");
    server_ = new Server(data_, {}, {"--group-cache-ttl-ms", "300", "--max-body-bytes", "300000"});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    json batch = {{"documents",
                   {{{"id", "refunds"}, {"title", "Refund policy"},
                     {"text", "Acme refund policy allows returns within thirty days of purchase. Refunds are paid to "
                              "the original card within five business days."}},
                    {{"id", "deploys"}, {"title", "Deployment procedure"}, {"acl_groups", {"eng"}},
                     {"text", "The deployment procedure uses blue green releases. Every deployment is approved by "
                              "the platform team before traffic moves."}},
                    {{"id", "discounts"}, {"title", "Discount policy"}, {"acl_groups", {"sales"}},
                     {"text", "The discount policy allows twenty percent off for annual plans. Discounts above "
                              "twenty percent need approval from the sales director."}}}}};
    HttpReply r = Call("POST", "/v1/documents:batch", admin_, batch.dump());
    ASSERT_EQ(r.status, 200) << r.body;
    // Bolt's document: an acme admin cannot write another tenant, the deployment operator can.
    const std::string ops = CreateApiKey(data_, {"--operator", "--user", "ops"});
    json bolt = {{"id", "refunds"}, {"tenant", "bolt"}, {"title", "Bolt refund policy"},
                 {"text", "Bolt refund policy allows returns within ninety days of purchase. Bolt refunds are "
                          "paid as store credit."}};
    r = Call("POST", "/v1/documents", ops, bolt.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }

  static HttpReply Call(const std::string& method, const std::string& path, const std::string& key,
                        const std::string& body = "", std::map<std::string, std::string> headers = {}) {
    HttpCall c;
    c.method = method;
    c.path = path;
    c.body = body;
    c.headers = std::move(headers);
    if (!key.empty()) c.headers["Authorization"] = "Bearer " + key;
    return HttpRequest(server_->port(), c);
  }
  static json Body(const HttpReply& r) {
    auto j = json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  static std::set<std::string> HitIds(const json& body) {
    std::set<std::string> ids;
    for (const auto& h : body.at("hits")) ids.insert(h.at("doc_id").get<std::string>());
    return ids;
  }
  static void ExpectError(const HttpReply& r, int status, const std::string& code, const std::string& field) {
    EXPECT_EQ(r.status, status) << r.body;
    json j = Body(r);
    ASSERT_TRUE(j.contains("error")) << r.body;
    EXPECT_EQ(j["error"].value("code", ""), code) << r.body;
    EXPECT_EQ(j["error"].value("field", "?"), field) << r.body;
    EXPECT_FALSE(j["error"].value("message", "").empty());
    EXPECT_FALSE(r.Header("x-request-id").empty());
    EXPECT_NE(r.Header("x-attest-version").find("api/v1"), std::string::npos);
  }

  static TempDir* dir_;
  static std::string data_, admin_, alice_, bob_, carol_, limited_;
  static Server* server_;
};

TempDir* ServeTest::dir_ = nullptr;
Server* ServeTest::server_ = nullptr;
std::string ServeTest::data_, ServeTest::admin_, ServeTest::alice_, ServeTest::bob_, ServeTest::carol_,
    ServeTest::limited_;

TEST_F(ServeTest, OperationalRoutes) {
  HttpReply h = Call("GET", "/healthz", "");
  EXPECT_EQ(h.status, 200);
  EXPECT_EQ(Body(h).value("status", ""), "ok");
  HttpReply ready = Call("GET", "/readyz", "");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(Body(ready)["versions"].value("api", ""), "v1");
  Call("POST", "/v1/search", alice_, R"({"query":"refund"})");
  HttpReply m = Call("GET", "/metrics", "");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.Header("content-type").find("text/plain"), std::string::npos);
  for (const char* series : {"attest_http_requests_total{", "attest_http_request_seconds_bucket{",
                             "attest_cache_requests_total{", "attest_stage_seconds_bucket{", "attest_audit_failures_total"}) {
    EXPECT_NE(m.body.find(series), std::string::npos) << series;
  }
  HttpReply o = Call("GET", "/v1/openapi.json", "");
  EXPECT_EQ(o.status, 200);
  json doc = Body(o);
  for (const char* path : {"/v1/documents", "/v1/documents:batch", "/v1/documents/{id}", "/v1/search", "/v1/answer",
                           "/v1/threads", "/v1/threads/{id}/messages", "/v1/feedback", "/healthz", "/readyz",
                           "/metrics", "/v1/openapi.json"}) {
    EXPECT_TRUE(doc["paths"].contains(path)) << path;
  }
}

TEST_F(ServeTest, ErrorContract) {
  ExpectError(Call("POST", "/v1/search", "", R"({"query":"refund"})"), 401, "unauthorized", "");
  ExpectError(Call("POST", "/v1/search", "att_000000000000_nope", R"({"query":"refund"})"), 401, "unauthorized", "");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","colour":"red"})"), 400, "invalid_request", "colour");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","top_k":true})"), 400, "invalid_request", "top_k");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","top_k":"3"})"), 400, "invalid_request", "top_k");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","top_k":1000})"), 400, "invalid_request", "top_k");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"   "})"), 400, "invalid_request", "query");
  ExpectError(Call("POST", "/v1/search", alice_, json{{"query", std::string(2001, 'x')}}.dump()), 400,
              "invalid_request", "query");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","tenant":"../acme"})"), 400, "invalid_request",
              "tenant");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","groups":["sales"]})"), 400, "invalid_request",
              "groups");
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":)"), 400, "invalid_json", "");
  ExpectError(Call("POST", "/v1/search", alice_, R"(["refund"])"), 400, "invalid_request", "");
  ExpectError(Call("POST", "/v1/answer", alice_, R"({"query":"refund","writer":"poet"})"), 400, "invalid_request",
              "writer");
  ExpectError(Call("POST", "/v1/search", alice_, json{{"query", std::string(400000, 'x')}}.dump()), 413,
              "payload_too_large", "");
  ExpectError(Call("GET", "/v1/nothing-here", alice_), 404, "not_found", "");
  HttpReply wrong = Call("GET", "/v1/search", alice_);
  ExpectError(wrong, 405, "method_not_allowed", "");
  EXPECT_NE(wrong.Header("allow").find("POST"), std::string::npos);
  ExpectError(Call("POST", "/v1/search", alice_, R"({"query":"refund","tenant":"bolt"})"), 403, "forbidden", "tenant");
  // The request id is echoed when valid, assigned otherwise.
  HttpReply ok = Call("POST", "/v1/search", alice_, R"({"query":"refund"})", {{"X-Request-Id", "test-req-42"}});
  EXPECT_EQ(ok.Header("x-request-id"), "test-req-42");
  EXPECT_EQ(Body(ok).value("request_id", ""), "test-req-42");
  HttpReply assigned = Call("POST", "/v1/search", alice_, R"({"query":"refund"})", {{"X-Request-Id", "bad id!"}});
  EXPECT_NE(assigned.Header("x-request-id"), "bad id!");
  EXPECT_FALSE(assigned.Header("x-request-id").empty());
}

TEST_F(ServeTest, DocumentsRoutesAreIdempotentAndAdminOnly) {
  const json doc = {{"id", "handbook"}, {"title", "Handbook"},
                    {"text", "The handbook says office hours are nine to five on weekdays."}};
  HttpReply first = Call("POST", "/v1/documents", admin_, doc.dump());
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(Body(first).value("added", 0), 1);
  HttpReply again = Call("POST", "/v1/documents", admin_, doc.dump());
  EXPECT_EQ(Body(again).value("unchanged", 0), 1);
  ExpectError(Call("POST", "/v1/documents", alice_, doc.dump()), 403, "forbidden", "");
  HttpReply got = Call("GET", "/v1/documents/handbook", alice_);
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_NE(Body(got).value("text", "").find("office hours"), std::string::npos);
  // A document the caller's groups do not admit is indistinguishable from a missing one.
  ExpectError(Call("GET", "/v1/documents/deploys", bob_), 404, "not_found", "id");
  EXPECT_EQ(Call("GET", "/v1/documents/deploys", alice_).status, 200);
  ExpectError(Call("DELETE", "/v1/documents/handbook", alice_), 403, "forbidden", "");
  EXPECT_EQ(Call("DELETE", "/v1/documents/handbook", admin_).status, 200);
  ExpectError(Call("GET", "/v1/documents/handbook", alice_), 404, "not_found", "id");
  ExpectError(Call("DELETE", "/v1/documents/handbook", admin_), 404, "not_found", "id");
  // Ids with '/' (the CLI derives ids from relative paths) are addressed with %2F.
  ASSERT_EQ(Call("POST", "/v1/documents", admin_,
                 R"({"id":"guides/setup.md","text":"Setup takes ten minutes with the installer."})").status,
            200);
  HttpReply nested = Call("GET", "/v1/documents/guides%2Fsetup.md", alice_);
  EXPECT_EQ(nested.status, 200) << nested.body;
  EXPECT_EQ(Body(nested).value("id", ""), "guides/setup.md");
  EXPECT_EQ(Call("DELETE", "/v1/documents/guides%2Fsetup.md", admin_).status, 200);
  ExpectError(Call("POST", "/v1/documents", admin_, R"({"id":"x","text":"hi","content_type":"pdf"})"), 400,
              "invalid_request", "content_type");
}

TEST_F(ServeTest, SearchIsIsolatedByTenantAndGroups) {
  const std::string q = R"({"query":"policy procedure deployment discount refund","top_k":10})";
  std::set<std::string> alice = HitIds(Body(Call("POST", "/v1/search", alice_, q)));
  std::set<std::string> bob = HitIds(Body(Call("POST", "/v1/search", bob_, q)));
  std::set<std::string> carol = HitIds(Body(Call("POST", "/v1/search", carol_, q)));
  EXPECT_TRUE(alice.count("refunds") && alice.count("deploys"));
  EXPECT_FALSE(alice.count("discounts"));
  EXPECT_TRUE(bob.count("refunds") && bob.count("discounts"));
  EXPECT_FALSE(bob.count("deploys"));
  EXPECT_EQ(carol, std::set<std::string>{"refunds"});
  json c = Body(Call("POST", "/v1/search", carol_, q));
  EXPECT_NE(c["hits"][0].value("snippet", "").find("ninety"), std::string::npos);
}

TEST_F(ServeTest, AnswerJsonCitesOnlyTheCallersSources) {
  HttpReply r = Call("POST", "/v1/answer", carol_, R"({"query":"How many days do I have to return a purchase?","no_cache":true})");
  ASSERT_EQ(r.status, 200) << r.body;
  json a = Body(r);
  EXPECT_EQ(a.value("outcome", ""), "answer") << r.body;
  EXPECT_NE(a.value("answer", "").find("ninety"), std::string::npos) << r.body;
  EXPECT_EQ(a.value("answer", "").find("thirty"), std::string::npos);
  EXPECT_FALSE(a.value("answer_id", "").empty());
  EXPECT_TRUE(a.contains("versions"));
  for (const auto& s : a["sources"]) EXPECT_NE(s.value("text", "").find("Bolt"), std::string::npos);
}

// Issue 12: a planner problem costs quality, never availability. This question made /v1/answer
// answer 400 ("constraint exclude 'safe choice' cannot be kept out of the rewrite").
TEST_F(ServeTest, Issue12NegatedQuotedPhraseIsNotABadRequest) {
  HttpReply r = Call("POST", "/v1/answer", carol_,
                     R"({"query":"Which setting is, for most users, not the \"safe choice\" for refunds?","no_cache":true})");
  EXPECT_EQ(r.status, 200) << r.body;
  r = Call("POST", "/v1/answer", carol_, R"({"query":"refunds only for purchases, not purchases","no_cache":true})");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(ServeTest, AnswerStreamsEveryEventKind) {
  HttpCall c;
  c.method = "POST";
  c.path = "/v1/answer";
  c.headers = {{"Authorization", "Bearer " + alice_}, {"Accept", "text/event-stream"}};
  c.body = R"({"query":"How many days does the refund policy allow for returns?","no_cache":true})";
  std::vector<SseEvent> events;
  HttpReply r = SseRequest(server_->port(), c, &events);
  ASSERT_EQ(r.status, 200) << r.error;
  EXPECT_EQ(r.Header("content-type").rfind("text/event-stream", 0), 0u);
  EXPECT_EQ(r.Header("x-accel-buffering"), "no");
  std::vector<std::string> kinds;
  for (const auto& e : events) kinds.push_back(e.event);
  ASSERT_FALSE(kinds.empty());
  EXPECT_EQ(kinds.front(), "progress");
  EXPECT_EQ(kinds.back(), "done");
  auto pos = [&](const std::string& k) { return std::find(kinds.begin(), kinds.end(), k) - kinds.begin(); };
  EXPECT_LT(pos("sources"), pos("delta"));
  EXPECT_LT(pos("delta"), pos("sentence_done"));
  std::set<std::string> given;
  for (const auto& e : events) {
    json d = json::parse(e.data);
    if (e.event == "sources") {
      for (const auto& s : d["sources"]) given.insert(s.value("id", ""));
    }
    if (e.event == "sentence_done") {
      for (const auto& cite : d["citations"]) EXPECT_TRUE(given.count(cite.value("source", ""))) << e.data;
    }
    if (e.event == "done") {
      EXPECT_FALSE(d.value("answer_id", "").empty());
      EXPECT_GT(d.value("snapshot_version", 0), 0);
      EXPECT_TRUE(d.contains("timings_ms") && d.contains("tokens") && d.contains("cost") && d.contains("dropped_claims"));
      EXPECT_NE(d.value("answer", "").find("thirty"), std::string::npos) << e.data;
    }
  }
}

TEST_F(ServeTest, CachedAnswersReplayAsStreams) {
  HttpCall c;
  c.method = "POST";
  c.path = "/v1/answer";
  c.headers = {{"Authorization", "Bearer " + bob_}, {"Accept", "text/event-stream"}};
  c.body = R"({"query":"Who must approve discounts above twenty percent?"})";
  std::vector<SseEvent> first, second;
  ASSERT_EQ(SseRequest(server_->port(), c, &first).status, 200);
  ASSERT_EQ(SseRequest(server_->port(), c, &second).status, 200);
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  EXPECT_FALSE(json::parse(first.back().data).value("cached", true));
  EXPECT_EQ(json::parse(second.front().data).value("stage", ""), "cache");
  json done = json::parse(second.back().data);
  EXPECT_TRUE(done.value("cached", false));
  EXPECT_EQ(done.value("answer", ""), json::parse(first.back().data).value("answer", "?"));
  EXPECT_NE(done.value("answer", "").find("sales director"), std::string::npos) << done.dump();
}

TEST_F(ServeTest, ThreadsCarryFollowUpsAndBelongToTheirOwner) {
  HttpReply t = Call("POST", "/v1/threads", carol_, R"({"title":"returns"})");
  ASSERT_EQ(t.status, 201) << t.body;
  const std::string id = Body(t).value("thread_id", "");
  HttpReply first = Call("POST", "/v1/threads/" + id + "/messages", carol_, R"({"query":"What is the Bolt refund policy?"})");
  ASSERT_EQ(first.status, 200) << first.body;
  HttpReply follow = Call("POST", "/v1/threads/" + id + "/messages", carol_, R"({"query":"How are they paid?"})");
  ASSERT_EQ(follow.status, 200) << follow.body;
  ExpectError(Call("POST", "/v1/threads/" + id + "/messages", alice_, R"({"query":"refunds?"})"), 404, "not_found",
              "thread_id");
}

TEST_F(ServeTest, FeedbackFlagsAndInvalidatesACachedAnswer) {
  const std::string q = R"({"query":"Who approves every deployment?"})";
  json a1 = Body(Call("POST", "/v1/answer", alice_, q));
  ASSERT_EQ(a1.value("outcome", ""), "answer") << a1.dump();
  json a2 = Body(Call("POST", "/v1/answer", alice_, q));
  EXPECT_TRUE(a2.value("cached", false));
  EXPECT_NE(a2.value("answer_id", ""), a1.value("answer_id", ""));  // every answer delivered has its own id
  // Bob has other groups: never alice's cached answer.
  json b = Body(Call("POST", "/v1/answer", bob_, q));
  EXPECT_FALSE(b.value("cached", true));
  EXPECT_EQ(b.dump().find("platform team"), std::string::npos);
  const std::string claim = a1["claims"][0].value("id", "");
  json fb = {{"answer_id", a1["answer_id"]}, {"claim_id", claim}, {"kind", "wrong"}};
  HttpReply f = Call("POST", "/v1/feedback", alice_, fb.dump());
  ASSERT_EQ(f.status, 201) << f.body;
  EXPECT_TRUE(Body(f).value("cache_invalidated", false));
  EXPECT_FALSE(Body(Call("POST", "/v1/answer", alice_, q)).value("cached", true));
  ExpectError(Call("POST", "/v1/feedback", alice_, json{{"answer_id", "ans_missing"}, {"kind", "wrong"}}.dump()), 404,
              "not_found", "answer_id");
  ExpectError(Call("POST", "/v1/feedback", alice_, json{{"answer_id", a1["answer_id"]}, {"kind", "meh"}}.dump()), 400,
              "invalid_request", "kind");
  ExpectError(Call("POST", "/v1/feedback", alice_,
                   json{{"answer_id", a1["answer_id"]}, {"claim_id", "c99"}, {"kind", "stale"}}.dump()),
              400, "invalid_request", "claim_id");
  ExpectError(Call("POST", "/v1/feedback", carol_, fb.dump()), 404, "not_found", "answer_id");
}

TEST_F(ServeTest, ConcurrentCallersNeverSeeEachOthersChunksOrCachedResults) {
  const std::vector<std::string> questions = {
      R"({"query":"What does the policy allow?"})", R"({"query":"Who approves it?"})",
      R"({"query":"policy approval team director"})"};
  std::atomic<int> leaks{0}, answered{0};
  auto run = [&](const std::string& key, const std::string& forbidden_a, const std::string& forbidden_b) {
    for (int i = 0; i < 15; ++i) {
      for (const auto& q : questions) {
        for (const char* route : {"/v1/search", "/v1/answer"}) {
          HttpReply r = Call("POST", route, key, q);
          if (r.status != 200) continue;
          ++answered;
          if (r.body.find(forbidden_a) != std::string::npos || r.body.find(forbidden_b) != std::string::npos) ++leaks;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back(run, alice_, "\"discounts\"", "ninety");
    threads.emplace_back(run, bob_, "\"deploys\"", "ninety");
    threads.emplace_back(run, carol_, "\"deploys\"", "twenty percent");
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(leaks.load(), 0);
  EXPECT_GT(answered.load(), 400);
}

TEST_F(ServeTest, RateLimitIsPerCredential) {
  EXPECT_EQ(Call("POST", "/v1/search", limited_, R"({"query":"refund"})").status, 200);
  HttpReply r = Call("POST", "/v1/search", limited_, R"({"query":"refund"})");
  ExpectError(r, 429, "rate_limited", "");
  EXPECT_FALSE(r.Header("retry-after").empty());
  EXPECT_EQ(Call("POST", "/v1/search", alice_, R"({"query":"refund"})").status, 200);  // others unaffected
}

TEST_F(ServeTest, AuditLogHoldsIdsNeverText) {
  HttpReply r = Call("POST", "/v1/answer", bob_, R"({"query":"What discount do annual plans get?"})",
                     {{"X-Request-Id", "audit-probe-1"}});
  ASSERT_EQ(r.status, 200);
  bool found = false;
  for (int i = 0; i < 50 && !found; ++i) {
    std::ifstream in(data_ + "/audit.jsonl");
    std::string line;
    while (std::getline(in, line)) {
      EXPECT_EQ(line.find("twenty percent"), std::string::npos) << "document text in the audit log";
      if (line.find("audit-probe-1") == std::string::npos) continue;
      json j = json::parse(line);
      EXPECT_EQ(j.value("user", ""), "bob");
      EXPECT_EQ(j.value("tenant", ""), "acme");
      EXPECT_EQ(j["groups"], json::array({"sales"}));
      EXPECT_FALSE(j["chunks_given"].empty());
      EXPECT_FALSE(j["chunks_cited"].empty());
      found = true;
    }
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(found);
}

// Runs last in this suite (alphabetical order is not guaranteed; it restores the groups it changes).
TEST_F(ServeTest, RevokedGroupStopsAppearingWithinTheRevocationDelay) {
  const std::string q = R"({"query":"deployment procedure blue green","top_k":10})";
  ASSERT_TRUE(HitIds(Body(Call("POST", "/v1/search", alice_, q))).count("deploys"));
  SetPrincipal(data_, "acme", "alice", "support");
  const auto t0 = std::chrono::steady_clock::now();
  bool gone = false;
  while (!gone && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)) {
    gone = !HitIds(Body(Call("POST", "/v1/search", alice_, q))).count("deploys");
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(gone);
  EXPECT_LE(ms, 300 + 500) << "revocation delay is 300 ms";
  std::printf("revoked group gone from search after %.0f ms (group cache TTL 300 ms)\n", ms);
  json a = Body(Call("POST", "/v1/answer", alice_, R"({"query":"Who approves every deployment?"})"));
  EXPECT_EQ(a.dump().find("platform team"), std::string::npos);
  SetPrincipal(data_, "acme", "alice", "eng");
}

TEST(ServeDefaultTenantTest, CliIngestIsVisibleToTheDefaultTenant) {
  TempDir dir;
  const std::string data = dir.str("data");
  testing_support::WriteFile(dir.path() / "doc.md", "# Kettles\n\nThe kettle boils water in three minutes.\n");
  ASSERT_EQ(RunAttest({"--data", data, "ingest", dir.str("doc.md")}).exit_code, 0);
  const std::string key = CreateApiKey(data, {"--tenant", "default", "--user", "u"});
  Server s(data, {}, {});
  ASSERT_NE(s.port(), 0) << s.child().out();
  HttpCall c = testing_support::MakeCall("POST", "/v1/search", {{"Authorization", "Bearer " + key}}, R"({"query":"kettle boils"})");
  HttpReply r = HttpRequest(s.port(), c);
  ASSERT_EQ(r.status, 200) << r.body;
  json body = json::parse(r.body);
  ASSERT_EQ(body["hits"].size(), 1u) << r.body;
  HttpReply doc = HttpRequest(s.port(), testing_support::MakeCall("GET", "/v1/documents/" + body["hits"][0].value("doc_id", ""),
                                                                  {{"Authorization", "Bearer " + key}}));
  EXPECT_EQ(doc.status, 200) << doc.body;
  EXPECT_EQ(json::parse(doc.body).value("tenant", ""), "default");
}

TEST(ServeShutdownTest, SigtermStopsGracefully) {
  TempDir dir;
  Server s(dir.str("data"), {}, {"--allow-anonymous"});
  ASSERT_NE(s.port(), 0) << s.child().out();
  EXPECT_EQ(HttpRequest(s.port(), testing_support::MakeCall("GET", "/healthz")).status, 200);
  const auto t0 = std::chrono::steady_clock::now();
  s.child().Kill(SIGTERM);
  EXPECT_EQ(s.child().Wait(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  s.child().Poll();
  EXPECT_NE(s.child().out().find("stopped"), std::string::npos);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// A snippet loses a link's script target when it is sanitized; the highlights /v1/search returns
// must be ranges of the snippet it returns (they were ranges of the raw one).
TEST_F(ServeTest, Regression_SearchHighlightsAreRangesOfTheSanitizedSnippet) {
  json doc = {{"id", "linky"}, {"title", "Quokkalink setup"},
              {"text", "Read [the quokkalink guide](javascript:alert(document.cookie)) before the quokkalink setup. "
                       "The quokkalink service starts at boot."}};
  ASSERT_EQ(Call("POST", "/v1/documents", admin_, doc.dump()).status, 200);
  HttpReply r = Call("POST", "/v1/search", admin_, json{{"query", "quokkalink"}, {"mode", "bm25"}}.dump());
  ASSERT_EQ(r.status, 200) << r.body;
  json body = Body(r);
  ASSERT_FALSE(body["hits"].empty());
  const std::string snippet = body["hits"][0]["snippet"];
  EXPECT_EQ(snippet.find("javascript:"), std::string::npos) << snippet;
  ASSERT_FALSE(body["hits"][0]["highlights"].empty());
  for (const auto& h : body["hits"][0]["highlights"]) {
    const size_t start = h[0], end = h[1];
    ASSERT_LE(end, snippet.size()) << snippet;
    std::string word = snippet.substr(start, end - start);
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_EQ(word, "quokkalink") << "highlight [" << start << "," << end << ") of " << snippet;
  }
  ASSERT_EQ(Call("DELETE", "/v1/documents/linky", admin_).status, 200);
}

}  // namespace
}  // namespace attest
