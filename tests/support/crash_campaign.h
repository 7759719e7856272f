// The kill -9 campaign (docs/testing.md, "Crash campaign"): runs the real `attest` binary through one
// scenario again and again, kills it at a random moment or at a named fault point, reopens the data
// directory after each kill and checks it against the exact oracle (support/crash_oracle.h).
//
// Scenarios:
//   ingest   `attest ingest` of a changing JSONL corpus in small commits (segment writes, catalog
//            commits, merges over the segment cap)
//   bulk     the same, killed in the merge that ends a bulk load (Store::FinishBulk)
//   training `attest ingest` into a fresh store: the corpus model is trained once the store has
//            --embed-min-chunks chunks, vector files are written and the embedder is switched
//   reembed  `attest reembed` on a trained store: training, vector files, the switch, old models
//   server   `attest serve` while a client posts `POST /v1/documents:batch`; a batch answered 2xx
//            is acknowledged; background training and vector files run meanwhile
// Kill points: a random delay (uniform over the span an uninterrupted run spends in the scenario's
// phases), or ATTEST_FAULT_KILL=<point>@<n> (the binary kills itself there). Where each kill fell is
// read from ATTEST_FAULT_TRACE: the last named point the process passed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace attest::testing_support {

enum class CrashScenario { kIngest, kBulkMerge, kTraining, kReembed, kServerBatch };

const std::vector<CrashScenario>& AllCrashScenarios();
const char* CrashScenarioName(CrashScenario s);
bool ParseCrashScenario(const std::string& name, CrashScenario* out);

struct CrashCampaignOptions {
  std::filesystem::path work_dir;  // scratch for data directories, corpora and traces
  std::string binary;              // the attest binary
  CrashScenario scenario = CrashScenario::kIngest;
  uint64_t kill_points = 20;       // stop once this many kills have landed
  uint64_t max_rounds = 0;         // give up after this many rounds (0 = 3 * kill_points + 10)
  uint64_t seed = 1;
  std::function<void(const std::string&)> log;  // progress lines (may be empty)
  bool verbose = false;            // log every round: the plan, where it landed, run and check times
};

struct CrashCampaignReport {
  std::string scenario;
  uint64_t rounds = 0;
  uint64_t kill_points = 0;        // rounds whose process died by SIGKILL
  uint64_t named_kills = 0;        // ... of which at a named fault point
  uint64_t clean_exits = 0;        // rounds that ran to the end (the kill came too late)
  std::map<std::string, uint64_t> phases;  // "scenario: phase" -> kill points
  uint64_t acknowledged = 0;       // document versions acknowledged
  uint64_t lost = 0;               // acknowledged documents missing or rolled back after a kill
  std::vector<std::string> failures;  // broken invariants (round, scenario, what)
  double seconds = 0;

  void Add(const CrashCampaignReport& other);
};

CrashCampaignReport RunCrashCampaign(const CrashCampaignOptions& options);

// The histogram of kill points by phase and the totals, as a table.
std::string FormatCrashReport(const CrashCampaignReport& report);

}  // namespace attest::testing_support
