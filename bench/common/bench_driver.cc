#include "common/bench_driver.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/corpus_reader.h"
#include "common/proc_status.h"
#include "eval/beir.h"
#include "eval/metrics.h"

namespace attest::bench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

json MemoryJson() {
  ProcMemory m = ReadProcMemory();
  return {{"vmhwm_kb", m.vm_hwm_kb}, {"vmrss_kb", m.vm_rss_kb}};
}

json LatencyJson(const LatencySummary& s) {
  return {{"p50", s.p50_ms}, {"p95", s.p95_ms}, {"p99", s.p99_ms}, {"mean", s.mean_ms}, {"samples", s.samples}};
}

Status WriteJson(const fs::path& path, const json& j) {
  if (path.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << j.dump(2) << '\n';
  out.close();
  if (!out) return Status::IOError("cannot write " + path.string());
  return Status::Ok();
}

Status PrepareIndexDir(const fs::path& dir) {
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return Status::IOError("cannot clear " + dir.string() + ": " + ec.message());
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir.string() + ": " + ec.message());
  return Status::Ok();
}

struct BuildOutcome {
  BuildStats stats;
  double seconds = 0;
  uint64_t index_bytes = 0;
};

Result<BuildOutcome> TimedBuild(BenchSystem& system, const BuildArgs& args) {
  ATTEST_RETURN_IF_ERROR(PrepareIndexDir(args.index_dir));
  BuildOutcome out;
  const auto t0 = Clock::now();
  ATTEST_RETURN_IF_ERROR(system.Build(args, &out.stats));
  out.seconds = SecondsSince(t0);
  ATTEST_ASSIGN_OR_RETURN(out.index_bytes, system.IndexBytes(args.index_dir));
  return out;
}

struct TimedRun {
  EvalRun run;
  std::vector<double> latencies_ms;
  uint64_t hits = 0;
};

Status RunQueries(BenchSystem& system, const std::vector<BeirQuery>& queries, size_t k,
                  const std::string* acl_group, TimedRun* out) {
  std::vector<std::string> ids;
  out->latencies_ms.reserve(queries.size());
  for (const BeirQuery& q : queries) {
    ids.clear();
    SearchArgs args;
    args.text = q.text;
    args.k = k;
    args.acl_group = acl_group;
    const auto t0 = Clock::now();
    Status st = system.Search(args, &ids);
    const double ms = SecondsSince(t0) * 1e3;
    if (!st.ok()) return st.WithContext("query " + q.id);
    out->latencies_ms.push_back(ms);
    out->hits += ids.size();
    out->run[q.id] = ids;
  }
  return Status::Ok();
}

json RunToJson(const EvalRun& run) {
  json j = json::object();
  for (const auto& [qid, ids] : run) j[qid] = ids;
  return j;
}

json BaseReport(const BenchSystem& system, const char* phase) {
  json settings = json::object();
  for (const auto& [k, v] : system.Describe()) settings[k] = v;
  return {{"system", system.name()}, {"phase", phase}, {"settings", settings}};
}

Status DoBuild(BenchSystem& system, const BuildArgs& args, const fs::path& out_path) {
  ATTEST_ASSIGN_OR_RETURN(BuildOutcome b, TimedBuild(system, args));
  json j = BaseReport(system, "build");
  j["docs"] = b.stats.docs;
  j["raw_text_bytes"] = b.stats.raw_text_bytes;
  j["build_s"] = b.seconds;
  j["docs_per_s"] = b.seconds > 0 ? static_cast<double>(b.stats.docs) / b.seconds : 0.0;
  j["index_bytes"] = b.index_bytes;
  j["index_to_raw"] = b.stats.raw_text_bytes > 0
                          ? static_cast<double>(b.index_bytes) / static_cast<double>(b.stats.raw_text_bytes)
                          : 0.0;
  j["threads"] = args.threads;
  j["phases_s"] = b.stats.phases_s;
  for (const auto& [k, v] : b.stats.notes) j["settings"][k] = v;
  j["memory_kb"] = MemoryJson();
  std::fprintf(stderr, "%s build: %llu docs in %.1f s (%.0f docs/s), index %.1f MB = %.3f x raw text\n",
               system.name().c_str(), static_cast<unsigned long long>(b.stats.docs), b.seconds,
               j["docs_per_s"].get<double>(), static_cast<double>(b.index_bytes) / 1e6,
               j["index_to_raw"].get<double>());
  return WriteJson(out_path, j);
}

