// The coordinator's engine (src/cluster/cluster_engine.h) against a change log and shards of this
// test: what it appends for an API write (every document checked first, the payload's SHA-256 as
// the idempotency key, the time of acceptance as the source version), how the log's failures reach
// the caller (a stream that does not acknowledge is kBusy, a stale write kAlreadyExists: 503 and
// 409 through the service's one mapping), and how a search fares when shards fail.
#include <gtest/gtest.h>

#include <fstream>

#include <mutex>
#include <set>

#include "attest/answer.h"
#include "cluster/change_codec.h"
#include "cluster/cluster_engine.h"
#include "common/checksum.h"
#include "service/service_internal.h"
#include "support/fake_clock.h"
#include "support/process.h"

namespace attest {
namespace {

// Keeps what is appended; one key is one write (a repeated key is acknowledged as a duplicate).
class RecordingLog final : public ChangeLog {
 public:
  Status EnsureStream() override { return Status::Ok(); }
  Result<AppendAck> Append(const DocumentChange& change) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++attempts_;
    if (fail_next_ > 0) {
      --fail_next_;
      return failure_;
    }
    if (fail_after_ >= 0 && int(appended_.size()) >= fail_after_) return failure_;
    for (size_t i = 0; i < appended_.size(); ++i) {
      if (appended_[i].idempotency_key == change.idempotency_key) return AppendAck{i + 1, true};
    }
    appended_.push_back(change);
    return AppendAck{appended_.size(), false};
  }
  Result<State> StreamState() override { return State{appended_.size(), appended_.size()}; }

  // From the n-th new write on, Append answers `s`.
  void FailAfter(int n, Status s) {
    fail_after_ = n;
    failure_ = std::move(s);
  }
  // The next `n` attempts answer `s`, then appends succeed again.
  void FailNext(int n, Status s) {
    fail_next_ = n;
    failure_ = std::move(s);
  }
  int attempts() const { return attempts_; }
  std::vector<DocumentChange> appended() const {
    std::lock_guard<std::mutex> lock(mu_);
    return appended_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<DocumentChange> appended_;
  int fail_after_ = -1;
  int fail_next_ = 0;
  int attempts_ = 0;
  Status failure_;
};

// A shard that answers with nothing, or fails every call with `failure`.
class StubShard final : public ShardClient {
 public:
  StubShard(std::string name, Status failure) : name_(std::move(name)), failure_(std::move(failure)) {}
  const std::string& name() const override { return name_; }
  Result<ShardStatistics> Statistics(const ShardCall&, const SearchOptions&) const override {
    if (!failure_.ok()) return failure_;
    ShardStatistics s;
    s.snapshot_version = 3;
    return s;
  }
  Result<SearchResult> Search(const ShardCall&, const SearchOptions&, const ShardStatistics&,
                              uint64_t) const override {
    if (!failure_.ok()) return failure_;
    SearchResult r;
    SearchHit h;  // every shard numbers its chunks itself: the same local id on each
    h.doc_id = name_ + ".md";
    h.chunk_id = ChunkId(local_chunk_);
    h.score = 1;
    r.hits.push_back(h);
    return r;
  }
  Result<ShardHealth> Health(const ShardCall&) const override { return ShardHealth{}; }
  // Holds `<name>.md` and the ids given to hold().
  Result<DocumentInfo> Document(const ShardCall&, const SearchFilter&, const std::string& id) const override {
    if (!failure_.ok()) return failure_;
    if (id != name_ + ".md" && !held_.count(id)) return Status::NotFound("no document with id '" + id + "'");
    DocumentInfo d;
    d.id = id;
    d.text = "text of " + id + " on " + name_;
    d.chunk_ids = {ChunkId(1), ChunkId(local_chunk_)};
    return d;
  }
  Result<DocumentListing> Documents(const ShardCall&, const ListDocumentsOptions& o) const override {
    if (!failure_.ok()) return failure_;
    std::set<std::string> ids = held_;
    ids.insert(name_ + ".md");
    DocumentListing l;
    l.total = ids.size();
    for (const std::string& id : ids) {
      if (id <= o.after_id) continue;
      if (l.documents.size() == o.limit) {
        l.next_after_id = l.documents.back().id;
        break;
      }
      DocumentSummary d;
      d.id = id;
      l.documents.push_back(d);
    }
    return l;
  }
  Result<ShardStatistics> TermStatistics(const ShardCall&, const SearchFilter&,
                                         const std::vector<std::string>& terms) const override {
    if (!failure_.ok()) return failure_;
    ShardStatistics s;
    s.num_docs = 1;
    for (const std::string& t : terms) s.doc_freq[t] = 0;
    return s;
  }
  Result<std::vector<ChunkContent>> Chunks(const ShardCall&, const SearchFilter&,
                                           const std::vector<ChunkId>& ids) const override {
    if (!failure_.ok()) return failure_;
    std::vector<ChunkContent> out;
    for (ChunkId id : ids) {
      ChunkContent c;
      c.id = id;
      c.text = "chunk " + std::to_string(id.get()) + " of " + name_;
      out.push_back(c);
    }
    return out;
  }
  // Every cited chunk is current, except the ids given to forget().
  Result<std::vector<CitationState>> Citations(const ShardCall&, const SearchFilter&,
                                               const std::vector<CitedChunk>& cited) const override {
    if (!failure_.ok()) return failure_;
    std::vector<CitationState> out;
    for (const CitedChunk& c : cited) {
      out.push_back(forgotten_.count(c.chunk_id.get()) ? CitationState::kDeleted : CitationState::kCurrent);
    }
    return out;
  }
  // Holds `<name>.md` and the ids given to hold(), as Document does.
  Result<std::vector<SourceInfo>> Sources(const ShardCall&, const SearchFilter&,
                                          const std::vector<std::string>& ids) const override {
    if (!failure_.ok()) return failure_;
    std::vector<SourceInfo> out;
    for (const std::string& id : ids) {
      if (id == name_ + ".md" || held_.count(id)) out.push_back(SourceInfo{.id = id, .url = "https://" + name_ + "/" + id});
    }
    return out;
  }
  void forget(uint64_t local) { forgotten_.insert(local); }
  void hold(const std::string& id) { held_.insert(id); }
  void set_local_chunk(uint64_t id) { local_chunk_ = id; }

