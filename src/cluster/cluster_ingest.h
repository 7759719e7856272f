// `attest ingest --cluster` (docs/cluster.md, "Writing to the cluster"): files become DocumentSpecs
// appended to the change log, one message each, instead of commits to a local store. HTML,
// Markdown and text files are carried (the spec holds the file's bytes and the given defaults,
// checked by the same parser the nodes use, so a node never receives a document it must refuse).
// Formats a spec cannot carry yet (BEIR JSONL, PDF, DOCX, ODT, gzip-compressed files) are reported
// as issues naming the file, never dropped silently.
//
// Thread-safety: one call at a time per ChangeLog caller; the function holds no state.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "cluster/change_log.h"

namespace attest {

struct ClusterIngestOptions {
  std::vector<std::string> paths;        // files or directories (walked as `attest ingest` walks them)
  // Instead of `paths`: exactly these files under `root`, listed and identified as IngestOptions'
  // root and files are (`attest watch --cluster`).
  std::string root;
  std::vector<std::string> files;
  DocumentSpec defaults;                 // tenant, acl_groups, access_label, source_type, version, site, license
  std::vector<std::string> access_levels;  // the configured levels, to check defaults.access_label
  // Called after each acknowledged append (id, stream sequence, duplicate).
  std::function<void(const std::string& id, uint64_t sequence, bool duplicate)> on_ack;
  // As IngestOptions' (the watcher's file-to-ids map): before_append names each document before it
  // is appended (a non-OK Status ends the run there, nothing of that file appended); on_document
  // reports it once acknowledged, kUnchanged for a duplicate, else kAdded (the log does not say
  // whether the document existed, so a replacement is reported as added, without superseded chunks).
  std::function<Status(const std::vector<IngestedDocument>& docs)> before_append;
  std::function<void(const IngestedDocument& doc)> on_document;
};

struct ClusterIngestReport {
  uint64_t files = 0;
  uint64_t appended = 0;     // acknowledged new writes
  uint64_t duplicates = 0;   // acknowledged as a retry of a write the log holds
  uint64_t stale = 0;        // refused: the log holds a newer source version of the document
  uint64_t last_sequence = 0;
  std::vector<IngestIssue> issues;  // files not appended, with the reason
};

// The source version of a file's write is its modification time (ms); the idempotency key is the
// tenant, id and SHA-256 of the payload (the same content appended twice is one write).
// kInvalidArgument for a bad label; otherwise per-file failures are issues, and a change log that
// stops answering ends the run with its error.
Result<ClusterIngestReport> AppendSources(ChangeLog& log, const ClusterIngestOptions& options);

}  // namespace attest
