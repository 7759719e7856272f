// The public API of Attest's retrieval core: open a data directory, ingest sources, search, delete.
// Everything here is plain C++ types; no third-party type leaks through this header.
//
// Thread-safety: an Engine may be shared by threads. Ingest/Delete calls are serialized internally;
// Search runs concurrently with them and reads the snapshot current when it starts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest {

struct EngineOptions {
  std::string data_dir = "attest-data";
  bool read_only = false;          // search/stats only; works while another process ingests
  unsigned threads = 0;            // analysis threads for ingestion; 0 = hardware concurrency
};

struct IngestOptions {
  std::vector<std::string> paths;  // files or directories (recursed)
  std::string tenant;              // "" = default tenant
  std::vector<std::string> acl_groups;  // empty = public
  std::string source_type;         // overrides the detected type when non-empty
  std::string version;             // overrides the detected version label when non-empty
  std::string site;                // site label for documents without a canonical URL
  size_t batch_documents = 512;    // documents per atomic commit
  // Called after each commit with the ids of the documents it made durable.
  std::function<void(const std::vector<std::string>& committed_ids)> on_commit;
  // Progress: bytes of source processed so far out of the total.
  std::function<void(uint64_t done_bytes, uint64_t total_bytes)> on_progress;
};

struct IngestIssue {
  std::string file;
  uint64_t line = 0;               // 0 when the issue concerns the whole file
  std::string message;
};

struct IngestReport {
  uint64_t files = 0;
  uint64_t documents_seen = 0;
  uint64_t added = 0;
  uint64_t replaced = 0;
  uint64_t unchanged = 0;
  uint64_t chunks = 0;             // chunks written
  uint64_t bytes = 0;              // source bytes read
  double seconds = 0;
  uint64_t snapshot_version = 0;
  std::vector<IngestIssue> issues; // per-file / per-line failures; the rest of the batch proceeds
};

struct SearchFilter {
  std::string tenant;                          // "" = default tenant
  std::optional<std::vector<std::string>> groups;  // caller's groups; nullopt = no ACL restriction (admin)
  std::vector<std::string> source_types;
  std::vector<std::string> sites;
  std::vector<std::string> versions;
  std::optional<std::string> date_from;        // YYYY-MM-DD inclusive
  std::optional<std::string> date_to;          // YYYY-MM-DD inclusive
};

struct SearchOptions {
  std::string query;
  size_t k = 10;
  SearchFilter filter;
  bool collapse_documents = true;  // one hit per document (its best chunk)
  bool with_snippets = true;       // false skips snippet/highlight work (evaluation timing)
  size_t snippet_words = 40;
  float title_weight = 1.0f;       // BM25F field weights
  float section_weight = 1.0f;
  float body_weight = 1.0f;
};

struct Highlight {
  uint32_t start;  // byte offsets into Hit::snippet
  uint32_t end;
};

struct SearchHit {
  std::string doc_id;
  uint64_t chunk_id = 0;
  float score = 0;
  std::string title;
  std::string url;
  std::string site;
  std::string date;         // published, else updated (YYYY-MM-DD), or ""
  std::string version;
  std::string source_type;
  std::string section;
  std::string snippet;
  std::vector<Highlight> highlights;
};

struct SearchResult {
  std::vector<SearchHit> hits;
  uint64_t snapshot_version = 0;
  double took_ms = 0;
};

struct EngineStats {
  uint64_t snapshot_version = 0;
  uint64_t documents = 0;
  uint64_t chunks = 0;
  uint64_t segments = 0;
  uint64_t segment_bytes = 0;
  uint64_t catalog_bytes = 0;
  uint64_t source_bytes = 0;
};

class Engine {
 public:
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  virtual ~Engine() = default;

  virtual Result<IngestReport> Ingest(const IngestOptions& options) = 0;
  virtual Result<SearchResult> Search(const SearchOptions& options) const = 0;
  // Deletes the live document `id` of `tenant`; kNotFound when there is none.
  virtual Result<uint64_t> Delete(const std::string& tenant, const std::string& id) = 0;
  virtual Result<EngineStats> Stats() const = 0;
};

}  // namespace attest