 private:
  std::string name_;
  Status failure_;
  uint64_t local_chunk_ = 7;
  std::set<std::string> held_;
  std::set<uint64_t> forgotten_;
};

DocumentSpec Doc(const std::string& id, const std::string& text) {
  DocumentSpec d;
  d.id = id;
  d.title = "Title of " + id;
  d.text = text;
  return d;
}

struct Coordinator {
  std::shared_ptr<RecordingLog> log = std::make_shared<RecordingLog>();
  testing_support::FakeClock clock;
  std::unique_ptr<Engine> engine;

  std::vector<std::shared_ptr<StubShard>> shards;

  explicit Coordinator(std::vector<Status> shard_failures = {Status::Ok()}) {
    ClusterEngineOptions o;
    for (size_t i = 0; i < shard_failures.size(); ++i) {
      shards.push_back(std::make_shared<StubShard>("s" + std::to_string(i), shard_failures[i]));
      o.shards.push_back(shards.back());
    }
    o.log = log;
    o.clock = &clock;
    o.search_deadline_ms = 2000;
    engine = OpenClusterEngine(std::move(o)).value();
  }
};

TEST(ClusterEngine, AnApiWriteIsAppendedWithItsPayloadHashAndTheTimeItWasAccepted) {
  Coordinator c;
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                          c.clock.WallNow().time_since_epoch()).count();
  auto report = c.engine->PutDocuments({Doc("a.md", "alpha"), Doc("b.md", "beta")});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->added, 2u);
  EXPECT_EQ(report->snapshot_version, 2u);  // the log's sequence of the last write
  const auto appended = c.log->appended();
  ASSERT_EQ(appended.size(), 2u);
  for (const DocumentChange& ch : appended) {
    EXPECT_EQ(ch.kind, DocumentChange::Kind::kUpsert);
    EXPECT_EQ(ch.idempotency_key, Sha256Hex(ch.payload));
    EXPECT_GE(int64_t(ch.source_version), before);
    auto decoded = DecodeChange(ch.payload);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(decoded->doc.id, ch.id);
  }
  // The same request again (a client's retry) appends nothing new.
  auto again = c.engine->PutDocuments({Doc("a.md", "alpha"), Doc("b.md", "beta")});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->unchanged, 2u);
  EXPECT_EQ(c.log->appended().size(), 2u);
}

