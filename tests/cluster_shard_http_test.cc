// The service contract between a coordinator and its shard nodes over loopback HTTP: three shard
// engines behind their internal routes (server/shard_routes.h) searched through HttpShard clients
// equal one store bit for bit; a call without the service credential is refused (401) and the
// shard named in `degraded`; another contract version is the caller's error (400 naming it); a
// passed deadline gets 504 without work; a shard that hangs or answers garbage is left out within
// the deadline, named.
#include <gtest/gtest.h>

#include <thread>

#include "answer/answer_corpus.h"
#include "attest/engine.h"
#include "cluster/answer_contract.h"
#include "cluster/change_log.h"
#include "cluster/cluster_engine.h"
#include "cluster/document_contract.h"
#include "cluster/scatter_documents.h"
#include "cluster/scatter_search.h"
#include "cluster/shard_contract.h"
#include "cluster/shard_http.h"
#include "cluster/shard_service.h"
#include "eval/qa_evaluation.h"
#include "http_server_test_util.h"
#include "server/shard_routes.h"
#include "support/process.h"
#include "support/shard_engines.h"

namespace attest {
namespace {

using http::test_util::TestServer;
using testing_support::TempDir;
using testing_support::OpenBm25Engine;

const std::string kCredential = "a-service-credential-0123456789";

std::vector<DocumentSpec> Corpus() {
  const std::vector<std::string> words = {"raft", "log", "term", "vote", "leader", "quorum", "snapshot", "commit",
                                          "index", "follower", "election", "timeout", "heartbeat", "segment"};
  std::vector<DocumentSpec> docs;
  for (int i = 0; i < 90; ++i) {
    DocumentSpec d;
    d.id = "doc-" + std::to_string(i);
    d.title = words[i % words.size()] + " " + words[(i * 5) % words.size()];
    for (int w = 0; w < 12 + i % 9; ++w) d.text += words[(i * 7 + w * 3 + w * w) % words.size()] + " ";
    if (i % 4 == 0) d.acl_groups = {"ops"};
    docs.push_back(d);
  }
  return docs;
}

struct ShardNodeUnderTest {
  std::unique_ptr<Engine> engine;
  std::unique_ptr<ShardService> service;
  server::ShardRouteContext ctx;
  std::unique_ptr<TestServer> server;
};

class ShardHttpTest : public testing::Test {
 protected:
  void SetUp() override {
    single_ = OpenBm25Engine(dir_.path().string() + "/single");
    ASSERT_TRUE(single_->PutDocuments(Corpus()).ok());
    std::vector<DocumentSpec> parts[3];
    for (const DocumentSpec& d : Corpus()) parts[VirtualShardOf(d.tenant, d.id, 64) % 3].push_back(d);
    HttpClientOptions co;
    co.use_environment_proxy = false;
    client_ = std::make_shared<HttpClient>(co);
    for (int s = 0; s < 3; ++s) {
      auto node = std::make_unique<ShardNodeUnderTest>();
      node->engine = OpenBm25Engine(dir_.path().string() + "/shard" + std::to_string(s));
      ASSERT_TRUE(node->engine->PutDocuments(parts[s]).ok());
      auto svc = ShardService::Open({node->engine.get(), kCredential});
      ASSERT_TRUE(svc.ok());
      node->service = std::make_unique<ShardService>(std::move(svc).value());
      node->ctx.shard = node->service.get();
      node->ctx.version_header = "test";
      const Engine* engine = node->engine.get();
      node->ctx.health_json = [engine, s] {
        ShardHealth h;
        h.node = "n" + std::to_string(s);
        h.snapshot = engine->CurrentSnapshot();
        h.vshards = 21;
        return EncodeHealthReply(h);
      };
      node->server = std::make_unique<TestServer>(server::BuildShardRoutes(&node->ctx));
      nodes_.push_back(std::move(node));
    }
  }

  std::unique_ptr<HttpShard> Client(int s, std::string credential = kCredential) const {
    return std::make_unique<HttpShard>(
        HttpShardOptions{"n" + std::to_string(s), "http://127.0.0.1:" + std::to_string(nodes_[s]->server->port()),
                         std::move(credential)},
        client_);
  }

