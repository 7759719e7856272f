// Black-box tests of what the web page needs from `attest serve` (docs/http_api.md): GET /v1/me for
// every kind of credential, the fields of the stream's `done` event (the planner's standalone
// question, the resolved version and its release date, the warnings), and the admin document
// listing GET /v1/documents (paging stable under concurrent writes, filters, q, who may list,
// tampered rows, bad parameters). The real binary on an ephemeral port.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <functional>
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

// ------------------------------------------------------------------------ GET /v1/documents

class ServeDocumentListTest : public ServePageRoutesTest {
 protected:
  // Documents d00..d<n-1> of tenant acme, in one batch.
  void PutNumbered(int n) {
    json docs = json::array();
    for (int i = 0; i < n; ++i) docs.push_back(Numbered(i));
    ASSERT_EQ(Put({{"documents", docs}}, admin_).status, 200);
  }
  static json Numbered(int i) {
    char id[8];
    std::snprintf(id, sizeof id, "d%02d", i);
    return {{"id", id}, {"title", std::string("Numbered document ") + id},
            {"text", std::string("Body of ") + id + " about numbered things."}};
  }
  HttpReply List(const std::string& query, const std::string& key) {
    return Call(port(), "GET", "/v1/documents" + (query.empty() ? "" : "?" + query), key);
  }
  json ListOk(const std::string& query, const std::string& key) {
    HttpReply r = List(query, key);
    EXPECT_EQ(r.status, 200) << query << ": " << r.body;
    return Body(r);
  }
  static std::vector<std::string> Ids(const json& page) {
    std::vector<std::string> out;
    for (const auto& d : page["documents"]) out.push_back(d.value("id", ""));
    return out;
  }
  // Every page from the first, following next_cursor.
  std::vector<std::string> AllIds(const std::string& query, const std::string& key, size_t* pages = nullptr,
                                  const std::function<void()>& between_pages = nullptr) {
    std::vector<std::string> out;
    std::string cursor;
    for (size_t n = 1; n < 1000; ++n) {
      std::string q = query;
      if (!cursor.empty()) q += (q.empty() ? "" : "&") + std::string("cursor=") + cursor;
      json page = ListOk(q, key);
      for (const std::string& id : Ids(page)) out.push_back(id);
      if (pages) *pages = n;
      if (!page.contains("next_cursor") || page["next_cursor"].is_null()) break;
      cursor = page["next_cursor"].get<std::string>();
      if (between_pages) between_pages();
    }
    return out;
  }
};

TEST_F(ServeDocumentListTest, PagesFollowTheCursorInIdOrderWithEveryField) {
  PutNumbered(25);
  json doc = {{"id", "d07"}, {"title", "Seventh"}, {"text", "Replaced body of the seventh."}, {"site", "docs.example"},
              {"version", "15.2"}, {"source_type", "docs"}, {"language", "en"}, {"published", "2026-11-12"},
              {"updated", "2026-11-20"}, {"acl_groups", {"eng"}}, {"access_label", "internal"},
              {"url", "https://docs.example/d07"}};
  ASSERT_EQ(Call(port(), "POST", "/v1/documents", admin_, doc.dump()).status, 200);

  json first = ListOk("limit=10", admin_);
  EXPECT_EQ(first.value("total", 0), 25);
  EXPECT_EQ(first.value("tenant", ""), "acme");
  EXPECT_EQ(first["corrupt"], json::array());
  ASSERT_EQ(Ids(first).size(), 10u);
  EXPECT_EQ(Ids(first).front(), "d00");
  EXPECT_EQ(Ids(first).back(), "d09");
  ASSERT_TRUE(first["next_cursor"].is_string()) << first.dump();
  EXPECT_GT(first.value("snapshot_version", 0), 0);
  const json& d07 = first["documents"][7];
  EXPECT_EQ(d07.value("id", ""), "d07");
  EXPECT_EQ(d07.value("title", ""), "Seventh");
  EXPECT_EQ(d07.value("url", ""), "https://docs.example/d07");
  EXPECT_EQ(d07.value("site", ""), "docs.example");
  EXPECT_EQ(d07.value("version", ""), "15.2");
  EXPECT_EQ(d07.value("source_type", ""), "docs");
  EXPECT_EQ(d07.value("language", ""), "en");
  EXPECT_EQ(d07.value("published", ""), "2026-11-12");
  EXPECT_EQ(d07.value("updated", ""), "2026-11-20");
  EXPECT_EQ(d07.value("access_label", ""), "internal");
  EXPECT_EQ(d07["acl_groups"], json::array({"eng"}));
  EXPECT_GE(d07.value("chunks", 0), 1);
  EXPECT_GT(d07.value("bytes", 0), 0);
  EXPECT_EQ(d07.value("created_snapshot", 0), first.value("snapshot_version", 0)) << "the replacement's snapshot";
  EXPECT_EQ(d07.find("text"), d07.end()) << "a listing carries no text";

  size_t pages = 0;
  std::vector<std::string> all = AllIds("limit=10", admin_, &pages);
  EXPECT_EQ(pages, 3u);
  ASSERT_EQ(all.size(), 25u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1], all[i]);
  // The default page is 20; the last page has no cursor.
  json page = ListOk("", admin_);
  EXPECT_EQ(Ids(page).size(), 20u);
  json last = ListOk("limit=100", admin_);
  EXPECT_EQ(Ids(last).size(), 25u);
  EXPECT_TRUE(last["next_cursor"].is_null());
}

