// The whole cluster as processes on loopback (issue 18): a three-server NATS cluster, `attest
// cluster init`, three `attest node` processes with their internal APIs, and a coordinator
// (`attest serve --cluster-shard ... --cluster-nats ...`). Documents written through the
// coordinator's HTTP API go through the change log to the nodes; once every node has applied them,
// a search through the coordinator returns what one store holding the same documents returns (the
// same documents, the same BM25 scores: global statistics), and the cluster snapshot names every
// node. A node killed with SIGKILL makes searches degraded with the node named, within the
// deadline; restarted, it catches up and the results are whole again. Without the service
// credential a node refuses the coordinator's calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <set>
#include <thread>

#include "attest/answer.h"
#include "attest/engine.h"
#include "serve_ops_util.h"
#include "support/http_test_client.h"
#include "support/nats_cluster.h"
#include "support/process.h"
#include "support/test_site_server.h"

namespace attest {
namespace {

using nlohmann::json;
using testing_support::ChildProcess;
using testing_support::NatsCluster;
using testing_support::RetryFor;
using testing_support::RunAttest;
using testing_support::ServeProcess;
using testing_support::TempDir;

const char* kCredential = "cluster-test-credential-0123456789";

std::vector<DocumentSpec> Corpus() {
  const std::vector<std::string> words = {"raft", "log", "term", "vote", "leader", "quorum", "snapshot", "commit",
                                          "index", "follower", "election", "timeout", "heartbeat", "segment",
                                          "replica", "stream", "offset", "ledger"};
  std::vector<DocumentSpec> docs;
  for (int i = 0; i < 60; ++i) {
    DocumentSpec d;
    d.tenant = "acme";
    d.id = "doc-" + std::to_string(i);
    d.title = words[i % words.size()] + " " + words[(i * 5 + 1) % words.size()];
    for (int w = 0; w < 10 + i % 13; ++w) d.text += words[(i * 7 + w * 3 + w * w) % words.size()] + " ";
    docs.push_back(d);
  }
  return docs;
}

json DocJson(const DocumentSpec& d) { return {{"id", d.id}, {"title", d.title}, {"text", d.text}}; }

class ClusterServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing_support::NatsServerAvailable()) {
      GTEST_SKIP() << testing_support::kNatsServer << " is absent (scripts/bootstrap installs it)";
    }
    setenv("ATTEST_CLUSTER_CREDENTIAL", kCredential, 1);
    nats_ = std::make_unique<NatsCluster>(dir_);
    testing_support::ProcessResult init;
    ASSERT_TRUE(RetryFor(20, [&] {
      init = RunAttest({"cluster", "init", "--nats", nats_->urls_csv(), "--vshards", "64", "--replicas", "3",
                        "--nodes", "a,b,c"});
      return init.exit_code == 0;
    })) << init.err;
    for (int i = 0; i < 3; ++i) {
      ports_[i] = testing_support::FreeLoopbackPort();
      StartNode(i);
    }
    std::vector<std::string> extra = {"--cluster-nats", nats_->urls_csv(), "--cluster-search-ms", "2000"};
    for (int i = 0; i < 3; ++i) {
      extra.push_back("--cluster-shard");
      extra.push_back(std::string(1, char('a' + i)) + "=http://127.0.0.1:" + std::to_string(ports_[i]));
    }
    key_ = ops_test::CreateKey(dir_.str("coordinator"), {"--tenant", "acme", "--user", "ops", "--admin"});
    ASSERT_FALSE(key_.empty());
    serve_ = std::make_unique<ServeProcess>(dir_.str("coordinator"), std::vector<std::string>{}, extra);
    ASSERT_NE(serve_->port(), 0) << serve_->child().out();
    reference_ = Engine::Open([&] {
                   EngineOptions o;
                   o.data_dir = dir_.str("reference");
                   o.embedder.kind = EmbedderKind::kNone;
                   return o;
                 }())
                     .value();
  }

  void StartNode(int i) {
    const std::string id(1, char('a' + i));
    nodes_[i] = std::make_unique<ChildProcess>(std::vector<std::string>{
        ATTEST_BINARY, "--data", dir_.str("node-" + id), "--embedder", "none", "node", "--nats",
        nats_->urls_csv(), "--node-id", id, "--listen", "127.0.0.1:" + std::to_string(ports_[i])});
  }

  json Search(const std::string& q, int top_k = 10) {
    auto r = ops_test::Call(serve_->port(), "POST", "/v1/search", key_,
                            json{{"query", q}, {"top_k", top_k}, {"mode", "bm25"}}.dump());
    EXPECT_EQ(r.status, 200) << r.body;
    return ops_test::Body(r);
  }

  // A search for every word of the corpus: every document matches it.
  static SearchOptions AllWords() {
    SearchOptions all;
    all.query = "raft log term vote leader quorum snapshot commit index follower election timeout heartbeat segment "
                "replica stream offset ledger";
    all.k = 100;
    all.mode = SearchMode::kBm25;
    all.filter.tenant = "acme";
    return all;
  }

  // Writes `docs` through the coordinator and to the reference store, and waits until the nodes
  // applied them all; *total is how many documents the all-words search finds.
  void WriteCorpus(const std::vector<DocumentSpec>& docs, size_t* total) {
    json batch = {{"documents", json::array()}};
    for (const DocumentSpec& d : docs) batch["documents"].push_back(DocJson(d));
    auto put = ops_test::Call(serve_->port(), "POST", "/v1/documents:batch", key_, batch.dump());
    ASSERT_EQ(put.status, 200) << put.body;
    ASSERT_TRUE(reference_->PutDocuments(docs).ok());
    *total = reference_->Search(AllWords()).value().hits.size();
    ASSERT_TRUE(WaitForHits(AllWords().query, *total)) << "the nodes did not apply the writes";
  }

  // Waits until a search for `q` through the cluster finds `want` documents (a node still
  // starting answers 503 meanwhile: tried again, not a failure).
  bool WaitForHits(const std::string& q, size_t want) {
    return RetryFor(30, [&] {
      auto r = ops_test::Call(serve_->port(), "POST", "/v1/search", key_,
                              json{{"query", q}, {"top_k", 100}, {"mode", "bm25"}}.dump());
      if (r.status != 200) return false;
      json j = ops_test::Body(r);
      return j.contains("hits") && j["hits"].size() == want && j["degraded"].empty();
    });
  }

  TempDir dir_;
  std::unique_ptr<NatsCluster> nats_;
  uint16_t ports_[4] = {0, 0, 0, 0};
  std::unique_ptr<ChildProcess> nodes_[4];
  std::string key_;
  std::unique_ptr<ServeProcess> serve_;
  std::unique_ptr<Engine> reference_;
};

