// Black-box tests of durable conversations and feedback in `attest serve` (docs/http_api.md,
// "Threads" and "Feedback"): the real binary on an ephemeral port, restarted where the test needs it.
// Each finding of the hostile review has a regression test named after it.
#include <csignal>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <regex>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "store/sqlite_util.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::RunAttest;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;
using Server = testing_support::ServeProcess;

const json kDocuments = {
    {"documents",
     {{{"id", "zephyr"}, {"title", "Zephyr kettle"},
       {"text", "The Zephyr kettle warranty lasts five years from the date of purchase. The Zephyr kettle boils a "
                "litre of water in three minutes."}},
      {{"id", "orion"}, {"title", "Orion toaster"},
       {"text", "The Orion toaster warranty lasts two years from the date of purchase. The Orion toaster browns "
                "bread in ninety seconds."}},
      {{"id", "refunds"}, {"title", "Refund policy"},
       {"text", "Acme refund policy allows returns within thirty days of purchase. Refunds are paid to the original "
                "card within five business days."}},
      {{"id", "deploys"}, {"title", "Deployment procedure"}, {"acl_groups", {"eng"}},
       {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the platform "
                "team before traffic moves."}},
      {{"id", "refunds"}, {"tenant", "bolt"}, {"title", "Bolt refund policy"},
       {"text", "Bolt refund policy allows returns within ninety days of purchase. Bolt refunds are paid as store "
                "credit."}}}}};

// One deployment per test: a data directory, keys, the documents above, and a server that can be
// stopped and started again over the same data.
class Deployment {
 public:
  explicit Deployment(std::vector<std::string> flags) : flags_(std::move(flags)) {
    data_ = dir_.str("data");
    // A deployment operator: the documents below include one of tenant bolt.
    keys_["admin"] = Key({"--tenant", "acme", "--user", "root", "--operator"});
    keys_["alice"] = Key({"--tenant", "acme", "--user", "alice"});
    keys_["dave"] = Key({"--tenant", "acme", "--user", "dave"});
    keys_["bob"] = Key({"--tenant", "acme", "--user", "bob"});
    keys_["carol"] = Key({"--tenant", "bolt", "--user", "carol"});
    Groups("alice", "eng");
    Groups("dave", "eng");
    Groups("bob", "sales");
    Start();
    HttpReply r = Call("POST", "/v1/documents:batch", "admin", kDocuments.dump());
    EXPECT_EQ(r.status, 200) << r.body;
  }

  void Start() {
    server_ = std::make_unique<Server>(data_, std::vector<std::string>{}, flags_);
    ASSERT_NE(server_->port(), 0) << server_->child().out();
  }
  // SIGTERM (graceful) or SIGKILL (a crash): what was acknowledged must be there after Start().
  void Stop(int sig) {
    server_->child().Kill(sig);
    server_->child().Wait();
    server_.reset();
  }

  std::string Key(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--data", data_, "keys", "create", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunAttest(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out).at("key").get<std::string>();
  }
  void AddKey(const std::string& name, const std::string& tenant) {
    keys_[name] = Key({"--tenant", tenant, "--user", name});
  }
  void Groups(const std::string& user, const std::string& groups) {
    auto r = RunAttest({"--data", data_, "principals", "set", "--tenant", "acme", "--user", user, "--groups", groups});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }

