// A search scattered over three shard engines (src/cluster/scatter_search.h) against one engine
// holding every document: the same documents in the same order with the same BM25 scores (to 1e-6;
// in fact bit for bit, since the summed statistics are integers), for plain words, name queries,
// operators and phrases, per tenant and under ACL groups and clearances; format siblings on
// different shards folded as one store folds them. Then the failures: a shard that fails is named
// in `degraded`, a released snapshot restarts the search once, a bad query is the caller's error.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "attest/engine.h"
#include "cluster/change_log.h"
#include "cluster/scatter_search.h"
#include "support/process.h"
#include "support/shard_engines.h"

namespace attest {
namespace {

using testing_support::TempDir;
using testing_support::OpenBm25Engine;

const std::vector<std::string> kWords = {
    "replica", "segment",  "postings", "tenant",  "cursor",  "vacuum",  "rebase",   "commit",  "branch",
    "index",   "journal",  "lock",     "page",    "cache",   "query",   "planner",  "shard",   "stream",
    "offset",  "snapshot", "merge",    "token",   "window",  "latency", "backup",   "restore", "schema",
    "trigger", "view",     "cluster",  "node",    "leader",  "follower", "quorum",  "ledger",  "archive"};

std::string Sentence(std::mt19937& rng, int words) {
  std::string s;
  for (int i = 0; i < words; ++i) {
    if (!s.empty()) s += ' ';
    s += kWords[rng() % kWords.size()];
  }
  return s + ".";
}

// Documents of two tenants, some with ACL groups and labels, some published in two formats.
std::vector<DocumentSpec> Corpus() {
  std::mt19937 rng(7);
  std::vector<DocumentSpec> docs;
  for (int i = 0; i < 240; ++i) {
    DocumentSpec d;
    d.tenant = i % 5 == 0 ? "acme" : "";
    d.id = i % 17 == 0 ? "guide/page" + std::to_string(i / 17) + ".html" : "doc-" + std::to_string(i);
    d.title = i % 11 == 0 ? kWords[i % kWords.size()] + " " + kWords[(i + 3) % kWords.size()] : Sentence(rng, 3);
    d.text = Sentence(rng, 8 + int(rng() % 20)) + " " + Sentence(rng, 5 + int(rng() % 30));
    if (i % 7 == 0) d.acl_groups = {"eng"};
    if (i % 13 == 0) d.access_label = "confidential";
    docs.push_back(d);
    if (i % 17 == 0) {  // its source, with the same text: a format sibling (folded into the .html)
      d.id = "guide/page" + std::to_string(i / 17) + ".txt";
      docs.push_back(d);
    }
  }
  return docs;
}

class ScatterSearchTest : public testing::Test {
 protected:
  void SetUp() override {
    single_ = OpenBm25Engine(dir_.path().string() + "/single");
    for (int s = 0; s < 3; ++s) shards_.push_back(OpenBm25Engine(dir_.path().string() + "/shard" + std::to_string(s)));
    std::vector<DocumentSpec> parts[3];
    for (const DocumentSpec& d : Corpus()) parts[VirtualShardOf(d.tenant, d.id, 64) % 3].push_back(d);
    ASSERT_TRUE(single_->PutDocuments(Corpus()).ok());
    for (int s = 0; s < 3; ++s) {
      ASSERT_FALSE(parts[s].empty());
      ASSERT_TRUE(shards_[s]->PutDocuments(parts[s]).ok());
      clients_.push_back(std::make_unique<EngineShard>("s" + std::to_string(s), shards_[s].get()));
    }
  }

  std::vector<const ShardClient*> Clients() const {
    std::vector<const ShardClient*> out;
    for (const auto& c : clients_) out.push_back(c.get());
    return out;
  }

  Result<SearchResult> Scatter(const SearchOptions& o) const {
    ScatterArgs a;
    a.shards = Clients();
    a.options = o;
    a.call.request_id = "test";
    return ScatterSearch(a);
  }

