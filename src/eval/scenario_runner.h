// Scenario files (format `attest-scenarios/1`, ../shared/scenarios/README.md): behaviour cases that
// ingest a small corpus into a temporary store, ask as a given identity at a given time, and check
// expectations on the outcome, the plan, the citations, the evidence and the answer text; or, in
// `verify` mode, run the verifier alone on a given draft. `attest check FILE...` runs them.
//
// Every file is untrusted input: a malformed scenario fails with kInvalidArgument naming the
// scenario and the field; it never crashes the runner. Unknown expectation keys are reported as
// failed expectations (never silently passed).
//
// Thread-safety: RunScenarioFile is reentrant (each scenario gets its own store).
#pragma once

#include <string>
#include <vector>

#include "attest/status.h"

namespace attest {

struct ExpectationResult {
  std::string key;      // e.g. "outcome", "plan.resolved_version", "cites_none"
  bool passed = false;
  std::string detail;   // what was expected and what was seen
};

struct ScenarioResult {
  std::string id;
  std::string question;
  bool passed = false;
  std::vector<ExpectationResult> expectations;
  std::string error;    // set when the scenario could not run at all
  double ms = 0;
};

struct ScenarioRunOptions {
  unsigned threads = 1;
  // When > 0, each scenario's documents are split over this many shard stores by virtual shard (64
  // of them; the change log's split) and the question is asked of a cluster coordinator over them
  // (cluster/cluster_engine.h, in process; BM25 only), instead of one store.
  uint32_t shards = 0;
};

Result<std::vector<ScenarioResult>> RunScenarioFile(const std::string& path, const ScenarioRunOptions& options = {});
// The same, from the file's content (`name` labels errors).
Result<std::vector<ScenarioResult>> RunScenarioJson(const std::string& json, const std::string& name,
                                                    const ScenarioRunOptions& options = {});

}  // namespace attest