  TempDir dir_;
  std::unique_ptr<Engine> single_;
  std::vector<std::unique_ptr<ShardNodeUnderTest>> nodes_;
  std::shared_ptr<HttpClient> client_;
};

TEST_F(ShardHttpTest, ThreeShardsOverHttpEqualOneStore) {
  auto c0 = Client(0), c1 = Client(1), c2 = Client(2);
  for (const std::string q : {"raft leader election", "quorum", "snapshot commit index", "\"leader election\"",
                              "heartbeat -timeout"}) {
    for (bool ops : {false, true}) {
      ScatterArgs a;
      a.shards = {c0.get(), c1.get(), c2.get()};
      a.options.query = q;
      a.options.k = 10;
      a.options.mode = SearchMode::kBm25;
      a.options.filter.groups = ops ? std::vector<std::string>{"ops"} : std::vector<std::string>{};
      a.call.request_id = "req-1";
      a.call.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      auto cluster = ScatterSearch(a);
      ASSERT_TRUE(cluster.ok()) << q << ": " << cluster.status().ToString();
      auto one = single_->Search(a.options);
      ASSERT_TRUE(one.ok());
      ASSERT_EQ(one->hits.size(), cluster->hits.size()) << q;
      for (size_t i = 0; i < one->hits.size(); ++i) {
        EXPECT_EQ(one->hits[i].score, cluster->hits[i].score) << q << " rank " << i;
        EXPECT_EQ(one->hits[i].snippet.empty(), cluster->hits[i].snippet.empty());
      }
      EXPECT_TRUE(cluster->degraded.empty());
      EXPECT_NE(cluster->cluster_snapshot.find("n2@"), std::string::npos);
    }
  }
}

// Reading and listing documents over the internal routes: every document of the store is read
// with its text, as one store gives it, from the shard that holds it; the caller's groups hide a
// document as one store hides it; the listing's pages, merged by id, are one store's pages.
TEST_F(ShardHttpTest, DocumentsAreReadAndListedOverHttpAsFromOneStore) {
  auto c0 = Client(0), c1 = Client(1), c2 = Client(2);
  DocumentScatterArgs a;
  a.shards = {c0.get(), c1.get(), c2.get()};
  a.call.request_id = "req-docs";
  a.call.deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  SearchFilter ops;
  ops.groups = std::vector<std::string>{"ops"};
  SearchFilter nobody;
  nobody.groups = std::vector<std::string>{};
  for (const DocumentSpec& spec : Corpus()) {
    auto one = single_->GetDocument(ops, spec.id);
    ASSERT_TRUE(one.ok()) << spec.id;
    auto cluster = ScatterGetDocument(a, ops, spec.id);
    ASSERT_TRUE(cluster.ok()) << spec.id << ": " << cluster.status().ToString();
    EXPECT_EQ(cluster->text, one->text) << spec.id;
    EXPECT_EQ(cluster->title, one->title);
    EXPECT_EQ(cluster->acl_groups, one->acl_groups);
    EXPECT_EQ(cluster->chunk_ids.size(), one->chunk_ids.size());
    const auto hidden = ScatterGetDocument(a, nobody, spec.id);
    EXPECT_EQ(hidden.ok(), single_->GetDocument(nobody, spec.id).ok()) << spec.id;
    if (!hidden.ok()) EXPECT_EQ(hidden.status().code(), StatusCode::kNotFound);
  }
  ListDocumentsOptions o;
  o.limit = 7;
  ListDocumentsOptions s = o;
  for (int page = 0; page < 30; ++page) {
    auto one = single_->ListDocuments(s);
    auto cluster = ScatterListDocuments(a, o);
    ASSERT_TRUE(one.ok() && cluster.ok()) << cluster.status().ToString();
    std::vector<std::string> want, got;
    for (const auto& d : one->documents) want.push_back(d.id);
    for (const auto& d : cluster->documents) got.push_back(d.id);
    ASSERT_EQ(got, want) << "page " << page;
    EXPECT_EQ(cluster->total, one->total);
    ASSERT_EQ(cluster->next_after_id.has_value(), one->next_after_id.has_value()) << "page " << page;
    if (!one->next_after_id) break;
    o.after_id = *cluster->next_after_id;
    s.after_id = *one->next_after_id;
  }
  // Another contract version in a document call is the caller's error, named.
  EXPECT_NE(DecodeDocumentRequest(R"({"contract":"attest.shard/2","filter":{},"id":"x"})").status().message().find(
                "attest.shard/2"),
            std::string::npos);
  EXPECT_NE(DecodeListingRequest(R"({"contract":"attest.shard/1","listing":{"tenant":"","limit":0,"after_id":"","text":""}})")
                .status()
                .message()
                .find("listing.limit"),
            std::string::npos);
}

TEST_F(ShardHttpTest, AnswersReadTheShardsOverHttpAsOneStore) {
  std::vector<std::shared_ptr<HttpShard>> clients;
  ClusterEngineOptions co;
  for (int s = 0; s < 3; ++s) {
    clients.push_back(Client(s));
    co.shards.push_back(clients.back());
  }
  auto cluster = OpenClusterEngine(co);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  SearchFilter ops;
  ops.groups = std::vector<std::string>{"ops"};
  for (const std::string& q : {"Which leader wins the election?", "What does the quorum commit?",
                               "raft heartbeat timeout", "What is a snapshot of the log?"}) {
    for (const SearchFilter& who : {SearchFilter{}, ops}) {
      AskOptions o;
      o.question = q;
      o.filter = who;
      o.today = "2026-12-01";
      auto one = single_->Ask(o);
      auto many = (*cluster)->Ask(o);
      ASSERT_TRUE(one.ok() && many.ok()) << q << ": " << many.status().ToString();
      EXPECT_EQ(AnswerDifference(*one, *many), "") << q;
      if (!AnswerDifference(*one, *many).empty()) {
        for (size_t i = 0; i < one->sources.size(); ++i) fprintf(stderr, "%s %s | %s\n", one->sources[i].id.c_str(), one->sources[i].doc_id.c_str(), many->sources[i].doc_id.c_str());
        for (size_t i = 0; i < one->results.size(); ++i) fprintf(stderr, "R %s %f | %s %f\n", one->results[i].doc_id.c_str(), one->results[i].score, many->results[i].doc_id.c_str(), many->results[i].score);
      }
      EXPECT_TRUE(many->degraded.empty()) << q;
      EXPECT_FALSE(many->cluster_snapshot.empty());
    }
  }
  // The routes one by one: term statistics, chunks (text and spans as stored), citations.
  auto local = EngineShard("n0", nodes_[0]->engine.get());
  auto remote = Client(0);
  auto a = local.TermStatistics(ShardCall{}, ops, {"raft", "leader", "absentterm"});
  auto b = remote->TermStatistics(ShardCall{}, ops, {"raft", "leader", "absentterm"});
  ASSERT_TRUE(a.ok() && b.ok()) << b.status().ToString();
  EXPECT_EQ(a->num_docs, b->num_docs);
  EXPECT_EQ(a->doc_freq, b->doc_freq);
  EXPECT_EQ(b->doc_freq.at("absentterm"), 0u);
  SearchOptions so;
  so.query = "leader";
  so.filter = ops;
  auto hits = nodes_[0]->engine->Search(so);
  ASSERT_TRUE(hits.ok() && !hits->hits.empty());
  std::vector<ChunkId> ids;
  std::vector<CitedChunk> cited;
  for (const SearchHit& h : hits->hits) {
    ids.push_back(h.chunk_id);
    cited.push_back({h.doc_id, h.chunk_id});
  }
  ids.push_back(ChunkId(999999));  // no such chunk: skipped
  auto x = local.Chunks(ShardCall{}, ops, ids);
  auto y = remote->Chunks(ShardCall{}, ops, ids);
  ASSERT_TRUE(x.ok() && y.ok()) << y.status().ToString();
  ASSERT_EQ(x->size(), ids.size() - 1);
  ASSERT_EQ(y->size(), x->size());
  for (size_t i = 0; i < x->size(); ++i) {
    EXPECT_EQ((*y)[i].id, (*x)[i].id);
    EXPECT_EQ((*y)[i].text, (*x)[i].text);
    EXPECT_EQ((*y)[i].spans.size(), (*x)[i].spans.size());
  }
  // Source rows: those the shard holds and the caller reads, in the order asked, as in process.
  std::vector<std::string> source_ids = {"no-such-doc"};
  for (const SearchHit& h : hits->hits) source_ids.push_back(h.doc_id);
  auto local_rows = local.Sources(ShardCall{}, ops, source_ids);
  auto remote_rows = remote->Sources(ShardCall{}, ops, source_ids);
  ASSERT_TRUE(local_rows.ok() && remote_rows.ok()) << remote_rows.status().ToString();
  ASSERT_EQ(remote_rows->size(), hits->hits.size());
  for (size_t i = 0; i < remote_rows->size(); ++i) {
    EXPECT_EQ((*remote_rows)[i].id, hits->hits[i].doc_id);
    EXPECT_EQ((*remote_rows)[i].fetched_at_ms, (*local_rows)[i].fetched_at_ms);
    EXPECT_GT((*remote_rows)[i].fetched_at_ms, 0);
  }
  SearchFilter none;
  none.groups = std::vector<std::string>{};
  auto visible = remote->Sources(ShardCall{}, none, source_ids);
  ASSERT_TRUE(visible.ok());
  EXPECT_LT(visible->size(), remote_rows->size());  // the ops group's documents are not the caller's
  auto states = remote->Citations(ShardCall{}, ops, cited);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  ASSERT_EQ(states->size(), cited.size());
  for (CitationState st : *states) EXPECT_EQ(st, CitationState::kCurrent);
  SearchFilter nobody;
  nobody.groups = std::vector<std::string>{};
  auto hidden = remote->Citations(ShardCall{}, nobody, cited);
  ASSERT_TRUE(hidden.ok());
  size_t forbidden = 0;
  for (CitationState st : *hidden) forbidden += st == CitationState::kForbidden;
  EXPECT_GT(forbidden, 0u);  // a quarter of the corpus is the ops group's
}

TEST(AnswerContractTest, BodiesRoundTripAndBadOnesAreRefusedByName) {
  SearchFilter f;
  f.tenant = "acme";
  f.groups = std::vector<std::string>{"ops"};
  auto t = DecodeTermStatisticsRequest(EncodeTermStatisticsRequest(f, {"raft", "log"}));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->filter.tenant, "acme");
  EXPECT_EQ(t->terms, (std::vector<std::string>{"raft", "log"}));
  auto c = DecodeChunksRequest(EncodeChunksRequest(f, {ChunkId(3), ChunkId(9)}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->ids, (std::vector<ChunkId>{ChunkId(3), ChunkId(9)}));
  ChunkContent cc;
  cc.id = ChunkId(3);
  cc.ordinal = 2;
  cc.section_path = "A > B";
  cc.text = "hello world";
  cc.spans = {{0, 5, "heading", "A"}, {6, 11, "text", ""}};
  auto back = DecodeChunksReply(EncodeChunksReply({cc}));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(back->front().section_path, "A > B");
  EXPECT_EQ(back->front().spans[0].role, "heading");
  auto states = DecodeCitationsReply(EncodeCitationsReply({CitationState::kChanged, CitationState::kForbidden}));
  ASSERT_TRUE(states.ok());
  EXPECT_EQ(*states, (std::vector<CitationState>{CitationState::kChanged, CitationState::kForbidden}));
  auto rows = DecodeSourcesReply(EncodeSourcesReply({SourceInfo{"a.md", "https://x/a", "MIT", "", "2026-01-02", "", 1700000000000}}));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->front().license, "MIT");
  EXPECT_EQ(rows->front().fetched_at_ms, 1700000000000);
  auto asked = DecodeSourcesRequest(EncodeSourcesRequest(f, {"a.md", "b.md"}));
  ASSERT_TRUE(asked.ok());
  EXPECT_EQ(asked->ids.size(), 2u);
  EXPECT_NE(DecodeSourcesReply(R"({"contract":"attest.shard/1","sources":{"items":[{"id":"a","url":"","license":"","feed":"","published":"","updated":"","fetched_at_ms":-1}]}})")
                .status()
                .message()
                .find("fetched_at_ms has the wrong type"),
            std::string::npos);
  auto cited = DecodeCitationsRequest(EncodeCitationsRequest(f, {CitedChunk{"a.md", ChunkId(7)}}));
  ASSERT_TRUE(cited.ok());
  EXPECT_EQ(cited->cited.front().doc_id, "a.md");