  TempDir dir_;
  std::unique_ptr<Engine> single_;
  std::vector<std::unique_ptr<Engine>> shards_;
  std::vector<std::unique_ptr<EngineShard>> clients_;
};

// Equal up to the order of hits with exactly equal scores (one store breaks such ties by ingestion
// order, a cluster by shard); a tie group cut by k must hold documents with that score.
void ExpectSameRanking(const SearchResult& one, const SearchResult& cluster, const SearchResult& one_deeper,
                       const std::string& what) {
  ASSERT_EQ(one.hits.size(), cluster.hits.size()) << what;
  std::map<std::string, float> deeper;
  for (const SearchHit& h : one_deeper.hits) deeper.emplace(h.doc_id, h.score);
  size_t i = 0;
  while (i < one.hits.size()) {
    size_t j = i;
    while (j < one.hits.size() && one.hits[j].score == one.hits[i].score) ++j;
    std::multiset<std::string> a, b;
    for (size_t x = i; x < j; ++x) {
      EXPECT_NEAR(one.hits[x].score, cluster.hits[x].score, 1e-6) << what << " rank " << x;
      a.insert(one.hits[x].doc_id);
      b.insert(cluster.hits[x].doc_id);
    }
    if (j < one.hits.size()) {
      EXPECT_EQ(a, b) << what << " ranks " << i << ".." << j;
    } else {
      for (const std::string& id : b) {
        ASSERT_TRUE(deeper.count(id)) << what << ": " << id << " is not among the single store's results";
        EXPECT_EQ(deeper[id], cluster.hits[i].score) << what << ": " << id;
      }
    }
    i = j;
  }
}

TEST_F(ScatterSearchTest, RankingsAndScoresEqualOneStore) {
  std::mt19937 rng(11);
  std::vector<std::string> queries = {"replica segment", "vacuum", "\"commit branch\"", "+shard stream",
                                      "cache -lock", "page cache query planner", "rebase commit"};
  for (int i = 0; i < 40; ++i) {
    std::string q;
    const int n = 1 + int(rng() % 4);
    for (int w = 0; w < n; ++w) q += (w ? " " : "") + kWords[rng() % kWords.size()];
    queries.push_back(q);
  }
  struct Caller {
    std::string tenant;
    std::optional<std::vector<std::string>> groups;
    std::optional<std::string> clearance;
  };
  const std::vector<Caller> callers = {{"", std::nullopt, std::nullopt},
                                       {"", std::vector<std::string>{}, std::string("public")},
                                       {"", std::vector<std::string>{"eng"}, std::string("confidential")},
                                       {"acme", std::vector<std::string>{"eng"}, std::nullopt}};
  size_t compared = 0, nonempty = 0;
  for (const Caller& c : callers) {
    for (const std::string& q : queries) {
      for (size_t k : {5u, 20u}) {
        SearchOptions o;
        o.query = q;
        o.k = k;
        o.mode = SearchMode::kBm25;
        o.filter.tenant = c.tenant;
        o.filter.groups = c.groups;
        o.filter.clearance = c.clearance;
        auto one = single_->Search(o);
        ASSERT_TRUE(one.ok()) << q << ": " << one.status().ToString();
        auto cluster = Scatter(o);
        ASSERT_TRUE(cluster.ok()) << q << ": " << cluster.status().ToString();
        SearchOptions deeper = o;
        deeper.k = k * 4;
        auto one_deeper = single_->Search(deeper);
        ASSERT_TRUE(one_deeper.ok());
        ExpectSameRanking(one.value(), cluster.value(), one_deeper.value(), "'" + q + "' tenant '" + c.tenant + "'");
        EXPECT_TRUE(cluster.value().degraded.empty());
        EXPECT_EQ(cluster.value().cluster_snapshot.substr(0, 3), "s0@");
        ++compared;
        if (!one.value().hits.empty()) ++nonempty;
      }
    }
  }
  EXPECT_GT(nonempty, compared / 2);
}

TEST_F(ScatterSearchTest, FormatSiblingsOnDifferentShardsFoldAsInOneStore) {
  // The .html and .txt of one page fall on different shards for some pages; one store shows each once.
  size_t split = 0;
  for (int p = 0; p <= 240 / 17; ++p) {
    const std::string base = "guide/page" + std::to_string(p);
    if (VirtualShardOf("", base + ".html", 64) % 3 != VirtualShardOf("", base + ".txt", 64) % 3) ++split;
  }
  ASSERT_GT(split, 0u) << "the corpus should put some siblings on different shards";
  SearchOptions o;
  o.query = "replica segment postings tenant cursor vacuum";
  o.k = 50;
  o.mode = SearchMode::kBm25;
  auto cluster = Scatter(o);
  ASSERT_TRUE(cluster.ok());
  for (const SearchHit& h : cluster.value().hits) EXPECT_EQ(h.doc_id.find(".txt"), std::string::npos) << h.doc_id;
}

// A client that fails the way it is told to, then behaves.
class FlakyShard final : public testing_support::ForwardingShard {
 public:
  FlakyShard(const ShardClient* inner, Status stats_error, Status search_error, int times)
      : ForwardingShard(inner), stats_error_(stats_error), search_error_(search_error), times_(times) {}
  Result<ShardStatistics> Statistics(const ShardCall& call, const SearchOptions& o) const override {
    if (!stats_error_.ok() && calls_ < times_) return stats_error_;
    return inner_->Statistics(call, o);
  }
  Result<SearchResult> Search(const ShardCall& call, const SearchOptions& o, const ShardStatistics& g,
                              uint64_t v) const override {
    if (!search_error_.ok() && calls_++ < times_) return search_error_;
    if (stats_error_.ok() == false) ++calls_;
    return inner_->Search(call, o, g, v);
  }

