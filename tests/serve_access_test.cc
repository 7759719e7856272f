// Black-box tests of access labels, clearance and hidden-text oracles through `attest serve` (the
// real binary on an ephemeral port): a caller below a document's label never sees its chunk,
// title, snippet, count or cached answer, in search, answers, streams, threads or documents, also
// under concurrent load; and a reader cannot tell a hidden match from no match by any field,
// status or score.
#include <atomic>
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
using testing_support::BearerRequest;
using testing_support::CreateApiKey;
using testing_support::RunAttest;
using testing_support::SetPrincipal;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;

class ServeAccessTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = dir_->str("data");
    admin_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    low_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "low"});
    mid_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "mid"});
    SetPrincipal(data_, "acme", "low", "eng", "public");
    SetPrincipal(data_, "acme", "mid", "eng", "internal");
    server_ = new testing_support::ServeProcess(data_, {}, {});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    json batch = {
        {"documents",
         {{{"id", "handbook"}, {"title", "Employee handbook"}, {"access_label", "public"},
           {"text", "The travel policy covers economy flights. Expense reports are filed within thirty days."}},
          {{"id", "roadmap"}, {"title", "Zephyr roadmap"}, {"access_label", "internal"},
           {"text", "The zephyr project ships the travel booking tool in March. The zephyr budget is nine million."}},
          {{"id", "salaries"}, {"title", "Salary bands"}, {"access_label", "confidential"},
           {"text", "The salary of the travel director is 187000 dollars. Salary bands are reviewed in June."}},
          {{"id", "payroll"}, {"title", "Payroll calendar"}, {"acl_groups", {"hr"}},
           {"text", "Payroll runs on the quokkaberry schedule. The travel allowance is paid with payroll."}}}}};
    HttpReply r = Call("POST", "/v1/documents:batch", admin_, batch.dump());
    ASSERT_EQ(r.status, 200) << r.body;
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static HttpReply Call(const std::string& method, const std::string& path, const std::string& key,
                        const std::string& body = "") {
    return BearerRequest(server_->port(), method, path, key, body);
  }
  static json Search(const std::string& key, const std::string& q, const std::string& mode = "bm25") {
    HttpReply r = Call("POST", "/v1/search", key, json{{"query", q}, {"mode", mode}, {"top_k", 10}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  }
  static json Answer(const std::string& key, const std::string& q) {
    HttpReply r = Call("POST", "/v1/answer", key, json{{"query", q}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body);
  }
  static std::set<std::string> Ids(const json& search) {
    std::set<std::string> out;
    for (const auto& h : search["hits"]) out.insert(h["doc_id"].get<std::string>());
    return out;
  }
  // Everything of a search or answer body except per-request values.
  static json Stable(json body) {
    for (const char* k : {"request_id", "took_ms", "snapshot_version", "versions", "answer_id", "timings_ms", "cached",
                          "as_of", "stats"}) {
      body.erase(k);
    }
    return body;
  }
  // Every document id and text fragment a body mentions that `key`'s caller must not see.
  static void ExpectNothingHidden(const std::string& body, const std::set<std::string>& hidden_words) {
    for (const auto& w : hidden_words) EXPECT_EQ(body.find(w), std::string::npos) << w << " leaked in " << body;
  }

  static TempDir* dir_;
  static std::string data_, admin_, low_, mid_;
  static testing_support::ServeProcess* server_;
};

TempDir* ServeAccessTest::dir_ = nullptr;
testing_support::ServeProcess* ServeAccessTest::server_ = nullptr;
std::string ServeAccessTest::data_, ServeAccessTest::admin_, ServeAccessTest::low_, ServeAccessTest::mid_;

TEST_F(ServeAccessTest, Regression_ClearanceIsEnforcedInSearchAnswersStreamsThreadsAndDocuments) {
  // Search: each caller sees the labels at or below its clearance.
  EXPECT_EQ(Ids(Search(low_, "travel")), (std::set<std::string>{"handbook"}));
  EXPECT_EQ(Ids(Search(mid_, "travel")), (std::set<std::string>{"handbook", "roadmap"}));
  EXPECT_EQ(Ids(Search(admin_, "travel")), (std::set<std::string>{"handbook", "roadmap", "salaries", "payroll"}));
  for (const char* mode : {"bm25", "auto"}) {
    const json j = Search(low_, "zephyr roadmap salary", mode);
    ExpectNothingHidden(j.dump(), {"roadmap", "Zephyr", "zephyr", "salaries", "187000"});
  }
  // Documents: a label above the caller's clearance is indistinguishable from a missing document.
  HttpReply hidden = Call("GET", "/v1/documents/roadmap", low_);
  HttpReply missing = Call("GET", "/v1/documents/no-such-doc", low_);
  EXPECT_EQ(hidden.status, 404) << hidden.body;
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Call("GET", "/v1/documents/roadmap", mid_).status, 200);
  EXPECT_EQ(Call("GET", "/v1/documents/salaries", mid_).status, 404);
  json doc = json::parse(Call("GET", "/v1/documents/roadmap", admin_).body);
  EXPECT_EQ(doc.value("access_label", ""), "internal");

  // Answers, first by the caller who may read the roadmap (the answer is cached), then by one who
  // may not: the cached answer must not reach it.
  const std::string q = "When does the zephyr project ship the travel booking tool?";
  json a_mid = Answer(mid_, q);
  EXPECT_NE(a_mid.dump().find("March"), std::string::npos) << a_mid.dump();
  json a_low = Answer(low_, q);
  ExpectNothingHidden(a_low.dump(), {"roadmap", "March", "nine million", "Zephyr roadmap"});
  // Feedback: an answer that cites what low may not read is, for low, an unknown answer.
  ASSERT_EQ(a_mid.value("outcome", ""), "answer") << a_mid.dump();
  HttpReply fb = Call("POST", "/v1/feedback", low_,
                      json{{"answer_id", a_mid["answer_id"]}, {"kind", "wrong"}}.dump());
  HttpReply fb_unknown = Call("POST", "/v1/feedback", low_, json{{"answer_id", "ans_unknown"}, {"kind", "wrong"}}.dump());
  EXPECT_EQ(fb.status, 404) << fb.body;
  EXPECT_EQ(fb_unknown.status, 404) << fb_unknown.body;
  EXPECT_EQ(Call("POST", "/v1/feedback", mid_, json{{"answer_id", a_mid["answer_id"]}, {"kind", "wrong"}}.dump()).status,
            201);
  // Streamed.
  HttpCall c;
  c.method = "POST";
  c.path = "/v1/answer";
  c.body = json{{"query", q}, {"stream", true}}.dump();
  c.headers["Authorization"] = "Bearer " + low_;
  std::vector<SseEvent> events;
  HttpReply sr = SseRequest(server_->port(), c, &events);
  EXPECT_EQ(sr.status, 200);
  ASSERT_FALSE(events.empty());
  for (const auto& e : events) ExpectNothingHidden(e.data, {"roadmap", "March", "nine million"});
  // Threads.
  HttpReply t = Call("POST", "/v1/threads", low_, json{{"title", "travel"}}.dump());
  ASSERT_EQ(t.status, 201) << t.body;
  const std::string thread = json::parse(t.body)["thread_id"];
  HttpReply m = Call("POST", "/v1/threads/" + thread + "/messages", low_, json{{"query", q}}.dump());
  ASSERT_EQ(m.status, 200) << m.body;
  ExpectNothingHidden(m.body, {"roadmap", "March", "nine million"});
}

TEST_F(ServeAccessTest, ClearanceHoldsUnderConcurrentLoadWithCaches) {
  std::atomic<int> leaks{0}, requests{0};
  std::vector<std::thread> threads;
  const std::vector<std::string> queries = {"zephyr travel booking", "travel policy", "salary of the travel director",
                                            "When does the zephyr project ship?", "travel budget"};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      const bool low = t % 2 == 0;
      const std::string& key = low ? low_ : mid_;
      for (int i = 0; i < 25; ++i) {
        const std::string& q = queries[(i + t) % queries.size()];
        const bool answer = i % 3 == 0;
        HttpReply r = answer ? Call("POST", "/v1/answer", key, json{{"query", q}}.dump())
                             : Call("POST", "/v1/search", key, json{{"query", q}}.dump());
        ++requests;
        if (r.status != 200) continue;
        // Label above the caller: confidential for mid; internal and confidential for low.
        for (const char* w : {"salaries", "187000", "Salary bands"}) leaks += r.body.find(w) != std::string::npos;
        if (low) {
          for (const char* w : {"\"roadmap\"", "nine million", "Zephyr roadmap"}) {
            leaks += r.body.find(w) != std::string::npos;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(requests.load(), 150);
  EXPECT_EQ(leaks.load(), 0);
}

// The probes of the hostile test, with groups only (they ran against main before labels existed):
// a word that occurs only in documents the reader cannot read (another group's, another tenant's)
// must look exactly like a word that occurs nowhere (search and answer bodies, statuses, fallback
// reasons), and documents the reader cannot read must not move its scores.
class ServeHiddenMatchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    data_ = dir_->str("data");
    admin_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    reader_ = CreateApiKey(data_, {"--tenant", "acme", "--user", "reader"});
    other_ = CreateApiKey(data_, {"--tenant", "bolt", "--user", "root", "--admin"});
    SetPrincipal(data_, "acme", "reader", "eng");
    server_ = new testing_support::ServeProcess(data_, {}, {});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
    json batch = {
        {"documents",
         {{{"id", "handbook"}, {"title", "Employee handbook"},
           {"text", "The travel policy covers economy flights. Expense reports are filed within thirty days."}},
          {{"id", "payroll"}, {"title", "Payroll calendar"}, {"acl_groups", {"hr"}},
           {"text", "Payroll runs on the quokkaberry schedule. The travel allowance is paid with payroll."}}}}};
    ASSERT_EQ(Call("POST", "/v1/documents:batch", admin_, batch.dump()).status, 200);
  }
  static void TearDownTestSuite() {
    delete server_;
    delete dir_;
  }
  static HttpReply Call(const std::string& method, const std::string& path, const std::string& key,
                        const std::string& body = "") {
    return BearerRequest(server_->port(), method, path, key, body);
  }
  static json Post(const std::string& route, const std::string& key, const json& body) {
    HttpReply r = Call("POST", route, key, body.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    json j = json::parse(r.body, nullptr, false);
    for (const char* k : {"request_id", "took_ms", "snapshot_version", "versions", "answer_id", "timings_ms", "cached",
                          "as_of", "stats", "thread"}) {
      j.erase(k);
    }
    return j;
  }
  static TempDir* dir_;
  static std::string data_, admin_, reader_, other_;
  static testing_support::ServeProcess* server_;
};

TempDir* ServeHiddenMatchTest::dir_ = nullptr;
testing_support::ServeProcess* ServeHiddenMatchTest::server_ = nullptr;
std::string ServeHiddenMatchTest::data_, ServeHiddenMatchTest::admin_, ServeHiddenMatchTest::reader_,
    ServeHiddenMatchTest::other_;

TEST_F(ServeHiddenMatchTest, Regression_AHiddenMatchLooksLikeNoMatch) {
  // "quokkaberry" is only in a document of a group the reader lacks; "xylophonist" is nowhere.
  const json none_search = Post("/v1/search", reader_, {{"query", "xylophonist"}, {"mode", "bm25"}});
  EXPECT_TRUE(none_search["hits"].empty());
  EXPECT_EQ(Post("/v1/search", reader_, {{"query", "quokkaberry"}, {"mode", "bm25"}}).dump(), none_search.dump());
  const json none_answer = Post("/v1/answer", reader_, {{"query", "What is the xylophonist schedule?"}});
  EXPECT_EQ(none_answer.value("fallback_reason", ""), "no_documents") << none_answer.dump();
  const json hidden_answer = Post("/v1/answer", reader_, {{"query", "What is the quokkaberry schedule?"}});
  EXPECT_EQ(hidden_answer.value("outcome", ""), none_answer.value("outcome", "")) << hidden_answer.dump();
  EXPECT_EQ(hidden_answer.value("fallback_reason", ""), "no_documents")
      << "a reader learns that hidden text matched: " << hidden_answer.dump();
}

TEST_F(ServeHiddenMatchTest, Regression_HiddenDocumentsDoNotMoveAReadersScores) {
  auto score_of = [&](const std::string& id) {
    const json j = Post("/v1/search", reader_, {{"query", "travel policy zephyr"}, {"mode", "bm25"}});
    for (const auto& h : j["hits"]) {
      if (h["doc_id"] == id) return h["score"].get<double>();
    }
    return -1.0;
  };
  const double before = score_of("handbook");
  ASSERT_GT(before, 0);
  // Another group's document and another tenant's documents, all rich in the probe's words.
  json hr = {{"documents",
              {{{"id", "hr-travel"}, {"title", "HR travel policy"}, {"acl_groups", {"hr"}},
                {"text", "The travel policy of HR: travel policy travel policy zephyr zephyr."}}}}};
  ASSERT_EQ(Call("POST", "/v1/documents:batch", admin_, hr.dump()).status, 200);
  json bolt = {{"documents", json::array()}};
  for (int i = 0; i < 20; ++i) {
    bolt["documents"].push_back({{"id", "b" + std::to_string(i)}, {"title", "Bolt travel policy " + std::to_string(i)},
                                 {"text", "Bolt travel policy zephyr number " + std::to_string(i) + "."}});
  }
  ASSERT_EQ(Call("POST", "/v1/documents:batch", other_, bolt.dump()).status, 200);
  EXPECT_EQ(score_of("handbook"), before) << "documents the reader cannot read moved its score";
}

}  // namespace
}  // namespace attest
