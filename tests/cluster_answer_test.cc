// Answers through a cluster coordinator (cluster/cluster_corpus.h; docs/cluster.md, "Answers
// through a coordinator"): three shard engines holding a corpus split by virtual shard, and one
// engine holding all of it. Every question gets the same answer from both (outcome, text, claims
// and quotes, sources, ranked results), for two tenants and under ACL groups; the coordinator names
// the shards' snapshots in the answer and its manifest; cited chunks are checked through the shard
// their id names; a shard that fails its chunk reads leaves the answer degraded, naming it.
#include <gtest/gtest.h>

#include "answer/answer_corpus.h"
#include "attest/answer.h"
#include "attest/engine.h"
#include "cluster/change_log.h"
#include "cluster/cluster_corpus.h"
#include "cluster/cluster_engine.h"
#include "cluster/scatter_search.h"
#include "eval/qa_evaluation.h"
#include "support/process.h"
#include "support/shard_engines.h"

namespace attest {
namespace {

using testing_support::TempDir;
using testing_support::OpenBm25Engine;

DocumentSpec Doc(const std::string& tenant, const std::string& id, const std::string& title, const std::string& text,
                 std::vector<std::string> groups = {}) {
  DocumentSpec d;
  d.tenant = tenant;
  d.id = id;
  d.title = title;
  d.text = text;
  d.content_type = "markdown";
  d.acl_groups = std::move(groups);
  return d;
}

std::vector<DocumentSpec> Corpus() {
  std::vector<DocumentSpec> docs = {
      Doc("", "replication.md", "Logical replication",
          "# Logical replication\n\nSubscribers apply large transactions in parallel when the subscription sets "
          "streaming to parallel. The default number of parallel apply workers per subscription is 2.\n\n"
          "## Conflicts\n\nA conflict stops the apply worker until the conflicting row is removed."),
      Doc("", "backups.md", "Backups",
          "# Backups\n\nIncremental backups are taken every hour. Backups are kept for thirty days before they "
          "are deleted. A full backup runs every Sunday at 02:00."),
      Doc("", "vacuum.md", "Vacuum",
          "# Vacuum\n\nAutovacuum runs when 20 percent of a table's rows are dead. The autovacuum naptime "
          "defaults to one minute. Vacuum never blocks reads."),
      Doc("", "checkpoints.md", "Checkpoints",
          "# Checkpoints\n\nA checkpoint is written every five minutes or after 1 GB of WAL, whichever comes "
          "first. The checkpoint completion target defaults to 0.9."),
      Doc("", "indexes.md", "Indexes",
          "# Indexes\n\nA B-tree index supports equality and range queries. A hash index supports equality "
          "only. Indexes are rebuilt with REINDEX."),
      Doc("", "salaries.md", "Salaries",
          "# Salaries\n\nThe salary review happens every March. Raises take effect in April.", {"hr"}),
      Doc("", "planner.md", "Query planner",
          "# Query planner\n\nThe planner estimates row counts from statistics gathered by ANALYZE. Statistics "
          "targets default to 100 values per column."),
      Doc("", "wal.md", "Write-ahead log",
          "# Write-ahead log\n\nEvery change is written to the write-ahead log before the data file. WAL "
          "segments are 16 MB by default."),
      Doc("acme", "acme-backups.md", "Acme backups",
          "# Acme backups\n\nAcme keeps its backups for ninety days in the cold archive."),
      Doc("acme", "acme-vacuum.md", "Acme vacuum",
          "# Acme vacuum\n\nAcme runs vacuum manually every night at midnight."),
  };
  docs[1].license = "CC-BY-4.0";  // backups.md: shown on its source card
  docs[1].published = "2026-10-02";
  return docs;
}

class ClusterAnswerTest : public testing::Test {
 protected:
  void SetUp() override {
    single_ = OpenBm25Engine(dir_.path().string() + "/single");
    ASSERT_TRUE(single_->PutDocuments(Corpus()).ok());
    std::vector<DocumentSpec> parts[3];
    for (const DocumentSpec& d : Corpus()) parts[VirtualShardOf(d.tenant, d.id, 64) % 3].push_back(d);
    ClusterEngineOptions co;
    for (int s = 0; s < 3; ++s) {
      shards_.push_back(OpenBm25Engine(dir_.path().string() + "/shard" + std::to_string(s)));
      if (!parts[s].empty()) ASSERT_TRUE(shards_[s]->PutDocuments(parts[s]).ok());
      clients_.push_back(std::make_shared<EngineShard>("s" + std::to_string(s), shards_[s].get()));
      co.shards.push_back(clients_.back());
    }
    auto c = OpenClusterEngine(co);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    cluster_ = std::move(c).value();
  }

