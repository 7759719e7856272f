// The interface each system of the side-by-side benchmark implements (Attest, SQLite FTS5, Xapian),
// and the documents they index. The driver (bench_driver.h) owns timing, memory readings, warm-up,
// reports and quality evaluation, so the three are measured the same way.
//
// External ids: every system keeps the corpus `_id`s outside its index, in `ids.txt` (one id per
// line, line i = the i-th document), and maps its internal document number back through it. So
// index sizes compare the indexes proper, and no system pays a stored-field lookup per hit.
//
// Thread-safety: a BenchSystem is used by one thread at a time (its Build may start workers).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest::bench {

// One corpus document as the systems index it.
struct BenchDoc {
  std::string id;
  std::string title;
  std::string text;
  std::string acl;  // metadata.acl (one group name), empty when absent
};

struct BuildArgs {
  std::filesystem::path corpus;     // BEIR corpus.jsonl
  std::filesystem::path index_dir;  // created; the system owns its content
  int threads = 2;                  // analysis threads (systems that cannot parallelize ignore it)
  uint64_t xapian_flush_threshold = 1000000;
};

struct BuildStats {
  uint64_t docs = 0;
  uint64_t raw_text_bytes = 0;               // bytes of title + text as in the corpus (UTF-8)
  std::map<std::string, double> phases_s;    // named phases (e.g. "index", "optimize", "write")
  std::map<std::string, std::string> notes;  // settings worth recording in the report
};

struct SearchArgs {
  std::string_view text;     // the query as typed; each system analyzes it its own way
  size_t k = 10;
  const std::string* acl_group = nullptr;  // when set: only documents of this ACL group
};

class BenchSystem {
 public:
  virtual ~BenchSystem() = default;
  virtual std::string name() const = 0;
  virtual Status Build(const BuildArgs& args, BuildStats* stats) = 0;
  virtual Status Open(const std::filesystem::path& index_dir) = 0;
  // Top-k external ids, best first.
  virtual Status Search(const SearchArgs& args, std::vector<std::string>* ids) = 0;
  // Bytes of the index files (ids.txt excluded).
  virtual Result<uint64_t> IndexBytes(const std::filesystem::path& index_dir) const = 0;
  // Settings to record in every report (weighting, analyzer, ...).
  virtual std::map<std::string, std::string> Describe() const = 0;
};

}  // namespace attest::bench
