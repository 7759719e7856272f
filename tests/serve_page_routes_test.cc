// Black-box tests of what the web page needs from `attest serve` (docs/http_api.md): GET /v1/me for
// every kind of credential, the fields of the stream's `done` event (the planner's standalone
// question, the resolved version and its release date, the warnings), and the admin document
// listing GET /v1/documents (paging stable under concurrent writes, filters, q, who may list,
// tampered rows, bad parameters). The real binary on an ephemeral port.
#include <set>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "serve_ops_util.h"
#include "support/http_test_client.h"
#include "support/process.h"

namespace attest {
namespace {

using nlohmann::json;
using ops_test::Body;
using ops_test::Call;
using ops_test::CreateKey;
using ops_test::ErrorCode;
using testing_support::HttpCall;
using testing_support::HttpReply;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::SseEvent;
using testing_support::SseRequest;
using testing_support::TempDir;

std::string ErrorField(const HttpReply& r) {
  json j = json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("error")) return "?";
  return j["error"].value("field", "?");
}

// Tenant acme: an admin (root), a reader in group eng (alice); a deployment operator (ops, of the
// default tenant); a reader of the default tenant (dora).
class ServePageRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.str("data");
    catalog_ = data_ + "/catalog.db";
    admin_ = CreateKey(data_, {"--tenant", "acme", "--user", "root", "--admin"});
    alice_ = CreateKey(data_, {"--tenant", "acme", "--user", "alice"});
    ops_ = CreateKey(data_, {"--user", "ops", "--operator"});
    dora_ = CreateKey(data_, {"--tenant", "default", "--user", "dora"});
    testing_support::SetPrincipal(data_, "acme", "alice", "eng,docs", "internal");
    server_ = std::make_unique<ServeProcess>(data_, std::vector<std::string>{}, std::vector<std::string>{});
    ASSERT_NE(server_->port(), 0) << server_->child().out();
  }
  uint16_t port() const { return server_->port(); }
  HttpReply Put(const json& batch, const std::string& key) {
    return Call(port(), "POST", "/v1/documents:batch", key, batch.dump());
  }
  std::vector<SseEvent> Stream(const std::string& path, const std::string& key, const json& body) {
    HttpCall c = testing_support::MakeCall("POST", path, {{"Authorization", "Bearer " + key},
                                                          {"Accept", "text/event-stream"}}, body.dump());
    std::vector<SseEvent> events;
    HttpReply r = SseRequest(port(), c, &events);
    EXPECT_EQ(r.status, 200) << r.error << r.body;
    return events;
  }
  static json Done(const std::vector<SseEvent>& events) {
    EXPECT_FALSE(events.empty());
    if (events.empty() || events.back().event != "done") return json();
    return json::parse(events.back().data, nullptr, false);
  }

  TempDir dir_;
  std::string data_, catalog_, admin_, alice_, ops_, dora_;
  std::unique_ptr<ServeProcess> server_;
};

// ------------------------------------------------------------------------------------ GET /v1/me

TEST_F(ServePageRoutesTest, MeDescribesTheCallersOwnIdentity) {
  HttpReply r = Call(port(), "GET", "/v1/me", alice_);
  ASSERT_EQ(r.status, 200) << r.body;
  json me = Body(r);
  EXPECT_EQ(me.value("tenant", ""), "acme");
  EXPECT_EQ(me.value("user", ""), "alice");
  EXPECT_EQ(me.value("admin", true), false);
  EXPECT_EQ(me.value("operator", true), false);
  EXPECT_EQ(me["groups"], json::array({"docs", "eng"}));
  EXPECT_EQ(me.value("clearance", ""), "internal");
  EXPECT_EQ(me.value("method", ""), "api_key");
  EXPECT_FALSE(me.value("request_id", "").empty());

  json root = Body(Call(port(), "GET", "/v1/me", admin_));
  EXPECT_EQ(root.value("tenant", ""), "acme");
  EXPECT_EQ(root.value("user", ""), "root");
  EXPECT_EQ(root.value("admin", false), true);
  EXPECT_EQ(root.value("operator", true), false);

  json ops = Body(Call(port(), "GET", "/v1/me", ops_));
  EXPECT_EQ(ops.value("tenant", ""), "default") << "the store's default tenant as the API names it";
  EXPECT_EQ(ops.value("admin", false), true) << "an operator is an admin of every tenant";
  EXPECT_EQ(ops.value("operator", false), true);

  json dora = Body(Call(port(), "GET", "/v1/me", dora_));
  EXPECT_EQ(dora.value("tenant", ""), "default");
  EXPECT_EQ(dora.value("admin", true), false);
  EXPECT_EQ(dora["groups"], json::array());
}

