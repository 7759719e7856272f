// Shared plumbing of the corpus-trained embedders (LSA, fastText-SIF): parallel analysis of a
// CorpusStream in corpus order, a deterministic parallel-for, and a bounds-checked little-endian
// reader/writer for their model files.
//
// Thread-safety: free functions without shared state; a ModelWriter/ModelReader belongs to one thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "embed/embedder.h"

namespace attest {

class Analyzer;

// Resolves CorpusTrainingArgs::threads (0 = hardware concurrency, at least 1).
unsigned ResolveThreads(unsigned threads);

// Runs fn(begin, end) on `threads` threads over contiguous slices of [0, n). Every index is handled
// by exactly one call, so per-index work that writes only its own outputs gives results that do not
// depend on the thread count.
void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t begin, size_t end)>& fn);

// Streams `corpus` once, analyzes texts in batches on `threads` threads, and hands each text's terms
// to `sink` in corpus order (so downstream id assignment is deterministic).
Status AnalyzeCorpus(const CorpusStream& corpus, const Analyzer& analyzer, unsigned threads,
                     const std::function<Status(std::vector<std::string>&& terms)>& sink);

// Appends little-endian fields to a byte string.
class ModelWriter {
 public:
  void U16(uint16_t v) { Raw(&v, sizeof v); }
  void U32(uint32_t v) { Raw(&v, sizeof v); }
  void U64(uint64_t v) { Raw(&v, sizeof v); }
  void F32(float v) { Raw(&v, sizeof v); }
  void Bytes(std::string_view s) { out_.append(s); }
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  // Appends CRC-32C of everything written so far; returns the finished file content.
  std::string Finish();

 private:
  std::string out_;
};

// Reads little-endian fields with bounds checks; every getter returns false past the end.
class ModelReader {
 public:
  explicit ModelReader(std::string_view data) : data_(data) {}
  bool U16(uint16_t* v) { return Raw(v, sizeof *v); }
  bool U32(uint32_t* v) { return Raw(v, sizeof *v); }
  bool U64(uint64_t* v) { return Raw(v, sizeof *v); }
  bool F32(float* v) { return Raw(v, sizeof *v); }
  bool Bytes(size_t n, std::string_view* s) {
    if (n > data_.size() - pos_) return false;
    *s = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Raw(void* p, size_t n) {
    if (n > data_.size() - pos_) return false;
    std::memcpy(p, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  size_t remaining() const { return data_.size() - pos_; }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Checks the 8-byte magic, the trailing CRC-32C (over everything before the last 4 bytes) and
// returns the body between them. Errors are kCorruption naming `file`.
Result<std::string_view> CheckModelEnvelope(std::string_view content, std::string_view magic,
                                            const std::string& file);

}  // namespace attest
