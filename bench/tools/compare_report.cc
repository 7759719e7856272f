// Reads the reports written by gen_corpus and the three *_compare tools and prints the side-by-side
// table with ratios; writes everything as one JSON document.
//
//   compare_report --dir OUT [--out summary.json]
//
// Expects in OUT: meta.json, <sys>-build.json, <sys>-query.json, <sys>-run.json, <sys>-run-acl.json
// and optionally <sys>-scifact.json, for sys in attest, xapian, fts5 (missing ones print "-").
// Ratios are other / Attest for every row (so for times, bytes and memory a ratio > 1 means Attest
// is faster or smaller; for chunks/s and quality a ratio > 1 means the other system is higher).
// Top-10 overlap of A vs B: mean over queries of |A ∩ B| / max(|A|, |B|) (1 when both are empty).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* kSystems[] = {"attest", "xapian", "fts5"};

std::optional<json> Load(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    std::fprintf(stderr, "compare_report: %s: %s\n", p.c_str(), e.what());
    return std::nullopt;
  }
}

// Value at a JSON pointer, if present and numeric.
std::optional<double> Num(const std::optional<json>& j, const char* pointer) {
  if (!j) return std::nullopt;
  const json::json_pointer ptr(pointer);
  if (!j->contains(ptr) || !j->at(ptr).is_number()) return std::nullopt;
  return j->at(ptr).get<double>();
}

struct Overlap {
  double mean = 0;
  double identical = 0;  // fraction of queries with the same set
  size_t queries = 0;
};

std::optional<Overlap> TopOverlap(const std::optional<json>& a, const std::optional<json>& b, size_t k) {
  if (!a || !b || !a->is_object() || !b->is_object()) return std::nullopt;
  Overlap o;
  for (auto it = a->begin(); it != a->end(); ++it) {
    if (!b->contains(it.key())) continue;
    std::set<std::string> sa, sb;
    for (size_t i = 0; i < it->size() && i < k; ++i) sa.insert((*it)[i].get<std::string>());
    const json& other = (*b)[it.key()];
    for (size_t i = 0; i < other.size() && i < k; ++i) sb.insert(other[i].get<std::string>());
    size_t common = 0;
    for (const auto& id : sa) common += sb.count(id);
    const size_t denom = std::max(sa.size(), sb.size());
    o.mean += denom == 0 ? 1.0 : static_cast<double>(common) / static_cast<double>(denom);
    o.identical += sa == sb ? 1.0 : 0.0;
    ++o.queries;
  }
  if (o.queries == 0) return std::nullopt;
  o.mean /= static_cast<double>(o.queries);
  o.identical /= static_cast<double>(o.queries);
  return o;
}

struct Row {
  std::string label;
  std::string pointer;  // JSON pointer inside the report
  std::string report;   // "build", "query" or "scifact"
  double scale = 1;     // multiply (e.g. KiB -> MB)
  const char* fmt = "%.3f";
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Side-by-side table of the comparison benchmark"};
  fs::path dir, out;
  app.add_option("--dir", dir, "directory with the reports")->required();
  app.add_option("--out", out, "summary JSON (default: DIR/summary.json)");
  CLI11_PARSE(app, argc, argv);
  if (out.empty()) out = dir / "summary.json";

  std::map<std::string, std::map<std::string, std::optional<json>>> rep;
  for (const char* s : kSystems) {
    for (const char* kind : {"build", "query", "scifact", "run", "run-acl"}) {
      rep[s][kind] = Load(dir / (std::string(s) + "-" + kind + ".json"));
    }
  }
  const std::optional<json> meta = Load(dir / "meta.json");

