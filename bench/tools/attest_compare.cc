// The Attest side of the comparison benchmark: the engine's internal APIs used directly.
//   Build: one reader thread cuts corpus.jsonl into batches of lines; `--threads` workers (default 2)
//          parse JSON and run the Analyzer (the costly part) in parallel; the main thread adds the
//          analyzed chunks to one SegmentWriter in corpus order and writes one segment file.
//   Query: a plain OR of the query's analyzed terms (one kShould clause per occurrence), BM25
//          k1=0.9 b=0.4 (Bm25Params defaults), top-k by LexicalSearcher::TopK on one thread; the
//          ACL run sets ChunkFilter::groups = {group}, which is evaluated inside the traversal.
// Usage: see bench/common/bench_driver.h and bench/README.md.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "common/bench_driver.h"
#include "common/corpus_reader.h"
#include "lexical/lexical_searcher.h"
#include "lexical/segment.h"
#include "lexical/segment_writer.h"
#include "text/analyzer.h"

namespace attest::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSegmentFile = "lexical.seg";
// The checksum the build verified the segment with, standing in for the store's catalog: the store
// deep-verifies a segment once when it writes it, records its checksum in the catalog, and opens it
// later with the shallow checks plus that checksum (SegmentFile::Reopen). The bench does the same.
constexpr const char* kVouchedCrcFile = "lexical.crc";
constexpr size_t kBatchDocs = 512;
constexpr size_t kMaxBatchesInFlight = 16;

struct AnalyzedBatch {
  std::vector<IndexedChunk> chunks;
  std::vector<std::string> ids;
  uint64_t raw_bytes = 0;
  Status status;
};

// Reader -> workers -> in-order writer. Thread-safety: all members guarded by mu_.
class BuildPipeline {
 public:
  BuildPipeline(const Analyzer& analyzer, CorpusLineReader reader, int threads)
      : analyzer_(analyzer), reader_(std::move(reader)), threads_(threads) {}