  HttpReply Call(const std::string& method, const std::string& path, const std::string& who,
                 const std::string& body = "") {
    HttpCall c;
    c.method = method;
    c.path = path;
    c.body = body;
    c.headers["Authorization"] = "Bearer " + keys_.at(who);
    return HttpRequest(server_->port(), c);
  }
  json Post(const std::string& path, const std::string& who, const json& body, int expect) {
    HttpReply r = Call("POST", path, who, body.dump());
    EXPECT_EQ(r.status, expect) << path << " " << r.body;
    json j = json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  std::string NewThread(const std::string& who) {
    return Post("/v1/threads", who, json::object(), 201).value("thread_id", "");
  }
  json Ask(const std::string& thread, const std::string& who, const std::string& q) {
    return Post("/v1/threads/" + thread + "/messages", who, {{"query", q}}, 200);
  }

  const std::string& key(const std::string& who) const { return keys_.at(who); }
  const std::string& data() const { return data_; }
  uint16_t port() const { return server_->port(); }

 private:
  TempDir dir_;
  std::string data_;
  std::vector<std::string> flags_;
  std::map<std::string, std::string> keys_;
  std::unique_ptr<Server> server_;
};

void ExpectError(const HttpReply& r, int status, const std::string& code, const std::string& field) {
  EXPECT_EQ(r.status, status) << r.body;
  json j = json::parse(r.body, nullptr, false);
  ASSERT_TRUE(j.is_object() && j.contains("error")) << r.body;
  EXPECT_EQ(j["error"].value("code", ""), code) << r.body;
  EXPECT_EQ(j["error"].value("field", "?"), field) << r.body;
}

std::string ErrorMessage(const HttpReply& r) {
  json j = json::parse(r.body, nullptr, false);
  return j.is_object() && j.contains("error") ? j["error"].value("message", "") : "";
}

int64_t CountRows(const std::string& data, const std::string& table) {
  SqliteOpenArgs oa;
  oa.path = std::filesystem::path(data) / "conversations.db";
  oa.read_only = true;
  auto db = SqliteDb::Open(oa);
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  if (!db.ok()) return -1;
  auto n = QueryInt(**db, "SELECT count(*) FROM " + table, -1);
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  return n.ok() ? *n : -1;
}

// ---- finding 1: conversations and recent answers lived only in memory ----------------------

TEST(ServeConversationTest, ThreadsAndRecentAnswersWereLostOnRestart) {
  Deployment d({});
  const std::string thread = d.NewThread("alice");
  json first = d.Ask(thread, "alice", "How long does the Zephyr kettle take to boil water?");
  ASSERT_EQ(first.value("outcome", ""), "answer") << first.dump();
  json plain = d.Post("/v1/answer", "alice", {{"query", "What does the refund policy allow?"}}, 200);
  ASSERT_EQ(plain.value("outcome", ""), "answer") << plain.dump();

  d.Stop(SIGTERM);
  d.Start();
  // The follow-up only makes sense with the earlier turn: "the warranty" of the Zephyr kettle.
  json follow = d.Ask(thread, "alice", "and the warranty?");
  const std::string text = follow.value("answer", "");
  EXPECT_NE(text.find("five years"), std::string::npos) << follow.dump();
  EXPECT_EQ(text.find("two years"), std::string::npos) << "the follow-up lost its context: " << text;
  ASSERT_TRUE(follow.contains("thread")) << follow.dump();
  EXPECT_EQ(follow["thread"].value("turn", 0), 2);
  ASSERT_EQ(follow["thread"]["earlier"].size(), 1u);
  EXPECT_EQ(follow["thread"]["earlier"][0].value("answer_id", ""), first.value("answer_id", ""));
  // Feedback on answers given before the restart, in a thread and outside one.
  d.Post("/v1/feedback", "alice", {{"answer_id", first["answer_id"]}, {"kind", "stale"}}, 201);
  d.Post("/v1/feedback", "alice",
         {{"answer_id", plain["answer_id"]}, {"claim_id", plain["claims"][0]["id"]}, {"kind", "wrong"}}, 201);
}

TEST(ServeConversationTest, AcknowledgedTurnsSurviveAKill) {
  Deployment d({});
  const std::string thread = d.NewThread("alice");
  json first = d.Ask(thread, "alice", "How long does the Zephyr kettle take to boil water?");
  json plain = d.Post("/v1/answer", "bob", {{"query", "What does the refund policy allow?"}}, 200);
  d.Stop(SIGKILL);
  d.Start();
  json follow = d.Ask(thread, "alice", "and the warranty?");
  EXPECT_NE(follow.value("answer", "").find("five years"), std::string::npos) << follow.dump();
  d.Post("/v1/feedback", "bob", {{"answer_id", plain["answer_id"]}, {"kind", "wrong"}}, 201);
}

TEST(ServeConversationTest, DeletedSourceStayedVisibleInAThreadsEarlierTurns) {
  Deployment d({});
  d.Post("/v1/documents", "admin",
         {{"id", "recall"}, {"title", "Recall notice"},
          {"text", "The Vortex blender recall covers units sold before March. Owners receive a free replacement jar."}},
         200);
  const std::string thread = d.NewThread("alice");
  json first = d.Ask(thread, "alice", "What does the Vortex blender recall cover?");
  ASSERT_EQ(first.value("outcome", ""), "answer") << first.dump();
  ASSERT_NE(first.dump().find("\"recall\""), std::string::npos) << first.dump();
  json second = d.Ask(thread, "alice", "How long does the Zephyr kettle take to boil water?");
  ASSERT_TRUE(second.contains("thread")) << second.dump();
  ASSERT_EQ(second["thread"]["earlier"].size(), 1u);
  const json& before = second["thread"]["earlier"][0];
  EXPECT_EQ(before.value("answer", ""), first.value("answer", "")) << "before the deletion the turn shows its answer";
  EXPECT_NE(before["sources"].dump().find("\"recall\""), std::string::npos) << before.dump();
  EXPECT_EQ(before.value("withdrawn_claims", -1), 0);

  ASSERT_EQ(d.Call("DELETE", "/v1/documents/recall", "admin").status, 200);
  json third = d.Ask(thread, "alice", "and the warranty?");
  ASSERT_TRUE(third.contains("thread")) << third.dump();
  const json& earlier = third["thread"]["earlier"];
  ASSERT_EQ(earlier.size(), 2u) << third.dump();
  const json& turn1 = earlier[0];
  EXPECT_EQ(turn1.value("turn", 0), 1);
  EXPECT_EQ(turn1.value("question", ""), "What does the Vortex blender recall cover?");
  EXPECT_EQ(turn1.dump().find("\"recall\""), std::string::npos) << "deleted source still shown: " << turn1.dump();
  EXPECT_EQ(turn1["claims"].dump().find("Vortex"), std::string::npos) << "a claim citing it is still shown";
  EXPECT_EQ(turn1.value("answer", "").find("Vortex"), std::string::npos) << turn1.dump();
  EXPECT_GE(turn1.value("withdrawn_claims", 0), 1) << turn1.dump();
  EXPECT_EQ(turn1.value("outcome", ""), "fallback") << turn1.dump();
  EXPECT_EQ(turn1.value("fallback_reason", ""), "sources_withdrawn") << turn1.dump();
  // The other turn is untouched.
  EXPECT_NE(earlier[1].value("answer", "").find("three minutes"), std::string::npos) << earlier[1].dump();
}

TEST(ServeConversationTest, EarlierTurnsHideSourcesTheCallerCanNoLongerRead) {
  Deployment d({"--group-cache-ttl-ms", "100"});
  const std::string thread = d.NewThread("alice");
  json first = d.Ask(thread, "alice", "Who approves every deployment?");
  ASSERT_NE(first.value("answer", "").find("platform team"), std::string::npos) << first.dump();
  d.Groups("alice", "support");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  json second = d.Ask(thread, "alice", "What does the refund policy allow?");
  ASSERT_TRUE(second.contains("thread")) << second.dump();
  EXPECT_EQ(second["thread"].dump().find("platform team"), std::string::npos) << second["thread"].dump();
  EXPECT_EQ(second["thread"].dump().find("\"deploys\""), std::string::npos) << second["thread"].dump();
}

TEST(ServeConversationTest, StreamedMessageEndsWithTheThreadInDone) {
  Deployment d({});
  const std::string thread = d.NewThread("alice");
  json first = d.Ask(thread, "alice", "How long does the Zephyr kettle take to boil water?");
  std::vector<SseEvent> events;
  HttpCall c = testing_support::MakeCall("POST", "/v1/threads/" + thread + "/messages",
                                         {{"Authorization", "Bearer " + d.key("alice")}},
                                         json{{"query", "and the warranty?"}, {"stream", true}}.dump());
  HttpReply r = SseRequest(d.port(), c, &events);
  ASSERT_EQ(r.status, 200);
  ASSERT_FALSE(events.empty());
  ASSERT_EQ(events.back().event, "done");
  json done = json::parse(events.back().data);
  ASSERT_TRUE(done.contains("thread")) << done.dump();
  EXPECT_EQ(done["thread"].value("turn", 0), 2);
  EXPECT_TRUE(done["thread"].value("saved", false));
  ASSERT_EQ(done["thread"]["earlier"].size(), 1u);
  EXPECT_EQ(done["thread"]["earlier"][0].value("answer_id", ""), first.value("answer_id", ""));
  // The streamed turn was stored: the next message shows it.
  json third = d.Ask(thread, "alice", "What does the refund policy allow?");
  ASSERT_EQ(third["thread"]["earlier"].size(), 2u);
  EXPECT_EQ(third["thread"]["earlier"][1].value("answer_id", ""), done.value("answer_id", ""));
}

// ---- finding 2: one global thread table, O(n) eviction under a global lock ------------------

TEST(ServeConversationTest, ThreadFloodEvictedAnotherTenantsThread) {
  Deployment d({"--max-threads-per-user", "5", "--max-threads-per-tenant", "8"});
  const std::string carols = d.NewThread("carol");
  const std::string bobs = d.NewThread("bob");
  std::vector<std::string> alices;
  for (int i = 0; i < 20; ++i) alices.push_back(d.NewThread("alice"));
  // The caller's own oldest threads went; nobody else's.
  for (int i = 0; i < 15; ++i) {
    ExpectError(d.Call("POST", "/v1/threads/" + alices[i] + "/messages", "alice", R"({"query":"refunds?"})"), 404,
                "not_found", "thread_id");
  }
  for (int i = 15; i < 20; ++i) d.Ask(alices[i], "alice", "What does the refund policy allow?");
  d.Ask(carols, "carol", "What does the Bolt refund policy allow?");
  d.Ask(bobs, "bob", "What does the refund policy allow?");
}

TEST(ServeConversationTest, TenantThreadQuotaIsRefusedWith429NamingTheQuota) {
  Deployment d({"--max-threads-per-user", "5", "--max-threads-per-tenant", "8"});
  for (int i = 0; i < 5; ++i) d.NewThread("alice");
  for (int i = 0; i < 3; ++i) d.NewThread("bob");
  // The tenant is full: another user of it is refused, never served by evicting someone's thread.
  HttpReply r = d.Call("POST", "/v1/threads", "dave", "{}");
  ExpectError(r, 429, "quota_exceeded", "");
  EXPECT_NE(ErrorMessage(r).find("max_threads_per_tenant"), std::string::npos) << r.body;
  // A user at its own quota still replaces its own oldest thread; other tenants are unaffected.
  d.NewThread("alice");
  d.NewThread("carol");
  EXPECT_EQ(CountRows(d.data(), "threads"), 9);
}

TEST(ServeConversationTest, ThreadTurnQuotaIsRefusedWith429) {
  Deployment d({"--max-turns-per-thread", "2"});
  const std::string t = d.NewThread("alice");
  d.Ask(t, "alice", "What does the refund policy allow?");
  d.Ask(t, "alice", "and how are refunds paid?");
  HttpReply r = d.Call("POST", "/v1/threads/" + t + "/messages", "alice", R"({"query":"and within how many days?"})");
  ExpectError(r, 429, "quota_exceeded", "");
  EXPECT_NE(ErrorMessage(r).find("max_turns_per_thread"), std::string::npos) << r.body;
}

// Loose on purpose (a loaded 2-core CI machine): another key's searches stay interactive while
// one key creates threads as fast as it can, far past its quota (every create evicts).
TEST(ServeConversationTest, ThreadCreatesFromOneKeyDoNotSlowAnotherKeysSearch) {
  Deployment d({"--max-threads-per-user", "50"});
  const std::string carols = d.NewThread("carol");
  std::atomic<bool> stop{false};
  std::atomic<int> created{0}, failed{0};
  std::vector<std::thread> flood;
  for (int t = 0; t < 2; ++t) {
    flood.emplace_back([&] {
      while (!stop) {
        HttpReply r = d.Call("POST", "/v1/threads", "alice", "{}");
        (r.status == 201 ? created : failed)++;
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::vector<double> ms;
  for (int i = 0; i < 80; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    HttpReply r = d.Call("POST", "/v1/search", "bob",
                         json{{"query", "refund policy returns " + std::to_string(i)}}.dump());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_EQ(r.status, 200) << r.body;
  }
  stop = true;
  for (auto& t : flood) t.join();
  std::sort(ms.begin(), ms.end());
  const double p50 = ms[ms.size() / 2], p90 = ms[ms.size() * 9 / 10];
  std::printf("search under a thread-create flood: p50 %.2f ms, p90 %.2f ms, max %.2f ms; %d creates, %d failed\n",
              p50, p90, ms.back(), created.load(), failed.load());
  EXPECT_LT(p50, 50.0);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_GT(created.load(), 100);
  EXPECT_LE(CountRows(d.data(), "threads"), 51);
  d.Ask(carols, "carol", "What does the Bolt refund policy allow?");
}

// ---- finding 3: feedback filled the disk --------------------------------------------------

TEST(ServeConversationTest, RepeatedFeedbackGrewWithoutBound) {
  Deployment d({"--feedback-rate", "1000", "--feedback-burst", "1000"});
  json a = d.Post("/v1/answer", "alice", {{"query", "What does the refund policy allow?"}}, 200);
  const std::string comment(900, 'x');
  json fb = {{"answer_id", a["answer_id"]}, {"claim_id", a["claims"][0]["id"]}, {"kind", "wrong"}, {"comment", comment}};
  json r1 = d.Post("/v1/feedback", "alice", fb, 201);
  EXPECT_FALSE(r1.value("replaced", true));
  for (int i = 0; i < 50; ++i) {
    fb["kind"] = i % 2 ? "stale" : "unsupported";
    json r = d.Post("/v1/feedback", "alice", fb, 201);
    EXPECT_TRUE(r.value("replaced", false)) << r.dump();
  }
  // Another claim or another user is another record.
  d.Post("/v1/feedback", "alice", {{"answer_id", a["answer_id"]}, {"kind", "stale"}}, 201);
  d.Post("/v1/feedback", "dave", fb, 201);
  d.Stop(SIGTERM);
  EXPECT_EQ(CountRows(d.data(), "feedback"), 3);
}

TEST(ServeConversationTest, FeedbackCommentOverTheCapWasAccepted) {
  Deployment d({});
  json a = d.Post("/v1/answer", "alice", {{"query", "What does the refund policy allow?"}}, 200);
  json fb = {{"answer_id", a["answer_id"]}, {"kind", "wrong"}, {"comment", std::string(1001, 'x')}};
  ExpectError(d.Call("POST", "/v1/feedback", "alice", fb.dump()), 400, "invalid_request", "comment");
  fb["comment"] = std::string(1000, 'x');
  d.Post("/v1/feedback", "alice", fb, 201);
}

TEST(ServeConversationTest, FeedbackWasNotRateLimitedPerCredential) {
  Deployment d({"--feedback-rate", "0.5", "--feedback-burst", "3"});
  json a = d.Post("/v1/answer", "alice", {{"query", "What does the refund policy allow?"}}, 200);
  json fb = {{"answer_id", a["answer_id"]}, {"kind", "wrong"}};
  for (int i = 0; i < 3; ++i) d.Post("/v1/feedback", "alice", fb, 201);
  HttpReply r = d.Call("POST", "/v1/feedback", "alice", fb.dump());
  ExpectError(r, 429, "rate_limited", "");
  EXPECT_NE(ErrorMessage(r).find("feedback"), std::string::npos) << r.body;
  // One token at 0.5 per second: at most 2 s away.
  const std::string retry = r.Header("retry-after");
  EXPECT_TRUE(retry == "1" || retry == "2") << "Retry-After: '" << retry << "' " << r.body;
  // Another credential has its own budget; other routes are not charged.
  d.Post("/v1/feedback", "dave", fb, 201);
  d.Post("/v1/search", "alice", {{"query", "refund"}}, 200);
}

TEST(ServeConversationTest, StoredFeedbackWasUnbounded) {
  Deployment d({"--feedback-rate", "1000", "--feedback-burst", "1000", "--max-feedback-per-tenant", "3",
                "--max-feedback-per-user", "2"});
  std::vector<json> answers;
  for (const char* q : {"What does the refund policy allow?", "How long does the Zephyr kettle take to boil water?",
                        "How long is the Orion toaster warranty?"}) {
    answers.push_back(d.Post("/v1/answer", "alice", {{"query", q}, {"no_cache", true}}, 200));
  }
  d.Post("/v1/feedback", "alice", {{"answer_id", answers[0]["answer_id"]}, {"kind", "wrong"}}, 201);
  d.Post("/v1/feedback", "alice", {{"answer_id", answers[1]["answer_id"]}, {"kind", "wrong"}}, 201);
  HttpReply user = d.Call("POST", "/v1/feedback", "alice",
                          json{{"answer_id", answers[2]["answer_id"]}, {"kind", "wrong"}}.dump());
  ExpectError(user, 429, "quota_exceeded", "");
  EXPECT_NE(ErrorMessage(user).find("max_feedback_per_user"), std::string::npos) << user.body;
  // A repeat replaces, so it is never refused by the quota.
  d.Post("/v1/feedback", "alice", {{"answer_id", answers[0]["answer_id"]}, {"kind", "stale"}}, 201);
  d.Post("/v1/feedback", "dave", {{"answer_id", answers[0]["answer_id"]}, {"kind", "wrong"}}, 201);
  HttpReply tenant = d.Call("POST", "/v1/feedback", "dave",
                            json{{"answer_id", answers[1]["answer_id"]}, {"kind", "wrong"}}.dump());
  ExpectError(tenant, 429, "quota_exceeded", "");
  EXPECT_NE(ErrorMessage(tenant).find("max_feedback_per_tenant"), std::string::npos) << tenant.body;
  json other = d.Post("/v1/answer", "carol", {{"query", "What does the Bolt refund policy allow?"}}, 200);
  d.Post("/v1/feedback", "carol", {{"answer_id", other["answer_id"]}, {"kind", "wrong"}}, 201);
}

// ---- finding 4: feedback on another group's answer -----------------------------------------

TEST(ServeConversationTest, ReaderCouldPostFeedbackOnAnotherGroupsAnswer) {
  Deployment d({});
  json eng = d.Post("/v1/answer", "alice", {{"query", "Who approves every deployment?"}}, 200);
  ASSERT_NE(eng.value("answer", "").find("platform team"), std::string::npos) << eng.dump();
  HttpReply hidden = d.Call("POST", "/v1/feedback", "bob", json{{"answer_id", eng["answer_id"]}, {"kind", "wrong"}}.dump());
  ExpectError(hidden, 404, "not_found", "answer_id");
  HttpReply unknown = d.Call("POST", "/v1/feedback", "bob", json{{"answer_id", "ans_0000000000000000"}, {"kind", "wrong"}}.dump());
  ExpectError(unknown, 404, "not_found", "answer_id");
  // Indistinguishable from an unknown id: the same message once the id is taken out.
  auto without_id = [](std::string m, const std::string& id) {
    const size_t at = m.find(id);
    return at == std::string::npos ? m : m.replace(at, id.size(), "ID");
  };
  EXPECT_EQ(without_id(ErrorMessage(hidden), eng.value("answer_id", "")),
            without_id(ErrorMessage(unknown), "ans_0000000000000000"));
  ExpectError(d.Call("POST", "/v1/feedback", "carol", json{{"answer_id", eng["answer_id"]}, {"kind", "wrong"}}.dump()),
              404, "not_found", "answer_id");
  // A caller whose groups admit every source of the answer may flag it; so may the tenant's admin.
  d.Post("/v1/feedback", "dave", {{"answer_id", eng["answer_id"]}, {"kind", "wrong"}}, 201);
  d.Post("/v1/feedback", "admin", {{"answer_id", eng["answer_id"]}, {"kind", "wrong"}}, 201);
  json open = d.Post("/v1/answer", "alice", {{"query", "What does the refund policy allow?"}}, 200);
  d.Post("/v1/feedback", "bob", {{"answer_id", open["answer_id"]}, {"kind", "stale"}}, 201);
}

// ---- finding 5: a cached first answer was served with the same answer_id --------------------

TEST(ServeConversationTest, CachedFirstAnswerWasServedWithTheSameAnswerId) {
  Deployment d({});
  const std::string q = "Who approves every deployment?";
  json a = d.Ask(d.NewThread("alice"), "alice", q);
  json b = d.Ask(d.NewThread("dave"), "dave", q);
  ASSERT_TRUE(b.value("cached", false)) << "same scope, same first question: served from the cache";
  EXPECT_NE(a.value("answer_id", ""), b.value("answer_id", ""));
  json c = d.Post("/v1/answer", "dave", {{"query", q}}, 200);
  EXPECT_TRUE(c.value("cached", false));
  EXPECT_NE(c.value("answer_id", ""), b.value("answer_id", ""));
  EXPECT_NE(c.value("answer_id", ""), a.value("answer_id", ""));
  // Streams replay the cache with a fresh id too.
  std::vector<SseEvent> events;
  HttpCall sc = testing_support::MakeCall("POST", "/v1/answer", {{"Authorization", "Bearer " + d.key("alice")}},
                                          json{{"query", q}, {"stream", true}}.dump());
  HttpReply sr = SseRequest(d.port(), sc, &events);
  ASSERT_EQ(sr.status, 200);
  std::string streamed_id;
  for (const auto& e : events) {
    if (e.event == "done") streamed_id = json::parse(e.data).value("answer_id", "");
  }
  EXPECT_FALSE(streamed_id.empty());
  EXPECT_NE(streamed_id, a.value("answer_id", ""));
  // Feedback on a served copy is remembered and still invalidates the cached entry.
  json fb = d.Post("/v1/feedback", "dave", {{"answer_id", b["answer_id"]}, {"kind", "wrong"}}, 201);
  EXPECT_TRUE(fb.value("cache_invalidated", false)) << fb.dump();
  EXPECT_FALSE(d.Post("/v1/answer", "alice", {{"query", q}}, 200).value("cached", true));
}

}  // namespace
}  // namespace attest