TEST_F(ServePageRoutesTest, MeNeverShowsSecretsOrCredentialIds) {
  for (const std::string& key : {alice_, admin_, ops_}) {
    HttpReply r = Call(port(), "GET", "/v1/me", key);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(r.body.find(key), std::string::npos) << "the key itself was echoed: " << r.body;
    // The key id (the part before the secret) is the audit and rate-limit key: not shown either.
    ASSERT_EQ(key.rfind("att_", 0), 0u) << key;
    const std::string key_id = key.substr(4, key.rfind('_') - 4);  // att_<key id>_<secret>
    ASSERT_GE(key_id.size(), 8u) << key;
    EXPECT_EQ(r.body.find(key_id), std::string::npos) << r.body;
    json me = Body(r);
    std::set<std::string> fields;
    for (auto it = me.begin(); it != me.end(); ++it) fields.insert(it.key());
    EXPECT_EQ(fields, (std::set<std::string>{"request_id", "tenant", "user", "admin", "operator", "groups",
                                            "clearance", "method", "versions"}));
  }
}

TEST_F(ServePageRoutesTest, MeNeedsACredential) {
  HttpReply none = Call(port(), "GET", "/v1/me", "");
  EXPECT_EQ(none.status, 401) << none.body;
  EXPECT_EQ(ErrorCode(none), "unauthorized");
  HttpReply wrong = Call(port(), "GET", "/v1/me", "att_0123456789abcdef_nope");
  EXPECT_EQ(wrong.status, 401) << wrong.body;
  HttpReply param = Call(port(), "GET", "/v1/me?tenant=acme", alice_);
  EXPECT_EQ(param.status, 400) << param.body;
  EXPECT_EQ(ErrorField(param), "tenant");
}

// ------------------------------------------------------------------------------ the done event

// A follow-up in a thread: `done` carries the planner's standalone question (the follow-up
// rewritten with the earlier turn's subject), and the same fields as the JSON body.
TEST_F(ServePageRoutesTest, DoneCarriesTheStandaloneQuestionOfAFollowUp) {
  json docs = {{"documents",
                {{{"id", "zephyr"}, {"title", "Zephyr kettle"},
                  {"text", "The Zephyr kettle warranty lasts five years from the date of purchase. The Zephyr kettle "
                           "boils a litre of water in three minutes."}},
                 {{"id", "orion"}, {"title", "Orion toaster"},
                  {"text", "The Orion toaster warranty lasts two years from the date of purchase. The Orion toaster "
                           "browns bread in ninety seconds."}}}}};
  ASSERT_EQ(Put(docs, admin_).status, 200);
  HttpReply t = Call(port(), "POST", "/v1/threads", alice_, "{}");
  ASSERT_EQ(t.status, 201) << t.body;
  const std::string thread = Body(t).value("thread_id", "");
  const std::string path = "/v1/threads/" + thread + "/messages";
  json first = Done(Stream(path, alice_, {{"query", "How long does the Zephyr kettle take to boil water?"}}));
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first.value("standalone", ""), "How long does the Zephyr kettle take to boil water?");
  json done = Done(Stream(path, alice_, {{"query", "and the warranty?"}}));
  ASSERT_TRUE(done.is_object());
  const std::string standalone = done.value("standalone", "");
  EXPECT_NE(standalone.find("Zephyr"), std::string::npos) << standalone;
  EXPECT_NE(standalone.find("warranty"), std::string::npos) << standalone;
  for (const char* field : {"resolved_version", "resolved_version_date", "warnings", "standalone"}) {
    EXPECT_TRUE(done.contains(field)) << field << " missing from " << done.dump();
  }
  EXPECT_TRUE(done["warnings"].is_array());
  // The JSON body of a message carries the same fields.
  HttpReply body = Call(port(), "POST", path, alice_, json{{"query", "and the Orion toaster?"}}.dump());
  ASSERT_EQ(body.status, 200) << body.body;
  json j = Body(body);
  EXPECT_NE(j.value("standalone", "").find("Orion"), std::string::npos) << j.value("standalone", "");
  EXPECT_TRUE(j.contains("resolved_version_date"));
}

