#include <nlohmann/json.hpp>

#include <cstdio>

#include "attest/engine.h"
#include "cli/commands.h"
#include "cli/terminal.h"

namespace attest::cli {

std::vector<std::string> SplitList(const std::string& csv) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : csv) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

size_t PrintIngestIssues(const IngestReport& report) {
  for (const auto& issue : report.issues) {
    if (issue.line) {
      std::fprintf(stderr, "attest: %s:%llu: %s\n", issue.file.c_str(), static_cast<unsigned long long>(issue.line),
                   issue.message.c_str());
    } else {
      std::fprintf(stderr, "attest: %s: %s\n", issue.file.c_str(), issue.message.c_str());
    }
  }
  return report.issues.size();
}

int RunIngest(const GlobalArgs& g, const IngestArgs& a) {
  if (!a.cluster.empty()) return RunClusterIngest(g, a);
  auto eo = MakeEngineOptions(g, /*read_only=*/false);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(),
                 FailureText(engine.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  ProgressBar bar("ingest");
  IngestOptions io;
  io.paths = a.paths;
  io.tenant = StoreTenant(a.tenant);
  io.acl_groups = SplitList(a.acl);
  io.access_label = a.label;
  io.source_type = a.source_type;
  io.version = a.version;
  io.site = a.site;
  io.license = a.license;
  io.batch_documents = a.batch_docs;
  io.on_progress = [&](uint64_t done, uint64_t total) { bar.Update(done, total); };
  if (a.print_acks) {
    io.on_commit = [](const std::vector<std::string>& ids) {
      for (const auto& id : ids) std::printf("ack %s\n", id.c_str());
      std::fflush(stdout);
    };
  }
  Result<IngestReport> r = (*engine)->Ingest(io);
  bar.Finish();
  if (!r.ok()) {
    std::fprintf(stderr, "attest: ingest failed: %s\n", FailureText(r.status(), g.data_dir).c_str());
    return kExitFailure;
  }
  const IngestReport& rep = *r;
  PrintIngestIssues(rep);
  double mbps = rep.seconds > 0 ? static_cast<double>(rep.bytes) / 1e6 / rep.seconds : 0;
  double cps = rep.seconds > 0 ? static_cast<double>(rep.chunks) / rep.seconds : 0;
  if (a.json) {
    nlohmann::json j = {{"files", rep.files},         {"documents", rep.documents_seen}, {"added", rep.added},
                        {"replaced", rep.replaced},   {"unchanged", rep.unchanged},     {"chunks", rep.chunks},
                        {"bytes", rep.bytes},         {"seconds", rep.seconds},         {"mb_per_s", mbps},
                        {"chunks_per_s", cps},        {"snapshot_version", rep.snapshot_version},
                        {"errors", rep.issues.size()}, {"vector_seconds", rep.vector_seconds},
                        {"embedder", rep.embedder}};
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::printf(
        "ingested %llu documents from %llu files: %llu added, %llu replaced, %llu unchanged; %llu chunks, %s in "
        "%.2f s (%.1f MB/s, %.0f chunks/s); snapshot %llu",
        static_cast<unsigned long long>(rep.documents_seen), static_cast<unsigned long long>(rep.files),
        static_cast<unsigned long long>(rep.added), static_cast<unsigned long long>(rep.replaced),
        static_cast<unsigned long long>(rep.unchanged), static_cast<unsigned long long>(rep.chunks),
        HumanBytes(rep.bytes).c_str(), rep.seconds, mbps, cps,
        static_cast<unsigned long long>(rep.snapshot_version));
    if (!rep.issues.empty()) std::printf("; %zu error(s)", rep.issues.size());
    std::printf("\n");
    if (!rep.embedder.empty()) {
      const bool corpus = rep.embedder.find("corpus") != std::string::npos;
      std::printf("vector leg: %s%s, %.2f s\n", rep.embedder.c_str(),
                  corpus ? " (a model trained on this store's own text, not a pretrained semantic model)" : "",
                  rep.vector_seconds);
    } else {
      std::printf("vector leg: none yet (BM25 only)\n");
    }
  }
  return rep.issues.empty() ? kExitOk : kExitPartial;
}

}  // namespace attest::cli