TEST(ClusterEngine, ABatchWithOneBadDocumentAppendsNothing) {
  Coordinator c;
  auto report = c.engine->PutDocuments({Doc("good.md", "fine"), Doc("", "no id")});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(c.log->appended().empty());
}

TEST(ClusterEngine, AStreamThatDoesNotAcknowledgeIsTheIndexUnavailableAndARetryAppendsNothingTwice) {
  for (const Status& failure : {Status::Unavailable("nats: no servers available"),
                                Status::DeadlineExceeded("nats: timeout")}) {
    Coordinator c;
    c.log->FailAfter(1, failure);
    auto report = c.engine->PutDocuments({Doc("a.md", "alpha"), Doc("b.md", "beta")});
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.status().code(), StatusCode::kBusy) << report.status().ToString();
    EXPECT_NE(report.status().message().find("'b.md'"), std::string::npos) << report.status().message();
    int64_t waited = 0;  // tried again until the write deadline (10 s), never past it
    for (int64_t d : c.clock.delays_ms()) waited += d;
    EXPECT_GT(waited, 8000);
    EXPECT_LE(waited, 10000);
    const service::ApiError e = service::internal::FromStatus(report.status(), "documents",
                                                              service::internal::LimitsOf::kDependency);
    EXPECT_EQ(e.code, service::ApiErrorCode::kUnavailable);  // 503, not a model server's error
    EXPECT_EQ(e.field, "");
    c.log->FailAfter(-1, Status::Ok());
    auto retried = c.engine->PutDocuments({Doc("a.md", "alpha"), Doc("b.md", "beta")});
    ASSERT_TRUE(retried.ok()) << retried.status().ToString();
    EXPECT_EQ(retried->unchanged, 1u);
    EXPECT_EQ(retried->added, 1u);
    EXPECT_EQ(c.log->appended().size(), 2u);
  }
  Coordinator c;
  c.log->FailAfter(0, Status::Unavailable("nats: no servers available"));
  auto removed = c.engine->Delete("", "a.md");
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.status().code(), StatusCode::kBusy);
}

// A stream leader being elected takes seconds: the coordinator tries the same change again (same
// key: never a second write) with a doubling backoff, and the caller sees the write acknowledged.
TEST(ClusterEngine, AWriteIsTriedAgainWhileTheStreamElectsALeader) {
  Coordinator c;
  c.log->FailNext(4, Status::Unavailable("nats: no responders"));
  auto report = c.engine->PutDocuments({Doc("a.md", "alpha")});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->added, 1u);
  EXPECT_EQ(c.log->attempts(), 5);
  EXPECT_EQ(c.log->appended().size(), 1u);
  EXPECT_EQ(c.clock.delays_ms(), (std::vector<int64_t>{100, 200, 400, 800}));
}

TEST(ClusterEngine, AWriteOlderThanTheLogsIsAConflict) {
  Coordinator c;
  c.log->FailAfter(0, Status::AlreadyExists("stale: the log holds source version 9 of 'a.md', newer than 3"));
  auto report = c.engine->PutDocuments({Doc("a.md", "alpha")});
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), StatusCode::kAlreadyExists);
  const service::ApiError e = service::internal::FromStatus(report.status(), "documents",
                                                            service::internal::LimitsOf::kDependency);
  EXPECT_EQ(e.code, service::ApiErrorCode::kConflict);
  EXPECT_NE(e.message.find("stale"), std::string::npos);
}

