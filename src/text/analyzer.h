// The lexical analyzer shared by indexing and querying.
//
// Pipeline: ICU word breaks -> NFKC case folding -> English possessive removal ("'s") ->
// stopword removal (Lucene's 33-word English list) -> Snowball English stemming.
// Identifiers are kept intact and also split into parts: `max_wal_senders`, `pg_stat_replication`,
// `ERR-1234`, `15.4`, `postgresql.conf`, `lr_example_parallel_apply`. For such a token the analyzer
// emits the whole identifier (case-folded, not stemmed) at the position of its first part, and each
// part (normalized and stemmed like an ordinary word, stopwords kept) at consecutive positions.
// So "wal senders" and "max_wal_senders" both match, and the phrase "max wal senders" matches too.
//
// Thread-safety: an Analyzer is immutable after construction and may be shared by threads;
// it keeps per-thread ICU break iterators and stemmers internally.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "text/token.h"

namespace attest {

struct AnalyzerOptions {
  bool stem = true;
  bool remove_stopwords = true;
  bool split_identifiers = true;  // also emit the parts of identifiers
};

class Analyzer {
 public:
  explicit Analyzer(AnalyzerOptions options = {});
  ~Analyzer();

  // Appends the tokens of `text` to `out`. Positions start at `first_position`.
  // Returns the number of positions consumed (the field length used by BM25).
  uint32_t Analyze(std::string_view text, std::vector<Token>* out, uint32_t first_position = 0) const;

  // Convenience: just the terms, in order (duplicates kept). Used for queries.
  std::vector<std::string> Terms(std::string_view text) const;

  // NFKC case folding of arbitrary text (no segmentation); used for highlighting and dedupe.
  static std::string Fold(std::string_view text);

  const AnalyzerOptions& options() const { return options_; }

 private:
  AnalyzerOptions options_;
};

}  // namespace attest