// Documents added and deleted between pages: no document present throughout is repeated or
// skipped; a new one shows up when its id falls after the cursor, a deleted one is gone.
TEST_F(ServeDocumentListTest, PagingIsStableUnderConcurrentWrites) {
  PutNumbered(30);
  json first = ListOk("limit=10", admin_);
  ASSERT_EQ(Ids(first).back(), "d09");
  const std::string cursor = first["next_cursor"].get<std::string>();
  json added = {{"documents", {{{"id", "d05a"}, {"text", "Added before the cursor."}},
                               {{"id", "d15a"}, {"text", "Added after the cursor."}}}}};
  ASSERT_EQ(Put(added, admin_).status, 200);
  ASSERT_EQ(Call(port(), "DELETE", "/v1/documents/d12", admin_).status, 200);
  ASSERT_EQ(Call(port(), "DELETE", "/v1/documents/d03", admin_).status, 200);
  json second = ListOk("limit=10&cursor=" + cursor, admin_);
  EXPECT_EQ(Ids(second), (std::vector<std::string>{"d10", "d11", "d13", "d14", "d15", "d15a", "d16", "d17", "d18",
                                                   "d19"}));
  EXPECT_EQ(second.value("total", 0), 30) << "30 + 2 added - 2 deleted";
  EXPECT_GT(second.value("snapshot_version", 0), first.value("snapshot_version", 0)) << "each page reads the latest";

  // A writer adds and deletes documents while every page is read: ids only grow from page to
  // page, and each document that lived throughout is listed exactly once.
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    for (int i = 0; !stop.load() && i < 200; ++i) {
      json doc = {{"id", "w" + std::to_string(100 + i)}, {"text", "Written while paging, number " + std::to_string(i)}};
      Call(port(), "POST", "/v1/documents", admin_, doc.dump());
      if (i % 3 == 0) Call(port(), "DELETE", "/v1/documents/w" + std::to_string(100 + i), admin_);
      Call(port(), "POST", "/v1/documents", admin_,
           json{{"id", "c" + std::to_string(100 + i)}, {"text", "Written before the d ids."}}.dump());
      ++writes;
    }
  });
  // Between pages, wait for the writer's next round to land (it keeps writing during the reads).
  auto next_write = [&] {
    const int seen = writes.load();
    for (int i = 0; i < 5000 && writes.load() == seen; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  };
  next_write();
  const int before = writes.load();
  std::vector<std::string> all = AllIds("limit=3", admin_, nullptr, next_write);
  const int during = writes.load() - before;
  stop = true;
  writer.join();
  EXPECT_GT(during, 0) << "no write landed while the pages were read";
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1], all[i]) << "repeated or out of order at " << i;
  std::multiset<std::string> seen(all.begin(), all.end());
  for (int i = 0; i < 30; ++i) {
    const std::string id = Numbered(i)["id"];
    if (id == "d03" || id == "d12") {
      EXPECT_EQ(seen.count(id), 0u) << id << " was deleted";
    } else {
      EXPECT_EQ(seen.count(id), 1u) << id;
    }
  }
}