TEST(ClusterEngine, ASearchNamesAFailedShardAndIsUnavailableWhenNoShardAnswers) {
  {
    Coordinator c({Status::Ok(), Status::Unavailable("connection refused")});
    SearchOptions o;
    o.query = "alpha";
    o.k = 5;
    auto r = c.engine->Search(o);  // mode auto
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->degraded.size(), 1u);
    EXPECT_NE(r->degraded[0].find("s1"), std::string::npos) << r->degraded[0];
    ASSERT_FALSE(r->notices.empty());
    EXPECT_NE(r->notices[0].find("BM25"), std::string::npos);
  }
  {
    Coordinator c({Status::Unavailable("connection refused"), Status::DeadlineExceeded("timed out")});
    SearchOptions o;
    o.query = "alpha";
    o.k = 5;
    auto r = c.engine->Search(o);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kBusy);
    EXPECT_NE(r.status().message().find("s0"), std::string::npos) << r.status().message();
  }
}

// Nodes number their chunks independently; a cluster's results carry ids tagged with the shard's
// name, distinct across shards, the same on every coordinator, and splittable back.
TEST(ClusterEngine, ChunkIdsOfDifferentShardsNeverCollide) {
  Coordinator c({Status::Ok(), Status::Ok(), Status::Ok()});
  SearchOptions o;
  o.query = "alpha";
  o.k = 5;
  o.mode = SearchMode::kBm25;
  auto r = c.engine->Search(o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 3u);
  std::set<uint64_t> ids;
  for (const SearchHit& h : r->hits) {
    ids.insert(h.chunk_id.get());
    const std::string shard = h.doc_id.substr(0, h.doc_id.size() - 3);
    const auto [tag, local] = SplitClusterChunkId(h.chunk_id);
    EXPECT_EQ(tag, ShardTag(shard));
    EXPECT_NE(tag, 0);
    EXPECT_EQ(local.get(), 7u);
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(ShardTag("s1"), ShardTag(std::string("s") + "1"));

  // A node's id beyond 48 bits cannot be tagged: that shard is left out and named.
  c.shards[1]->set_local_chunk(uint64_t{1} << 48);
  auto partial = c.engine->Search(o);
  ASSERT_TRUE(partial.ok()) << partial.status().ToString();
  EXPECT_EQ(partial->hits.size(), 2u);
  ASSERT_EQ(partial->degraded.size(), 1u);
  EXPECT_NE(partial->degraded[0].find("48 bits"), std::string::npos) << partial->degraded[0];

  // A coordinator refuses a shard named twice.
  ClusterEngineOptions twice;
  twice.shards = {std::make_shared<StubShard>("a", Status::Ok()), std::make_shared<StubShard>("a", Status::Ok())};
  auto refused = OpenClusterEngine(std::move(twice));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("twice"), std::string::npos);
}

// A document is read from whichever shard holds it, with cluster chunk ids; no shard holding it
// is a 404, and a shard down while no other holds it is a 503 naming it (it may be there).
TEST(ClusterEngine, ADocumentIsReadFromTheShardThatHoldsIt) {
  Coordinator c({Status::Ok(), Status::Ok()});
  auto d = c.engine->GetDocument(SearchFilter{}, "s1.md");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->text, "text of s1.md on s1");
  ASSERT_EQ(d->chunk_ids.size(), 2u);
  EXPECT_EQ(SplitClusterChunkId(d->chunk_ids[1]).first, ShardTag("s1"));
  EXPECT_EQ(SplitClusterChunkId(d->chunk_ids[1]).second.get(), 7u);
  EXPECT_EQ(c.engine->GetDocument(SearchFilter{}, "nowhere.md").status().code(), StatusCode::kNotFound);

  Coordinator down({Status::Ok(), Status::Unavailable("connection refused")});
  EXPECT_TRUE(down.engine->GetDocument(SearchFilter{}, "s0.md").ok());
  auto missing = down.engine->GetDocument(SearchFilter{}, "s1.md");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kBusy) << missing.status().ToString();
}