  // Calls `sink` on the main thread for each batch in corpus order.
  Status Run(const std::function<Status(AnalyzedBatch&)>& sink) {
    std::thread reader([this] { ReadLoop(); });
    std::vector<std::thread> workers;
    for (int i = 0; i < threads_; ++i) workers.emplace_back([this] { WorkLoop(); });
    Status result;
    for (uint64_t seq = 0;; ++seq) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return done_.count(seq) || (reader_done_ && seq >= batches_read_) || failed_; });
      if (failed_ && !done_.count(seq)) break;
      if (!done_.count(seq)) break;  // all batches consumed
      AnalyzedBatch batch = std::move(done_[seq]);
      done_.erase(seq);
      cv_.notify_all();  // frees a slot for the reader
      lock.unlock();
      if (!batch.status.ok()) {
        result = batch.status;
        Fail();
        break;
      }
      Status st = sink(batch);
      if (!st.ok()) {
        result = st;
        Fail();
        break;
      }
    }
    reader.join();
    for (auto& w : workers) w.join();
    if (result.ok() && !reader_status_.ok()) result = reader_status_;
    return result;
  }

 private:
  void Fail() {
    std::lock_guard lock(mu_);
    failed_ = true;
    cv_.notify_all();
  }

  void ReadLoop() {
    for (;;) {
      CorpusLineReader::Batch batch;
      bool more = reader_.Next(&batch);
      std::unique_lock lock(mu_);
      if (!more) {
        reader_status_ = reader_.status();
        reader_done_ = true;
        cv_.notify_all();
        return;
      }
      cv_.wait(lock, [&] { return failed_ || (todo_.size() + done_.size() + busy_) < kMaxBatchesInFlight; });
      if (failed_) {
        reader_done_ = true;
        cv_.notify_all();
        return;
      }
      todo_.emplace_back(batches_read_++, std::move(batch));
      cv_.notify_all();
    }
  }

  void WorkLoop() {
    for (;;) {
      std::pair<uint64_t, CorpusLineReader::Batch> job;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return failed_ || !todo_.empty() || reader_done_; });
        if (failed_ || (todo_.empty() && reader_done_)) return;
        job = std::move(todo_.front());
        todo_.pop_front();
        ++busy_;
      }
      AnalyzedBatch out = Analyze(job.second);
      std::lock_guard lock(mu_);
      --busy_;
      done_.emplace(job.first, std::move(out));
      cv_.notify_all();
    }
  }

  AnalyzedBatch Analyze(const CorpusLineReader::Batch& batch) {
    AnalyzedBatch out;
    out.chunks.reserve(batch.lines.size());
    out.ids.reserve(batch.lines.size());
    for (size_t i = 0; i < batch.lines.size(); ++i) {
      auto doc = ParseBenchDoc(batch.lines[i]);
      if (!doc.ok()) {
        out.status = doc.status().WithContext(reader_.path().string() + ":" + std::to_string(batch.line_numbers[i]));
        return out;
      }
      IndexedChunk chunk;
      chunk.id = ChunkId(batch.first_doc + i + 1);  // ChunkIds start at 1; ids.txt line = id - 1
      auto& title = chunk.fields[static_cast<int>(Field::kTitle)];
      auto& body = chunk.fields[static_cast<int>(Field::kBody)];
      title.length = analyzer_.Analyze(doc->title, &title.tokens, 0);
      body.length = analyzer_.Analyze(doc->text, &body.tokens, 0);
      if (!doc->acl.empty()) chunk.attrs.acl_groups.push_back(doc->acl);
      out.raw_bytes += doc->title.size() + doc->text.size();
      out.ids.push_back(std::move(doc->id));
      out.chunks.push_back(std::move(chunk));
    }
    return out;
  }

  const Analyzer& analyzer_;
  CorpusLineReader reader_;  // used by the reader thread only (path() is immutable)
  const int threads_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<uint64_t, CorpusLineReader::Batch>> todo_;
  std::map<uint64_t, AnalyzedBatch> done_;
  uint64_t batches_read_ = 0;
  size_t busy_ = 0;
  bool reader_done_ = false;
  bool failed_ = false;
  Status reader_status_;
};

class AttestSystem final : public BenchSystem {
 public:
  std::string name() const override { return "attest"; }

  std::map<std::string, std::string> Describe() const override {
    Bm25Params p;
    return {{"weighting", "BM25F k1=" + std::to_string(p.k1) + " b=" + std::to_string(p.b) +
                              ", field weights title=body=1, Lucene IDF"},
            {"analyzer", "attest Analyzer: ICU words, NFKC casefold, 33 Lucene stopwords, Snowball english"},
            {"query", "OR of the analyzed terms (one kShould clause per occurrence), LexicalSearcher::TopK"},
            {"acl", "ChunkFilter::groups, evaluated inside the traversal"},
            {"index", "one segment file"}};
  }