TEST_F(ServeDocumentListTest, FiltersAndTextNarrowTheListAndTheTotal) {
  json docs = {{"documents",
                {{{"id", "pg-intro"}, {"title", "PostgreSQL Introduction"}, {"source_type", "docs"},
                  {"site", "postgresql.org"}, {"version", "15"}, {"text", "An introduction."}},
                 {{"id", "pg-15-notes"}, {"title", "Release 15"}, {"source_type", "release_notes"},
                  {"site", "postgresql.org"}, {"version", "15"}, {"text", "What is new."}},
                 {{"id", "pg-14-notes"}, {"title", "Release 14"}, {"source_type", "release_notes"},
                  {"site", "postgresql.org"}, {"version", "14"}, {"text", "What was new."}},
                 {{"id", "wiki-vacuum"}, {"title", "Tuning VACUUM"}, {"source_type", "wiki"},
                  {"site", "wiki.example"}, {"text", "Vacuum tuning notes."}}}}};
  ASSERT_EQ(Put(docs, admin_).status, 200);
  auto ids = [&](const std::string& q) { return Ids(ListOk(q, admin_)); };
  using V = std::vector<std::string>;
  EXPECT_EQ(ids("source_type=release_notes"), (V{"pg-14-notes", "pg-15-notes"}));
  EXPECT_EQ(ListOk("source_type=release_notes", admin_).value("total", 0), 2);
  EXPECT_EQ(ids("site=wiki.example"), (V{"wiki-vacuum"}));
  EXPECT_EQ(ids("version=15"), (V{"pg-15-notes", "pg-intro"}));
  EXPECT_EQ(ids("version=15&source_type=docs"), (V{"pg-intro"}));
  EXPECT_EQ(ids("q=vacuum"), (V{"wiki-vacuum"})) << "id or title, any case";
  EXPECT_EQ(ids("q=RELEASE"), (V{"pg-14-notes", "pg-15-notes"})) << "title, any case";
  EXPECT_EQ(ids("q=PG-1"), (V{"pg-14-notes", "pg-15-notes"})) << "id, any case";
  EXPECT_EQ(ids("q=%25"), V{}) << "LIKE wildcards are plain text";
  EXPECT_EQ(ids("q=no%20such"), V{});
  EXPECT_EQ(ListOk("q=no%20such", admin_).value("total", -1), 0);
  EXPECT_EQ(ids("source_type=release_notes&limit=1"), (V{"pg-14-notes"}));
  json page = ListOk("source_type=release_notes&limit=1", admin_);
  json next = ListOk("source_type=release_notes&limit=1&cursor=" + page["next_cursor"].get<std::string>(), admin_);
  EXPECT_EQ(Ids(next), (V{"pg-15-notes"}));
  EXPECT_TRUE(next["next_cursor"].is_null());

  // Dates: published, else updated; a document without a date passes no bound.
  json dated = {{"documents",
                 {{{"id", "dated-published"}, {"text", "Published in November."}, {"published", "2026-11-12"},
                   {"updated", "2026-01-01"}},
                  {{"id", "dated-updated"}, {"text", "Only updated, in May."}, {"updated", "2026-05-01"}}}}};
  ASSERT_EQ(Put(dated, admin_).status, 200);
  EXPECT_EQ(ids("date_from=2026-06-01"), (V{"dated-published"}));
  EXPECT_EQ(ids("date_to=2026-06-01"), (V{"dated-updated"}));
  EXPECT_EQ(ids("date_from=2026-05-01&date_to=2026-11-12"), (V{"dated-published", "dated-updated"}));
  EXPECT_EQ(ids("date_from=2026-11-13"), V{});
}

