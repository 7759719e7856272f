#include "eval/scenario_runner.h"
#include "common/strings.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attest/answer.h"
#include "attest/engine.h"
#include "cluster/change_log.h"
#include "cluster/cluster_engine.h"
#include "cluster/scatter_search.h"
#include "common/file_util.h"
#include "verify/verifier.h"

namespace attest {
namespace {

using nlohmann::json;

std::vector<std::string> Strings(const json& v) {
  std::vector<std::string> out;
  if (v.is_string()) out.push_back(v.get<std::string>());
  if (v.is_array()) {
    for (const auto& x : v) {
      if (x.is_string()) out.push_back(x.get<std::string>());
    }
  }
  return out;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return "[" + s + "]";
}

struct Checker {
  std::vector<ExpectationResult>* out;
  void Add(const std::string& key, bool ok, const std::string& detail) { out->push_back({key, ok, detail}); }
};

// Checks the expectations of one asked question against its answer.
void CheckAnswer(const json& expect, const AnswerResult& r, std::vector<ExpectationResult>* out) {
  Checker c{out};
  json plan = r.plan_json.empty() ? json::object() : json::parse(r.plan_json, nullptr, false);
  std::set<std::string> cited, evidence, flagged;
  for (const auto& s : r.sources) {
    evidence.insert(s.doc_id);
    if (s.cited) cited.insert(s.doc_id);
    if (s.flagged) flagged.insert(s.doc_id);
  }
  const std::string text = AsciiLower(r.text);
  for (const auto& [key, want] : expect.items()) {
    if (key == "outcome") {
      c.Add(key, want == AnswerOutcomeName(r.outcome),
            "expected " + want.dump() + ", got \"" + AnswerOutcomeName(r.outcome) + "\"");
    } else if (key == "fallback_reason") {
      c.Add(key, want == r.fallback_reason, "expected " + want.dump() + ", got \"" + r.fallback_reason + "\"");
    } else if (key == "plan" && want.is_object()) {
      for (const auto& [pk, pv] : want.items()) {
        const std::string k = "plan." + pk;
        if (pk == "time_relative") {
          std::string got = plan.contains("time") && plan["time"].contains("relative") && plan["time"]["relative"].is_string()
                                ? plan["time"]["relative"].get<std::string>() : "";
          c.Add(k, pv == got, "expected " + pv.dump() + ", got \"" + got + "\"");
        } else if (pk == "resolved_version") {
          c.Add(k, pv == r.resolved_version, "expected " + pv.dump() + ", got \"" + r.resolved_version + "\"");
        } else if (pk == "needs_search") {
          bool got = plan.value("needs_search", true);
          c.Add(k, pv.is_boolean() && pv.get<bool>() == got, "expected " + pv.dump() + ", got " + (got ? "true" : "false"));
        } else if (pk == "constraints_exclude" || pk == "constraints_scope") {
          const char* field = pk == "constraints_exclude" ? "exclude" : "scope";
          std::vector<std::string> got;
          if (plan.contains("constraints") && plan["constraints"].contains(field)) got = Strings(plan["constraints"][field]);
          bool ok = true;
          for (const auto& w : Strings(pv)) ok &= std::find(got.begin(), got.end(), w) != got.end();
          c.Add(k, ok, "expected " + pv.dump() + " among " + Join(got));
        } else if (pk == "standalone_contains") {
          std::string got = plan.contains("standalone") && plan["standalone"].is_string() ? plan["standalone"].get<std::string>() : "";
          bool ok = true;
          for (const auto& w : Strings(pv)) ok &= AsciiLower(got).find(AsciiLower(w)) != std::string::npos;
          c.Add(k, ok, "standalone \"" + got + "\" should contain " + pv.dump());
        } else {
          c.Add(k, false, "unknown plan expectation");
        }
      }
    } else if (key == "research_rounds_min") {
      c.Add(key, want.is_number() && r.research.rounds.size() >= want.get<size_t>(),
            std::to_string(r.research.rounds.size()) + " research round(s) after the first, stopped: " +
                r.research.stop);
    } else if (key == "overview_viewpoints_min") {
      c.Add(key, r.overview.built && want.is_number() && r.overview.viewpoints >= want.get<size_t>(),
            r.overview.built ? r.overview.coverage : std::string("no overview"));
    } else if (key == "distinct_sources_min") {
      std::set<std::string> docs;
      for (const auto& s : r.sources) {
        if (s.cited) docs.insert(s.doc_id);
      }
      c.Add(key, want.is_number() && docs.size() >= want.get<size_t>(),
            std::to_string(docs.size()) + " distinct cited sources");
    } else if (key == "research_stop_in") {
      const std::vector<std::string> allowed = Strings(want);
      c.Add(key, r.research.ran && std::find(allowed.begin(), allowed.end(), r.research.stop) != allowed.end(),
            "stopped: \"" + r.research.stop + "\", expected one of " + want.dump());
    } else if (key == "cites_any" || key == "cites_all" || key == "cites_none" || key == "evidence_none" ||
               key == "evidence_all") {
      const std::set<std::string>& pool = key == "evidence_none" || key == "evidence_all" ? evidence : cited;
      std::vector<std::string> ids = Strings(want);
      size_t hit = 0;
      for (const auto& id : ids) hit += pool.count(id);
      bool ok = key == "cites_any" ? hit > 0 : (key == "cites_all" || key == "evidence_all") ? hit == ids.size() : hit == 0;
      c.Add(key, ok, "ids " + want.dump() + ", " + (key.rfind("evidence", 0) == 0 ? "evidence " : "cited ") +
                         Join(std::vector<std::string>(pool.begin(), pool.end())));
    } else if (key == "answer_contains" || key == "answer_not_contains") {
      for (const auto& w : Strings(want)) {
        bool found = text.find(AsciiLower(w)) != std::string::npos;
        c.Add(key, key == "answer_contains" ? found : !found, "\"" + w + "\" in answer \"" + r.text + "\"");
      }
    } else if (key == "as_of_present") {
      c.Add(key, want == !r.as_of.empty(), "as_of \"" + r.as_of + "\"");
    } else if (key == "claims_about_other_versions_labelled") {
      bool ok = true;
      std::map<std::string, std::string> version_of;
      for (const auto& s : r.sources) version_of[s.id] = s.version;
      for (const auto& cl : r.claims) {
        if (!cl.kept) continue;
        for (const auto& cite : cl.cites) {
          const std::string& v = version_of[cite.source];
          if (!v.empty() && !r.resolved_version.empty() && v != r.resolved_version && cl.version_label != v) ok = false;
        }
      }
      c.Add(key, ok == want.get<bool>(), "kept claims from other versions carry their version");
    } else if (key == "flagged_passages_any") {
      size_t hit = 0;
      for (const auto& id : Strings(want)) hit += flagged.count(id);
      c.Add(key, hit > 0, "flagged " + Join(std::vector<std::string>(flagged.begin(), flagged.end())));
    } else if (key == "stale_warning") {
      bool got = false;
      for (const auto& w : r.warnings) got |= w.find("stale") != std::string::npos;
      c.Add(key, want.is_boolean() && want.get<bool>() == got, std::string("stale warning ") + (got ? "present" : "absent"));
    } else if (key == "distinct_sources_max") {
      std::set<std::string> docs;
      for (const auto& s : r.sources) {
        if (s.cited) docs.insert(s.doc_id);
      }
      c.Add(key, want.is_number() && docs.size() <= want.get<size_t>(),
            std::to_string(docs.size()) + " distinct cited sources");
    } else if (key == "hops_min") {
      size_t supported = 0;
      for (const auto& h : r.hops) supported += h.supported;
      c.Add(key, want.is_number() && supported >= want.get<size_t>(),
            std::to_string(supported) + " supported hop(s) of " + std::to_string(r.hops.size()));
    } else if (key == "verdict") {
      c.Add(key, want == r.verdict, "expected " + want.dump() + ", got \"" + r.verdict + "\"");
    } else {
      c.Add(key, false, "unknown expectation");
    }
  }
}

void RunVerifyMode(const json& sc, ScenarioResult* out) {
  std::vector<EvidencePassage> pack;
  for (const auto& p : sc.value("passages", json::array())) {
    EvidencePassage e;
    e.id = p.value("id", "");
    e.doc_id = p.value("doc", "");
    e.text = p.value("text", "");
    pack.push_back(std::move(e));
  }
  std::vector<DraftClaim> claims;
  for (const auto& c : sc["draft"].value("claims", json::array())) {
    DraftClaim d;
    d.id = c.value("id", "");
    d.text = c.value("text", "");
    for (const auto& x : c.value("cites", json::array())) d.cites.push_back({x.value("source", ""), x.value("quote", "")});
    claims.push_back(std::move(d));
  }
  std::vector<ClaimVerdict> verdicts = VerifyDraft(pack, claims);
  std::vector<std::string> kept = KeptClaimIds(verdicts);
  Checker c{&out->expectations};
  const json& expect = sc["expect"];
  for (const auto& [key, want] : expect.items()) {
    if (key == "verdicts") {
      for (const auto& [id, v] : want.items()) {
        std::string got = "(no such claim)";
        for (const auto& cv : verdicts) {
          if (cv.claim_id == id) got = VerdictName(cv.verdict);
        }
        c.Add("verdicts." + id, v == got, "expected " + v.dump() + ", got \"" + got + "\"");
      }
    } else if (key == "kept") {
      std::vector<std::string> w = Strings(want);
      c.Add(key, w == kept, "expected " + want.dump() + ", got " + Join(kept));
    } else {
      c.Add(key, false, "unknown expectation in verify mode");
    }
  }
}

Status IngestDocuments(Engine& engine, const json& docs, const std::filesystem::path& dir, const std::string& sid) {
  // One ingestion per (tenant, ACL): both are per-ingestion options.
  std::map<std::pair<std::string, std::vector<std::string>>, std::string> groups;
  for (const auto& d : docs) {
    if (!d.is_object() || !d.contains("id") || !d["id"].is_string() || !d.contains("text") || !d["text"].is_string()) {
      return Status::InvalidArgument("scenario " + sid + ": every document needs string \"id\" and \"text\"");
    }
    json line = {{"_id", d["id"]}, {"title", d.value("title", "")}, {"text", d["text"]}};
    json meta = json::object();
    for (const char* k : {"url", "site", "published", "updated", "version", "source_type"}) {
      if (d.contains(k) && d[k].is_string()) meta[k] = d[k];
    }
    if (d.contains("authoritative_feed") && d["authoritative_feed"].is_string()) meta["feed"] = d["authoritative_feed"];
    line["metadata"] = meta;
    std::vector<std::string> acl = d.contains("acl") ? Strings(d["acl"]) : std::vector<std::string>();
    groups[{d.value("tenant", "default"), acl}] += line.dump() + "\n";
  }
  int n = 0;
  for (const auto& [key, jsonl] : groups) {
    const std::filesystem::path file = dir / ("docs-" + std::to_string(n++) + ".jsonl");
    ATTEST_RETURN_IF_ERROR(WriteFileAtomically(file, jsonl));
    IngestOptions io;
    io.paths = {file.string()};
    io.tenant = key.first;
    io.acl_groups = key.second;
    ATTEST_ASSIGN_OR_RETURN(IngestReport rep, engine.Ingest(io));
    if (!rep.issues.empty()) {
      return Status::InvalidArgument("scenario " + sid + ": document rejected: " + rep.issues.front().message);
    }
  }
  return Status::Ok();
}

// The stores of one scenario: one, or shards behind a coordinator.
struct ShardedStores {
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<std::shared_ptr<EngineShard>> clients;
  std::unique_ptr<Engine> coordinator;
};

Result<Engine*> OpenScenarioEngine(const json& docs, const ScenarioRunOptions& options, const std::filesystem::path& dir,
                                   const std::string& sid, ShardedStores* out) {
  const uint32_t n = std::max<uint32_t>(1, options.shards);
  std::vector<json> parts(n, json::array());
  for (const auto& d : docs) {
    const std::string tenant = d.is_object() ? d.value("tenant", "default") : "";
    const std::string id = d.is_object() && d.contains("id") && d["id"].is_string() ? d["id"].get<std::string>() : "";
    parts[options.shards > 0 ? VirtualShardOf(tenant, id, 64) % n : 0].push_back(d);
  }
  ClusterEngineOptions co;
  for (uint32_t s = 0; s < n; ++s) {
    EngineOptions eo;
    eo.data_dir = (dir / ("data" + std::to_string(s))).string();
    eo.threads = options.threads;
    if (options.shards > 0) eo.embedder.kind = EmbedderKind::kNone;  // a cluster searches BM25 only
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Engine> e, Engine::Open(eo));
    const std::filesystem::path files = dir / ("docs" + std::to_string(s));
    std::filesystem::create_directories(files);
    ATTEST_RETURN_IF_ERROR(IngestDocuments(*e, parts[s], files, sid));
    out->clients.push_back(std::make_shared<EngineShard>("shard" + std::to_string(s), e.get()));
    co.shards.push_back(out->clients.back());
    out->engines.push_back(std::move(e));
  }
  if (options.shards == 0) return out->engines.front().get();
  ATTEST_ASSIGN_OR_RETURN(out->coordinator, OpenClusterEngine(std::move(co)));
  return out->coordinator.get();
}

ScenarioResult RunOne(const json& sc, const ScenarioRunOptions& options, const json& question, const json& expect) {
  ScenarioResult out;
  out.id = sc.value("id", "");
  out.question = question.is_string() ? question.get<std::string>() : "";
  const auto t0 = std::chrono::steady_clock::now();
  auto finish = [&] {
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    out.passed = out.error.empty() && !out.expectations.empty() &&
                 std::all_of(out.expectations.begin(), out.expectations.end(), [](const auto& e) { return e.passed; });
    return out;
  };
  if (sc.value("mode", "") == "verify") {
    if (!sc.contains("draft") || !sc["draft"].is_object() || !sc.contains("expect")) {
      out.error = "verify scenario needs \"draft\" and \"expect\"";
      return finish();
    }
    RunVerifyMode(sc, &out);
    return finish();
  }
  ScopedTempDir tmp("attest-scenario");
  std::filesystem::create_directories(tmp.path());
  ShardedStores stores;
  Result<Engine*> engine = OpenScenarioEngine(sc.value("documents", json::array()), options, tmp.path(), out.id, &stores);
  if (!engine.ok()) {
    out.error = engine.status().ToString();
    return finish();
  }
  AskOptions ao;
  ao.question = out.question;
  const json identity = sc.value("identity", json::object());
  ao.filter.tenant = identity.value("tenant", "default");
  ao.filter.groups = identity.contains("groups") ? Strings(identity["groups"]) : std::vector<std::string>();
  ao.thread = sc.contains("thread") ? Strings(sc["thread"]) : std::vector<std::string>();
  ao.today = sc.value("now", "").substr(0, 10);
  // "answer_mode": "research" with optional "research": {max_hops, max_cost, max_ms} (docs/research.md).
  if (sc.value("answer_mode", "standard") == "research") {
    ao.mode = AnswerMode::kResearch;
    const json limits = sc.value("research", json::object());
    ao.research.max_hops = limits.value("max_hops", ao.research.max_hops);
    ao.research.max_cost = limits.value("max_cost", ao.research.max_cost);
    ao.research.max_ms = limits.value("max_ms", ao.research.max_ms);
  } else if (sc.value("answer_mode", "standard") != "standard") {
    out.error = "answer_mode must be standard or research";
    return finish();
  }
  auto r = (*engine)->Ask(ao);
  if (!r.ok()) {
    out.error = r.status().ToString();
    return finish();
  }
  CheckAnswer(expect, *r, &out.expectations);
  return finish();
}

}  // namespace

