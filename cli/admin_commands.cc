// stats, delete and eval.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

#include "attest/engine.h"
#include "cli/commands.h"
#include "cli/terminal.h"
#include "engine/beir_evaluation.h"

namespace attest::cli {

int RunStats(const GlobalArgs& g, bool json) {
  EngineOptions eo;
  eo.data_dir = g.data_dir;
  eo.read_only = true;
  auto engine = Engine::Open(eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), engine.status().ToString().c_str());
    return kExitFailure;
  }
  auto s = (*engine)->Stats();
  if (!s.ok()) {
    std::fprintf(stderr, "attest: stats failed: %s\n", s.status().ToString().c_str());
    return kExitFailure;
  }
  if (json) {
    nlohmann::json j = {{"snapshot_version", s->snapshot_version}, {"documents", s->documents},
                        {"chunks", s->chunks},                     {"segments", s->segments},
                        {"segment_bytes", s->segment_bytes},       {"catalog_bytes", s->catalog_bytes},
                        {"source_bytes", s->source_bytes}};
    std::printf("%s\n", j.dump(2).c_str());
    return kExitOk;
  }
  std::printf("data directory  %s\n", g.data_dir.c_str());
  std::printf("snapshot        %llu\n", static_cast<unsigned long long>(s->snapshot_version));
  std::printf("documents       %llu\n", static_cast<unsigned long long>(s->documents));
  std::printf("chunks          %llu\n", static_cast<unsigned long long>(s->chunks));
  std::printf("segments        %llu (%s)\n", static_cast<unsigned long long>(s->segments),
              HumanBytes(s->segment_bytes).c_str());
  std::printf("catalog         %s\n", HumanBytes(s->catalog_bytes).c_str());
  std::printf("source text     %s\n", HumanBytes(s->source_bytes).c_str());
  return kExitOk;
}

int RunDelete(const GlobalArgs& g, const std::string& id, const std::string& tenant) {
  EngineOptions eo;
  eo.data_dir = g.data_dir;
  auto engine = Engine::Open(eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), engine.status().ToString().c_str());
    return kExitFailure;
  }
  auto r = (*engine)->Delete(tenant, id);
  if (!r.ok()) {
    std::fprintf(stderr, "attest: delete failed: %s\n", r.status().ToString().c_str());
    return kExitFailure;
  }
  std::printf("deleted %s (snapshot %llu)\n", id.c_str(), static_cast<unsigned long long>(*r));
  return kExitOk;
}

int RunEval(const GlobalArgs& g, const EvalArgs& a) {
  EvaluationArgs args;
  args.beir_dir = a.dir;
  args.split = a.split;
  args.data_dir = a.index_dir;
  args.k = a.k;
  args.threads = g.threads;
  ProgressBar bar("index");
  args.on_progress = [&](uint64_t done, uint64_t total) { bar.Update(done, total); };
  auto r = RunBeirEvaluation(args);
  bar.Finish();
  if (!r.ok()) {
    std::fprintf(stderr, "attest: eval failed: %s\n", r.status().ToString().c_str());
    return kExitFailure;
  }
  const IngestReport& ing = r->ingest;
  std::printf("dataset %s, split %s: %llu documents, %llu chunks indexed in %.2f s\n", r->dataset.c_str(),
              a.split.c_str(), static_cast<unsigned long long>(ing.documents_seen),
              static_cast<unsigned long long>(ing.chunks), ing.seconds);
  std::printf("%s", FormatEvalTable({r->summary}).c_str());
  if (!a.json_file.empty()) {
    std::ofstream out(a.json_file);
    out << EvalSummaryToJson(r->summary) << "\n";
    if (!out) {
      std::fprintf(stderr, "attest: cannot write %s\n", a.json_file.c_str());
      return kExitFailure;
    }
  }
  return ing.issues.empty() ? kExitOk : kExitPartial;
}

}  // namespace attest::cli