struct QueryOptions {
  fs::path index_dir, queries, out, run_out, acl_run_out;
  std::string acl_group;
  size_t k = 10;
  int warmup = 1;
};

Status DoQuery(BenchSystem& system, const QueryOptions& o) {
  ATTEST_ASSIGN_OR_RETURN(std::vector<BeirQuery> queries, LoadBeirQueries(o.queries));
  if (queries.empty()) return Status::InvalidArgument(o.queries.string() + ": no queries");
  json j = BaseReport(system, "query");
  j["memory_kb"]["before_open"] = MemoryJson();
  const auto t0 = Clock::now();
  ATTEST_RETURN_IF_ERROR(system.Open(o.index_dir));
  j["open_s"] = SecondsSince(t0);
  j["memory_kb"]["after_open"] = MemoryJson();

  const std::string* acl = o.acl_group.empty() ? nullptr : &o.acl_group;
  for (int pass = 0; pass < o.warmup; ++pass) {
    TimedRun warm;
    ATTEST_RETURN_IF_ERROR(RunQueries(system, queries, o.k, nullptr, &warm));
    if (acl) ATTEST_RETURN_IF_ERROR(RunQueries(system, queries, o.k, acl, &warm));
  }
  TimedRun plain, filtered;
  ATTEST_RETURN_IF_ERROR(RunQueries(system, queries, o.k, nullptr, &plain));
  if (acl) ATTEST_RETURN_IF_ERROR(RunQueries(system, queries, o.k, acl, &filtered));

  j["queries"] = queries.size();
  j["k"] = o.k;
  j["warmup_passes"] = o.warmup;
  j["acl_group"] = o.acl_group;
  const LatencySummary lp = SummarizeLatencies(plain.latencies_ms);
  j["unfiltered"] = {{"latency_ms", LatencyJson(lp)},
                     {"mean_hits", static_cast<double>(plain.hits) / static_cast<double>(queries.size())},
                     {"per_query_ms", plain.latencies_ms}};
  std::fprintf(stderr, "%s query: unfiltered p50 %.3f p95 %.3f p99 %.3f ms", system.name().c_str(), lp.p50_ms,
               lp.p95_ms, lp.p99_ms);
  if (acl) {
    const LatencySummary la = SummarizeLatencies(filtered.latencies_ms);
    j["acl"] = {{"latency_ms", LatencyJson(la)},
                {"mean_hits", static_cast<double>(filtered.hits) / static_cast<double>(queries.size())},
                {"per_query_ms", filtered.latencies_ms}};
    std::fprintf(stderr, "; acl p50 %.3f p95 %.3f p99 %.3f ms", la.p50_ms, la.p95_ms, la.p99_ms);
  }
  std::fprintf(stderr, "\n");
  j["memory_kb"]["end"] = MemoryJson();
  if (!o.run_out.empty()) ATTEST_RETURN_IF_ERROR(WriteJson(o.run_out, RunToJson(plain.run)));
  if (acl && !o.acl_run_out.empty()) ATTEST_RETURN_IF_ERROR(WriteJson(o.acl_run_out, RunToJson(filtered.run)));
  return WriteJson(o.out, j);
}

struct BeirOptions {
  fs::path dataset, index_dir, out, run_out;
  std::string split = "test";
  size_t k = 100;
  int threads = 2;
  uint64_t xapian_flush_threshold = 1000000;
};