Result<std::vector<ScenarioResult>> RunScenarioJson(const std::string& text, const std::string& name,
                                                    const ScenarioRunOptions& options) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::InvalidArgument(name + ": not a JSON object");
  if (j.value("format", "") != "attest-scenarios/1") {
    return Status::InvalidArgument(name + ": \"format\" must be \"attest-scenarios/1\"");
  }
  if (!j.contains("scenarios") || !j["scenarios"].is_array()) {
    return Status::InvalidArgument(name + ": \"scenarios\" must be an array");
  }
  std::vector<ScenarioResult> results;
  for (const auto& sc : j["scenarios"]) {
    if (!sc.is_object() || !sc.contains("id") || !sc["id"].is_string()) {
      return Status::InvalidArgument(name + ": every scenario needs a string \"id\"");
    }
    if (sc.contains("questions")) {
      if (!sc["questions"].is_array()) return Status::InvalidArgument(name + ": " + sc["id"].get<std::string>() + ".questions must be an array");
      for (const auto& q : sc["questions"]) {
        results.push_back(RunOne(sc, options, q.value("question", json()), q.value("expect", json::object())));
      }
    } else {
      results.push_back(RunOne(sc, options, sc.value("question", json()), sc.value("expect", json::object())));
    }
  }
  return results;
}

Result<std::vector<ScenarioResult>> RunScenarioFile(const std::string& path, const ScenarioRunOptions& options) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read scenario file " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return RunScenarioJson(ss.str(), path, options);
}

}  // namespace attest
