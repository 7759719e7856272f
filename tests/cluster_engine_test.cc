// The coordinator's engine (src/cluster/cluster_engine.h) against a change log and shards of this
// test: what it appends for an API write (every document checked first, the payload's SHA-256 as
// the idempotency key, the time of acceptance as the source version), how the log's failures reach
// the caller (a stream that does not acknowledge is kBusy, a stale write kAlreadyExists: 503 and
// 409 through the service's one mapping), and how a search fares when shards fail.
#include <gtest/gtest.h>

#include <mutex>

#include "attest/answer.h"
#include "cluster/change_codec.h"
#include "cluster/cluster_engine.h"
#include "common/checksum.h"
#include "service/service_internal.h"
#include "support/fake_clock.h"

namespace attest {
namespace {

// Keeps what is appended; one key is one write (a repeated key is acknowledged as a duplicate).
class RecordingLog final : public ChangeLog {
 public:
  Status EnsureStream() override { return Status::Ok(); }
  Result<AppendAck> Append(const DocumentChange& change) override {
    std::lock_guard<std::mutex> lock(mu_);
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
  std::vector<DocumentChange> appended() const {
    std::lock_guard<std::mutex> lock(mu_);
    return appended_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<DocumentChange> appended_;
  int fail_after_ = -1;
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
    return SearchResult{};
  }
  Result<ShardHealth> Health(const ShardCall&) const override { return ShardHealth{}; }

 private:
  std::string name_;
  Status failure_;
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

  explicit Coordinator(std::vector<Status> shard_failures = {Status::Ok()}) {
    ClusterEngineOptions o;
    for (size_t i = 0; i < shard_failures.size(); ++i) {
      o.shards.push_back(std::make_shared<StubShard>("s" + std::to_string(i), shard_failures[i]));
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

TEST(ClusterEngine, WhatACoordinatorCannotDoYetIsUnsupportedAndNamed) {
  Coordinator c;
  AskOptions a;
  a.question = "what is alpha?";
  auto answer = c.engine->Ask(a);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(answer.status().message().find("answering"), std::string::npos);
  auto doc = c.engine->GetDocument(SearchFilter{}, "a.md");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace attest
