// Black-box tests of `attest serve` streaming with the LLM writer against a local chat server that
// streams slowly: sentences are released at their boundaries and retracted when their source is
// deleted or the caller's group is revoked mid-stream; a failing claim is retracted after
// verification; a client that hangs up cancels the answer; a cached replay ends with the same done
// fields as the fresh answer.
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/chat_test_server.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChatReply;
using testing_support::ChatTestServer;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::HttpRequest;
using testing_support::RunAttest;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;

class ServeStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    admin_ = Key({"--tenant", "acme", "--user", "root", "--admin"});
    alice_ = Key({"--tenant", "acme", "--user", "alice"});
    Groups("eng");
    chat_.set_reject_response_format(true);  // the prose path: the model's text streams
    server_ = std::make_unique<testing_support::ServeProcess>(
        data_, std::vector<std::string>{"--llm-url", chat_.base_url(), "--llm-model", "m"},
        std::vector<std::string>{"--group-cache-ttl-ms", "200"});
    port_ = server_->port();
    ASSERT_NE(port_, 0) << server_->child().out();
    json doc = {{"id", "deploys"}, {"title", "Deployment procedure"}, {"acl_groups", {"eng"}},
                {"text", "The deployment procedure uses blue green releases. Every deployment is approved by the "
                         "platform team before traffic moves."}};
    ASSERT_EQ(Call("POST", "/v1/documents", admin_, doc.dump()).status, 200);
  }

  std::string Key(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--data", data_, "keys", "create", "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunAttest(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out).at("key").get<std::string>();
  }
  void Groups(const std::string& groups) {
    ASSERT_EQ(RunAttest({"--data", data_, "principals", "set", "--tenant", "acme", "--user", "alice", "--groups", groups})
                  .exit_code,
              0);
  }
  HttpReply Call(const std::string& method, const std::string& path, const std::string& key, const std::string& body = "") {
    HttpCall c;
    c.method = method;
    c.path = path;
    c.body = body;
    c.headers["Authorization"] = "Bearer " + key;
    return HttpRequest(port_, c);
  }
  // Two sentences, the second ~1 s after the first.
  void ScriptSlowReply() {
    ChatReply reply;
    // S1 is the approval sentence, S2 the blue-green one (the evidence order of this question).
    reply.content = "The deployment procedure uses blue green releases [2]. Every deployment is approved by the "
                    "platform team [1].";
    reply.piece_bytes = 6;
    reply.split_every = 48;
    reply.piece_delay_ms = 40;
    chat_.PushReply(reply);
  }
  std::vector<SseEvent> Ask(const std::function<void(const SseEvent&)>& on_event) {
    HttpCall c;
    c.method = "POST";
    c.path = "/v1/answer";
    c.headers = {{"Authorization", "Bearer " + alice_}, {"Accept", "text/event-stream"}};
    c.body = R"({"query":"How are deployments released and approved?","writer":"llm","deadline_ms":5000})";
    std::vector<SseEvent> events;
    HttpReply r = SseRequest(port_, c, &events, [&](const SseEvent& e) {
      on_event(e);
      return true;
    });
    EXPECT_EQ(r.status, 200) << r.error << r.body;
    return events;
  }
  static std::vector<std::string> Named(const std::vector<SseEvent>& events, const std::string& name) {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (e.event == name) out.push_back(e.data);
    }
    return out;
  }

  TempDir dir_;
  std::string data_, admin_, alice_;
  ChatTestServer chat_;
  std::unique_ptr<testing_support::ServeProcess> server_;
  uint16_t port_ = 0;
};

TEST_F(ServeStreamTest, SentencesStreamAndAreReleasedAtTheirBoundaries) {
  ScriptSlowReply();
  std::vector<SseEvent> events = Ask([](const SseEvent&) {});
  std::vector<std::string> deltas = Named(events, "delta");
  EXPECT_GT(deltas.size(), 4u) << "the model's text streams in pieces";
  std::vector<std::string> done_sentences = Named(events, "sentence_done");
  ASSERT_GE(done_sentences.size(), 2u);
  // Verified as it completed: the quote recovered from the cited passage passed the checks.
  EXPECT_EQ(json::parse(done_sentences[0]).value("verified", ""), "supported") << done_sentences[0];
  EXPECT_FALSE(json::parse(done_sentences[0])["citations"][0].value("quote", "").empty());
  ASSERT_FALSE(Named(events, "done").empty());
  json done = json::parse(Named(events, "done").back());
  EXPECT_GT(done["tokens"].value("prompt", 0), 0);
  EXPECT_EQ(events.back().event, "done");
}

