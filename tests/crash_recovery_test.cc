// Kill -9, many times, at random moments and at named fault points, in every writing path: CLI
// ingestion (commits and merges), the merge that ends a bulk load, corpus-model training, reembed,
// and documents:batch through the server. After each kill the data directory is reopened and must
// hold every acknowledged document with exactly its content, no partial document, an index equal to
// the catalog, valid (or ignored) vector files, and take new writes (support/crash_oracle.h).
//
// The CI suite runs 100 kill points here; `make crash-campaign` runs 1,000 or more
// (bench/crash_campaign.cc). docs/testing.md describes both.
#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "support/crash_campaign.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::CrashCampaignOptions;
using testing_support::CrashScenario;
using testing_support::TempDir;

void RunScenario(CrashScenario scenario, uint64_t kill_points, uint64_t seed, size_t min_phases) {
  TempDir tmp;
  CrashCampaignOptions o;
  o.work_dir = tmp.path();
  o.binary = ATTEST_BINARY;
  o.scenario = scenario;
  o.kill_points = kill_points;
  o.seed = seed;
  const auto r = testing_support::RunCrashCampaign(o);
  std::cout << testing_support::FormatCrashReport(r) << std::flush;
  for (const auto& f : r.failures) ADD_FAILURE() << f;
  EXPECT_EQ(r.lost, 0u) << "acknowledged documents were lost";
  EXPECT_GE(r.kill_points, kill_points) << "too few kills landed in " << r.rounds << " rounds";
  EXPECT_GT(r.named_kills, 0u);
  EXPECT_LT(r.named_kills, r.kill_points) << "no kill at a random delay";
  EXPECT_GT(r.acknowledged, 0u);
  EXPECT_GE(r.phases.size(), min_phases) << "the kills fell in too few phases";
}

// The original test, now one scenario of the campaign: `attest ingest` in commits of 4 documents,
// crossing the segment cap (merges mid-load).
TEST(CrashRecovery, KillNineDuringIngestLosesNothingAcknowledged) {
  RunScenario(CrashScenario::kIngest, 30, 20261130, 4);
}

TEST(CrashRecovery, KillNineDuringFinishBulkMergeLosesNothing) { RunScenario(CrashScenario::kBulkMerge, 15, 7, 3); }

TEST(CrashRecovery, KillNineDuringCorpusModelTrainingLosesNothing) {
  RunScenario(CrashScenario::kTraining, 20, 11, 4);
}

TEST(CrashRecovery, KillNineDuringReembedKeepsOneUsableEmbedder) { RunScenario(CrashScenario::kReembed, 15, 13, 4); }

TEST(CrashRecovery, KillNineOfServerDuringDocumentBatchesLosesNoAcknowledgedBatch) {
  RunScenario(CrashScenario::kServerBatch, 20, 17, 3);
}

}  // namespace
}  // namespace attest
