// The nightly kill -9 campaign (`make crash-campaign`; docs/testing.md, "Crash campaign"): runs the
// crash scenarios of tests/support/crash_campaign.h until the requested number of kill points have
// landed, then prints where they fell (a histogram by phase) and the count of acknowledged documents
// lost (must be 0). Exits 1 when anything was lost or an invariant broke.
//
//   crash_campaign [--points 1000] [--scenarios ingest,bulk,training,reembed,server] [--seed 1]
//                  [--work-dir DIR] [--binary PATH] [--verbose]
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "support/crash_campaign.h"

using namespace attest::testing_support;

namespace {

// Share of the kill points per scenario (the commit paths get the most; every scenario gets some).
double Weight(CrashScenario s) {
  switch (s) {
    case CrashScenario::kIngest: return 0.30;
    case CrashScenario::kBulkMerge: return 0.15;
    case CrashScenario::kTraining: return 0.20;
    case CrashScenario::kReembed: return 0.15;
    case CrashScenario::kServerBatch: return 0.20;
  }
  return 0.2;
}

int Usage() {
  std::fprintf(stderr,
               "usage: crash_campaign [--points N] [--scenarios ingest,bulk,training,reembed,server] [--seed S]\n"
               "                      [--work-dir DIR] [--binary PATH] [--verbose]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t points = 1000, seed = 1;
  std::vector<CrashScenario> scenarios = AllCrashScenarios();
  std::string work_dir, binary = ATTEST_BINARY;
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--points") {
      points = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--seed") {
      seed = std::strtoull(value().c_str(), nullptr, 10);
    } else if (a == "--work-dir") {
      work_dir = value();
    } else if (a == "--binary") {
      binary = value();
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--scenarios") {
      scenarios.clear();
      std::string list = value(), name;
      for (size_t pos = 0; pos <= list.size(); ++pos) {
        if (pos == list.size() || list[pos] == ',') {
          CrashScenario s;
          if (!ParseCrashScenario(name, &s)) {
            std::fprintf(stderr, "crash_campaign: unknown scenario '%s'\n", name.c_str());
            return Usage();
          }
          scenarios.push_back(s);
          name.clear();
        } else {
          name += list[pos];
        }
      }
    } else {
      return Usage();
    }
  }
  if (points == 0 || scenarios.empty()) return Usage();
  bool own_dir = false;
  if (work_dir.empty()) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "attest-crash-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) {
      std::perror("crash_campaign: mkdtemp");
      return 1;
    }
    work_dir = tmpl;
    own_dir = true;
  }
  double total_weight = 0;
  for (CrashScenario s : scenarios) total_weight += Weight(s);

  CrashCampaignReport total;
  for (size_t i = 0; i < scenarios.size(); ++i) {
    CrashCampaignOptions o;
    o.work_dir = work_dir;
    o.binary = binary;
    o.scenario = scenarios[i];
    o.kill_points = std::max<uint64_t>(1, uint64_t(double(points) * Weight(scenarios[i]) / total_weight + 0.5));
    o.seed = seed * 1000003 + i;
    o.verbose = verbose;
    o.log = [](const std::string& line) { std::fprintf(stderr, "crash_campaign: %s\n", line.c_str()); };
    std::fprintf(stderr, "crash_campaign: %s: %llu kill points\n", CrashScenarioName(o.scenario),
                 static_cast<unsigned long long>(o.kill_points));
    CrashCampaignReport r = RunCrashCampaign(o);
    std::printf("== %s\n%s\n", CrashScenarioName(o.scenario), FormatCrashReport(r).c_str());
    for (const auto& f : r.failures) std::printf("FAILURE %s\n", f.c_str());
    std::fflush(stdout);
    total.Add(r);
  }
  std::printf("== all scenarios\n%s", FormatCrashReport(total).c_str());
  if (own_dir) std::filesystem::remove_all(work_dir);
  return total.lost == 0 && total.failures.empty() ? 0 : 1;
}