TEST_F(ServeDocumentListTest, OnlyAdminsAndTheOperatorList) {
  PutNumbered(3);
  HttpReply reader = List("", alice_);
  EXPECT_EQ(reader.status, 403) << reader.body;
  EXPECT_EQ(ErrorCode(reader), "forbidden");
  EXPECT_EQ(reader.body.find("d00"), std::string::npos);
  EXPECT_EQ(List("", "").status, 401);
  EXPECT_EQ(List("", dora_).status, 403);

  // The operator names any tenant (its own is the default tenant, empty here).
  json acme = ListOk("tenant=acme", ops_);
  EXPECT_EQ(Ids(acme), (std::vector<std::string>{"d00", "d01", "d02"}));
  EXPECT_EQ(acme.value("tenant", ""), "acme");
  json own = ListOk("", ops_);
  EXPECT_EQ(own.value("tenant", ""), "default");
  EXPECT_EQ(own["documents"], json::array());
  EXPECT_EQ(own.value("total", -1), 0);
  // A tenant admin lists its own tenant only.
  EXPECT_EQ(Ids(ListOk("tenant=acme", admin_)).size(), 3u);
  HttpReply other = List("tenant=globex", admin_);
  EXPECT_EQ(other.status, 403) << other.body;
  EXPECT_EQ(ErrorField(other), "tenant");
  HttpReply def = List("tenant=default", admin_);
  EXPECT_EQ(def.status, 403) << def.body;

  // Audited like the other document reads.
  std::string audit;
  for (int i = 0; i < 200 && audit.find("documents_listed") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ifstream in(data_ + "/audit.jsonl");
    audit.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_NE(audit.find("\"outcome\":\"documents_listed\""), std::string::npos) << audit;
}

// A row edited behind the store's back (its checksum fails) is not listed: it is named in
// `corrupt` (so the admin can re-ingest or delete it) and its edited fields are never served.
TEST_F(ServeDocumentListTest, TamperedRowIsReportedNotListed) {
  PutNumbered(5);
  ops_test::SqlText(catalog_, "UPDATE documents SET title = 'Edited behind the back' WHERE id = 'd02' AND "
                              "deleted_snapshot IS NULL");
  json page = ListOk("", admin_);
  EXPECT_EQ(Ids(page), (std::vector<std::string>{"d00", "d01", "d03", "d04"}));
  ASSERT_EQ(page["corrupt"].size(), 1u) << page.dump();
  EXPECT_EQ(page["corrupt"][0].value("id", ""), "d02");
  EXPECT_NE(page["corrupt"][0].value("message", "").find("checksum"), std::string::npos) << page.dump();
  EXPECT_EQ(page.dump().find("Edited behind"), std::string::npos) << "the edited title was served";
  EXPECT_EQ(page.value("total", 0), 5) << "the total counts the row";
  // Paging past it still works, and deleting it clears the report.
  json small = ListOk("limit=2", admin_);
  json next = ListOk("limit=2&cursor=" + small["next_cursor"].get<std::string>(), admin_);
  EXPECT_EQ(Ids(next), (std::vector<std::string>{"d03"}));
  EXPECT_EQ(next["corrupt"].size(), 1u);
  ASSERT_EQ(Call(port(), "DELETE", "/v1/documents/d02", admin_).status, 200);
  EXPECT_EQ(ListOk("", admin_)["corrupt"], json::array());
}

TEST_F(ServeDocumentListTest, BadParametersAreRefusedNamingTheParameter) {
  PutNumbered(3);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"limit=0", "limit"},          {"limit=101", "limit"},      {"limit=abc", "limit"},
      {"limit=-1", "limit"},         {"limit=", "limit"},         {"limit=1e3", "limit"},
      {"colour=red", "colour"},      {"cursor=%21%21%21", "cursor"},    {"cursor=eDE6ZDAz", "cursor"},
      {"cursor=ZDE6", "cursor"},     {"cursor=ZDE6YQFi", "cursor"}, {"cursor=", "cursor"},
      {"tenant=ACME", "tenant"},     {"q=", "q"},                 {"source_type=", "source_type"},
      {"date_from=2026-02-30", "date_from"}, {"date_to=yesterday", "date_to"},
      {"date_from=2026-12-02&date_to=2026-12-01", "date_to"}};
  for (const auto& [query, field] : bad) {
    HttpReply r = List(query, admin_);
    EXPECT_EQ(r.status, 400) << query << ": " << r.body;
    EXPECT_EQ(ErrorCode(r), "invalid_request") << query << ": " << r.body;
    EXPECT_EQ(ErrorField(r), field) << query << ": " << r.body;
  }
  EXPECT_EQ(List("limit=1&limit=2", admin_).status, 400) << "a repeated parameter is refused";
  // A cursor survives the trip: the one a page returned is accepted as it is.
  json page = ListOk("limit=1", admin_);
  EXPECT_EQ(Ids(ListOk("limit=1&cursor=" + page["next_cursor"].get<std::string>(), admin_)),
            (std::vector<std::string>{"d01"}));
}

}  // namespace
}  // namespace attest