// Pages of a listing merge the shards' pages by id: the same pages one store would give, none
// skipped or repeated; a shard down fails the listing rather than hide its documents.
TEST(ClusterEngine, AListingPagesThroughEveryShardInIdOrder) {
  Coordinator c({Status::Ok(), Status::Ok(), Status::Ok()});
  std::set<std::string> want = {"s0.md", "s1.md", "s2.md"};
  for (int i = 0; i < 10; ++i) {
    const std::string id = "doc-" + std::to_string(i) + ".md";
    c.shards[size_t(i) % 3]->hold(id);
    want.insert(id);
  }
  std::vector<std::string> seen;
  ListDocumentsOptions o;
  o.limit = 4;
  for (int page = 0; page < 10; ++page) {
    auto l = c.engine->ListDocuments(o);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    EXPECT_LE(l->documents.size(), 4u);
    EXPECT_EQ(l->total, want.size());
    for (const DocumentSummary& d : l->documents) seen.push_back(d.id);
    if (!l->next_after_id) break;
    o.after_id = *l->next_after_id;
  }
  EXPECT_EQ(seen, std::vector<std::string>(want.begin(), want.end()));

  Coordinator down({Status::Ok(), Status::Unavailable("connection refused")});
  ListDocumentsOptions all;
  auto l = down.engine->ListDocuments(all);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), StatusCode::kBusy);
  EXPECT_NE(l.status().message().find("s1"), std::string::npos) << l.status().message();
}

// The nodes a discovering coordinator reaches: every owner of a virtual shard, once, in id order,
// with its registered address ("" for one that has not registered: it is named, not skipped).
TEST(ShardSet, OwningNodesAreEveryOwnerWithItsAddress) {
  std::map<uint32_t, ShardAssignment> assignments = {{0, {"b", 1}}, {1, {"a", 1}}, {2, {"b", 1}}, {3, {"d", 1}}};
  std::vector<NodeRecord> nodes = {{"a", "http://127.0.0.1:1", 5}, {"b", "http://127.0.0.1:2", 5},
                                   {"c", "http://127.0.0.1:3", 5}};
  const std::vector<ShardEndpoint> want = {{"a", "http://127.0.0.1:1"}, {"b", "http://127.0.0.1:2"}, {"d", ""}};
  EXPECT_EQ(OwningNodes(assignments, nodes), want);  // c owns nothing: not searched
}

// A shard list is replaced whole or not at all; requests keep the list they started with.
TEST(ShardSet, AListWithATwiceNamedShardIsRefusedAndTheCurrentOneStays) {
  auto set = ShardSet::Make({std::make_shared<StubShard>("a", Status::Ok())}).value();
  const auto before = set->Current();
  EXPECT_FALSE(set->Replace({std::make_shared<StubShard>("b", Status::Ok()),
                             std::make_shared<StubShard>("b", Status::Ok())})
                   .ok());
  EXPECT_EQ(set->Current(), before);
  EXPECT_FALSE(set->Replace({}).ok());
  ASSERT_TRUE(set->Replace({std::make_shared<StubShard>("b", Status::Ok())}).ok());
  EXPECT_EQ((*set->Current())[0]->name(), "b");
  EXPECT_EQ((*before)[0]->name(), "a");  // still alive for whoever holds it
}

