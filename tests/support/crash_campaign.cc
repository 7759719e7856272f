#include "support/crash_campaign.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "support/crash_campaign_internal.h"
#include "support/crash_child.h"

namespace attest::testing_support {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::vector<CrashScenario>& AllCrashScenarios() {
  static const std::vector<CrashScenario> kAll = {CrashScenario::kIngest, CrashScenario::kBulkMerge,
                                                  CrashScenario::kTraining, CrashScenario::kReembed,
                                                  CrashScenario::kServerBatch};
  return kAll;
}

const char* CrashScenarioName(CrashScenario s) {
  switch (s) {
    case CrashScenario::kIngest: return "ingest";
    case CrashScenario::kBulkMerge: return "bulk";
    case CrashScenario::kTraining: return "training";
    case CrashScenario::kReembed: return "reembed";
    case CrashScenario::kServerBatch: return "server";
  }
  return "?";
}

bool ParseCrashScenario(const std::string& name, CrashScenario* out) {
  for (CrashScenario s : AllCrashScenarios()) {
    if (name == CrashScenarioName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

void CrashCampaignReport::Add(const CrashCampaignReport& o) {
  scenario = scenario.empty() ? o.scenario : scenario + "+" + o.scenario;
  rounds += o.rounds;
  kill_points += o.kill_points;
  named_kills += o.named_kills;
  clean_exits += o.clean_exits;
  for (const auto& [k, n] : o.phases) phases[k] += n;
  acknowledged += o.acknowledged;
  lost += o.lost;
  failures.insert(failures.end(), o.failures.begin(), o.failures.end());
  seconds += o.seconds;
}

std::string FormatCrashReport(const CrashCampaignReport& r) {
  std::ostringstream out;
  size_t width = 5;
  for (const auto& [phase, n] : r.phases) width = std::max(width, phase.size());
  char line[512];
  std::snprintf(line, sizeof line, "%-*s  %6s  %6s\n", int(width), "phase", "kills", "share");
  out << line;
  for (const auto& [phase, n] : r.phases) {
    std::snprintf(line, sizeof line, "%-*s  %6llu  %5.1f%%\n", int(width), phase.c_str(),
                  static_cast<unsigned long long>(n), r.kill_points ? 100.0 * double(n) / double(r.kill_points) : 0.0);
    out << line;
  }
  std::snprintf(line, sizeof line,
                "kill points %llu (%llu at named fault points, %llu at random delays) in %llu rounds (%llu ran to "
                "the end) in %.1f s; acknowledged document versions %llu; lost acknowledged documents %llu; broken "
                "invariants %zu\n",
                static_cast<unsigned long long>(r.kill_points), static_cast<unsigned long long>(r.named_kills),
                static_cast<unsigned long long>(r.kill_points - r.named_kills),
                static_cast<unsigned long long>(r.rounds), static_cast<unsigned long long>(r.clean_exits), r.seconds,
                static_cast<unsigned long long>(r.acknowledged), static_cast<unsigned long long>(r.lost),
                r.failures.size());
  out << line;
  return out.str();
}

namespace crash_internal {

// What the process was doing when it died: the phase that follows the last named point it passed.
std::string PhaseOf(CrashScenario scenario, const std::vector<std::string>& trace) {
  const std::string last = trace.empty() ? "" : trace.back();
  const bool in_finish = std::find(trace.begin(), trace.end(), "bulk.finish") != trace.end();
  // Outside FinishBulk a merge follows a commit: over the segment cap in a bulk load, tiered otherwise.
  const std::string merge = in_finish ? "FinishBulk merge" : "merge after a commit";
  const bool server = scenario == CrashScenario::kServerBatch;
  std::string phase;
  if (last.empty()) {
    phase = scenario == CrashScenario::kReembed ? "startup" : server ? "startup + request parsing" : "startup + parsing";
  } else if (last == "commit.begin") {
    phase = "commit: catalog rows + segment build";
  } else if (last == "commit.before_segment_write") {
    phase = "commit: segment write";
  } else if (last == "commit.before_catalog_commit") {
    phase = "commit: catalog commit";
  } else if (last == "commit.after_catalog_commit") {
    phase = server ? "reply + request parsing" : "parsing (between commits)";
  } else if (last == "bulk.finish" || last == "merge.begin") {
    phase = merge + ": re-index";
  } else if (last == "merge.before_segment_write") {
    phase = merge + ": segment write";
  } else if (last == "merge.before_catalog_commit") {
    phase = merge + ": catalog commit";
  } else if (last == "merge.after_catalog_commit") {
    phase = merge + ": purge + after";
  } else if (last == "vectors.train") {
    phase = "training";
  } else if (last == "vectors.before_model_rename") {
    phase = "model file rename";
  } else if (last == "vectors.build_files" || last == "vectors.sync") {
    phase = "vector embedding";
  } else if (last == "vectors.before_file_write") {
    phase = "vector file write";
  } else if (last == "vectors.before_switch" || last == "embedder.before_catalog_commit") {
    phase = scenario == CrashScenario::kReembed ? "reembed switch" : "embedder switch";
  } else if (last == "embedder.after_catalog_commit") {
    phase = "after the switch: new segments' vectors, old model removal";
  } else {
    phase = last;
  }
  return std::string(CrashScenarioName(scenario)) + ": " + phase;
}

std::vector<std::string> ReadLines(const fs::path& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

std::string Tail(const fs::path& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > bytes ? "..." + s.substr(s.size() - bytes) : s;
}


// The points each scenario aims at (a named kill picks one uniformly); the passage is drawn from
// 1..the count an uninterrupted run passed it (the baseline), at least 1.
const std::vector<std::string>& NamedPoints(CrashScenario s) {
  static const std::vector<std::string> kCommit = {
      "commit.begin", "commit.before_segment_write", "commit.before_catalog_commit", "commit.after_catalog_commit",
      "merge.begin",  "merge.before_segment_write",  "merge.before_catalog_commit",  "merge.after_catalog_commit"};
  static const std::vector<std::string> kBulk = {"bulk.finish", "merge.begin", "merge.before_segment_write",
                                                 "merge.before_catalog_commit", "merge.after_catalog_commit"};
  static const std::vector<std::string> kVectors = {
      "vectors.train",         "vectors.before_model_rename",   "vectors.build_files",
      "vectors.before_file_write", "vectors.before_switch",     "embedder.before_catalog_commit",
      "embedder.after_catalog_commit", "vectors.sync"};
  static const std::vector<std::string> kServer = {
      "commit.begin", "commit.before_segment_write", "commit.before_catalog_commit", "commit.after_catalog_commit",
      "vectors.train", "vectors.before_file_write", "vectors.before_switch", "embedder.after_catalog_commit",
      "vectors.sync"};
  switch (s) {
    case CrashScenario::kIngest: return kCommit;
    case CrashScenario::kBulkMerge: return kBulk;
    case CrashScenario::kTraining:
    case CrashScenario::kReembed: return kVectors;
    case CrashScenario::kServerBatch: return kServer;
  }
  return kCommit;
}


KillPlan Campaign::PlanKill(double span_seconds) {
  KillPlan plan;
  if (span_ <= 0 || Uniform(0, 1) == 0) {
    const auto& points = NamedPoints(o_.scenario);
    plan.point = points[Uniform(0, points.size() - 1)];
    auto it = baseline_counts_.find(plan.point);
    plan.nth = Uniform(1, std::max<uint64_t>(1, it == baseline_counts_.end() ? 1 : it->second));
    return plan;
  }
  plan.delay = UniformDelay(span_seconds);
  return plan;
}

std::vector<std::string> Campaign::Env(const KillPlan& plan) const {
  // One BLAS/OpenMP thread: on a loaded 2-core machine OpenMP-threaded training of this small corpus
  // took 6-13 s instead of 0.1 s, and the campaign is about where kills land, not training speed.
  std::vector<std::string> env = {"ATTEST_FAULT_TRACE=" + trace_.string(), "OMP_NUM_THREADS=1",
                                  "OPENBLAS_NUM_THREADS=1"};
  if (!plan.point.empty()) env.push_back("ATTEST_FAULT_KILL=" + plan.point + "@" + std::to_string(plan.nth));
  return env;
}

Campaign::RunResult Campaign::RunCli(const std::vector<std::string>& args, const KillPlan& plan, bool after_acks,
                                     size_t expected_acks, const std::map<std::string, int>& versions) {
  fs::remove(trace_);
  std::vector<std::string> argv = {o_.binary, "--data", data_.string(), "--threads", "2"};
  argv.insert(argv.end(), args.begin(), args.end());
  CrashChild child(argv, Env(plan), stderr_);
  RunResult r;
  if (!child.started()) {
    Fail("cannot start " + o_.binary);
    return r;
  }
  std::optional<Clock::time_point> anchor;
  if (!after_acks) anchor = child.start_time();
  Clock::time_point last_ack = child.start_time();
  size_t acks = 0, parsed = 0;
  auto parse_acks = [&] {
    const std::string& out = child.out();
    for (size_t nl; (nl = out.find('\n', parsed)) != std::string::npos; parsed = nl + 1) {
      std::string_view line(out.data() + parsed, nl - parsed);
      if (line.rfind("ack ", 0) != 0) continue;
      const std::string id(line.substr(4));
      auto v = versions.find(id);
      if (v == versions.end()) {
        Fail("acknowledgement of an unknown document " + id);
        continue;
      }
      ledger_.Acknowledged(id, v->second);
      ++report_.acknowledged;
      ++acks;
      last_ack = Clock::now();
    }
  };
  const auto deadline = child.start_time() + std::chrono::minutes(5);
  while (child.Running()) {
    child.Poll();
    parse_acks();
    if (!anchor && acks >= expected_acks) anchor = Clock::now();
    if (plan.point.empty() && anchor && Clock::now() >= *anchor + plan.delay) {
      child.Signal(SIGKILL);
      break;
    }
    if (Clock::now() > deadline) {
      Fail("the run did not end within 5 minutes");
      child.Signal(SIGKILL);
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const int rc = child.Wait();
  parse_acks();
  const auto end = Clock::now();
  r.seconds = std::chrono::duration<double>(end - child.start_time()).count();
  r.tail_seconds = std::chrono::duration<double>(end - last_ack).count();
  r.killed = rc == -SIGKILL;
  r.clean = rc == 0;
  if (!r.killed && !r.clean) Fail("exit status " + std::to_string(rc) + ": " + Tail(stderr_, 2000));
  return r;
}

void Campaign::Record(const RunResult& r, const KillPlan& plan) {
  ++report_.rounds;
  std::vector<std::string> trace = ReadLines(trace_);
  char what[160];
  if (plan.point.empty()) {
    std::snprintf(what, sizeof what, "delay %.1f ms", double(plan.delay.count()) / 1e3);
  } else {
    std::snprintf(what, sizeof what, "%s@%llu", plan.point.c_str(), static_cast<unsigned long long>(plan.nth));
  }
  last_outcome_ = std::string(what) + (r.killed ? " -> killed in " + PhaseOf(o_.scenario, trace)
                                                : r.clean ? " -> ran to the end" : " -> failed");
  if (r.killed) {
    ++report_.kill_points;
    if (!plan.point.empty()) ++report_.named_kills;
    ++report_.phases[PhaseOf(o_.scenario, trace)];
  } else if (r.clean) {
    ++report_.clean_exits;
    std::map<std::string, uint64_t> counts;
    for (const auto& p : trace) ++counts[p];
    for (const auto& [p, n] : counts) baseline_counts_[p] = std::max(baseline_counts_[p], n);
  }
}

void Campaign::Check(bool clean) {
  StoreCheckArgs a;
  a.data_dir = data_;
  a.ledger = &ledger_;
  a.oracle = &oracle_;
  a.probe_id = "probe-" + std::to_string(report_.rounds);
  a.expect_no_debris = clean;
  const auto t0 = Clock::now();
  StoreCheck c = CheckReopenedStore(a);
  check_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
  report_.lost += c.lost;
  for (const auto& f : c.failures) Fail(f + " [stderr: " + Tail(stderr_, 600) + "]");
}

void Campaign::NewStore() {
  fs::remove_all(data_);
  ledger_ = DocumentLedger{};
  corpus_.Reset();
}

KillPlan Never() {
  KillPlan p;
  p.delay = std::chrono::hours(1);
  return p;
}

void Campaign::UpdateSpan(double measured) { span_ = span_ <= 0 ? measured : 0.7 * span_ + 0.3 * measured; }

std::map<std::string, int> Campaign::WriteCorpus() {
  const fs::path corpus = dir_ / "corpus.jsonl";
  std::ofstream out(corpus, std::ios::trunc);
  for (int i = 0; i < CrashCorpus::kDocuments; ++i) {
    const int v = corpus_.version(i);
    const std::string line = CrashCorpus::JsonlLine(i, v);
    out << line << "\n";
    const std::string id = CrashCorpus::Id(i);
    auto it = ledger_.sent.find(id);
    if (it == ledger_.sent.end() || !it->second.count(v)) {
      ledger_.Sent(id, CrashCorpus::Token(i), v, oracle_.FromJsonlLine(line));
    }
  }
  return corpus_.Versions();
}

void Campaign::RoundIngest(bool bulk) {
  const bool first = fresh_store_next_;
  if (first) {
    NewStore();
    fresh_store_next_ = false;
  }
  corpus_.Change(rng_, int(report_.rounds) + 1, first ? 1.0 : 1.0 / 3);
  auto versions = WriteCorpus();
  const KillPlan plan = span_ <= 0 ? Never() : PlanKill(span_);
  // Small commits: `ingest` crosses the segment cap (32) and merges mid-load; `bulk` stays under it
  // so that its merges are those of FinishBulk, which its delay kills aim at (after the last ack).
  RunResult r = RunCli({"--embedder", "none", "ingest", (dir_ / "corpus.jsonl").string(), "--batch-docs",
                        bulk ? "8" : "4", "--print-acks"},
                       plan, /*after_acks=*/bulk, CrashCorpus::kDocuments, versions);
  Record(r, plan);
  if (r.clean) UpdateSpan(bulk ? r.tail_seconds : r.seconds);
  Check(r.clean);
}

void Campaign::RoundTraining() {
  const bool first = fresh_store_next_;
  if (first) {
    NewStore();
    fresh_store_next_ = false;
  }
  corpus_.Change(rng_, int(report_.rounds) + 1, first ? 1.0 : 0.2);
  auto versions = WriteCorpus();
  const KillPlan plan = span_ <= 0 ? Never() : PlanKill(span_);
  // The delay is counted from the last acknowledgement: FinishBulk, then training, vector files and
  // the switch (what follows the commits).
  RunResult r = RunCli({"--embed-min-chunks", "100", "ingest", (dir_ / "corpus.jsonl").string(), "--batch-docs",
                        "32", "--print-acks"},
                       plan, /*after_acks=*/true, CrashCorpus::kDocuments, versions);
  Record(r, plan);
  if (r.clean) UpdateSpan(r.tail_seconds);
  Check(r.clean);
  // Once a model is trained and switched to, the next round trains again from scratch.
  if (r.clean) fresh_store_next_ = true;
}

void Campaign::RoundReembed() {
  if (fresh_store_next_) {
    // A trained store with two segments (the second replaces a third of the documents).
    NewStore();
    fresh_store_next_ = false;
    for (int step = 0; step < 2; ++step) {
      corpus_.Change(rng_, step + 1, step == 0 ? 1.0 : 1.0 / 3);
      auto versions = WriteCorpus();
      RunResult r = RunCli({"--embed-min-chunks", "100", "ingest", (dir_ / "corpus.jsonl").string(),
                            "--batch-docs", "32", "--print-acks"},
                           Never(), false, 0, versions);
      if (!r.clean) return Fail("setting up the reembed store failed");
    }
  }
  const KillPlan plan = span_ <= 0 ? Never() : PlanKill(span_);
  RunResult r = RunCli({"--embed-seed", std::to_string(1000 + report_.rounds), "reembed"}, plan, false, 0, {});
  Record(r, plan);
  if (r.clean) UpdateSpan(r.seconds);
  Check(r.clean);
}

CrashCampaignReport Campaign::Run() {
  const auto t0 = Clock::now();
  const uint64_t max_rounds = o_.max_rounds ? o_.max_rounds : 3 * o_.kill_points + 10;
  if (o_.scenario == CrashScenario::kServerBatch) {
    span_ = 1.5;  // seconds of posting before a delay kill, at most
    for (const std::string& p : NamedPoints(o_.scenario)) baseline_counts_[p] = p.rfind("commit.", 0) == 0 ? 30 : 1;
  }
  while (report_.kill_points < o_.kill_points && report_.rounds < max_rounds) {
    const auto round_start = Clock::now();
    switch (o_.scenario) {
      case CrashScenario::kIngest: RoundIngest(false); break;
      case CrashScenario::kBulkMerge: RoundIngest(true); break;
      case CrashScenario::kTraining: RoundTraining(); break;
      case CrashScenario::kReembed: RoundReembed(); break;
      case CrashScenario::kServerBatch: RoundServer(); break;
    }
    if (o_.verbose) {
      char line[512];
      std::snprintf(line, sizeof line, "%s round %llu: %s; round %.2f s, check %.2f s", CrashScenarioName(o_.scenario),
                    static_cast<unsigned long long>(report_.rounds), last_outcome_.c_str(),
                    std::chrono::duration<double>(Clock::now() - round_start).count(), check_seconds_);
      Log(line);
    }
    if (report_.failures.size() >= 20) break;  // enough to diagnose; the rest would repeat
    if (report_.rounds % 10 == 0) {
      Log(std::string(CrashScenarioName(o_.scenario)) + ": " + std::to_string(report_.rounds) + " rounds, " +
          std::to_string(report_.kill_points) + " kill points, " + std::to_string(report_.lost) + " lost");
    }
  }
  report_.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return report_;
}

}  // namespace crash_internal

CrashCampaignReport RunCrashCampaign(const CrashCampaignOptions& options) { return crash_internal::Campaign(options).Run(); }

}  // namespace attest::testing_support