TEST_F(ClusterServeTest, WritesThroughTheLogAndSearchesEqualOneStore) {
  const std::vector<DocumentSpec> docs = Corpus();
  const SearchOptions all = AllWords();
  size_t total = 0;
  ASSERT_NO_FATAL_FAILURE(WriteCorpus(docs, &total));

  for (const std::string q : {"raft leader election", "quorum", "snapshot commit index", "heartbeat timeout"}) {
    json j = Search(q);
    SearchOptions o = all;
    o.query = q;
    o.k = 10;
    auto one = reference_->Search(o);
    ASSERT_TRUE(one.ok());
    ASSERT_EQ(j["hits"].size(), one->hits.size()) << q;
    for (size_t i = 0; i < one->hits.size(); ++i) {
      EXPECT_NEAR(j["hits"][i]["score"].get<double>(), one->hits[i].score, 1e-6) << q << " rank " << i;
    }
    EXPECT_TRUE(j["degraded"].empty()) << j.dump();
  }

  // Documents are read and listed through the coordinator as from one store.
  for (const DocumentSpec& d : {docs.front(), docs.back()}) {
    auto got = ops_test::Call(serve_->port(), "GET", "/v1/documents/" + d.id, key_, "");
    ASSERT_EQ(got.status, 200) << got.body;
    SearchFilter admin;
    admin.tenant = "acme";
    EXPECT_EQ(ops_test::Body(got)["text"], reference_->GetDocument(admin, d.id).value().text);
  }
  auto none = ops_test::Call(serve_->port(), "GET", "/v1/documents/no-such-document", key_, "");
  EXPECT_EQ(none.status, 404) << none.body;
  std::vector<std::string> listed;
  std::string after;
  for (int page = 0; page < 100; ++page) {
    std::string cursor;  // percent-encoded
    for (unsigned char ch : after) {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "%%%02X", ch);
      cursor += std::isalnum(ch) ? std::string(1, char(ch)) : std::string(hex);
    }
    auto l = ops_test::Call(serve_->port(), "GET", "/v1/documents?limit=25" + (after.empty() ? "" : "&cursor=" + cursor),
                            key_, "");
    ASSERT_EQ(l.status, 200) << l.body;
    const json body = ops_test::Body(l);
    for (const json& d : body["documents"]) listed.push_back(d["id"].get<std::string>());
    if (body["next_cursor"].is_null()) break;
    after = body["next_cursor"].get<std::string>();
  }
  std::vector<std::string> want;
  ListDocumentsOptions lo;
  lo.tenant = "acme";
  lo.limit = 1000;
  const DocumentListing reference_listing = reference_->ListDocuments(lo).value();  // kept: the loop reads it
  for (const auto& d : reference_listing.documents) want.push_back(d.id);
  EXPECT_EQ(listed, want);

  // Answers through the coordinator are one store's, and name the shards' snapshots; streamed too.
  for (const std::string q : {"what is a quorum?", "Which leader wins the election after a timeout?"}) {
    AskOptions ao;
    ao.question = q;
    ao.filter.tenant = "acme";
    auto want = reference_->Ask(ao);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto answer = ops_test::Call(serve_->port(), "POST", "/v1/answer", key_, json{{"query", q}}.dump());
    ASSERT_EQ(answer.status, 200) << answer.body;
    const json a = ops_test::Body(answer);
    EXPECT_EQ(a["outcome"], AnswerOutcomeName(want->outcome)) << q;
    EXPECT_EQ(a["answer"], want->text) << q;
    ASSERT_EQ(a["sources"].size(), want->sources.size()) << q;
    for (size_t i = 0; i < want->sources.size(); ++i) EXPECT_EQ(a["sources"][i]["doc_id"], want->sources[i].doc_id);
    EXPECT_NE(a.value("cluster_snapshot", "").find("a@"), std::string::npos) << a.dump();
    EXPECT_TRUE(a["degraded"].empty()) << a["degraded"].dump();
  }
  testing_support::HttpCall stream;
  stream.method = "POST";
  stream.path = "/v1/answer";
  stream.body = json{{"query", "what is a quorum?"}, {"stream", true}}.dump();
  stream.headers["Authorization"] = "Bearer " + key_;
  std::vector<testing_support::SseEvent> events;
  auto streamed = testing_support::SseRequest(serve_->port(), stream, &events);
  EXPECT_EQ(streamed.status, 200);
  bool done = false;
  for (const auto& e : events) {
    if (e.event != "done") continue;
    done = true;
    EXPECT_FALSE(json::parse(e.data).value("cluster_snapshot", "").empty()) << e.data;
  }
  EXPECT_TRUE(done);
  // The OpenAI-compatible chat front-end answers through the coordinator as well.
  auto chat = ops_test::Call(
      serve_->port(), "POST", "/v1/chat/completions", key_,
      json{{"model", "attest-extractive"}, {"messages", {{{"role", "user"}, {"content", "what is a quorum?"}}}}}.dump());
  ASSERT_EQ(chat.status, 200) << chat.body;
  EXPECT_FALSE(ops_test::Body(chat)["choices"][0]["message"]["content"].get<std::string>().empty()) << chat.body;

  // A node killed: searches name it and stay within their deadline; restarted, it is whole again.
  nodes_[1]->Kill(SIGKILL);
  nodes_[1]->Wait();
  const auto t0 = std::chrono::steady_clock::now();
  json partial = Search("quorum");
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 3000);
  ASSERT_EQ(partial["degraded"].size(), 1u) << partial.dump();
  EXPECT_NE(partial["degraded"][0].get<std::string>().find("shard_unavailable: b"), std::string::npos);
  StartNode(1);
  EXPECT_TRUE(WaitForHits(all.query, total)) << "the restarted node did not come back";
}