TEST_F(ServeStreamTest, DeletionMidStreamRetractsReleasedSentences) {
  ScriptSlowReply();
  bool deleted = false;
  std::vector<SseEvent> events = Ask([&](const SseEvent& e) {
    if (e.event == "sentence_done" && !deleted) {
      deleted = true;
      EXPECT_EQ(Call("DELETE", "/v1/documents/deploys", admin_).status, 200);
    }
  });
  ASSERT_TRUE(deleted);
  std::vector<std::string> retracts = Named(events, "retract");
  ASSERT_FALSE(retracts.empty()) << "no retraction after the cited document was deleted";
  json first = json::parse(retracts.front());
  EXPECT_EQ(first.value("sentence_id", ""), "c1");
  EXPECT_EQ(first.value("reason", ""), "source_deleted");
  // Nothing citing the deleted document is released after the deletion.
  bool after = false;
  for (const auto& e : events) {
    if (e.event == "retract") after = true;
    if (after) {
      EXPECT_NE(e.event, "sentence_done") << e.data;
    }
  }
  EXPECT_EQ(events.back().event, "done");
  EXPECT_EQ(json::parse(events.back().data).value("answer", "x"), "");
}

TEST_F(ServeStreamTest, RevokedGroupMidStreamRetractsWithinTheRevocationDelay) {
  ScriptSlowReply();
  bool revoked = false;
  std::vector<SseEvent> events = Ask([&](const SseEvent& e) {
    if (e.event == "sentence_done" && !revoked) {
      revoked = true;
      Groups("support");
    }
  });
  ASSERT_TRUE(revoked);
  std::vector<std::string> retracts = Named(events, "retract");
  ASSERT_FALSE(retracts.empty());
  EXPECT_EQ(json::parse(retracts.front()).value("reason", ""), "access_revoked");
  EXPECT_EQ(json::parse(events.back().data).value("answer", "x"), "");
}

TEST_F(ServeStreamTest, RepairedSentenceIsReplacedAndAFailingOneRetracted) {
  ChatReply wrong;  // streamed: the first sentence is not what the source says
  wrong.content = "Weekly deployments are rejected by the finance committee [1]. The deployment procedure uses blue "
                  "green releases [2].";
  wrong.piece_bytes = 16;
  chat_.PushReply(wrong);
  ChatReply repaired;  // the repair round (not streamed)
  repaired.content = "Every deployment is approved by the platform team [1]. The deployment procedure uses blue green releases [2].";
  chat_.PushReply(repaired);
  std::vector<SseEvent> events = Ask([](const SseEvent&) {});
  // The unsupported first sentence is retracted at its own boundary, before generation ends.
  std::vector<std::string> retracts = Named(events, "retract");
  ASSERT_FALSE(retracts.empty());
  EXPECT_EQ(json::parse(retracts.front()).value("sentence_id", ""), "c1");
  const std::string reason = json::parse(retracts.front()).value("reason", "");
  EXPECT_TRUE(reason == "unsupported" || reason == "quote_not_found") << retracts.front();
  std::vector<std::string> replaces = Named(events, "replace");
  std::string all;
  for (const auto& e : events) all += e.event + " " + e.data + "\n";
  ASSERT_FALSE(replaces.empty()) << "no replace event\n" << all;
  json rep = json::parse(replaces.front());
  EXPECT_EQ(rep.value("sentence_id", ""), "c1");
  EXPECT_NE(rep.value("text", "").find("platform team"), std::string::npos) << rep.dump();
  json done = json::parse(Named(events, "done").back());
  EXPECT_NE(done.value("answer", "").find("platform team"), std::string::npos) << done.dump();
  EXPECT_EQ(done.value("answer", "").find("finance"), std::string::npos);
  // The sentence that was right from the start was released once, verified, and never replaced.
  EXPECT_EQ(Named(events, "replace").size(), 1u);
}

