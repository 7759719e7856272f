// attest ask: answer a question with cited claims, or a result list with the reason.
// attest verify-manifest: check an answer's evidence manifest.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "answer/answer_pipeline.h"
#include "answer/sentence_gate.h"
#include "attest/answer.h"
#include "cli/commands.h"
#include "cli/terminal.h"

namespace attest::cli {

namespace {

std::string Age(int64_t seconds) {
  if (seconds < 120) return std::to_string(seconds) + " s";
  if (seconds < 2 * 3600) return std::to_string(seconds / 60) + " min";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + " h";
  return std::to_string(seconds / 86400) + " days";
}

// The freshness lines under "as of": the newest cited source, the index lag, what live fetch did.
void PrintFreshness(const AnswerResult& r) {
  const AnswerFreshness& f = r.freshness;
  std::string line;
  if (!f.newest_source_date.empty()) line = "newest cited source " + f.newest_source_date;
  if (!f.newest_fetched_at.empty()) line += (line.empty() ? "" : ", ") + std::string("fetched ") + f.newest_fetched_at;
  if (f.index_lag_seconds >= 0) line += (line.empty() ? "" : "; ") + std::string("index last changed ") + Age(f.index_lag_seconds) + " ago";
  if (!line.empty()) std::printf("%s\n", line.c_str());
  const LiveFetchReport& l = r.live_fetch;
  if (l.decision == "fetched") {
    std::printf("live fetch: %u of %u pages arrived, %u refreshed, %u unchanged, %u failed (%.0f ms)\n", l.succeeded,
                l.attempted, l.refreshed, l.unchanged, l.failed, l.ms);
  } else if (l.decision != "off") {
    std::printf("live fetch: %s (%s)\n", l.decision.c_str(), l.detail.c_str());
  }
  for (const std::string& d : r.degraded) {
    if (d.rfind("live_fetch: ", 0) == 0) std::printf("  %s\n", d.c_str());
  }
}

}  // namespace

int RunAsk(const GlobalArgs& g, const AskArgs& a) {
  AskOptions ao;
  ao.question = a.question;
  ao.filter.tenant = StoreTenant(a.tenant);
  if (a.groups) ao.filter.groups = SplitList(*a.groups);
  ao.filter.clearance = a.clearance;
  ao.today = a.now.substr(0, 10);
  ao.deadline_ms = a.deadline_ms;
  if (a.judge == "llm") {
    ao.llm_judge = true;
  } else if (a.judge != "builtin") {
    std::fprintf(stderr, "attest: --judge '%s' is unknown (builtin, llm)\n", a.judge.c_str());
    return kExitUsage;
  }
  if (a.writer == "llm") {
    ao.writer = WriterKind::kLlm;
  } else if (a.writer != "extractive") {
    std::fprintf(stderr, "attest: --writer '%s' is unknown (extractive, llm)\n", a.writer.c_str());
    return kExitUsage;
  }
  if (const char* key = std::getenv(a.manifest_key_env.c_str())) ao.manifest_key = key;
  // Live fetch puts refreshed pages back: the data directory is then opened for writing.
  auto eo = MakeEngineOptions(g, /*read_only=*/!a.live.enabled);
  if (!eo.ok()) {
    std::fprintf(stderr, "attest: %s\n", eo.status().message().c_str());
    return kExitUsage;
  }
  auto live = MakeLiveFetchOptions(a.live);
  if (!live.ok()) {
    std::fprintf(stderr, "attest: %s\n", live.status().message().c_str());
    return kExitUsage;
  }
  eo->live_fetch = std::move(live).value();
  auto engine = Engine::Open(*eo);
  if (!engine.ok()) {
    std::fprintf(stderr, "attest: cannot open %s: %s\n", g.data_dir.c_str(), engine.status().ToString().c_str());
    return kExitFailure;
  }
  // --stream: the sentences of a streaming writer pass the sentence gate as they complete (the
  // same check the HTTP event stream applies); what it decides goes to stderr.
  SentenceGate gate;
  AnswerEvents events;
  if (a.stream) {
    events.on_sources = [&gate](const std::vector<AnswerSource>& sources) { gate.SetSources(sources); };
    events.on_delta = [](std::string_view) {};  // asks the writer to stream; the text is printed per sentence
    events.on_sentence = [&gate](std::string_view text, const std::vector<std::string>& cites) {
      std::optional<GateVerdict> v = gate.Check(text, cites);
      if (!v) return;
      std::fprintf(stderr, "%s %s (%s): %.*s\n", v->release ? "verified" : "retracted", v->sentence_id.c_str(),
                   v->release ? v->verified.c_str() : v->reason.c_str(), static_cast<int>(text.size()), text.data());
    };
    ao.events = &events;
  }
  if (a.research) {
    ao.mode = AnswerMode::kResearch;
    ao.research.max_hops = a.max_hops;
    ao.research.max_cost = a.max_cost;
    ao.research.max_ms = a.max_ms;
    events.on_research = [](const ResearchRound& round) {
      for (const std::string& q : round.queries) std::fprintf(stderr, "searching for %s\n", q.c_str());
      std::fprintf(stderr, "reading %zu sources (round %u, %zu new)\n", round.documents, round.round,
                   round.new_documents);
    };
    ao.events = &events;
  }
  auto r = (*engine)->Ask(ao);
  if (!r.ok()) {
    std::fprintf(stderr, "attest: ask failed: %s\n", r.status().ToString().c_str());
    return r.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (!a.manifest_out.empty()) {
    nlohmann::json m = {{"manifest", r->manifest_json}, {"sha256", r->manifest_sha256}, {"hmac", r->manifest_hmac}};
    std::ofstream out(a.manifest_out);
    out << m.dump(2) << "\n";
    if (!out) {
      std::fprintf(stderr, "attest: cannot write %s\n", a.manifest_out.c_str());
      return kExitFailure;
    }
  }
  if (a.json) {
    std::printf("%s\n", AnswerToJson(*r).c_str());
    return kExitOk;
  }
  const bool ansi = StdoutIsTerminal();
  if (r->outcome == AnswerOutcome::kAnswer || r->outcome == AnswerOutcome::kCalculation ||
      r->outcome == AnswerOutcome::kGreeting) {
    std::printf("%s%s%s\n", ansi ? "\x1b[1m" : "", r->text.c_str(), ansi ? "\x1b[0m" : "");
  } else {
    std::printf("No confident answer (%s). Results:\n", r->fallback_reason.c_str());
    int n = 0;
    for (const SearchHit& h : r->results) {
      if (++n > 5) break;
      std::printf("%2d. %s  %s\n    %s\n", n, h.title.empty() ? h.doc_id.c_str() : h.title.c_str(), h.url.c_str(),
                  RenderHighlighted(h.snippet, h.highlights, ansi).c_str());
    }
  }
  if (r->outcome == AnswerOutcome::kAnswer && !r->resolved_version.empty()) {
    // Which version "latest" (or the question) meant, with the date of its newest cited source.
    std::string date;
    for (const auto& s : r->sources) {
      if (s.cited && s.version == r->resolved_version && s.date > date) date = s.date;
    }
    std::printf("(version %s%s)\n", r->resolved_version.c_str(), date.empty() ? "" : (", " + date).c_str());
  }
  for (const auto& w : r->warnings) std::printf("warning: %s\n", w.c_str());
  bool any_cited = false;
  for (const auto& s : r->sources) any_cited |= s.cited;
  if (any_cited) {
    // One entry per cited document, listing the markers of its passages and each passage used.
    std::printf("\nSources:\n");
    std::vector<std::string> order;
    std::map<std::string, std::vector<size_t>> passages_of;  // doc id -> indexes into r->sources
    for (size_t i = 0; i < r->sources.size(); ++i) {
      const AnswerSource& s = r->sources[i];
      if (!s.cited) continue;
      if (!passages_of.count(s.doc_id)) order.push_back(s.doc_id);
      passages_of[s.doc_id].push_back(i);
    }
    for (const std::string& doc : order) {
      const std::vector<size_t>& idx = passages_of[doc];
      const AnswerSource& s = r->sources[idx.front()];
      std::string markers;
      for (size_t i : idx) markers += "[" + std::to_string(i + 1) + "]";
      std::string meta = s.site;
      if (!s.date.empty()) meta += (meta.empty() ? "" : " | ") + s.date;
      if (!s.version.empty()) meta += (meta.empty() ? "" : " | ") + std::string("v") + s.version;
      if (!s.authority.empty()) meta += (meta.empty() ? "" : " | ") + s.authority;
      std::printf("%s %s%s%s\n", markers.c_str(), s.title.empty() ? s.doc_id.c_str() : s.title.c_str(),
                  s.url.empty() ? "" : "  ", s.url.c_str());
      if (!meta.empty()) std::printf("    (%s)\n", meta.c_str());
      if (!s.license.empty()) std::printf("    license: %s\n", s.license.c_str());
      for (size_t i : idx) std::printf("    [%zu] \"%s\"\n", i + 1, r->sources[i].text.c_str());
    }
  }
  std::printf("\nas of %s (snapshot %llu)\n", r->as_of.c_str(), static_cast<unsigned long long>(r->snapshot_version));
  PrintFreshness(*r);
  if (a.explain) {
    std::printf("\nplan: %s\n", r->plan_json.c_str());
    for (const auto& c : r->claims) {
      std::printf("claim %s [%s%s]: %s\n", c.id.c_str(), c.verdict.c_str(), c.kept ? "" : ", dropped", c.reason.c_str());
    }
    for (const auto& [stage, ms] : r->timings_ms) std::printf("%s: %.2f ms\n", stage.c_str(), ms);
    if (r->research.ran) {
      const ResearchReport& rr = r->research;
      std::printf("research: %u round(s), stopped: %s, cost %.6f, %.1f ms\n", rr.hops, rr.stop.c_str(), rr.cost, rr.ms);
      for (const ResearchRound& round : rr.rounds) {
        std::printf("  round %u (%s%s%s): %zu new of %zu documents; %s\n", round.round, round.decided_by.c_str(),
                    round.model_fallback.empty() ? "" : ", model fallback: ", round.model_fallback.c_str(),
                    round.new_documents, round.documents, round.reason.c_str());
        for (const std::string& q : round.queries) std::printf("    searched: %s\n", q.c_str());
      }
    }
    for (const auto& d : r->degraded) std::printf("degraded: %s\n", d.c_str());
    std::printf("mode: %s  tier: %s%s%s\n", AnswerModeName(r->mode), r->tier.empty() ? "-" : r->tier.c_str(),
                r->tier_reason.empty() ? "" : " because ", r->tier_reason.c_str());
    for (const auto& [stage, c] : r->stage_costs) {  // docs/cost.md
      std::printf("cost %s: searches %u, fetches %u, rerank pairs %u, model calls %u, tokens %llu+%llu, %.6f\n",
                  stage.c_str(), c.searches, c.fetches, c.rerank_pairs, c.model_calls,
                  static_cast<unsigned long long>(c.prompt_tokens), static_cast<unsigned long long>(c.completion_tokens),
                  c.cost);
    }
    std::printf("cost total: %.6f\n", r->cost);
    std::printf("manifest sha256 %s%s%s\n", r->manifest_sha256.c_str(), r->manifest_hmac.empty() ? "" : " hmac ",
                r->manifest_hmac.c_str());
  }
  return kExitOk;
}

int RunVerifyManifest(const std::string& path, const std::string& key_env) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "attest: cannot read %s\n", path.c_str());
    return kExitFailure;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object() || !j.contains("manifest") || !j["manifest"].is_string() || !j.contains("sha256") ||
      !j["sha256"].is_string()) {
    std::fprintf(stderr, "attest: %s is not a manifest file (expected {\"manifest\", \"sha256\", \"hmac\"})\n",
                 path.c_str());
    return kExitFailure;
  }
  std::string key;
  if (const char* k = std::getenv(key_env.c_str())) key = k;
  std::string hmac = j.contains("hmac") && j["hmac"].is_string() ? j["hmac"].get<std::string>() : "";
  Status s = VerifyManifest(j["manifest"].get<std::string>(), j["sha256"].get<std::string>(), hmac, key);
  if (!s.ok()) {
    std::fprintf(stderr, "attest: manifest check failed: %s\n", s.message().c_str());
    return kExitFailure;
  }
  std::printf("manifest OK: sha256 %s%s\n", j["sha256"].get<std::string>().c_str(),
              key.empty() ? " (no key: HMAC not checked)" : ", HMAC verified");
  return kExitOk;
}

}  // namespace attest::cli