// A coordinator started with --cluster-discover reaches the nodes that own virtual shards in the
// shard map, and follows the map: a node added with `cluster add-node --rebalance` is searched
// without restarting the coordinator, and the results stay those of one store.
TEST_F(ClusterServeTest, ADiscoveringCoordinatorFollowsTheShardMap) {
  const SearchOptions all = AllWords();
  size_t total = 0;
  ASSERT_NO_FATAL_FAILURE(WriteCorpus(Corpus(), &total));

  std::filesystem::create_directories(dir_.str("discovering"));
  std::filesystem::copy_file(dir_.str("coordinator") + "/auth.db", dir_.str("discovering") + "/auth.db");
  ServeProcess discovering(dir_.str("discovering"), {},
                           {"--cluster-discover", "--cluster-nats", nats_->urls_csv(), "--cluster-search-ms", "2000"});
  ASSERT_NE(discovering.port(), 0) << discovering.child().out();
  auto search = [&](const std::string& q, int top_k) {
    auto r = ops_test::Call(discovering.port(), "POST", "/v1/search", key_,
                            json{{"query", q}, {"top_k", top_k}, {"mode", "bm25"}}.dump());
    return r.status == 200 ? ops_test::Body(r) : json();
  };
  for (const std::string q : {"raft leader election", "snapshot commit index"}) {
    const json flagged = Search(q), found = search(q, 10);
    ASSERT_TRUE(found.contains("hits")) << q;
    EXPECT_FALSE(found.value("cached", false)) << "a coordinator's results must not come from a cache";
    ASSERT_EQ(found["hits"].size(), flagged["hits"].size()) << q;
    for (size_t i = 0; i < found["hits"].size(); ++i) {
      EXPECT_EQ(found["hits"][i]["doc_id"], flagged["hits"][i]["doc_id"]) << q << " rank " << i;
      EXPECT_EQ(found["hits"][i]["chunk_id"], flagged["hits"][i]["chunk_id"]) << q << " rank " << i;
    }
    EXPECT_NE(found["cluster_snapshot"].get<std::string>().find("c@"), std::string::npos);
  }

  // A fourth node joins and takes a fair share of the virtual shards.
  ASSERT_EQ(RunAttest({"cluster", "add-node", "d", "--nats", nats_->urls_csv(), "--rebalance"}).exit_code, 0);
  ports_[3] = testing_support::FreeLoopbackPort();
  StartNode(3);
  const bool followed = RetryFor(60, [&] {
    const json j = search(all.query, 100);
    return j.contains("hits") && j["hits"].size() == total && j["degraded"].empty() &&
           j["cluster_snapshot"].get<std::string>().find("d@") != std::string::npos;
  });
  EXPECT_TRUE(followed) << "the discovering coordinator did not reach the new node: " << search(all.query, 100).dump();
  // The nodes that gave shards up merged their tombstones away: scores are one fresh store's again.
  for (const std::string q : {"quorum", "raft leader election"}) {
    SearchOptions o = all;
    o.query = q;
    o.k = 10;
    const json j = search(q, 10);
    auto one = reference_->Search(o).value();
    ASSERT_EQ(j["hits"].size(), one.hits.size()) << q;
    for (size_t i = 0; i < one.hits.size(); ++i) {
      EXPECT_NEAR(j["hits"][i]["score"].get<double>(), one.hits[i].score, 1e-6) << q << " rank " << i;
    }
  }
}