TEST_F(ServeStreamTest, FallbackEndsWithANoticeAndTheResultList) {
  HttpCall c;
  c.method = "POST";
  c.path = "/v1/answer";
  c.headers = {{"Authorization", "Bearer " + alice_}, {"Accept", "text/event-stream"}};
  c.body = R"({"query":"What is the boiling point of liquid nitrogen in kelvin?"})";
  std::vector<SseEvent> events;
  ASSERT_EQ(SseRequest(port_, c, &events).status, 200);
  std::vector<std::string> notices = Named(events, "notice");
  ASSERT_FALSE(notices.empty());
  EXPECT_EQ(json::parse(notices.back()).value("code", ""), "fallback");
  json done = json::parse(Named(events, "done").back());
  EXPECT_EQ(done.value("outcome", ""), "fallback");
  EXPECT_TRUE(done.contains("fallback_reason") && done.contains("results"));
}

TEST_F(ServeStreamTest, ClientThatHangsUpCancelsTheAnswer) {
  ScriptSlowReply();
  HttpCall c;
  c.method = "POST";
  c.path = "/v1/answer";
  c.headers = {{"Authorization", "Bearer " + alice_}, {"Accept", "text/event-stream"}};
  c.body = R"({"query":"How are deployments released and approved?","writer":"llm"})";
  std::vector<SseEvent> events;
  SseRequest(port_, c, &events, [](const SseEvent& e) { return e.event != "sources"; });  // hang up early
  // The server notices, stops the answer and counts it.
  bool counted = false;
  for (int i = 0; i < 60 && !counted; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    HttpReply m = HttpRequest(port_, testing_support::MakeCall("GET", "/metrics"));
    counted = m.body.find("attest_cancelled_total 1") != std::string::npos ||
              m.body.find("attest_slow_clients_dropped_total") != std::string::npos;
  }
  EXPECT_TRUE(counted);
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

std::set<std::string> Keys(const nlohmann::json& j) {
  std::set<std::string> out;
  for (auto it = j.begin(); it != j.end(); ++it) out.insert(it.key());
  return out;
}

// Both paths of Service::RunAnswer end a stream with one builder of `done`: a replay from the
// whole-answer cache carries the same fields as the fresh answer (degraded: [] included), and the
// JSON body of the same answer agrees with it.
TEST_F(ServeStreamTest, CachedReplayEndsWithTheSameDoneFieldsAsTheFreshAnswer) {
  auto stream = [&] {
    HttpCall c;
    c.method = "POST";
    c.path = "/v1/answer";
    c.headers = {{"Authorization", "Bearer " + alice_}, {"Accept", "text/event-stream"}};
    c.body = R"({"query":"How are deployments released and approved?"})";
    std::vector<SseEvent> events;
    EXPECT_EQ(SseRequest(port_, c, &events).status, 200);
    EXPECT_FALSE(Named(events, "done").empty());
    return Named(events, "done").empty() ? json() : json::parse(Named(events, "done").back());
  };
  json fresh = stream();
  json cached = stream();
  ASSERT_TRUE(fresh.is_object() && cached.is_object());
  EXPECT_EQ(fresh.value("cached", true), false);
  EXPECT_EQ(cached.value("cached", false), true);
  EXPECT_EQ(Keys(fresh), Keys(cached));
  EXPECT_EQ(cached["degraded"], json::array());
  EXPECT_EQ(cached["retracted"], 0);
  EXPECT_EQ(fresh["outcome"], "answer");
  EXPECT_EQ(cached["answer"], fresh["answer"]);
  EXPECT_EQ(cached["snapshot_version"], fresh["snapshot_version"]);
  EXPECT_NE(cached["answer_id"], fresh["answer_id"]) << "every answer delivered has its own id";
  HttpReply body = Call("POST", "/v1/answer", alice_, R"({"query":"How are deployments released and approved?"})");
  ASSERT_EQ(body.status, 200) << body.body;
  json j = json::parse(body.body);
  EXPECT_EQ(j["answer"], fresh["answer"]);
  EXPECT_EQ(j.value("cached", false), true);
}

}  // namespace
}  // namespace attest
