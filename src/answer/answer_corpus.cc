#include "answer/answer_corpus.h"

#include <map>

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

Result<ShardStatistics> TermStatisticsOf(const Snapshot& snapshot, const SearchFilter& who,
                                         const std::vector<std::string>& terms) {
  ATTEST_RETURN_IF_ERROR(TranslateFilter(who).status());
  SnapshotTermStats stats(snapshot, who);
  ShardStatistics out;
  out.snapshot_version = snapshot.version().get();
  out.num_docs = stats.NumDocs();
  for (const std::string& t : terms) out.doc_freq[t] = stats.DocFreq(t);
  return out;
}

Result<std::vector<ChunkRecord>> ReadableChunks(const Snapshot& snapshot, const SearchFilter& who,
                                                std::span<const ChunkId> ids) {
  ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, snapshot.GetChunks(ids));
  std::map<uint64_t, bool> admitted;  // doc num -> whether `who` reads it
  std::vector<ChunkRecord> out;
  out.reserve(chunks.size());
  for (ChunkRecord& c : chunks) {
    auto it = admitted.find(c.doc.get());
    if (it == admitted.end()) {
      auto doc = snapshot.GetDocument(c.doc);
      it = admitted.emplace(c.doc.get(), doc.ok() && Admits(who, *doc)).first;
    }
    if (it->second) out.push_back(std::move(c));
  }
  return out;
}

ChunkContent ContentOfChunk(const ChunkRecord& record) {
  ChunkContent c;
  c.id = record.id;
  c.ordinal = record.ordinal;
  c.section_path = record.section_path;
  c.text = record.text;
  for (const ChunkSpan& s : record.spans) {
    c.spans.push_back({s.begin, s.end, std::string(SpanRoleName(s.role)), s.subject});
  }
  return c;
}

Result<ChunkRecord> ChunkFromContent(const ChunkContent& content) {
  ChunkRecord r;
  r.id = content.id;
  r.ordinal = content.ordinal;
  r.section_path = content.section_path;
  r.text = content.text;
  for (const ChunkContent::Span& s : content.spans) {
    ChunkSpan span;
    span.begin = s.begin;
    span.end = s.end;
    span.subject = s.subject;
    bool known = false;
    for (uint8_t role = 0; role <= uint8_t(SpanRole::kCode) && !known; ++role) {
      if (SpanRoleName(SpanRole(role)) == s.role) {
        span.role = SpanRole(role);
        known = true;
      }
    }
    if (!known) return Status::InvalidArgument("chunk " + std::to_string(content.id.get()) + ": span role '" + s.role + "' is unknown");
    if (s.begin > s.end || s.end > content.text.size()) {
      return Status::InvalidArgument("chunk " + std::to_string(content.id.get()) + ": a span lies outside its text");
    }
    r.spans.push_back(std::move(span));
  }
  return r;
}

std::vector<std::pair<std::string, SourceRow>> ReadableSources(const Snapshot& snapshot, const SearchFilter& who,
                                                               std::span<const std::string> ids) {
  std::vector<std::pair<std::string, SourceRow>> out;
  for (const std::string& id : ids) {
    auto record = snapshot.FindDocument(DocumentKey{who.tenant, id});
    if (record.ok() && Admits(who, *record)) out.emplace_back(id, SourceRowOf(snapshot, *record));
  }
  return out;
}

SourceInfo InfoOfSource(const std::string& id, const SourceRow& row) {
  SourceInfo info;
  info.id = id;
  info.url = row.url;
  info.license = row.license;
  info.feed = row.feed;
  if (row.published) info.published = FormatDate(*row.published);
  if (row.updated) info.updated = FormatDate(*row.updated);
  info.fetched_at_ms = row.fetched_at_ms;
  return info;
}

SourceRow SourceFromInfo(const SourceInfo& info) {
  SourceRow row;
  row.url = info.url;
  row.license = info.license;
  row.feed = info.feed;
  row.published = ParseDate(info.published);
  row.updated = ParseDate(info.updated);
  row.fetched_at_ms = info.fetched_at_ms;
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
