// Internals of the crash campaign shared by its files: crash_campaign.cc (driver, CLI scenarios) and
// crash_campaign_server.cc (the server scenario).
#pragma once

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/crash_campaign.h"
#include "support/crash_corpus.h"
#include "support/crash_oracle.h"

namespace attest::testing_support::crash_internal {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// A kill plan: at the n-th passage of a named point, or after a delay from an anchor.
struct KillPlan {
  std::string point;  // "" = a delay kill
  uint64_t nth = 1;
  std::chrono::microseconds delay{0};
};

class Campaign {
 public:
  explicit Campaign(const CrashCampaignOptions& o) : o_(o), rng_(o.seed) {
    report_.scenario = CrashScenarioName(o.scenario);
    dir_ = o.work_dir / CrashScenarioName(o.scenario);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    data_ = dir_ / "data";
    trace_ = dir_ / "trace";
    stderr_ = dir_ / "stderr";
  }

  CrashCampaignReport Run();

 private:
  void Log(const std::string& s) {
    if (o_.log) o_.log(s);
  }
  uint64_t Uniform(uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(rng_); }
  std::chrono::microseconds UniformDelay(double seconds) {
    return std::chrono::microseconds(Uniform(0, static_cast<uint64_t>(std::max(0.0, seconds) * 1e6)));
  }
  void Fail(const std::string& what) {
    if (report_.failures.size() < 200) {
      report_.failures.push_back(std::string(CrashScenarioName(o_.scenario)) + " round " +
                                 std::to_string(report_.rounds) + ": " + what);
    }
  }

  KillPlan PlanKill(double span_seconds);
  std::vector<std::string> Env(const KillPlan& plan) const;
  // One CLI run: kills it per `plan` (delay counted from the start, or from the moment all
  // `expected_acks` acknowledgements were printed when `after_acks`), records acknowledgements.
  struct RunResult {
    bool killed = false;
    bool clean = false;
    double seconds = 0;
    double tail_seconds = 0;  // from the last acknowledgement to the exit
  };
  RunResult RunCli(const std::vector<std::string>& args, const KillPlan& plan, bool after_acks, size_t expected_acks,
                   const std::map<std::string, int>& versions);
  void Record(const RunResult& r, const KillPlan& plan);
  void Check(bool clean);
  void NewStore();

  void UpdateSpan(double measured);
  // Writes the corpus at its current versions and records every version in the ledger.
  std::map<std::string, int> WriteCorpus();
  void RoundIngest(bool bulk);
  void RoundTraining();
  void RoundReembed();
  void RoundServer();  // crash_campaign_server.cc

  const CrashCampaignOptions& o_;
  std::mt19937_64 rng_;
  CrashCampaignReport report_;
  fs::path dir_, data_, trace_, stderr_;
  CrashOracle oracle_;
  DocumentLedger ledger_;
  CrashCorpus corpus_;
  double span_ = 0;  // typical duration of what the delay kills aim at (updated by clean runs)
  std::map<std::string, uint64_t> baseline_counts_;  // passages of each point in a clean run
  bool fresh_store_next_ = true;
  std::string last_outcome_;   // the last round, for verbose logs
  double check_seconds_ = 0;
  std::string admin_key_;
  int server_batch_ = 0;
};

// The last lines of a file (a child's stderr for failure messages).
std::string Tail(const fs::path& path, size_t bytes);
// The named points a scenario's named kills choose from.
const std::vector<std::string>& NamedPoints(CrashScenario s);

}  // namespace attest::testing_support::crash_internal
