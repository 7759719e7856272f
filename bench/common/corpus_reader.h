// Streams a BEIR corpus.jsonl as BenchDocs (sequentially, or as raw line batches for systems that
// parse and analyze in parallel), and reads/writes the ids.txt map shared by all systems.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/bench_system.h"

namespace attest::bench {

// Parses one corpus line (BEIR rules of src/eval/beir.h); acl = metadata["acl"].
Result<BenchDoc> ParseBenchDoc(std::string_view line);

// Reads non-blank lines in batches of up to `batch_size`. Each batch carries the 1-based line
// number of its first line for error messages.
class CorpusLineReader {
 public:
  static Result<CorpusLineReader> Open(const std::filesystem::path& corpus, size_t batch_size = 1024);
  struct Batch {
    uint64_t first_doc = 0;            // index of the batch's first document in the corpus
    std::vector<std::string> lines;
    std::vector<uint64_t> line_numbers;
  };
  // False at end of file (batch left empty) or on a read error (see status()).
  bool Next(Batch* batch);
  Status status() const { return status_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  CorpusLineReader() = default;
  std::filesystem::path path_;
  std::ifstream in_;
  size_t batch_size_ = 1024;
  uint64_t line_no_ = 0;
  uint64_t docs_ = 0;
  Status status_;
};

// Calls `fn` for every document in order (single thread).
Status ForEachBenchDoc(const std::filesystem::path& corpus, const std::function<Status(BenchDoc&&)>& fn);

// ids.txt: one external id per line, in document order. Ids containing a newline are refused.
class IdMapWriter {
 public:
  static Result<IdMapWriter> Create(const std::filesystem::path& index_dir);
  Status Add(std::string_view id);
  Status Close();

 private:
  IdMapWriter() = default;
  std::filesystem::path path_;
  std::ofstream out_;
};
// The external ids of an index's documents (ids.txt, one per line, line i = document i): read in
// one piece with a table of line starts, so opening costs one read and one scan, not an
// allocation per id.
class IdMap {
 public:
  IdMap() = default;
  static Result<IdMap> Read(const std::filesystem::path& index_dir);
  size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }
  std::string operator[](size_t i) const {
    return text_.substr(starts_[i], starts_[i + 1] - starts_[i] - 1);  // without the newline
  }

 private:
  std::string text_;
  std::vector<size_t> starts_;  // line i is text_[starts_[i], starts_[i+1] - 1); one more entry than lines
};

// Sum of the sizes of the regular files under `dir` (recursively), except ids.txt.
Result<uint64_t> DirectoryBytesExceptIds(const std::filesystem::path& dir);

// The 33 English stopwords of Lucene's EnglishAnalyzer (ENGLISH_STOP_WORDS_SET), also used by
// Attest's analyzer; the Xapian side uses them in its SimpleStopper.
const std::vector<std::string>& LuceneEnglishStopwords();

}  // namespace attest::bench
