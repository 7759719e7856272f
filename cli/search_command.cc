#include <nlohmann/json.hpp>

#include <cstdio>

#include "attest/engine.h"
#include "cli/commands.h"
#include "cli/terminal.h"

namespace attest::cli {
namespace {

// Applies one --filter key=value; returns an error message or "".
std::string ApplyFilter(const std::string& kv, SearchFilter* f) {
  auto eq = kv.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == kv.size()) {
    return "--filter '" + kv + "' is not key=value";
  }
  std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
  if (key == "source_type" || key == "type") {
    f->source_types.push_back(value);
  } else if (key == "site") {
    f->sites.push_back(value);
  } else if (key == "version") {
    f->versions.push_back(value);
  } else if (key == "after" || key == "date_from") {
    f->date_from = value;
  } else if (key == "before" || key == "date_to") {
    f->date_to = value;
  } else {
    return "--filter key '" + key + "' is unknown (use source_type, site, version, after, before)";
  }
  return "";
}

nlohmann::json Explain(const SearchHit& h) {
  auto leg = [](uint32_t rank, float score) -> nlohmann::json {
    if (rank == 0) return nullptr;
    return {{"rank", rank}, {"score", score}};
  };
  return {{"bm25", leg(h.lexical_rank, h.lexical_score)},
          {"vector", leg(h.vector_rank, h.vector_score)},
          {"fused", h.score}};
}

}  // namespace

int RunSearch(const GlobalArgs& g, const SearchArgs& a) {
  SearchOptions so;
  so.query = a.query;
  so.k = a.k;
  so.collapse_documents = !a.chunks;
  so.filter.tenant = StoreTenant(a.tenant);
  if (a.groups) so.filter.groups = SplitList(*a.groups);
  so.filter.clearance = a.clearance;
  for (const auto& kv : a.filters) {
    std::string err = ApplyFilter(kv, &so.filter);
    if (!err.empty()) {
      std::fprintf(stderr, "attest: %s\n", err.c_str());
      return kExitUsage;
    }
  }
  if (Status s = ApplyRetrievalArgs(a.retrieval, &so); !s.ok()) {
    std::fprintf(stderr, "attest: %s\n", s.message().c_str());
    return kExitUsage;
  }
  auto eo = MakeEngineOptions(g, /*read_only=*/true);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), engine.status().ToString().c_str());
    return kExitFailure;
  }
  Result<SearchResult> r = (*engine)->Search(so);
  if (!r.ok()) {
    std::fprintf(stderr, "attest: search failed: %s\n", r.status().ToString().c_str());
    return r.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (a.json) {
    nlohmann::json hits = nlohmann::json::array();
    for (const SearchHit& h : r->hits) {
      nlohmann::json hl = nlohmann::json::array();
      for (const auto& x : h.highlights) hl.push_back({x.start, x.end});
      hits.push_back({{"doc_id", h.doc_id},   {"chunk_id", h.chunk_id.get()}, {"score", h.score},
                      {"title", h.title},     {"url", h.url},           {"site", h.site},
                      {"date", h.date},       {"version", h.version},   {"source_type", h.source_type},
                      {"section", h.section}, {"snippet", h.snippet},   {"highlights", hl},
                      {"explain", Explain(h)}});
      if (!h.license.empty()) hits.back()["license"] = h.license;
    }
    nlohmann::json j = {{"query", a.query},
                        {"snapshot_version", r->snapshot_version},
                        {"took_ms", r->took_ms},
                        {"mode", SearchModeName(r->mode)},
                        {"embedder", r->embedder},
                        {"notices", r->notices},
                        {"hits", hits}};
    std::printf("%s\n", j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  const bool ansi = StdoutIsTerminal();
  std::printf("%zu result(s) for \"%s\" (%s, snapshot %llu, %.2f ms)\n", r->hits.size(), a.query.c_str(),
              SearchModeName(r->mode), static_cast<unsigned long long>(r->snapshot_version), r->took_ms);
  for (const auto& n : r->notices) std::printf("note: %s\n", n.c_str());
  if (a.explain && !r->embedder.empty()) std::printf("vector leg: %s\n", r->embedder.c_str());
  int rank = 0;
  for (const SearchHit& h : r->hits) {
    std::string meta;
    auto add = [&](const std::string& s) {
      if (s.empty()) return;
      if (!meta.empty()) meta += " | ";
      meta += s;
    };
    add(h.site);
    add(h.date.empty() ? "" : h.date);
    add(h.version.empty() ? "" : "v" + h.version);
    add(h.source_type);
    std::printf("\n%2d. %s%s%s  [score %.3f]\n", ++rank, ansi ? "\x1b[1m" : "",
                h.title.empty() ? h.doc_id.c_str() : h.title.c_str(), ansi ? "\x1b[0m" : "", h.score);
    std::printf("    %s%s%s\n", h.url.c_str(), meta.empty() ? "" : "  (", meta.empty() ? "" : (meta + ")").c_str());
    if (!h.section.empty()) std::printf("    section: %s\n", h.section.c_str());
    if (!h.license.empty()) std::printf("    license: %s\n", h.license.c_str());
    if (a.explain) {
      auto leg = [](uint32_t rank, float score) {
        char buf[64];
        if (rank == 0) return std::string("-");
        std::snprintf(buf, sizeof buf, "#%u (%.4f)", rank, score);
        return std::string(buf);
      };
      std::printf("    explain: bm25 %s, vector %s, fused %.4f\n", leg(h.lexical_rank, h.lexical_score).c_str(),
                  leg(h.vector_rank, h.vector_score).c_str(), h.score);
    }
    std::printf("    %s\n", RenderHighlighted(h.snippet, h.highlights, ansi).c_str());
  }
  return kExitOk;
}

}  // namespace attest::cli