  Status Build(const BuildArgs& args, BuildStats* stats) override {
    ATTEST_ASSIGN_OR_RETURN(CorpusLineReader reader, CorpusLineReader::Open(args.corpus, kBatchDocs));
    ATTEST_ASSIGN_OR_RETURN(IdMapWriter ids, IdMapWriter::Create(args.index_dir));
    SegmentWriter writer;
    const auto t0 = Clock::now();
    BuildPipeline pipeline(analyzer_, std::move(reader), args.threads);
    ATTEST_RETURN_IF_ERROR(pipeline.Run([&](AnalyzedBatch& batch) -> Status {
      for (const IndexedChunk& c : batch.chunks) ATTEST_RETURN_IF_ERROR(writer.Add(c));
      for (const std::string& id : batch.ids) ATTEST_RETURN_IF_ERROR(ids.Add(id));
      stats->docs += batch.chunks.size();
      stats->raw_text_bytes += batch.raw_bytes;
      return Status::Ok();
    }));
    ATTEST_RETURN_IF_ERROR(ids.Close());
    const auto t1 = Clock::now();
    ATTEST_RETURN_IF_ERROR(writer.WriteTo(args.index_dir / kSegmentFile));
    {
      ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const Segment> written, Segment::Open(args.index_dir / kSegmentFile));
      std::ofstream crc(args.index_dir / kVouchedCrcFile, std::ios::trunc);
      crc << written->content_crc() << "\n";
      if (!crc.flush()) return Status::IOError("cannot write " + (args.index_dir / kVouchedCrcFile).string());
    }
    const auto t2 = Clock::now();
    stats->phases_s["analyze_and_add"] = std::chrono::duration<double>(t1 - t0).count();
    stats->phases_s["serialize_and_write"] = std::chrono::duration<double>(t2 - t1).count();
    stats->notes["build_threads"] = std::to_string(args.threads) + " analysis workers + 1 reader + 1 writer";
    return Status::Ok();
  }

  Status Open(const fs::path& index_dir) override {
    ATTEST_ASSIGN_OR_RETURN(ids_, IdMap::Read(index_dir));
    uint32_t vouched = 0;
    {
      std::ifstream crc(index_dir / kVouchedCrcFile);
      if (!(crc >> vouched)) return Status::Corruption((index_dir / kVouchedCrcFile).string() + " is missing or unreadable");
    }
    SegmentOpenOptions shallow;
    shallow.deep = false;
    ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const Segment> seg, Segment::Open(index_dir / kSegmentFile, shallow));
    if (seg->content_crc() != vouched) {
      return Status::Corruption("segment checksum " + std::to_string(seg->content_crc()) + " is not the one the build verified (" +
                                std::to_string(vouched) + ")");
    }
    if (seg->num_docs() != ids_.size()) {
      return Status::Corruption("segment has " + std::to_string(seg->num_docs()) + " chunks but ids.txt has " +
                                std::to_string(ids_.size()));
    }
    std::vector<SegmentView> views;
    views.push_back(SegmentView{SegmentId(1), std::move(seg), nullptr});
    searcher_ = std::make_unique<LexicalSearcher>(std::move(views));
    return Status::Ok();
  }

  Status Search(const SearchArgs& args, std::vector<std::string>* ids) override {
    // One kShould clause per analyzed term occurrence: a repeated term weighs by its query term
    // frequency, as in the engine's own parser (and in Lucene's BooleanQuery of term clauses).
    LexicalQuery query;
    for (std::string& term : analyzer_.Terms(args.text)) {
      QueryClause clause;
      clause.occur = Occur::kShould;
      clause.terms.push_back(std::move(term));
      clause.positions.push_back(0);
      query.clauses.push_back(std::move(clause));
    }
    if (query.empty()) return Status::Ok();
    LexicalSearchArgs sa;
    sa.query = &query;
    sa.k = args.k;
    if (args.acl_group) sa.filter.groups = std::vector<std::string>{*args.acl_group};
    for (const ScoredChunk& hit : searcher_->TopK(sa)) {
      const uint64_t i = hit.id.get() - 1;
      if (i >= ids_.size()) return Status::Internal("chunk id out of range: " + std::to_string(hit.id.get()));
      ids->push_back(ids_[i]);
    }
    return Status::Ok();
  }

  Result<uint64_t> IndexBytes(const fs::path& index_dir) const override { return DirectoryBytesExceptIds(index_dir); }

 private:
  Analyzer analyzer_;
  IdMap ids_;
  std::unique_ptr<LexicalSearcher> searcher_;
};

}  // namespace
}  // namespace attest::bench

int main(int argc, char** argv) {
  return attest::bench::RunBenchMain(argc, argv, [] { return std::make_unique<attest::bench::AttestSystem>(); });
}