 private:
  Status stats_error_, search_error_;
  int times_;
  mutable int calls_ = 0;
};

TEST_F(ScatterSearchTest, AFailingShardIsNamedAndTheOthersAnswer) {
  FlakyShard dead(clients_[1].get(), Status::Unavailable("connection refused"), Status::Ok(), 1000);
  ScatterArgs a;
  a.shards = {clients_[0].get(), &dead, clients_[2].get()};
  a.options.query = "replica segment";
  a.options.mode = SearchMode::kBm25;
  auto r = ScatterSearch(a);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r.value().degraded.size(), 1u);
  EXPECT_NE(r.value().degraded[0].find("shard_unavailable: s1: connection refused"), std::string::npos);
  EXPECT_FALSE(r.value().hits.empty());
  EXPECT_EQ(r.value().cluster_snapshot.find("s1@"), std::string::npos);
}

TEST_F(ScatterSearchTest, AReleasedSnapshotRestartsTheSearchOnce) {
  FlakyShard released(clients_[0].get(), Status::Ok(), Status::NotFound("snapshot 3 is no longer pinned"), 1);
  ScatterArgs a;
  a.shards = {&released, clients_[1].get(), clients_[2].get()};
  a.options.query = "cache query";
  a.options.mode = SearchMode::kBm25;
  auto r = ScatterSearch(a);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r.value().degraded.empty());
  auto one = single_->Search(a.options);
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(r.value().hits.size(), one.value().hits.size());

  FlakyShard always(clients_[0].get(), Status::Ok(), Status::NotFound("released"), 100);
  a.shards = {&always, clients_[1].get(), clients_[2].get()};
  auto gone = ScatterSearch(a);
  EXPECT_EQ(gone.status().code(), StatusCode::kUnavailable);
}

TEST_F(ScatterSearchTest, TheCallersErrorsAreNotDegradation) {
  SearchOptions o;
  o.query = "-only -excluded";
  o.mode = SearchMode::kBm25;
  EXPECT_EQ(Scatter(o).status().code(), StatusCode::kInvalidArgument);
  o.query = "replica";
  o.mode = SearchMode::kHybrid;
  auto r = Scatter(o);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("BM25 only"), std::string::npos);
  ScatterArgs none;
  none.options.query = "replica";
  EXPECT_EQ(ScatterSearch(none).status().code(), StatusCode::kUnavailable);
}

TEST_F(ScatterSearchTest, EveryShardDownIsUnavailable) {
  FlakyShard a0(clients_[0].get(), Status::Unavailable("down"), Status::Ok(), 1000);
  FlakyShard a1(clients_[1].get(), Status::DeadlineExceeded("slow"), Status::Ok(), 1000);
  ScatterArgs a;
  a.shards = {&a0, &a1};
  a.options.query = "replica";
  auto r = ScatterSearch(a);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("s0"), std::string::npos);
}

}  // namespace
}  // namespace attest
