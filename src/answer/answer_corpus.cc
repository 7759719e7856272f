#include "answer/answer_corpus.h"

#include "index/document_api.h"
#include "lexical/visibility.h"

namespace attest {

SnapshotTermStats::SnapshotTermStats(const Snapshot& snapshot, const SearchFilter& who) {
  auto filter = TranslateFilter(who);
  if (filter.ok()) stats_ = std::make_unique<ScopedStats>(snapshot.segments(), *filter);
}

SnapshotTermStats::~SnapshotTermStats() = default;

uint64_t SnapshotTermStats::DocFreq(const std::string& term) const { return stats_ ? stats_->DocFreq(term) : 0; }

uint64_t SnapshotTermStats::NumDocs() const { return stats_ ? stats_->num_docs() : 0; }

SourceRow SourceRowOf(const Snapshot& snapshot, const DocumentRecord& record) {
  SourceRow row;
  row.url = record.url;
  row.license = record.license;
  row.published = record.published;
  row.updated = record.updated;
  row.feed = record.feed;
  row.fetched_at_ms = record.fetched_at_ms;  // when the crawler fetched it, else its commit
  if (row.fetched_at_ms == 0) {
    if (auto committed = snapshot.VersionCommittedAtUnixMs(record.created); committed.ok()) {
      row.fetched_at_ms = *committed;
    }
  }
  return row;
}

Result<std::vector<ChunkRecord>> SnapshotAnswerCorpus::GetChunks(const SearchFilter& who,
                                                           std::span<const ChunkId> ids) const {
  // The ids come from this caller's filtered searches: the snapshot's records are theirs to read.
  (void)who;
  return snapshot_->GetChunks(ids);
}

std::shared_ptr<const CorpusTermStats> SnapshotAnswerCorpus::TermStats(const SearchFilter& who) const {
  return std::make_shared<SnapshotTermStats>(*snapshot_, who);
}

Result<SourceRow> SnapshotAnswerCorpus::Source(const SearchFilter& who, const std::string& id) const {
  ATTEST_ASSIGN_OR_RETURN(DocumentRecord record, snapshot_->FindDocument(DocumentKey{who.tenant, id}));
  if (!Admits(who, record)) return Status::NotFound("no document '" + id + "'");
  return SourceRowOf(*snapshot_, record);
}

}  // namespace attest