  const std::vector<Row> rows = {
      {"build wall time (s)", "/build_s", "build", 1, "%.1f"},
      {"build rate (chunks/s)", "/docs_per_s", "build", 1, "%.0f"},
      {"index size (MB)", "/index_bytes", "build", 1e-6, "%.1f"},
      {"index / raw text", "/index_to_raw", "build", 1, "%.3f"},
      {"build peak RSS VmHWM (MB)", "/memory_kb/vmhwm_kb", "build", 1.0 / 1024, "%.0f"},
      {"open time (s)", "/open_s", "query", 1, "%.3f"},
      {"top-10 p50 (ms)", "/unfiltered/latency_ms/p50", "query", 1, "%.3f"},
      {"top-10 p95 (ms)", "/unfiltered/latency_ms/p95", "query", 1, "%.3f"},
      {"top-10 p99 (ms)", "/unfiltered/latency_ms/p99", "query", 1, "%.3f"},
      {"top-10 1%-ACL p50 (ms)", "/acl/latency_ms/p50", "query", 1, "%.3f"},
      {"top-10 1%-ACL p95 (ms)", "/acl/latency_ms/p95", "query", 1, "%.3f"},
      {"top-10 1%-ACL p99 (ms)", "/acl/latency_ms/p99", "query", 1, "%.3f"},
      {"query peak RSS VmHWM (MB)", "/memory_kb/end/vmhwm_kb", "query", 1.0 / 1024, "%.0f"},
      {"query RSS after queries (MB)", "/memory_kb/end/vmrss_kb", "query", 1.0 / 1024, "%.0f"},
      {"SciFact nDCG@10", "/ndcg@10", "scifact", 1, "%.4f"},
      {"SciFact Recall@100", "/recall@100", "scifact", 1, "%.4f"},
      {"SciFact p50 top-100 (ms)", "/latency_ms/p50", "scifact", 1, "%.3f"},
  };

  json summary = {{"meta", meta ? *meta : json()}, {"rows", json::array()}};
  std::printf("%-30s %12s %12s %12s %14s %12s\n", "", "attest", "xapian", "fts5", "xapian/attest", "fts5/attest");
  for (const Row& r : rows) {
    std::optional<double> v[3];
    json jrow = {{"metric", r.label}};
    for (int i = 0; i < 3; ++i) {
      v[i] = Num(rep[kSystems[i]][r.report], r.pointer.c_str());
      if (v[i]) *v[i] *= r.scale;
      jrow[kSystems[i]] = v[i] ? json(*v[i]) : json();
    }
    auto cell = [&](std::optional<double> x, const char* fmt) {
      char buf[64];
      if (!x) return std::string("-");
      std::snprintf(buf, sizeof buf, fmt, *x);
      return std::string(buf);
    };
    auto ratio = [&](int i) -> std::optional<double> {
      if (!v[0] || !v[i] || *v[0] == 0) return std::nullopt;
      return *v[i] / *v[0];
    };
    jrow["xapian/attest"] = ratio(1) ? json(*ratio(1)) : json();
    jrow["fts5/attest"] = ratio(2) ? json(*ratio(2)) : json();
    summary["rows"].push_back(jrow);
    std::printf("%-30s %12s %12s %12s %14s %12s\n", r.label.c_str(), cell(v[0], r.fmt).c_str(),
                cell(v[1], r.fmt).c_str(), cell(v[2], r.fmt).c_str(), cell(ratio(1), "%.2fx").c_str(),
                cell(ratio(2), "%.2fx").c_str());
  }

  std::printf("\nTop-10 overlap on the synthetic queries (mean |A∩B|/max(|A|,|B|); identical sets):\n");
  const std::pair<const char*, const char*> pairs[] = {{"attest", "xapian"}, {"attest", "fts5"}};
  for (const auto& [a, b] : pairs) {
    for (const char* kind : {"run", "run-acl"}) {
      auto o = TopOverlap(rep[a][kind], rep[b][kind], 10);
      const std::string key = std::string(a) + "_vs_" + b + (std::string(kind) == "run" ? "" : "_acl");
      if (!o) {
        std::printf("  %-24s -\n", key.c_str());
        continue;
      }
      std::printf("  %-24s %.4f  (%.1f%% identical, %zu queries)\n", key.c_str(), o->mean, 100 * o->identical,
                  o->queries);
      summary["overlap"][key] = {{"mean", o->mean}, {"identical", o->identical}, {"queries", o->queries}};
    }
  }
  for (const char* s : kSystems) {
    for (const char* kind : {"build", "query", "scifact"}) {
      if (rep[s][kind]) summary["reports"][s][kind] = *rep[s][kind];
    }
  }
  std::ofstream of(out, std::ios::trunc);
  of << summary.dump(2) << '\n';
  of.close();
  if (!of) {
    std::fprintf(stderr, "compare_report: cannot write %s\n", out.c_str());
    return 1;
  }
  std::printf("\nwrote %s\n", out.c_str());
  return 0;
}
