// Service: answers, as one JSON body or as a stream of events (docs/http_api.md, "Answers" and
// "Event stream"), with the whole-answer cache and the authorization re-checks at render time and
// at every sentence boundary.
#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "answer/answer_json.h"
#include "answer/answer_pipeline.h"
#include "answer/sentence_gate.h"
#include "service/answer_cost.h"
#include "service/answer_stream.h"
#include "service/service.h"
#include "service/service_internal.h"

namespace attest::service {

using nlohmann::json;

namespace {

// Questions about the caller ("my", "our") or about what is new are never served from the cache.
bool Personal(const std::string& q) {
  static const std::regex re(R"(\b(i|me|my|mine|our|ours|we)\b)", std::regex::icase | std::regex::optimize);
  return std::regex_search(q, re);
}
bool FastFreshness(const std::string& q) {
  static const std::regex re(R"(\b(latest|newest|today|now|current|currently|recent|recently|yesterday|this (week|month|year))\b)",
                             std::regex::icase | std::regex::optimize);
  return std::regex_search(q, re);
}

// An answer planned after the model planner fell back (docs/planner.md, "The model planner") is
// served but not cached: the model's plan may be back for the next asker.
bool PlannerFellBack(const json& body) {
  const json* plan = body.contains("plan") ? &body["plan"] : nullptr;
  return plan != nullptr && plan->is_object() && plan->contains("planner") && (*plan)["planner"].is_object() &&
         (*plan)["planner"].contains("fallback") && (*plan)["planner"]["fallback"].is_string();
}

json SourceCard(const AnswerSource& s) {
  json j = SourceJson(s);
  j.erase("cited");  // not known yet when the cards are sent
  return j;
}

// The answer text from the kept claims, with [n] markers by source position.
std::string RebuildText(const AnswerResult& r) {
  std::map<std::string, size_t> number;
  for (size_t i = 0; i < r.sources.size(); ++i) number[r.sources[i].id] = i + 1;
  std::string text;
  for (const AnswerClaim& c : r.claims) {
    if (!c.kept) continue;
    if (!text.empty()) text.push_back(' ');
    text += c.version_label.empty() ? c.text : "(version " + c.version_label + ") " + c.text;
    for (const AnswerCitation& cite : c.cites) {
      if (number.count(cite.source)) text += " [" + std::to_string(number[cite.source]) + "]";
    }
  }
  return text;
}

std::string SentenceText(const AnswerResult& r, const AnswerClaim& c) {
  std::map<std::string, size_t> number;
  for (size_t i = 0; i < r.sources.size(); ++i) number[r.sources[i].id] = i + 1;
  std::string text = c.version_label.empty() ? c.text : "(version " + c.version_label + ") " + c.text;
  for (const AnswerCitation& cite : c.cites) {
    if (number.count(cite.source)) text += " [" + std::to_string(number[cite.source]) + "]";
  }
  return text;
}

json Citations(const AnswerResult& r, const AnswerClaim& c) {
  json out = json::array();
  for (const AnswerCitation& cite : c.cites) {
    for (const AnswerSource& s : r.sources) {
      if (s.id != cite.source) continue;
      out.push_back({{"source", s.id}, {"doc_id", s.doc_id}, {"chunk_id", s.chunk_id.get()}, {"quote", cite.quote}});
    }
  }
  return out;
}

json Citations(const std::vector<GateCitation>& cites) {
  json out = json::array();
  for (const GateCitation& c : cites) {
    out.push_back({{"source", c.source}, {"doc_id", c.doc_id}, {"chunk_id", c.chunk_id.get()}, {"quote", c.quote}});
  }
  return out;
}

// The stream's final event, for a fresh answer and a cached replay alike: built from the response
// body (the answer's JSON with the per-request fields) and the sentences the stream retracted.
json DoneEvent(const json& body, size_t retracted) {
  json done = {{"answer_id", body["answer_id"]},
               {"snapshot_version", body["snapshot_version"]},
               {"as_of", body["as_of"]},
               {"cluster_snapshot", body.value("cluster_snapshot", "")},
               {"freshness", body.value("freshness", json::object())},
               {"outcome", body["outcome"]},
               {"tokens", body["tokens"]},
               {"cost", body["cost"]},
               {"stage_costs", body.value("stage_costs", json::object())},
               {"mode", body.value("mode", "standard")},
               {"tier", body.value("tier", "")},
               {"timings_ms", body["timings_ms"]},
               {"dropped_claims", body["dropped_claims"]},
               {"retracted", retracted},
               {"degraded", body.value("degraded", json::array())},
               {"warnings", body.value("warnings", json::array())},
               {"standalone", body.value("standalone", "")},
               {"resolved_version", body.value("resolved_version", "")},
               {"resolved_version_date", body.value("resolved_version_date", "")},
               {"cached", body["cached"]},
               {"answer", body["answer"]},
               {"request_id", body["request_id"]},
               {"versions", body["versions"]}};
  if (body.value("outcome", "") == "fallback") {
    done["fallback_reason"] = body["fallback_reason"];
    done["results"] = body["results"];
  }
  if (body.contains("thread")) done["thread"] = body["thread"];
  return done;
}

}  // namespace

ApiResult<std::string> Service::Answer(const Identity& who, const AnswerRequest& req, const RequestContext& ctx,
                                       EventSink* sink) {
  return RunAnswer(who, req, ctx, sink, nullptr);
}

void Service::ObserveAnswer(const AnswerResult& r) {
  for (const auto& [stage, ms] : r.timings_ms) {
    metrics_.GetHistogram("attest_stage_seconds", "Latency of each pipeline stage", {{"stage", stage}})
        ->Observe(ms / 1000.0);
  }
  if (r.outcome == AnswerOutcome::kFallback) {
    metrics_.GetCounter("attest_fallbacks_total", "Answers that fell back to a result list, by reason",
                        {{"reason", r.fallback_reason}})->Add();
  }
  for (const std::string& d : r.degraded) {
    const std::string reason = d.substr(0, d.find(':'));
    metrics_.GetCounter("attest_degraded_total", "Optional stages skipped or failed, by reason", {{"reason", reason}})->Add();
  }
  const LiveFetchReport& live = r.live_fetch;
  if (live.decision != "off") {
    metrics_.GetCounter("attest_live_fetch_decisions_total", "Live fetch decisions, by decision",
                        {{"decision", live.decision}})->Add();
  }
  auto live_count = [&](const char* result, uint32_t n) {
    if (n == 0) return;
    metrics_.GetCounter("attest_live_fetch_pages_total",
                        "Live fetch pages: attempted, succeeded, refreshed (changed), unchanged, failed",
                        {{"result", result}})->Add(double(n));
  };
  live_count("attempted", live.attempted);
  live_count("succeeded", live.succeeded);
  live_count("refreshed", live.refreshed);
  live_count("unchanged", live.unchanged);
  live_count("failed", live.failed);
  for (const auto& [reason, n] : live.failures) {
    metrics_.GetCounter("attest_live_fetch_failures_total", "Live fetch failures, by reason", {{"reason", reason}})
        ->Add(double(n));
  }
  if (!r.blocked_citations.empty()) {
    metrics_.GetCounter("attest_blocked_citations_total", "Citations of ids the writer was never given")
        ->Add(double(r.blocked_citations.size()));
  }
}

// One answer request: what the pipeline is asked, and the cache entry that may answer it.
struct Service::AnswerRun {
  const Identity& who;
  const AnswerRequest& req;
  const RequestContext& ctx;
  EventSink* sink;
  const ThreadTurn* thread;
  std::string tenant;
  AuditSlot slot;
  AskOptions ao;
  bool cacheable = false;
  std::string key;
  std::optional<json> cached_meta;
  json cached_body;
};

namespace {

// The pipeline's events as stream events. LLM writers stream sentences: each passes the sentence
// gate (quotes recovered, verified against the sources given), then the access boundary.
void WireEvents(AnswerStream* stream, SentenceGate* gate, Engine* engine, uint64_t pinned, bool llm,
                AnswerEvents* events) {
  events->on_progress = [stream](std::string_view stage, const std::vector<std::string>& queries) {
    if (stage == "research") return;  // announced by on_research, with the round's figures
    stream->Emit("progress", {{"stage", stage}, {"queries", queries}});
  };
  events->on_research = [stream](const ResearchRound& round) {
    stream->Emit("progress", {{"stage", "research"},
                              {"round", round.round},
                              {"queries", round.queries},
                              {"documents", round.documents},
                              {"new_documents", round.new_documents},
                              {"decided_by", round.decided_by}});
  };
  events->on_question = [gate](std::string_view focus, std::string_view subject) {
    gate->SetQuestion(focus, std::string(subject));
  };
  events->on_sources = [stream, gate, engine, pinned](const std::vector<AnswerSource>& sources) {
    gate->SetSources(sources);
    json cards = json::array();
    std::vector<CitedChunk> chunks;
    for (const AnswerSource& s : sources) chunks.push_back({s.doc_id, s.chunk_id});
    std::vector<CitationState> states(sources.size(), CitationState::kCurrent);
    if (engine->CurrentSnapshot() != pinned) {
      if (auto st = engine->CheckCitations(stream->filter(), chunks); st.ok()) states = *st;
    }
    for (size_t i = 0; i < sources.size(); ++i) {
      if (!Withdrawn(states[i])) cards.push_back(SourceCard(sources[i]));
    }
    stream->Emit("sources", {{"sources", cards}});
  };
  events->cancelled = [stream] { return stream->ended(); };
  if (!llm) return;
  events->on_delta = [stream, gate](std::string_view text) {
    stream->Emit("delta", {{"sentence_id", gate->NextId()}, {"text", text}});
  };
  events->on_sentence = [stream, gate, pinned](std::string_view text, const std::vector<std::string>& cites) {
    std::optional<GateVerdict> v = gate->Check(text, cites);
    if (!v) return;
    if (!v->release) {
      stream->Retract(v->sentence_id, v->reason);
      return;
    }
    std::vector<CitedChunk> chunks;
    for (const GateCitation& c : v->citations) chunks.push_back({c.doc_id, c.chunk_id});
    if (!stream->Boundary(chunks, pinned)) {
      if (!stream->ended()) stream->Retract(v->sentence_id, stream->last_reason());
      return;
    }
    stream->Emit("sentence_done",
                 {{"sentence_id", v->sentence_id}, {"citations", Citations(v->citations)}, {"verified", v->verified}});
    stream->Released(v->sentence_id, std::move(chunks));
  };
}

// Render-time authorization, when the snapshot moved or the caller's groups changed: sources and
// results withdrawn since (deleted or access narrowed) go, with the claims that cite them; cited
// chunks that changed are added to `changed`. Returns the notices.
std::vector<std::string> RecheckAtRender(Engine& engine, const SearchFilter& render_filter, AnswerResult* r,
                                         std::set<ChunkId>* changed) {
  std::vector<std::string> notices;
  std::vector<CitedChunk> chunks;
  for (const AnswerSource& s : r->sources) chunks.push_back({s.doc_id, s.chunk_id});
  for (const SearchHit& h : r->results) chunks.push_back({h.doc_id, h.chunk_id});
  auto states = engine.CheckCitations(render_filter, chunks);
  if (!states.ok()) return notices;
  std::set<std::string> withdrawn;
  for (size_t i = 0; i < r->sources.size(); ++i) {
    if (Withdrawn((*states)[i])) withdrawn.insert(r->sources[i].id);
    if ((*states)[i] == CitationState::kChanged && r->sources[i].cited) changed->insert(r->sources[i].chunk_id);
  }
  std::vector<SearchHit> results;
  for (size_t i = 0; i < r->results.size(); ++i) {
    if (!Withdrawn((*states)[r->sources.size() + i])) results.push_back(r->results[i]);
  }
  r->results = std::move(results);
  if (withdrawn.empty()) return notices;
  for (AnswerClaim& c : r->claims) {
    for (const AnswerCitation& cite : c.cites) {
      if (c.kept && withdrawn.count(cite.source)) {
        c.kept = false;
        c.reason = "source withdrawn since the answer's snapshot (deleted or access narrowed)";
        ++r->dropped_claims;
      }
    }
  }
  std::vector<AnswerSource> kept_sources;
  for (AnswerSource& s : r->sources) {
    if (!withdrawn.count(s.id)) kept_sources.push_back(std::move(s));
  }
  r->sources = std::move(kept_sources);
  r->text = RebuildText(*r);
  if (r->outcome == AnswerOutcome::kAnswer && r->text.empty()) {
    r->outcome = AnswerOutcome::kFallback;
    r->fallback_reason = "claims_unsupported";
  }
  notices.push_back("sources withdrawn since the answer's snapshot are not shown");
  return notices;
}

// The rest of a fresh answer's stream: sentences (released at their boundary, replaced after a
// repair, retracted when dropped), notices and `done`.
void FinishStream(AnswerStream& stream, const SentenceGate& gate, const AnswerResult& r, const json& body,
                  const std::vector<std::string>& notices, const std::string& not_kept, uint64_t pinned,
                  Registry& metrics) {
  if (gate.sources().empty() && !r.sources.empty()) {
    json cards = json::array();
    for (const AnswerSource& s : r.sources) cards.push_back(SourceCard(s));
    stream.Emit("sources", {{"sources", cards}});
  }
  for (const AnswerClaim& c : r.claims) {
    if (stream.ended()) break;
    const bool was_streamed = gate.Streamed(c.id);
    if (!c.kept) {
      if (was_streamed && stream.IsReleased(c.id)) stream.Retract(c.id, c.verdict.empty() ? "unsupported" : c.verdict);
      continue;
    }
    std::vector<CitedChunk> chunks;
    for (const AnswerCitation& cite : c.cites) {
      for (const AnswerSource& s : r.sources) {
        if (s.id == cite.source) chunks.push_back({s.doc_id, s.chunk_id});
      }
    }
    if (was_streamed) {
      const bool released = stream.IsReleased(c.id);
      if (released && gate.StreamedText(c.id) == c.text) continue;  // verified at its boundary, unchanged since
      if (!released && stream.RetractedForAccess(c.id)) continue;    // never shown again
      // The repair round rewrote it (or fixed a sentence retracted at its boundary): the final text
      // replaces what was shown, once its sources pass the access check.
      if (!released && !stream.Boundary(chunks, pinned)) {
        if (stream.ended()) break;
        continue;
      }
      stream.Emit("replace", {{"sentence_id", c.id}, {"text", SentenceText(r, c)}});
      stream.Emit("sentence_done", {{"sentence_id", c.id}, {"citations", Citations(r, c)}, {"verified", "supported"}});
      if (!released) stream.Released(c.id, std::move(chunks));
      continue;
    }
    if (!stream.Boundary(chunks, pinned)) {
      if (stream.ended()) break;
      metrics.GetCounter("attest_retractions_total", "Sentences retracted or streams ended, by reason",
                         {{"reason", stream.last_reason()}})->Add();
      continue;  // never shown
    }
    stream.Emit("delta", {{"sentence_id", c.id}, {"text", SentenceText(r, c)}});
    stream.Emit("sentence_done", {{"sentence_id", c.id}, {"citations", Citations(r, c)}, {"verified", "supported"}});
    stream.Released(c.id, std::move(chunks));
  }
  // Streamed sentences that no final claim carries (the writer's repair dropped them) are withdrawn.
  for (const std::string& id : gate.streamed_ids()) {
    if (stream.ended()) break;
    const bool final_claim = std::any_of(r.claims.begin(), r.claims.end(), [&](const AnswerClaim& c) { return c.id == id; });
    if (!final_claim && stream.IsReleased(id)) stream.Retract(id, "superseded");
  }
  if (stream.ended()) return;
  for (const std::string& n : notices) stream.Emit("notice", {{"code", "sources_changed"}, {"message", n}});
  if (!not_kept.empty()) stream.Emit("notice", {{"code", "not_remembered"}, {"message", not_kept}});
  for (const std::string& w : r.warnings) stream.Emit("notice", {{"code", "warning"}, {"message", w}});
  if (r.outcome == AnswerOutcome::kFallback) {
    stream.Emit("notice", {{"code", "fallback"}, {"message", "no confident answer: " + r.fallback_reason}});
  }
  stream.Answered(body);
  stream.Emit("done", DoneEvent(body, stream.retracted()));
}

}  // namespace

ApiResult<std::string> Service::RunAnswer(const Identity& who, const AnswerRequest& req, const RequestContext& ctx,
                                          EventSink* sink, const ThreadTurn* thread) {
  auto tenant = EffectiveTenant(who, req.tenant);
  if (!tenant.ok()) return tenant.error();
  ApiResult<AuditSlot> slot = ReserveAudit();
  if (!slot.ok()) return slot.error();
  AnswerRun run{who, req, ctx, sink, thread, tenant.value(), std::move(slot).value(), AskOptions{}, false, "", {}, {}};
  AskOptions& ao = run.ao;
  ao.question = req.query;
  ao.filter = FilterFor(who, tenant.value());
  internal::ApplyFilters(req.filters, &ao.filter);
  ao.thread = thread ? thread->questions : req.earlier_questions;
  ao.today = req.today.value_or("");
  ao.writer = req.writer == "llm" ? WriterKind::kLlm : WriterKind::kExtractive;
  ao.max_sentences = req.max_sentences;
  ao.multi_hop = req.multi_hop;
  ao.llm_judge = req.judge == "llm";
  ao.manifest_key = options_.manifest_key;
  ao.report_access_filtered = options_.report_access_filtered;
  ao.deadline_ms = RemainingMs(ctx, req.deadline_ms);
  if (req.mode == "research") {
    ao.mode = AnswerMode::kResearch;
    ao.research.max_hops = req.max_hops;
    ao.research.max_cost = req.max_cost;
    ao.research.max_ms = req.max_ms;
  }

  // --- whole-answer cache: first turn, not about the caller, slow freshness, nothing flagged ---
  run.cacheable = options_.caches && !req.no_cache && ao.thread.empty() && !Personal(req.query) &&
                  !FastFreshness(req.query) && ao.writer == WriterKind::kExtractive &&
                  // Research rounds stop on time limits: the same request may read more another time.
                  ao.mode == AnswerMode::kStandard;
  if (run.cacheable) LookUpCachedAnswer(run);
  if (run.cached_meta) return ReplayCachedAnswer(run);
  return RunFreshAnswer(run);
}

void Service::LookUpCachedAnswer(AnswerRun& run) {
  const AnswerRequest& req = run.req;
  json k = {kPipelineVersion, kPromptVersion, req.writer, options_.llm_model,
            run.who.admin ? "admin:" + run.tenant : run.who.Scope(), run.tenant,
            internal::NormalizeQuery(req.query), req.max_sentences, req.judge, req.multi_hop,
            internal::FiltersJson(req.filters), run.ao.today};
  run.key = "answer|" + k.dump();
  if (auto hit = answer_cache_.Get(run.key)) {
    // An entry is one line of metadata, a newline, then the body without the per-request fields.
    const size_t nl = hit->find('\n');
    json meta = json::parse(hit->substr(0, nl), nullptr, false);
    bool valid = nl != std::string::npos && meta.is_object() && !answer_cache_.Flagged(meta.value("answer_id", ""));
    if (valid && meta.value("snapshot", uint64_t{0}) != engine_.CurrentSnapshot()) {
      if (meta.value("outcome", "") != "answer") {
        valid = false;  // a result list or fallback holds only while the index is unchanged
      } else {
        std::vector<CitedChunk> cited;
        for (const auto& c : meta["cited"]) cited.push_back({c[0].get<std::string>(), ChunkId(c[1].get<uint64_t>())});
        auto states = engine_.CheckCitations(run.ao.filter, cited);
        valid = states.ok() && std::all_of(states->begin(), states->end(),
                                           [](CitationState s) { return s == CitationState::kCurrent; });
        if (!valid) {
          std::vector<uint64_t> ids;
          for (const auto& c : cited) ids.push_back(c.chunk_id.get());
          answer_cache_.InvalidateChunks(ids);
        }
      }
    }
    json stored = valid ? json::parse(hit->substr(nl + 1), nullptr, false) : json();
    if (valid && stored.is_object()) {
      run.cached_meta = std::move(meta);
      run.cached_body = std::move(stored);
    }
  }
  metrics_.GetCounter("attest_cache_requests_total", "Cache lookups by cache and result",
                      {{"cache", "answer"}, {"result", run.cached_meta ? "hit" : "miss"}})->Add();
}

ApiResult<std::string> Service::ReplayCachedAnswer(AnswerRun& run) {
  const json& meta = *run.cached_meta;
  // Every answer delivered has an id of its own (remembered for feedback); the entry's own id
  // (meta.answer_id) is what feedback on any copy invalidates.
  const std::string answer_id = internal::RandomId("ans_");
  AuditRecord rec;
  rec.tenant = run.tenant;
  rec.outcome = meta.value("outcome", "") + " (cached)";
  rec.snapshot = meta.value("snapshot", uint64_t{0});
  rec.answer_id = answer_id;
  rec.chunks_given = meta["given"].get<std::vector<uint64_t>>();
  for (const auto& c : meta["cited"]) rec.chunks_cited.push_back(c[1].get<uint64_t>());
  Audit(std::move(run.slot), run.who, run.ctx, std::move(rec));
  // The per-request fields are added to the stored body (which never holds them).
  json body = std::move(run.cached_body);
  body["answer_id"] = answer_id;
  body["request_id"] = run.ctx.request_id;
  body["cached"] = true;
  body["notices"] = json::array();
  body["versions"] = Versions();
  const std::string not_kept =
      RememberAnswer(run.who, run.tenant, run.req.query, meta.value("answer_id", ""), run.thread, &body);
  if (!not_kept.empty()) body["notices"].push_back(not_kept);
  if (!run.sink) return body.dump(-1, ' ', false, json::error_handler_t::replace);
  // Replay the cached answer as events.
  AnswerStream stream(run.sink, engine_, auth_, metrics_, run.who, run.ao.filter);
  stream.Emit("progress", {{"stage", "cache"}, {"queries", json::array()}});
  json cards = json::array();
  for (auto s : body["sources"]) {
    s.erase("cited");
    cards.push_back(std::move(s));
  }
  stream.Emit("sources", {{"sources", cards}});
  for (const auto& c : body["claims"]) {
    if (!c.value("kept", false)) continue;
    json cites = json::array();
    for (const auto& x : c["cites"]) {
      for (const auto& s : body["sources"]) {
        if (s["id"] == x["source"]) {
          cites.push_back({{"source", s["id"]}, {"doc_id", s["doc_id"]}, {"chunk_id", s["chunk_id"]}, {"quote", x["quote"]}});
        }
      }
    }
    stream.Emit("delta", {{"sentence_id", c["id"]}, {"text", c["text"]}});
    stream.Emit("sentence_done", {{"sentence_id", c["id"]}, {"citations", cites}});
  }
  if (body.value("outcome", "") == "fallback") {
    stream.Emit("notice", {{"code", "fallback"}, {"message", "no confident answer: " + body.value("fallback_reason", "")}});
  }
  if (!not_kept.empty()) stream.Emit("notice", {{"code", "not_remembered"}, {"message", not_kept}});
  stream.Answered(body);
  stream.Emit("done", DoneEvent(body, 0));
  return std::string();
}

ApiResult<std::string> Service::RunFreshAnswer(AnswerRun& run) {
  const Identity& who = run.who;
  const AskOptions& ao = run.ao;
  // --- run the pipeline, streaming its events when asked ---
  std::unique_ptr<AnswerStream> stream;
  AnswerEvents events;
  SentenceGate gate;  // the sources given and the sentences streamed during generation
  uint64_t pinned = 0;
  if (run.sink) {
    stream = std::make_unique<AnswerStream>(run.sink, engine_, auth_, metrics_, who, ao.filter);
    pinned = engine_.CurrentSnapshot();
    WireEvents(stream.get(), &gate, &engine_, pinned, ao.writer == WriterKind::kLlm, &events);
    run.ao.events = &events;
  }
  Result<AnswerResult> got = engine_.Ask(ao);
  if (!got.ok()) {
    if (got.status().code() == StatusCode::kCancelled) {
      metrics_.GetCounter("attest_cancelled_total", "Answers cancelled because the client went away")->Add();
    }
    if (stream && stream->ended()) return std::string();
    return internal::FromStatus(got.status(), ao.writer == WriterKind::kLlm ? "writer" : "query",
                                internal::LimitsOf::kDependency);
  }
  AnswerResult r = std::move(got).value();
  ObserveAnswer(r);
  ObserveAnswerCost(r, &metrics_);

  // --- render-time authorization: the snapshot moved or the caller's groups changed ---
  SearchFilter render_filter = ao.filter;
  auto refreshed = auth_.Refresh(who);
  if (!refreshed.ok()) return refreshed.error();
  if (render_filter.groups) render_filter.groups = refreshed.value().groups;
  std::set<ChunkId> changed;
  std::vector<std::string> notices;
  // The engine's answer has passed the output link policy (SealManifest) as a whole; a re-check
  // rebuilds its text, which is then sanitized again when written.
  bool sealed = true;
  if (engine_.CurrentSnapshot() != r.snapshot_version || refreshed.value().groups != who.groups) {
    notices = RecheckAtRender(engine_, render_filter, &r, &changed);
    sealed = false;
  }
  if (stream) {
    changed.insert(stream->changed().begin(), stream->changed().end());
  }
  if (!changed.empty()) {
    std::string list;
    for (ChunkId c : changed) list += (list.empty() ? "" : ", ") + std::to_string(c.get());
    notices.push_back("cited chunks changed after the answer's snapshot " + std::to_string(r.snapshot_version) +
                      ": " + list);
  }

  const std::string answer_id = internal::RandomId("ans_");
  {
    AuditRecord rec;
    rec.tenant = run.tenant;
    rec.outcome = AnswerOutcomeName(r.outcome);
    rec.snapshot = r.snapshot_version;
    rec.answer_id = answer_id;
    for (const AnswerSource& s : r.sources) {
      rec.chunks_given.push_back(s.chunk_id.get());
      if (s.cited) rec.chunks_cited.push_back(s.chunk_id.get());
    }
    rec.blocked_citations = r.blocked_citations;
    AuditCostOf(r, &rec);
    Audit(std::move(run.slot), who, run.ctx, std::move(rec));
  }

  json body = AnswerJson(r, sealed);  // the document itself: no text to parse back
  bool flagged = false;
  for (const AnswerSource& s : r.sources) flagged |= s.flagged;
  if (run.cacheable && (r.outcome == AnswerOutcome::kAnswer || r.outcome == AnswerOutcome::kFallback) &&
      r.degraded.empty() && !flagged && notices.empty() && !PlannerFellBack(body)) {
    json meta = {{"answer_id", answer_id}, {"snapshot", r.snapshot_version}, {"outcome", AnswerOutcomeName(r.outcome)},
                 {"cited", json::array()}, {"given", json::array()}};
    std::vector<uint64_t> cited;
    for (const AnswerSource& s : r.sources) {
      meta["given"].push_back(s.chunk_id.get());
      if (!s.cited) continue;
      cited.push_back(s.chunk_id.get());
      meta["cited"].push_back({s.doc_id, s.chunk_id.get()});
    }
    answer_cache_.Put(run.key, meta.dump() + "\n" + body.dump(-1, ' ', false, json::error_handler_t::replace), cited,
                      answer_id);
  }
  body["answer_id"] = answer_id;
  body["request_id"] = run.ctx.request_id;
  body["cached"] = false;
  body["notices"] = notices;
  body["versions"] = Versions();
  const std::string not_kept = RememberAnswer(refreshed.value(), run.tenant, run.req.query, "", run.thread, &body);
  if (!not_kept.empty()) body["notices"].push_back(not_kept);
  if (!stream) return body.dump(-1, ' ', false, json::error_handler_t::replace);
  FinishStream(*stream, gate, r, body, notices, not_kept, pinned, metrics_);
  return std::string();
}

}  // namespace attest::service
