// Loader for the BEIR dataset layout (Thakur et al., "BEIR", NeurIPS 2021 Datasets track):
//   <dir>/corpus.jsonl       one JSON object per line: {"_id", "title", "text", "metadata"}
//   <dir>/queries.jsonl      one JSON object per line: {"_id", "text", "metadata"}
//   <dir>/qrels/<split>.tsv  header "query-id corpus-id score", then one graded judgment per line
//
// Every file is untrusted input: a malformed line fails the load with kInvalidArgument and a message
// naming the file and the 1-based line number. Blank lines are skipped. Field rules:
//   "_id"      required, a non-empty string;
//   "text"     required, a string;
//   "title"    optional (corpus only), a string when present;
//   "metadata" optional, an object when present. String values are kept as they are; any other
//              value (number, array, object) is kept as its compact JSON text.
// Qrels: exactly three whitespace-separated columns; the score is a base-10 integer (graded, may be
// zero or negative = judged non-relevant). The same (query, doc) pair twice is an error.
//
// The corpus is streamed through a callback (large corpora need not fit in memory); queries and
// qrels are loaded into memory. LoadBeirSplit() keeps only the queries that appear in the split's
// qrels, as BEIR and pytrec_eval evaluate only those.
//
// Thread-safety: free functions without shared state.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"

namespace attest {

struct BeirDocument {
  std::string id;
  std::string title;
  std::string text;
  std::map<std::string, std::string> metadata;
};

struct BeirQuery {
  std::string id;
  std::string text;
  std::map<std::string, std::string> metadata;
};

// query-id -> (corpus-id -> graded relevance).
using Qrels = std::map<std::string, std::map<std::string, int>, std::less<>>;

// Called once per corpus document in file order; returning a non-OK Status stops the stream and
// that Status is returned (with the file and line as context).
using BeirDocumentCallback = std::function<Status(BeirDocument&& doc)>;

// Streams `corpus_jsonl`. Fails on the first malformed line. `*count` (optional) receives the
// number of documents delivered.
Status StreamBeirCorpus(const std::filesystem::path& corpus_jsonl, const BeirDocumentCallback& on_doc,
                        size_t* count = nullptr);

// Loads every query of `queries_jsonl` in file order. Duplicate query ids are an error.
Result<std::vector<BeirQuery>> LoadBeirQueries(const std::filesystem::path& queries_jsonl);

// Loads a qrels TSV file (header line required).
Result<Qrels> LoadBeirQrels(const std::filesystem::path& qrels_tsv);

// Parses one corpus / query JSON line (exposed for the CLI and fuzzing). Errors do not carry a
// file or line: callers add them.
Result<BeirDocument> ParseBeirDocumentLine(std::string_view line);
Result<BeirQuery> ParseBeirQueryLine(std::string_view line);

struct BeirSplit {
  std::string name;                // e.g. "test"
  std::vector<BeirQuery> queries;  // the queries judged in this split, in queries.jsonl order
  Qrels qrels;
  // Query ids that have judgments in the qrels file but no entry in queries.jsonl (not evaluable).
  std::vector<std::string> judged_but_missing;
};

// Loads <dir>/queries.jsonl and <dir>/qrels/<split>.tsv. `split` must be a plain file stem
// (letters, digits, '_', '-', '.'; no path separators).
Result<BeirSplit> LoadBeirSplit(const std::filesystem::path& dir, std::string_view split);

// <dir>/corpus.jsonl.
std::filesystem::path BeirCorpusPath(const std::filesystem::path& dir);

}  // namespace attest