  auto message = [](const Status& s) { return s.message(); };
  EXPECT_NE(message(DecodeTermStatisticsRequest(R"({"contract":"attest.shard/1","filter":{"tenant":"","source_types":[],"sites":[],"versions":[]},"terms":[1]})").status()).find("terms must hold strings"), std::string::npos);
  EXPECT_NE(message(DecodeChunksRequest(R"({"contract":"attest.shard/1","filter":{"tenant":"","source_types":[],"sites":[],"versions":[]},"ids":["x"]})").status()).find("ids must hold chunk ids"), std::string::npos);
  EXPECT_NE(message(DecodeCitationsReply(R"({"contract":"attest.shard/1","citations":{"states":["gone"]}})").status()).find("'gone' is not a citation state"), std::string::npos);
  EXPECT_NE(message(DecodeChunksReply(R"({"contract":"attest.shard/1","chunks":{"items":[{"id":1,"ordinal":0,"section_path":"","text":"x"}]}})").status()).find("spans is missing"), std::string::npos);
  std::string many = R"({"contract":"attest.shard/1","filter":{"tenant":"","source_types":[],"sites":[],"versions":[]},"ids":[)";
  for (size_t i = 0; i <= kMaxContractItems; ++i) many += (i ? "," : "") + std::to_string(i);
  EXPECT_NE(message(DecodeChunksRequest(many + "]}").status()).find("more than"), std::string::npos);
  // A chunk whose span lies outside its text, or whose role is unknown, is not taken.
  ChunkContent bad = cc;
  bad.spans = {{0, 50, "text", ""}};
  EXPECT_EQ(ChunkFromContent(bad).status().code(), StatusCode::kInvalidArgument);
  bad.spans = {{0, 5, "poem", ""}};
  EXPECT_NE(ChunkFromContent(bad).status().message().find("'poem'"), std::string::npos);
  auto good = ChunkFromContent(cc);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(good->spans[0].role, SpanRole::kHeading);
}

TEST_F(ShardHttpTest, HealthIsReadWithTheCredential) {
  auto h = Client(1)->Health(ShardCall{});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->node, "n1");
  EXPECT_EQ(h->vshards, 21u);
  EXPECT_GT(h->snapshot, 0u);
  auto refused = Client(1, "wrong-credential-0000000000000")->Health(ShardCall{});
  EXPECT_EQ(refused.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(refused.status().message().find("401"), std::string::npos);
}

TEST_F(ShardHttpTest, AShardRefusesCallsWithoutTheServiceCredential) {
  auto good = Client(0), bad = Client(1, "not-the-credential-at-all-000000"), none = Client(2, "");
  ScatterArgs a;
  a.shards = {good.get(), bad.get(), none.get()};
  a.options.query = "raft";
  auto r = ScatterSearch(a);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->degraded.size(), 2u);
  EXPECT_NE(r->degraded[0].find("shard_unavailable: n1: HTTP 401"), std::string::npos) << r->degraded[0];
  EXPECT_NE(r->degraded[1].find("shard_unavailable: n2: HTTP 401"), std::string::npos) << r->degraded[1];
  EXPECT_FALSE(ShardService::Open({nodes_[0]->engine.get(), "short"}).ok());
  EXPECT_FALSE(ShardService::Open({nullptr, kCredential}).ok());
}