TEST(ClusterEngine, WhatACoordinatorCannotDoYetIsUnsupportedAndNamed) {
  Coordinator c;
  EXPECT_EQ(c.engine->Reembed().status().code(), StatusCode::kUnsupported);
  ClusterEngineOptions no_log;
  no_log.shards.push_back(std::make_shared<StubShard>("s0", Status::Ok()));
  auto reader = OpenClusterEngine(no_log).value();
  IngestOptions io;
  io.paths = {"/tmp/x.md"};
  auto ingest = reader->Ingest(io);
  ASSERT_FALSE(ingest.ok());
  EXPECT_EQ(ingest.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(ingest.status().message().find("no change log"), std::string::npos);
  // A write-only engine reads nothing, and says so.
  ClusterEngineOptions writer;
  writer.log = std::make_shared<RecordingLog>();
  writer.write_only = true;
  auto w = OpenClusterEngine(writer).value();
  SearchOptions so;
  so.query = "alpha";
  EXPECT_EQ(w->Search(so).status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(OpenClusterEngine(ClusterEngineOptions{.write_only = true}).ok());  // no log
}

// Files ingested through a coordinator's engine are appended as `ingest --cluster` appends them,
// with the watcher's callbacks: every document named before its append, each reported after it
// (a duplicate as unchanged); a format the log cannot carry is an issue naming the file.
TEST(ClusterEngine, IngestedFilesAreAppendedWithTheWatchersCallbacks) {
  testing_support::TempDir dir;
  std::ofstream(dir.path() / "a.md") << "# Alpha\n\nAlpha text.\n";
  std::ofstream(dir.path() / "b.txt") << "Beta text.\n";
  std::ofstream(dir.path() / "c.jsonl") << "{\"_id\":\"x\",\"text\":\"y\"}\n";
  Coordinator c;
  std::vector<std::string> named, reported;
  IngestOptions io;
  io.root = dir.path().string();
  io.files = {"a.md", "b.txt", "c.jsonl", "missing.md"};
  io.tenant = "acme";
  io.before_commit = [&](const std::vector<IngestedDocument>& docs) {
    for (const auto& d : docs) named.push_back(d.file + ":" + d.id);
    return Status::Ok();
  };
  io.on_document = [&](const IngestedDocument& d) {
    reported.push_back(d.id + (d.outcome == IngestedDocument::Outcome::kUnchanged ? " unchanged" : " added"));
  };
  auto r = c.engine->Ingest(io);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->added, 2u);
  EXPECT_EQ(r->snapshot_version, 2u);
  EXPECT_EQ(named, (std::vector<std::string>{"a.md:a.md", "b.txt:b.txt"}));
  EXPECT_EQ(reported, (std::vector<std::string>{"a.md added", "b.txt added"}));
  ASSERT_EQ(r->issues.size(), 2u);  // the JSONL file, the missing one
  const auto appended = c.log->appended();
  ASSERT_EQ(appended.size(), 2u);
  EXPECT_EQ(appended[0].tenant, "acme");
  reported.clear();
  auto again = c.engine->Ingest(io);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->unchanged, 2u);
  EXPECT_EQ(reported, (std::vector<std::string>{"a.md unchanged", "b.txt unchanged"}));
  // A callback that fails stops the run before that file is appended.
  io.before_commit = [](const std::vector<IngestedDocument>&) { return Status::IOError("map not saved"); };
  std::ofstream(dir.path() / "a.md") << "# Alpha\n\nAlpha changed.\n";
  EXPECT_FALSE(c.engine->Ingest(io).ok());
  EXPECT_EQ(c.log->appended().size(), 2u);
}

// Cited chunks are asked of the shard their id's tag names, with the node's own ids; the answers
// come back in the order asked; an id of no shard is deleted; a shard failing is a 503.
TEST(ClusterEngine, CitationsAreCheckedByTheShardTheirIdNames) {
  Coordinator c({Status::Ok(), Status::Ok()});
  c.shards[1]->forget(5);
  const ChunkId on_s0 = ClusterChunkId(ShardTag("s0"), ChunkId(5)).value();
  const ChunkId on_s1 = ClusterChunkId(ShardTag("s1"), ChunkId(5)).value();
  const ChunkId nowhere = ClusterChunkId(ShardTag("gone"), ChunkId(5)).value();
  auto states = c.engine->CheckCitations(SearchFilter{}, {{"a.md", on_s1}, {"b.md", on_s0}, {"c.md", nowhere}});
  ASSERT_TRUE(states.ok()) << states.status().ToString();
  EXPECT_EQ(*states, (std::vector<CitationState>{CitationState::kDeleted, CitationState::kCurrent,
                                                 CitationState::kDeleted}));
  Coordinator down({Status::Ok(), Status::Unavailable("connection refused")});
  auto failed = down.engine->CheckCitations(SearchFilter{}, {{"a.md", on_s1}});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kBusy);
  EXPECT_NE(failed.status().message().find("s1"), std::string::npos);
}

}  // namespace
}  // namespace attest