// `attest crawl --cluster` appends the pages it indexes and deletes to the change log (its data
// directory keeps only the frontier): the nodes hold what a crawl into one store holds, and a page
// gone from the site is deleted from the cluster on the next pass.
TEST_F(ClusterServeTest, ACrawlWritesThroughTheChangeLog) {
  const std::filesystem::path site_dir = dir_.path() / "site";
  std::filesystem::create_directories(site_dir);
  auto page = [&](const std::string& name, const std::string& title, const std::string& body,
                  const std::vector<std::string>& links) {
    std::string html = "<html><head><title>" + title + "</title></head><body><h1>" + title + "</h1><p>" + body + "</p>";
    for (const std::string& l : links) html += "<a href=\"" + l + "\">" + l + "</a> ";
    std::ofstream(site_dir / name) << html << "</body></html>";
  };
  page("index.html", "Crawled index", "The quorum of the crawled cluster elects a leader.", {"a.html", "b.html"});
  page("a.html", "Crawled replicas", "Every crawled replica follows the leader's log and its quorum.", {});
  page("b.html", "Crawled snapshots", "A crawled snapshot compacts the quorum log of a replica.", {});
  testing_support::TestSiteOptions so;
  so.root = site_dir;
  testing_support::TestSiteServer site(so);
  ASSERT_TRUE(site.Start().ok());
  auto crawl = [&](const std::string& data, bool cluster, bool revisit) {
    std::vector<std::string> args = {"--data", data, "--embedder", "none", "crawl", "--seed",
                                     site.origin() + "/index.html", "--allow-address", "127.0.0.1/32",
                                     "--allow-port", std::to_string(site.port()), "--tenant", "acme",
                                     "--no-politeness", "--json"};
    if (cluster) args.insert(args.end(), {"--cluster", nats_->urls_csv()});
    if (revisit) args.push_back("--revisit-all");
    return RunAttest(args);
  };
  auto through_log = crawl(dir_.str("crawler"), true, false);
  ASSERT_EQ(through_log.exit_code, 0) << through_log.err;
  EXPECT_EQ(json::parse(through_log.out)["indexed"], 3) << through_log.out;
  auto local = crawl(dir_.str("reference-crawl"), false, false);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  auto reference = Engine::Open([&] {
                     EngineOptions o;
                     o.data_dir = dir_.str("reference-crawl");
                     o.embedder.kind = EmbedderKind::kNone;
                     o.read_only = true;
                     return o;
                   }())
                       .value();
  SearchOptions q;
  q.query = "crawled quorum";
  q.k = 10;
  q.mode = SearchMode::kBm25;
  q.filter.tenant = "acme";
  const SearchResult want = reference->Search(q).value();
  ASSERT_EQ(want.hits.size(), 3u);
  ASSERT_TRUE(WaitForHits(q.query, 3)) << "the nodes did not apply the crawled pages";
  json got = Search(q.query);
  ASSERT_EQ(got["hits"].size(), want.hits.size());
  for (size_t i = 0; i < want.hits.size(); ++i) {
    EXPECT_EQ(got["hits"][i]["doc_id"], want.hits[i].doc_id);
    EXPECT_EQ(got["hits"][i]["title"], want.hits[i].title);
    EXPECT_NEAR(got["hits"][i]["score"].get<double>(), want.hits[i].score, 1e-6);
  }
  // The crawler's own data directory holds no documents: they went to the log.
  EXPECT_TRUE(std::filesystem::exists(dir_.path() / "reference-crawl" / "catalog.db"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "crawler" / "catalog.db"));

  std::filesystem::remove(site_dir / "b.html");
  auto second = crawl(dir_.str("crawler"), true, true);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(json::parse(second.out)["deleted"], 1) << second.out;
  EXPECT_TRUE(WaitForHits(q.query, 2)) << "the deleted page is still found";
}