TEST_F(ShardHttpTest, TheContractIsCheckedAndTheDeadlineHonoured) {
  const std::string url = "http://127.0.0.1:" + std::to_string(nodes_[0]->server->port()) + "/internal/v1/statistics";
  HttpRequest req;
  req.method = "POST";
  req.url = url;
  req.headers = {{"Authorization", "Bearer " + kCredential}, {"Content-Type", "application/json"}};
  req.body = R"({"contract":"attest.shard/2","options":{}})";
  auto r = client_->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("attest.shard/2"), std::string::npos) << r->body;
  req.body = R"({"contract":"attest.shard/1","options":{"query":"raft"}})";
  r = client_->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("options.k is missing"), std::string::npos) << r->body;
  req.headers.push_back({"X-Attest-Deadline-Ms", "0"});
  r = client_->Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 504);
}

TEST_F(ShardHttpTest, AHangingOrGarbledShardIsLeftOutWithinTheDeadline) {
  http::Router slow;
  slow.Add("POST", "/internal/v1/statistics", http::Pool::kInteractive, [](std::shared_ptr<http::Exchange> ex) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ex->Respond(http::Response{});
  });
  http::Router garbled;
  garbled.Add("POST", "/internal/v1/statistics", http::Pool::kInteractive, [](std::shared_ptr<http::Exchange> ex) {
    http::Response resp;
    resp.body = R"({"contract":"attest.shard/1","statistics":{"snapshot":1,"num_docs":-4}})";
    ex->Respond(resp);
  });
  TestServer slow_server(std::move(slow)), garbled_server(std::move(garbled));
  HttpShard hanging({"hanging", "http://127.0.0.1:" + std::to_string(slow_server.port()), kCredential}, client_);
  HttpShard garbage({"garbage", "http://127.0.0.1:" + std::to_string(garbled_server.port()), kCredential}, client_);
  auto good = Client(0);
  ScatterArgs a;
  a.shards = {good.get(), &hanging, &garbage};
  a.options.query = "raft";
  a.call.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(400);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = ScatterSearch(a);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_LT(ms, 1000) << "the hanging shard held the search past its deadline";
  ASSERT_EQ(r->degraded.size(), 2u);
  EXPECT_NE(r->degraded[0].find("shard_unavailable: hanging: timed out"), std::string::npos) << r->degraded[0];
  EXPECT_NE(r->degraded[1].find("shard_unavailable: garbage: malformed statistics reply"), std::string::npos)
      << r->degraded[1];
  EXPECT_FALSE(r->hits.empty());
}

}  // namespace
}  // namespace attest
