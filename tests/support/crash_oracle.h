// The exact oracle of the crash campaign (docs/testing.md, "Crash campaign"): what a clean ingestion
// stores for each version of a document, the ledger of what was sent and acknowledged, and the
// invariants a data directory must satisfy when it is reopened after a kill.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "store/records.h"

namespace attest::testing_support {

// What the store must hold for one version of one document: its content digest and the text of
// each chunk in order (so a partial document or a stale chunk is caught exactly).
struct ExpectedDocument {
  std::string sha256;
  std::vector<std::string> chunk_texts;
};

// Computes ExpectedDocument with the engine's own parser and indexer, in process: the stored form
// of a document is a pure function of its source, so this is what an uninterrupted run stores.
class CrashOracle {
 public:
  CrashOracle();
  ~CrashOracle();
  // A BEIR JSONL line as `attest ingest` reads it (default tenant, public).
  ExpectedDocument FromJsonlLine(const std::string& line) const;
  // A document as `POST /v1/documents:batch` receives it.
  ExpectedDocument FromSpec(const DocumentSpec& spec) const;
  // What the engine would commit for `spec` (the check's probe write).
  Result<PreparedDocument> Prepare(const DocumentSpec& spec) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Every version of every document that was sent, and the newest acknowledged version of each.
// Versions of a document only grow, and a title ends with " version <n>".
// Every chunk of a document carries its identity token (a word no other document has), so a search
// for it must return exactly the document's chunks.
struct DocumentLedger {
  std::map<std::string, std::map<int, ExpectedDocument>> sent;  // id -> version -> expected
  std::map<std::string, int> acknowledged;                       // id -> newest acknowledged version
  std::map<std::string, std::string> tokens;                     // id -> identity token

  void Sent(const std::string& id, const std::string& token, int version, ExpectedDocument expected);
  void Acknowledged(const std::string& id, int version);
};

struct StoreCheck {
  std::vector<std::string> failures;   // broken invariants, each naming the document or file
  uint64_t lost = 0;                   // acknowledged documents missing or older than acknowledged
  uint64_t live_documents = 0;
  uint64_t live_chunks = 0;
  uint64_t segments = 0;
  bool embedder_active = false;
  uint64_t vector_segments = 0;        // live segments with a valid vector file of the active embedder
  std::string embedder_key;
};

struct StoreCheckArgs {
  std::filesystem::path data_dir;
  const DocumentLedger* ledger = nullptr;
  const CrashOracle* oracle = nullptr;
  // Id of the document the check writes and deletes again to prove the store takes writes.
  std::string probe_id = "crash-probe";
  // Also require no leftover temporary files anywhere (after a run that ended normally).
  bool expect_no_debris = false;
};

// Reopens the data directory as a writer (which runs recovery) and checks, in order:
//  - every acknowledged document is present at its acknowledged version or a later one that was
//    sent, with exactly the digest and chunk texts of that version (no partial document), and is
//    found by a search for its identity token (exactly its chunks, no stale ones);
//  - every present document is a version that was sent;
//  - index = catalog: every live chunk of a segment is in exactly one segment and in the catalog,
//    the catalog's live chunks are exactly those, and no segment file is left that the catalog
//    does not list; no temporary file survives the writer open in the store's own folders;
//  - with an active embedder: its model file exists, every vector file of the active embedder for a
//    live segment opens and matches that segment, and (when any segment has one) a vector-mode
//    search runs;
//  - the store accepts a write (a probe document is committed, found, and deleted).
StoreCheck CheckReopenedStore(const StoreCheckArgs& args);

// "Document <i> version <v>" -> v; -1 when the title has no version.
int VersionFromTitle(const std::string& title);

}  // namespace attest::testing_support