// `attest watch --cluster` appends the files of a watched folder to the change log (its data
// directory keeps the file-to-ids map): files written, changed and removed while it runs reach the
// cluster's searches.
TEST_F(ClusterServeTest, AWatchedFolderWritesThroughTheChangeLog) {
  const std::filesystem::path folder = dir_.path() / "watched";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "alpha.md") << "# Alpha\n\nThe watched quorum elects a leader.\n";
  std::ofstream(folder / "beta.md") << "# Beta\n\nA watched replica follows the leader.\n";
  ChildProcess watcher({ATTEST_BINARY, "--data", dir_.str("watcher"), "--embedder", "none", "watch", folder.string(),
                        "--tenant", "acme", "--cluster", nats_->urls_csv()});
  ASSERT_TRUE(WaitForHits("watched leader", 2)) << "the watched files did not reach the cluster";
  json hits = Search("watched leader");
  std::set<std::string> ids;
  for (const json& h : hits["hits"]) ids.insert(h["doc_id"].get<std::string>());
  EXPECT_EQ(ids, (std::set<std::string>{"alpha.md", "beta.md"}));

  std::ofstream(folder / "alpha.md") << "# Alpha\n\nThe watched quorum elects a leader by zanzibar vote.\n";
  EXPECT_TRUE(WaitForHits("zanzibar", 1)) << "a changed file did not reach the cluster";
  auto doc = ops_test::Call(serve_->port(), "GET", "/v1/documents/alpha.md", key_, "");
  ASSERT_EQ(doc.status, 200) << doc.body;
  EXPECT_NE(ops_test::Body(doc)["text"].get<std::string>().find("zanzibar"), std::string::npos);

  std::filesystem::remove(folder / "beta.md");
  EXPECT_TRUE(WaitForHits("watched leader", 1)) << "a removed file is still found";
  watcher.Kill(SIGTERM);
  EXPECT_EQ(watcher.Wait(), 0) << watcher.out();
}

TEST_F(ClusterServeTest, ANodeRefusesCallsWithoutTheServiceCredential) {
  testing_support::HttpCall c;
  c.method = "POST";
  c.path = "/internal/v1/statistics";
  c.body = R"({"contract":"attest.shard/1","options":{}})";
  ASSERT_TRUE(RetryFor(10, [&] { return testing_support::HttpRequest(ports_[0], c).status != 0; }));
  EXPECT_EQ(testing_support::HttpRequest(ports_[0], c).status, 401);
  c.headers["Authorization"] = "Bearer wrong-credential-000000000000";
  EXPECT_EQ(testing_support::HttpRequest(ports_[0], c).status, 401);
}

}  // namespace
}  // namespace attest
