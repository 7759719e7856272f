// What an answer reads of the index (docs/answer.md; docs/cluster.md, "Answers through a
// coordinator"): searches, chunk records by id, term statistics under the caller's visibility,
// one row per source (its dates, licence and fetch time), and the "as of" time. Two
// implementations: SnapshotAnswerCorpus below, over the one snapshot pinned for the answer (one process),
// and ClusterCorpus (cluster/cluster_corpus.h), over a cluster's shard nodes. The answer pipeline
// reads nothing else, so an answer is the same whichever one it reads when they hold the same
// documents.
//
// Thread-safety: implementations are safe for concurrent calls (research runs rounds in parallel).
#pragma once

#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "common/date.h"
#include "search/search_runner.h"
#include "store/store.h"
#include "text/analyzer.h"

namespace attest {

class ScopedStats;

// Document frequencies of analyzed terms over what one caller may read (its tenant, groups and
// clearance; lexical/visibility.h): what another tenant or a hidden document contains never changes
// how an answer is built.
class CorpusTermStats {
 public:
  virtual ~CorpusTermStats() = default;
  virtual uint64_t DocFreq(const std::string& term) const = 0;
  virtual uint64_t NumDocs() const = 0;
  // Asks for these terms at once; a cluster makes one call per shard for them, and DocFreq of any of
  // them is then answered from memory. A snapshot needs no warning.
  virtual void Prefetch(std::span<const std::string> terms) const { (void)terms; }
  // BM25's IDF: log(1 + (N - df + 0.5) / (df + 0.5)).
  double Idf(const std::string& term) const {
    const double n = double(NumDocs());
    const double df = double(DocFreq(term));
    return std::log(1.0 + std::max(0.0, (n - df + 0.5) / (df + 0.5)));
  }
};

// What an answer shows of a source's document.
struct SourceRow {
  std::string url;
  std::string license;
  std::optional<DayNumber> published, updated;
  // When its text was fetched, Unix ms: the crawler's fetch, else the commit of the version (0 =
  // unknown). Live fetch's later confirmations are added by the caller (FetchedAtMs).
  int64_t fetched_at_ms = 0;
  std::string feed;  // "versions" for an authoritative version feed
};

class AnswerCorpus {
 public:
  virtual ~AnswerCorpus() = default;
  // The snapshot the answer reads (0 over a cluster: each search pins one per shard, named in the
  // search result's cluster_snapshot).
  virtual uint64_t version() const = 0;
  // The latest commit the answer's index includes, Unix ms (the "as of" time).
  virtual Result<int64_t> CommittedAtUnixMs() const = 0;
  virtual Result<SearchResult> Search(const Analyzer& analyzer, const SearchOptions& options,
                                      const VectorLegInput& vector) const = 0;
  // Chunks by id in the order asked, under `who` (the caller's filter); ids not visible are skipped.
  virtual Result<std::vector<ChunkRecord>> GetChunks(const SearchFilter& who, std::span<const ChunkId> ids) const = 0;
  virtual std::shared_ptr<const CorpusTermStats> TermStats(const SearchFilter& who) const = 0;
  // The live document `id` of `who.tenant` if `who` may read it; kNotFound otherwise.
  virtual Result<SourceRow> Source(const SearchFilter& who, const std::string& id) const = 0;
  // Warns that Source will be asked for these ids (a cluster reads them in one call per shard).
  virtual void PrefetchSources(const SearchFilter& who, std::span<const std::string> ids) const {
    (void)who;
    (void)ids;
  }
};

// An answer over one pinned snapshot (a single process; a shard node's own reads).
class SnapshotAnswerCorpus final : public AnswerCorpus {
 public:
  explicit SnapshotAnswerCorpus(const Snapshot* snapshot) : snapshot_(snapshot) {}
  uint64_t version() const override { return snapshot_->version().get(); }
  Result<int64_t> CommittedAtUnixMs() const override { return snapshot_->CommittedAtUnixMs(); }
  Result<SearchResult> Search(const Analyzer& analyzer, const SearchOptions& options,
                              const VectorLegInput& vector) const override {
    return RunSearch(*snapshot_, analyzer, options, vector);
  }
  Result<std::vector<ChunkRecord>> GetChunks(const SearchFilter& who, std::span<const ChunkId> ids) const override;
  std::shared_ptr<const CorpusTermStats> TermStats(const SearchFilter& who) const override;
  Result<SourceRow> Source(const SearchFilter& who, const std::string& id) const override;
  const Snapshot& snapshot() const { return *snapshot_; }

 private:
  const Snapshot* snapshot_;
};

// Term statistics of one snapshot under a caller's filter (SnapshotAnswerCorpus::TermStats; a shard
// node's /internal/v1/term_statistics). Keeps a pointer to the snapshot's segments.
class SnapshotTermStats final : public CorpusTermStats {
 public:
  SnapshotTermStats(const Snapshot& snapshot, const SearchFilter& who);
  ~SnapshotTermStats() override;
  uint64_t DocFreq(const std::string& term) const override;
  uint64_t NumDocs() const override;

 private:
  std::unique_ptr<ScopedStats> stats_;  // null when the filter is invalid: nothing is readable
};

// A shard node's side of a cluster's answers (Engine::TermStatistics, Engine::ReadChunks), over its
// latest snapshot: the statistics of analyzed `terms` under `who`, and the chunks among `ids` whose
// document `who` may read (in the order asked; the others skipped: a coordinator only asks for
// chunks its searches for `who` returned, and a shard checks again).
Result<ShardStatistics> TermStatisticsOf(const Snapshot& snapshot, const SearchFilter& who,
                                         const std::vector<std::string>& terms);
Result<std::vector<ChunkRecord>> ReadableChunks(const Snapshot& snapshot, const SearchFilter& who,
                                                std::span<const ChunkId> ids);
// A chunk record and the public form that travels between processes. ChunkFromContent is
// kInvalidArgument for an unknown span role or a span outside the text (untrusted input).
ChunkContent ContentOfChunk(const ChunkRecord& record);
Result<ChunkRecord> ChunkFromContent(const ChunkContent& content);
// The source rows among `ids` that `who` may read, in the order asked (Engine::ReadSources), and
// the two forms of a row. SourceFromInfo ignores dates it cannot read (untrusted input).
std::vector<std::pair<std::string, SourceRow>> ReadableSources(const Snapshot& snapshot, const SearchFilter& who,
                                                               std::span<const std::string> ids);
SourceInfo InfoOfSource(const std::string& id, const SourceRow& row);
SourceRow SourceFromInfo(const SourceInfo& info);

// A source's row from a snapshot's document record: fetched_at_ms is the crawler's fetch, else the
// commit time of the version.
SourceRow SourceRowOf(const Snapshot& snapshot, const DocumentRecord& record);

}  // namespace attest
