#include "index/ingest_pipeline.h"

#include <chrono>
#include <map>
#include <thread>
#include <unordered_map>

#include <spdlog/spdlog.h>

#include "common/thread_annotations.h"
#include "ingest/provenance.h"
#include "index/work_queue.h"
#include "ingest/jsonl_reader.h"
#include "ingest/source_reader.h"

namespace attest {
namespace {

constexpr size_t kLinesPerUnit = 256;
// Units parsed ahead of the committer at most (bounds memory: ~window x 256 documents).
constexpr uint64_t kWindowUnits = 64;

// One piece of parsing work: a whole file, or a run of lines of a JSONL file.
struct JsonlLine {
  uint64_t number = 0;      // 1-based
  std::string text;
  uint64_t oversize = 0;    // > 0: the line was too long and its text was not kept
};

struct WorkUnit {
  uint64_t seq = 0;
  const SourceFile* file = nullptr;
  std::vector<JsonlLine> lines;  // JSONL only; empty = parse the whole file
  uint64_t bytes = 0;
};

struct UnitResult {
  std::vector<PreparedDocument> docs;
  std::string file;  // the unit's file, relative to its root
  std::vector<IngestIssue> issues;
  uint64_t bytes = 0;
};

// Results arrive out of order from the workers; the committer takes them in sequence.
class ReorderBuffer {
 public:
  void Put(uint64_t seq, UnitResult r) {
    MutexLock lock(mu_);
    ready_.emplace(seq, std::move(r));
    cv_.NotifyAll();
  }
  // Waits for result `seq`; returns false if the producers finished without it.
  bool Take(uint64_t seq, UnitResult* out) {
    MutexLock lock(mu_);
    while (!ready_.count(seq) && !(finished_ && seq >= total_)) cv_.Wait(lock);
    auto it = ready_.find(seq);
    if (it == ready_.end()) return false;
    *out = std::move(it->second);
    ready_.erase(it);
    next_take_ = seq + 1;
    cv_.NotifyAll();
    return true;
  }
  // Backpressure: blocks the producer until unit `seq` is within `window` units of the one the
  // committer waits for, so parsed and analyzed documents never pile up in memory faster than
  // commits drain them. Every unit below next_take_ + window is already queued or in flight, so
  // the committer always gets its next unit and this cannot deadlock (after a failed commit the
  // committer keeps taking, to drain, so the producer is never left waiting).
  void WaitForRoom(uint64_t seq, uint64_t window) {
    MutexLock lock(mu_);
    while (!(seq < next_take_ + window)) cv_.Wait(lock);
  }
  void Finish(uint64_t total_units) {
    MutexLock lock(mu_);
    finished_ = true;
    total_ = total_units;
    cv_.NotifyAll();
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::map<uint64_t, UnitResult> ready_ GUARDED_BY(mu_);
  bool finished_ GUARDED_BY(mu_) = false;
  uint64_t total_ GUARDED_BY(mu_) = 0;
  uint64_t next_take_ GUARDED_BY(mu_) = 0;
};

// What committing `batch` on top of `before` does to each of its documents (by position), for
// IngestOptions::on_document: new, replacing a version with another digest (whose chunks are
// superseded), or identical.
Result<std::vector<IngestedDocument>> DescribeBatch(const Snapshot& before, const WriteBatch& batch) {
  std::vector<IngestedDocument> out(batch.upserts.size());
  for (size_t i = 0; i < batch.upserts.size(); ++i) {
    const DocumentRecord& rec = batch.upserts[i].record;
    out[i].id = rec.id;
    auto old = before.FindDocument(DocumentKey{rec.tenant, rec.id});
    if (!old.ok()) {
      if (old.status().code() != StatusCode::kNotFound) return old.status();
      out[i].outcome = IngestedDocument::Outcome::kAdded;
    } else if (old->sha256 == rec.sha256) {
      out[i].outcome = IngestedDocument::Outcome::kUnchanged;
    } else {
      out[i].outcome = IngestedDocument::Outcome::kReplaced;
      ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> chunks, before.ChunksOfDocument(old->num));
      for (const ChunkRecord& c : chunks) out[i].superseded_chunks.push_back(c.id);
    }
  }
  return out;
}

IngestIssue ToIssue(SourceError&& e) { return IngestIssue{std::move(e.file), e.line, std::move(e.message)}; }

}  // namespace

Result<IngestReport> RunIngestPipeline(const IngestPipelineArgs& args, const IngestOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  IngestReport report;
  if (!options.license.empty()) ATTEST_RETURN_IF_ERROR(CheckLicense(options.license, "license"));

  std::vector<SourceFile> files;
  std::vector<SourceError> list_errors;
  if (!options.root.empty()) {
    if (!options.paths.empty()) return Status::InvalidArgument("ingest: give either paths or root and files, not both");
    ListSourcesUnder(options.root, options.files, &files, &list_errors);
  } else {
    if (!options.files.empty()) return Status::InvalidArgument("ingest: files need the root they are relative to");
    std::vector<std::filesystem::path> roots(options.paths.begin(), options.paths.end());
    ListSources(roots, &files, &list_errors);
  }
  for (auto& e : list_errors) report.issues.push_back(ToIssue(std::move(e)));
  report.files = files.size();
  uint64_t total_bytes = 0;
  for (const auto& f : files) total_bytes += f.size;

  SourceOptions source_options;
  source_options.site = options.site;
  DocumentDefaults defaults{options.tenant, options.acl_groups, options.access_label, options.source_type,
                            options.version, options.site, options.license};

  const unsigned threads = std::max(1u, args.threads);
  WorkQueue<WorkUnit> units(threads * 4);
  ReorderBuffer results;

  // Producer: files in order; JSONL files are cut into runs of lines so one big file still
  // spreads over all workers.
  std::thread producer([&] {
    uint64_t seq = 0;
    for (const SourceFile& f : files) {
      if (f.format != SourceFormat::kBeirJsonl) {
        results.WaitForRoom(seq, kWindowUnits);
        units.Push(WorkUnit{seq++, &f, {}, f.size});
        continue;
      }
      WorkUnit unit{0, &f, {}, 0};
      StreamJsonlLines(
          f, source_options,
          [&](uint64_t line_no, std::string_view line, uint64_t oversize) {
            unit.bytes += (oversize ? oversize : line.size()) + 1;
            unit.lines.push_back(JsonlLine{line_no, std::string(line), oversize});
            if (unit.lines.size() == kLinesPerUnit) {
              results.WaitForRoom(seq, kWindowUnits);
              unit.seq = seq++;
              units.Push(std::move(unit));
              unit = WorkUnit{0, &f, {}, 0};
            }
          },
          [&](SourceError&& e) {
            if (!unit.lines.empty()) {
              unit.seq = seq++;
              units.Push(std::move(unit));
              unit = WorkUnit{0, &f, {}, 0};
            }
            UnitResult r;
            r.issues.push_back(ToIssue(std::move(e)));
            results.Put(seq++, std::move(r));
          });
      if (!unit.lines.empty()) {
        unit.seq = seq++;
        units.Push(std::move(unit));
      }
    }
    units.Close();
    results.Finish(seq);
  });

  std::vector<std::thread> workers;
  for (unsigned i = 0; i < threads; ++i) {
    workers.emplace_back([&] {
      while (auto unit = units.Pop()) {
        UnitResult r;
        r.bytes = unit->bytes;
        r.file = unit->file->relative;
        uint64_t line_no = 0;  // the JSONL line being parsed (0 for a whole file)
        auto on_doc = [&](ParsedDocument&& doc, uint64_t source_bytes) {
          PreparedDocument p = args.indexer->Prepare(doc, defaults, source_bytes);
          if (p.chunks.empty()) {
            r.issues.push_back({unit->file->relative, line_no, "document '" + doc.id + "' has no text to index"});
            return;
          }
          r.docs.push_back(std::move(p));
        };
        auto on_error = [&](SourceError&& e) { r.issues.push_back(ToIssue(std::move(e))); };
        if (unit->lines.empty()) {
          ParseSource(*unit->file, source_options, on_doc, on_error);
        } else {
          JsonlLineParser parser(unit->file->relative, source_options, on_doc, on_error);
          for (const JsonlLine& line : unit->lines) {
            line_no = line.number;
            if (line.oversize) {
              parser.Oversize(line.number, line.oversize);
            } else {
              parser.Line(line.number, line.text);
            }
          }
        }
        results.Put(unit->seq, std::move(r));
      }
    });
  }

  // Committer (this thread): batches in source order, as one bulk load: segments are not merged
  // tier by tier while it runs, but once, together, at the end.
  const SegmentId bulk_first = args.store->NextSegmentId();
  Status failure;
  WriteBatch batch;
  batch.bulk_first_segment = bulk_first;
  std::unordered_map<std::string, size_t> batch_index;  // doc id -> position in batch (last one wins)
  std::vector<std::pair<std::string, size_t>> claims;     // on_document: (file, position in batch)
  uint64_t batch_bytes = 0, done_bytes = 0;
  auto commit = [&]() -> Status {
    if (batch.upserts.empty()) return Status::Ok();
    std::vector<std::string> ids;
    ids.reserve(batch.upserts.size());
    for (const auto& d : batch.upserts) ids.push_back(d.record.id);
    std::vector<IngestedDocument> ingested;  // by position in the batch
    std::vector<IngestedDocument> claimed;   // by claim: each with its file
    if (options.on_document || options.before_commit) {
      ATTEST_ASSIGN_OR_RETURN(ingested, DescribeBatch(*args.store->Pin(), batch));
      for (auto& [file, position] : claims) {
        claimed.push_back(ingested[position]);
        claimed.back().file = std::move(file);
      }
      claims.clear();
    }
    if (options.before_commit) ATTEST_RETURN_IF_ERROR(options.before_commit(claimed));
    ATTEST_ASSIGN_OR_RETURN(CommitResult cr, args.store->Commit(std::move(batch)));
    report.added += cr.added;
    report.replaced += cr.replaced;
    report.unchanged += cr.unchanged;
    report.chunks += cr.chunks_added;
    report.snapshot_version = cr.version.get();
    batch = WriteBatch{};
    batch.bulk_first_segment = bulk_first;
    batch_index.clear();
    batch_bytes = 0;
    if (options.on_commit) options.on_commit(ids);
    if (options.on_document) {
      for (const IngestedDocument& d : claimed) options.on_document(d);
    }
    return Status::Ok();
  };
  for (uint64_t seq = 0;; ++seq) {
    UnitResult r;
    if (!results.Take(seq, &r)) break;
    for (auto& issue : r.issues) report.issues.push_back(std::move(issue));
    done_bytes += r.bytes;
    report.bytes += r.bytes;
    if (!failure.ok()) continue;  // drain the workers after a failed commit
    for (auto& d : r.docs) {
      ++report.documents_seen;
      batch_bytes += d.record.bytes;
      auto [it, inserted] = batch_index.try_emplace(d.record.id, batch.upserts.size());
      if (options.on_document || options.before_commit) claims.emplace_back(r.file, it->second);
      if (inserted) {
        batch.upserts.push_back(std::move(d));
      } else {
        batch.upserts[it->second] = std::move(d);  // a later copy in the same input replaces the earlier one
      }
      if (batch.upserts.size() >= options.batch_documents || batch_bytes >= args.max_batch_bytes) {
        failure = commit();
        if (!failure.ok()) break;
      }
    }
    if (options.on_progress) options.on_progress(done_bytes, total_bytes);
  }
  if (failure.ok()) failure = commit();
  producer.join();
  for (auto& w : workers) w.join();
  // Even after a failed commit, what was committed is durable: merge it like any bulk load. A
  // failed merge loses nothing (the documents are committed; more segments stay behind).
  Status merged = args.store->FinishBulk(bulk_first);
  if (!merged.ok()) spdlog::warn("ingest: merging the new segments failed: {}", merged.ToString());
  if (!failure.ok()) return failure;
  if (report.snapshot_version == 0) report.snapshot_version = args.store->Pin()->version().get();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace attest