Status DoBeir(BenchSystem& system, const BeirOptions& o) {
  ATTEST_ASSIGN_OR_RETURN(BeirSplit split, LoadBeirSplit(o.dataset, o.split));
  BuildArgs args;
  args.corpus = BeirCorpusPath(o.dataset);
  args.index_dir = o.index_dir;
  args.threads = o.threads;
  args.xapian_flush_threshold = o.xapian_flush_threshold;
  ATTEST_ASSIGN_OR_RETURN(BuildOutcome b, TimedBuild(system, args));
  ATTEST_RETURN_IF_ERROR(system.Open(o.index_dir));
  TimedRun warm, timed;
  ATTEST_RETURN_IF_ERROR(RunQueries(system, split.queries, o.k, nullptr, &warm));
  ATTEST_RETURN_IF_ERROR(RunQueries(system, split.queries, o.k, nullptr, &timed));
  EvaluateArgs ea;
  ea.run = &timed.run;
  ea.qrels = &split.qrels;
  ea.mode = system.name();
  ea.latencies_ms = timed.latencies_ms;
  EvalSummary s = Evaluate(ea);
  json j = BaseReport(system, "beir");
  j.update(json::parse(EvalSummaryToJson(s)));
  j["phase"] = "beir";
  j["dataset"] = o.dataset.string();
  j["split"] = o.split;
  j["k"] = o.k;
  j["docs"] = b.stats.docs;
  j["build_s"] = b.seconds;
  j["index_bytes"] = b.index_bytes;
  std::fprintf(stderr, "%s", FormatEvalTable({s}).c_str());
  if (!o.run_out.empty()) ATTEST_RETURN_IF_ERROR(WriteJson(o.run_out, RunToJson(timed.run)));
  return WriteJson(o.out, j);
}

}  // namespace

int RunBenchMain(int argc, char** argv, const SystemFactory& make_system) {
  std::unique_ptr<BenchSystem> system = make_system();
  CLI::App app{system->name() + " side of the Attest comparison benchmark (see bench/README.md)"};
  app.require_subcommand(1);

  BuildArgs build;
  fs::path build_out;
  auto* b = app.add_subcommand("build", "index a BEIR corpus.jsonl and report build figures");
  b->add_option("--corpus", build.corpus, "corpus.jsonl")->required();
  b->add_option("--index", build.index_dir, "index directory (replaced)")->required();
  b->add_option("--out", build_out, "report JSON")->required();
  b->add_option("--threads", build.threads, "analysis threads")->check(CLI::Range(1, 64));
  b->add_option("--xapian-flush", build.xapian_flush_threshold, "XAPIAN_FLUSH_THRESHOLD (Xapian only)");

  QueryOptions q;
  auto* qc = app.add_subcommand("query", "time top-k queries, unfiltered and ACL-filtered");
  qc->add_option("--index", q.index_dir, "index directory")->required();
  qc->add_option("--queries", q.queries, "queries.jsonl")->required();
  qc->add_option("--out", q.out, "report JSON")->required();
  qc->add_option("--acl-group", q.acl_group, "ACL group for the filtered run (empty: skip)");
  qc->add_option("--k", q.k, "results per query")->check(CLI::Range(1, 10000));
  qc->add_option("--warmup", q.warmup, "untimed passes before timing")->check(CLI::Range(0, 10));
  qc->add_option("--run-out", q.run_out, "write the unfiltered top-k per query (JSON)");
  qc->add_option("--acl-run-out", q.acl_run_out, "write the filtered top-k per query (JSON)");

  BeirOptions be;
  auto* bc = app.add_subcommand("beir", "index a BEIR dataset and evaluate a split");
  bc->add_option("--dataset", be.dataset, "BEIR folder (corpus.jsonl, queries.jsonl, qrels/)")->required();
  bc->add_option("--index", be.index_dir, "scratch index directory (replaced)")->required();
  bc->add_option("--out", be.out, "report JSON")->required();
  bc->add_option("--split", be.split, "qrels split");
  bc->add_option("--k", be.k, "results per query")->check(CLI::Range(1, 10000));
  bc->add_option("--threads", be.threads, "analysis threads")->check(CLI::Range(1, 64));
  bc->add_option("--run-out", be.run_out, "write the run (JSON)");
  bc->add_option("--xapian-flush", be.xapian_flush_threshold, "XAPIAN_FLUSH_THRESHOLD (Xapian only)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  Status st;
  if (b->parsed()) st = DoBuild(*system, build, build_out);
  else if (qc->parsed()) st = DoQuery(*system, q);
  else st = DoBeir(*system, be);
  if (!st.ok()) {
    std::fprintf(stderr, "%s: %s\n", system->name().c_str(), st.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace attest::bench