// "latest" resolved from an authoritative version feed that names a newer release than any
// source: `done` names the version, the feed's release date for it, and the stale-sources warning
// (also sent as a notice, as before).
TEST_F(ServePageRoutesTest, DoneNamesTheResolvedVersionWithItsReleaseDateAndTheWarnings) {
  json docs = {{"documents",
                {{{"id", "notes-15.2"}, {"title", "Zephyr 15.2 release notes"}, {"source_type", "release_notes"},
                  {"version", "15.2"}, {"published", "2026-11-12"},
                  {"text", "Zephyr 15.2 release notes. Zephyr 15.2 adds parallel backups and faster restores."}},
                 {{"id", "notes-14.9"}, {"title", "Zephyr 14.9 release notes"}, {"source_type", "release_notes"},
                  {"version", "14.9"}, {"published", "2026-05-01"},
                  {"text", "Zephyr 14.9 release notes. Zephyr 14.9 adds compressed logs."}}}}};
  ASSERT_EQ(Put(docs, admin_).status, 200);
  const json ask = {{"query", "What is new in the latest Zephyr release?"}};
  json done = Done(Stream("/v1/answer", alice_, ask));
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done.value("resolved_version", ""), "15.2") << done.dump();
  EXPECT_EQ(done.value("resolved_version_date", ""), "2026-11-12") << "the release notes of 15.2 date it";
  EXPECT_EQ(done.value("standalone", ""), "What is new in the latest Zephyr release?");

  // The vendor's release list names a newer one: it is the latest, dated by the feed.
  json feed = {{"documents",
                {{{"id", "releases"}, {"title", "Zephyr releases"}, {"feed", "versions"},
                  {"text", "Current Zephyr releases: 15.3 (released 2026-12-01), 15.2 (released 2026-11-12), "
                           "14.9 (released 2026-05-01)."}}}}};
  ASSERT_EQ(Put(feed, admin_).status, 200);
  std::vector<SseEvent> events = Stream("/v1/answer", alice_, ask);
  done = Done(events);
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done.value("resolved_version", ""), "15.3") << done.dump();
  EXPECT_EQ(done.value("resolved_version_date", ""), "2026-12-01") << done.dump();
  ASSERT_TRUE(done["warnings"].is_array());
  ASSERT_FALSE(done["warnings"].empty()) << done.dump();
  const std::string warning = done["warnings"][0].get<std::string>();
  EXPECT_NE(warning.find("stale"), std::string::npos) << warning;
  bool noticed = false;
  for (const SseEvent& e : events) {
    if (e.event != "notice") continue;
    json n = json::parse(e.data, nullptr, false);
    noticed |= n.value("code", "") == "warning" && n.value("message", "") == warning;
  }
  EXPECT_TRUE(noticed) << "warnings are still sent as notices";
}

}  // namespace
}  // namespace attest