  static AskOptions Ask(const std::string& question, SearchFilter filter = {}) {
    AskOptions o;
    o.question = question;
    o.filter = std::move(filter);
    o.today = "2026-12-01";
    return o;
  }

  TempDir dir_;
  std::unique_ptr<Engine> single_;
  std::vector<std::unique_ptr<Engine>> shards_;
  std::vector<std::shared_ptr<EngineShard>> clients_;
  std::unique_ptr<Engine> cluster_;
};

TEST_F(ClusterAnswerTest, EveryQuestionGetsOneStoresAnswer) {
  SearchFilter acme;
  acme.tenant = "acme";
  SearchFilter hr;
  hr.groups = std::vector<std::string>{"hr"};
  SearchFilter outsider;
  outsider.groups = std::vector<std::string>{"eng"};
  const std::vector<AskOptions> questions = {
      Ask("How many parallel apply workers does a subscription use by default?"),
      Ask("How long are backups kept?"),
      Ask("When does autovacuum run?"),
      Ask("How often is a checkpoint written?"),
      Ask("Which index supports range queries?"),
      Ask("What is the capital of Peru?"),  // nothing answers it: the same fallback
      Ask("How long are backups kept?", acme),
      Ask("When does the salary review happen?", hr),
      Ask("When does the salary review happen?", outsider),
  };
  size_t answered = 0;
  for (const AskOptions& q : questions) {
    auto one = single_->Ask(q);
    auto many = cluster_->Ask(q);
    ASSERT_TRUE(one.ok()) << q.question << ": " << one.status().ToString();
    ASSERT_TRUE(many.ok()) << q.question << ": " << many.status().ToString();
    EXPECT_EQ(AnswerDifference(*one, *many), "") << q.question;
    // The source cards: the licence and dates from the shard that holds each document, and a
    // fetched-at time (each store's own commit time, so not compared).
    for (size_t i = 0; i < many->sources.size() && i < one->sources.size(); ++i) {
      EXPECT_EQ(many->sources[i].license, one->sources[i].license) << many->sources[i].doc_id;
      EXPECT_FALSE(many->sources[i].fetched_at.empty()) << many->sources[i].doc_id;
    }
    EXPECT_EQ(many->freshness.newest_source_date, one->freshness.newest_source_date) << q.question;
    EXPECT_TRUE(many->degraded.empty()) << q.question << ": " << many->degraded.front();
    answered += many->outcome == AnswerOutcome::kAnswer;
    // Nothing from another tenant or a document the caller's groups do not admit.
    for (const AnswerSource& s : many->sources) {
      if (q.filter.tenant == "acme") EXPECT_TRUE(s.doc_id.starts_with("acme-")) << s.doc_id;
      if (q.filter.tenant.empty()) EXPECT_FALSE(s.doc_id.starts_with("acme-")) << s.doc_id;
      if (q.filter.groups && *q.filter.groups == std::vector<std::string>{"eng"}) EXPECT_NE(s.doc_id, "salaries.md");
    }
  }
  EXPECT_GE(answered, 4u);  // not a comparison of fallbacks only
}

TEST_F(ClusterAnswerTest, TheAnswerNamesTheShardsSnapshotsAndItsCitationsAreCheckedWhereTheyLive) {
  auto r = cluster_->Ask(Ask("How long are backups kept?"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->outcome, AnswerOutcome::kAnswer);
  EXPECT_EQ(r->snapshot_version, 0u);
  EXPECT_NE(r->cluster_snapshot.find("s0@"), std::string::npos) << r->cluster_snapshot;
  EXPECT_NE(r->manifest_json.find("\"cluster_snapshot\":\"" + r->cluster_snapshot + "\""), std::string::npos);
  EXPECT_FALSE(r->as_of.empty());
  std::vector<CitedChunk> cited;
  for (const AnswerSource& s : r->sources) {
    if (s.cited) cited.push_back({s.doc_id, s.chunk_id});
  }
  ASSERT_FALSE(cited.empty());
  auto states = cluster_->CheckCitations(SearchFilter{}, cited);
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  for (CitationState s : *states) EXPECT_EQ(s, CitationState::kCurrent);

  // The cited document deleted on its shard: deleted. Another tenant asking: not current.
  const std::string doc = cited.front().doc_id;
  for (auto& shard : shards_) (void)shard->Delete("", doc);
  states = cluster_->CheckCitations(SearchFilter{}, {cited.front()});
  ASSERT_TRUE(states.ok());
  EXPECT_EQ(states->front(), CitationState::kDeleted);
  // An id of no shard of this coordinator: its text cannot be shown again.
  auto foreign = cluster_->CheckCitations(SearchFilter{}, {CitedChunk{doc, ChunkId(42)}});
  ASSERT_TRUE(foreign.ok());
  EXPECT_EQ(foreign->front(), CitationState::kDeleted);
}

TEST_F(ClusterAnswerTest, AShardReadsOnlyWhatTheCallerMayRead) {
  // The chunks of salaries.md, found by an admin's search on its shard.
  SearchOptions so;
  so.query = "salary review";
  so.filter.groups = std::nullopt;
  auto hits = cluster_->Search(so);
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->hits.empty());
  ASSERT_EQ(hits->hits.front().doc_id, "salaries.md");
  const auto [tag, local] = SplitClusterChunkId(hits->hits.front().chunk_id);
  const EngineShard* owner = nullptr;
  for (const auto& c : clients_) {
    if (ShardTag(c->name()) == tag) owner = c.get();
  }
  ASSERT_NE(owner, nullptr);
  SearchFilter admin;
  SearchFilter eng;
  eng.groups = std::vector<std::string>{"eng"};
  SearchFilter other_tenant;
  other_tenant.tenant = "acme";
  auto read = owner->Chunks(ShardCall{}, admin, {local});
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_NE(read->front().text.find("March"), std::string::npos);
  for (const SearchFilter& who : {eng, other_tenant}) {
    read = owner->Chunks(ShardCall{}, who, {local});
    ASSERT_TRUE(read.ok());
    EXPECT_TRUE(read->empty()) << who.tenant;
  }
  // Statistics of what the caller reads only: "salary" is in no document the eng group reads.
  auto stats = owner->TermStatistics(ShardCall{}, eng, {"salari"});
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->doc_freq.at("salari"), 0u);
  stats = owner->TermStatistics(ShardCall{}, admin, {"salari"});
  ASSERT_TRUE(stats.ok());
  EXPECT_GE(stats->doc_freq.at("salari"), 1u);
}

// A shard whose chunk reads fail: the answer is still given from what the others hold, and it is
// degraded, naming the shard.
class FailingReads final : public testing_support::ForwardingShard {
 public:
  using ForwardingShard::ForwardingShard;
  Result<std::vector<ChunkContent>> Chunks(const ShardCall&, const SearchFilter&,
                                           const std::vector<ChunkId>&) const override {
    return Status::Unavailable("connection refused");
  }
};

TEST_F(ClusterAnswerTest, AShardThatCannotReadItsChunksIsNamed) {
  std::vector<std::unique_ptr<FailingReads>> failing;
  std::vector<const ShardClient*> shards;
  for (size_t i = 0; i < clients_.size(); ++i) {
    if (i == 0) {
      failing.push_back(std::make_unique<FailingReads>(clients_[i].get()));
      shards.push_back(failing.back().get());
    } else {
      shards.push_back(clients_[i].get());
    }
  }
  ClusterCorpusArgs ca;
  ca.shards = shards;
  ClusterCorpus corpus(ca);
  SearchOptions so;
  so.query = "backups vacuum checkpoint index replication planner";
  so.k = 20;
  auto hits = corpus.Search(Analyzer(), so, VectorLegInput{});
  ASSERT_TRUE(hits.ok());
  std::vector<ChunkId> ids;
  size_t on_failing = 0;
  for (const SearchHit& h : hits->hits) {
    ids.push_back(h.chunk_id);
    on_failing += SplitClusterChunkId(h.chunk_id).first == ShardTag("s0");
  }
  auto chunks = corpus.GetChunks(SearchFilter{}, ids);
  ASSERT_TRUE(chunks.ok());
  EXPECT_EQ(chunks->size(), ids.size() - on_failing);
  for (const ChunkRecord& c : *chunks) EXPECT_NE(SplitClusterChunkId(c.id).first, ShardTag("s0"));
  if (on_failing > 0) {
    ASSERT_EQ(corpus.degraded().size(), 1u);
    EXPECT_NE(corpus.degraded().front().find("shard_unavailable: s0"), std::string::npos);
  }
}

}  // namespace
}  // namespace attest
