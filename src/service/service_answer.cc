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
#include "answer/evidence.h"
#include "verify/verifier.h"
#include "write/quote_recovery.h"
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

json SourceCard(const AnswerSource& s) {
  json j = SourceJson(s);
  j.erase("cited");  // not known yet when the cards are sent
  return j;
}

const char* StateReason(CitationState s) {
  switch (s) {
    case CitationState::kDeleted: return "source_deleted";
    case CitationState::kForbidden: return "access_revoked";
    case CitationState::kChanged: return "source_changed";
    default: return "";
  }
}

bool Withdrawn(CitationState s) { return s == CitationState::kDeleted || s == CitationState::kForbidden; }

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

EvidencePassage PassageOf(const AnswerSource& s) {
  EvidencePassage p;
  p.id = s.id;
  p.doc_id = s.doc_id;
  p.chunk_id = s.chunk_id;
  p.url = s.url;
  p.title = s.title;
  p.site = s.site;
  p.date = s.date;
  p.version = s.version;
  p.source_type = s.source_type;
  p.authority = s.authority;
  p.text = s.text;
  p.score = s.score;
  p.flagged = s.flagged;
  p.flag_reason = s.flag_reason;
  return p;
}

json Citations(const AnswerResult& r, const AnswerClaim& c) {
  json out = json::array();
  for (const AnswerCitation& cite : c.cites) {
    for (const AnswerSource& s : r.sources) {
      if (s.id != cite.source) continue;
      out.push_back({{"source", s.id}, {"doc_id", s.doc_id}, {"chunk_id", s.chunk_id}, {"quote", cite.quote}});
    }
  }
  return out;
}

}  // namespace

// The state of one streamed answer: what was released, and the boundary checks.
class AnswerStream {
 public:
  AnswerStream(EventSink* sink, Engine& engine, Authenticator& auth, Registry& metrics, Identity who,
               SearchFilter filter)
      : sink_(sink), engine_(engine), auth_(auth), metrics_(metrics), who_(std::move(who)), filter_(std::move(filter)) {}

  bool Emit(std::string_view event, const json& data) {
    if (ended_) return false;
    if (!sink_->Emit(event, data.dump(-1, ' ', false, json::error_handler_t::replace))) {
      ended_ = true;
      return false;
    }
    return true;
  }
  bool ended() const { return ended_ || sink_->Closed(); }

  // Re-checks access at a sentence boundary: the identity through the group cache, then every
  // released sentence's sources and `pending` at the latest snapshot. Retracts released sentences
  // that lost their sources. Returns false when `pending` must not be released (or the stream ended).
  bool Boundary(const std::vector<CitedChunk>& pending, uint64_t pinned_snapshot) {
    auto refreshed = auth_.Refresh(who_);
    if (!refreshed.ok()) {
      Emit("notice", {{"code", "access_revoked"}, {"message", refreshed.error().message}});
      metrics_.GetCounter("attest_retractions_total", "Sentences retracted or streams ended, by reason",
                          {{"reason", "credential_revoked"}})->Add();
      ended_ = true;
      return false;
    }
    const bool groups_changed = refreshed.value().groups != who_.groups;
    if (groups_changed && !filter_.groups) groups_changed_admin_ = true;
    if (groups_changed && filter_.groups) filter_.groups = refreshed.value().groups;
    who_ = refreshed.value();
    if (!groups_changed && engine_.CurrentSnapshot() == pinned_snapshot) return true;  // nothing can differ
    std::vector<CitedChunk> all = pending;
    for (const auto& s : released_) all.insert(all.end(), s.chunks.begin(), s.chunks.end());
    auto states = engine_.CheckCitations(filter_, all);
    if (!states.ok()) return true;  // the check itself failed: keep what was verified at the pinned snapshot
    bool ok = true;
    for (size_t i = 0; i < pending.size(); ++i) {
      if (Withdrawn((*states)[i])) {
        ok = false;
        last_reason_ = StateReason((*states)[i]);
      }
      if ((*states)[i] == CitationState::kChanged) changed_.insert(pending[i].chunk_id.get());
    }
    size_t at = pending.size();
    for (auto& s : released_) {
      std::string reason;
      for (size_t j = 0; j < s.chunks.size(); ++j, ++at) {
        if (Withdrawn((*states)[at])) reason = StateReason((*states)[at]);
      }
      if (!reason.empty() && !s.retracted) {
        s.retracted = true;
        Retract(s.id, reason);
      }
    }
    return ok;
  }

  void Released(const std::string& id, std::vector<CitedChunk> chunks) {
    retract_reason_.erase(id);
    released_.push_back({id, std::move(chunks), false});
  }
  void Retract(const std::string& id, const std::string& reason) {
    retract_reason_[id] = reason;
    ++retracted_;
    metrics_.GetCounter("attest_retractions_total", "Sentences retracted or streams ended, by reason",
                        {{"reason", reason}})->Add();
    Emit("retract", {{"sentence_id", id}, {"reason", reason}});
  }
  // Retracted because its source was deleted or became unreadable, or it cited nothing.
  bool RetractedForAccess(const std::string& id) const {
    auto it = retract_reason_.find(id);
    return it != retract_reason_.end() &&
           (it->second == "access_revoked" || it->second == "source_deleted" || it->second == "uncited");
  }
  bool IsReleased(const std::string& id) const {
    return std::any_of(released_.begin(), released_.end(), [&](const auto& s) { return s.id == id && !s.retracted; });
  }
  const std::string& last_reason() const { return last_reason_; }
  size_t retracted() const { return retracted_; }
  const std::set<uint64_t>& changed() const { return changed_; }
  const SearchFilter& filter() const { return filter_; }

 private:
  struct Released_ {
    std::string id;
    std::vector<CitedChunk> chunks;
    bool retracted = false;
  };
  EventSink* sink_;
  Engine& engine_;
  Authenticator& auth_;
  Registry& metrics_;
  Identity who_;
  SearchFilter filter_;
  std::vector<Released_> released_;
  std::set<uint64_t> changed_;
  std::map<std::string, std::string> retract_reason_;
  std::string last_reason_;
  size_t retracted_ = 0;
  bool ended_ = false;
  bool groups_changed_admin_ = false;
};

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
  if (!r.blocked_citations.empty()) {
    metrics_.GetCounter("attest_blocked_citations_total", "Citations of ids the writer was never given")
        ->Add(double(r.blocked_citations.size()));
  }
}

ApiResult<std::string> Service::RunAnswer(const Identity& who, const AnswerRequest& req, const RequestContext& ctx,
                                          EventSink* sink, const ThreadTurn* thread) {
  auto tenant = EffectiveTenant(who, req.tenant);
  if (!tenant.ok()) return tenant.error();
  ApiResult<AuditSlot> slot = ReserveAudit();
  if (!slot.ok()) return slot.error();
  AskOptions ao;
  ao.question = req.query;
  ao.filter = FilterFor(who, tenant.value());
  internal::ApplyFilters(req.filters, &ao.filter);
  if (thread) ao.thread = thread->questions;
  ao.today = req.today.value_or("");
  ao.writer = req.writer == "llm" ? WriterKind::kLlm : WriterKind::kExtractive;
  ao.max_sentences = req.max_sentences;
  ao.multi_hop = req.multi_hop;
  ao.llm_judge = req.judge == "llm";
  ao.manifest_key = options_.manifest_key;
  ao.report_access_filtered = options_.report_access_filtered;
  ao.deadline_ms = RemainingMs(ctx, req.deadline_ms);

  // --- whole-answer cache: first turn, not about the caller, slow freshness, nothing flagged ---
  const bool cacheable = options_.caches && !req.no_cache && ao.thread.empty() && !Personal(req.query) &&
                         !FastFreshness(req.query) && ao.writer == WriterKind::kExtractive;
  std::string key;
  std::optional<json> cached_meta;
  json cached_body;
  if (cacheable) {
    json k = {kPipelineVersion, kPromptVersion, req.writer, options_.llm_model,
              who.admin ? "admin:" + tenant.value() : who.Scope(), tenant.value(),
              internal::NormalizeQuery(req.query), req.max_sentences, req.judge, req.multi_hop,
              internal::FiltersJson(req.filters), ao.today};
    key = "answer|" + k.dump();
    if (auto hit = answer_cache_.Get(key)) {
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
          auto states = engine_.CheckCitations(ao.filter, cited);
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
        cached_meta = std::move(meta);
        cached_body = std::move(stored);
      }
    }
    metrics_.GetCounter("attest_cache_requests_total", "Cache lookups by cache and result",
                        {{"cache", "answer"}, {"result", cached_meta ? "hit" : "miss"}})->Add();
  }

  if (cached_meta) {
    const json& meta = *cached_meta;
    // Every answer delivered has an id of its own (remembered for feedback); the entry's own id
    // (meta.answer_id) is what feedback on any copy invalidates.
    const std::string answer_id = internal::RandomId("ans_");
    AuditRecord rec;
    rec.tenant = tenant.value();
    rec.outcome = meta.value("outcome", "") + " (cached)";
    rec.snapshot = meta.value("snapshot", uint64_t{0});
    rec.answer_id = answer_id;
    rec.chunks_given = meta["given"].get<std::vector<uint64_t>>();
    for (const auto& c : meta["cited"]) rec.chunks_cited.push_back(c[1].get<uint64_t>());
    Audit(std::move(slot).value(), who, ctx, std::move(rec));
    // The per-request fields are added to the stored body (which never holds them).
    json body = std::move(cached_body);
    body["answer_id"] = answer_id;
    body["request_id"] = ctx.request_id;
    body["cached"] = true;
    body["notices"] = json::array();
    body["versions"] = Versions();
    const std::string not_kept =
        RememberAnswer(who, tenant.value(), req.query, meta.value("answer_id", ""), thread, &body);
    if (!not_kept.empty()) body["notices"].push_back(not_kept);
    if (!sink) return body.dump(-1, ' ', false, json::error_handler_t::replace);
    // Replay the cached answer as events.
    AnswerStream stream(sink, engine_, auth_, metrics_, who, ao.filter);
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
    const bool fallback = body.value("outcome", "") == "fallback";
    if (fallback) {
      stream.Emit("notice", {{"code", "fallback"}, {"message", "no confident answer: " + body.value("fallback_reason", "")}});
    }
    json done = {{"answer_id", body["answer_id"]}, {"snapshot_version", body["snapshot_version"]},
                         {"as_of", body["as_of"]}, {"outcome", body["outcome"]}, {"tokens", body["tokens"]},
                         {"cost", body["cost"]}, {"timings_ms", body["timings_ms"]},
                         {"dropped_claims", body["dropped_claims"]}, {"retracted", 0}, {"cached", true},
                         {"answer", body["answer"]}, {"request_id", ctx.request_id},
                         {"versions", body["versions"]}};
    if (fallback) {
      done["fallback_reason"] = body["fallback_reason"];
      done["results"] = body["results"];
    }
    if (!not_kept.empty()) stream.Emit("notice", {{"code", "not_remembered"}, {"message", not_kept}});
    if (body.contains("thread")) done["thread"] = body["thread"];
    stream.Emit("done", done);
    return std::string();
  }

  // --- run the pipeline, streaming its events when asked ---
  std::unique_ptr<AnswerStream> stream;
  AnswerEvents events;
  std::vector<std::string> streamed_ids;                 // LLM: sentence ids released during generation
  std::map<std::string, std::string> streamed_text;
  std::vector<AnswerSource> given;                       // the sources sent in the `sources` event
  uint64_t pinned = 0;
  if (sink) {
    stream = std::make_unique<AnswerStream>(sink, engine_, auth_, metrics_, who, ao.filter);
    pinned = engine_.CurrentSnapshot();
    events.on_progress = [&](std::string_view stage, const std::vector<std::string>& queries) {
      stream->Emit("progress", {{"stage", stage}, {"queries", queries}});
    };
    events.on_sources = [&](const std::vector<AnswerSource>& sources) {
      given = sources;
      json cards = json::array();
      std::vector<CitedChunk> chunks;
      for (const AnswerSource& s : sources) chunks.push_back({s.doc_id, ChunkId(s.chunk_id)});
      std::vector<CitationState> states(sources.size(), CitationState::kCurrent);
      if (engine_.CurrentSnapshot() != pinned) {
        if (auto st = engine_.CheckCitations(stream->filter(), chunks); st.ok()) states = *st;
      }
      for (size_t i = 0; i < sources.size(); ++i) {
        if (!Withdrawn(states[i])) cards.push_back(SourceCard(sources[i]));
      }
      stream->Emit("sources", {{"sources", cards}});
    };
    events.cancelled = [&] { return stream->ended(); };
    if (ao.writer == WriterKind::kLlm) {
      events.on_delta = [&](std::string_view text) {
        stream->Emit("delta", {{"sentence_id", "c" + std::to_string(streamed_ids.size() + 1)}, {"text", text}});
      };
      events.on_sentence = [&](std::string_view text, const std::vector<std::string>& cites) {
        // Trailing punctuation after the last marker is not a sentence.
        if (std::none_of(text.begin(), text.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); })) {
          return;
        }
        const std::string id = "c" + std::to_string(streamed_ids.size() + 1);
        streamed_ids.push_back(id);
        streamed_text[id] = std::string(text);
        std::vector<CitedChunk> chunks;
        json citations = json::array();
        DraftClaim claim{id, std::string(text), {}};
        std::vector<EvidencePassage> cited;
        for (const std::string& c : cites) {
          for (const AnswerSource& s : given) {
            if (s.id != c) continue;
            chunks.push_back({s.doc_id, ChunkId(s.chunk_id)});
            // The model writes prose: the quote is recovered from the passage, as the writer does.
            const std::string quote = RecoverQuote(text, s.text);
            claim.cites.push_back({s.id, quote});
            citations.push_back({{"source", s.id}, {"doc_id", s.doc_id}, {"chunk_id", s.chunk_id}, {"quote", quote}});
            cited.push_back(PassageOf(s));
          }
        }
        if (chunks.empty()) {  // shown as it streamed, but it cites nothing: withdrawn
          stream->Retract(id, "uncited");
          return;
        }
        // Verified as it completes: the mechanical quote check and the built-in support checks.
        const ClaimVerdict verdict = VerifyDraft(cited, {claim}).front();
        if (verdict.verdict != Verdict::kSupported && verdict.verdict != Verdict::kPartial) {
          stream->Retract(id, VerdictName(verdict.verdict));
          return;
        }
        if (!stream->Boundary(chunks, pinned)) {
          if (!stream->ended()) stream->Retract(id, stream->last_reason());
          return;
        }
        stream->Emit("sentence_done", {{"sentence_id", id}, {"citations", citations}, {"verified", VerdictName(verdict.verdict)}});
        stream->Released(id, std::move(chunks));
      };
    }
    ao.events = &events;
  }

  Result<AnswerResult> got = engine_.Ask(ao);
  if (!got.ok()) {
    if (got.status().code() == StatusCode::kCancelled) {
      metrics_.GetCounter("attest_cancelled_total", "Answers cancelled because the client went away")->Add();
    }
    if (stream && stream->ended()) return std::string();
    return internal::FromStatus(got.status(), ao.writer == WriterKind::kLlm ? "writer" : "query");
  }
  AnswerResult r = std::move(got).value();
  ObserveAnswer(r);

  // --- render-time authorization: the snapshot moved or the caller's groups changed ---
  SearchFilter render_filter = ao.filter;
  auto refreshed = auth_.Refresh(who);
  if (!refreshed.ok()) return refreshed.error();
  if (render_filter.groups) render_filter.groups = refreshed.value().groups;
  std::set<uint64_t> changed;
  std::vector<std::string> notices;
  if (engine_.CurrentSnapshot() != r.snapshot_version || refreshed.value().groups != who.groups) {
    std::vector<CitedChunk> chunks;
    for (const AnswerSource& s : r.sources) chunks.push_back({s.doc_id, ChunkId(s.chunk_id)});
    for (const SearchHit& h : r.results) chunks.push_back({h.doc_id, h.chunk_id});
    auto states = engine_.CheckCitations(render_filter, chunks);
    if (states.ok()) {
      std::set<std::string> withdrawn;
      for (size_t i = 0; i < r.sources.size(); ++i) {
        if (Withdrawn((*states)[i])) withdrawn.insert(r.sources[i].id);
        if ((*states)[i] == CitationState::kChanged && r.sources[i].cited) changed.insert(r.sources[i].chunk_id);
      }
      std::vector<SearchHit> results;
      for (size_t i = 0; i < r.results.size(); ++i) {
        if (!Withdrawn((*states)[r.sources.size() + i])) results.push_back(r.results[i]);
      }
      r.results = std::move(results);
      if (!withdrawn.empty()) {
        for (AnswerClaim& c : r.claims) {
          for (const AnswerCitation& cite : c.cites) {
            if (c.kept && withdrawn.count(cite.source)) {
              c.kept = false;
              c.reason = "source withdrawn since the answer's snapshot (deleted or access narrowed)";
              ++r.dropped_claims;
            }
          }
        }
        std::vector<AnswerSource> kept_sources;
        for (AnswerSource& s : r.sources) {
          if (!withdrawn.count(s.id)) kept_sources.push_back(std::move(s));
        }
        r.sources = std::move(kept_sources);
        r.text = RebuildText(r);
        if (r.outcome == AnswerOutcome::kAnswer && r.text.empty()) {
          r.outcome = AnswerOutcome::kFallback;
          r.fallback_reason = "claims_unsupported";
        }
        notices.push_back("sources withdrawn since the answer's snapshot are not shown");
      }
    }
  }
  if (stream) {
    for (uint64_t c : stream->changed()) changed.insert(c);
  }
  if (!changed.empty()) {
    std::string list;
    for (uint64_t c : changed) list += (list.empty() ? "" : ", ") + std::to_string(c);
    notices.push_back("cited chunks changed after the answer's snapshot " + std::to_string(r.snapshot_version) +
                      ": " + list);
  }

  const std::string answer_id = internal::RandomId("ans_");
  {
    AuditRecord rec;
    rec.tenant = tenant.value();
    rec.outcome = AnswerOutcomeName(r.outcome);
    rec.snapshot = r.snapshot_version;
    rec.answer_id = answer_id;
    for (const AnswerSource& s : r.sources) {
      rec.chunks_given.push_back(s.chunk_id);
      if (s.cited) rec.chunks_cited.push_back(s.chunk_id);
    }
    rec.blocked_citations = r.blocked_citations;
    Audit(std::move(slot).value(), who, ctx, std::move(rec));
  }

  json body = json::parse(AnswerToJson(r, -1));
  bool flagged = false;
  for (const AnswerSource& s : r.sources) flagged |= s.flagged;
  if (cacheable && (r.outcome == AnswerOutcome::kAnswer || r.outcome == AnswerOutcome::kFallback) &&
      r.degraded.empty() && !flagged && notices.empty()) {
    json meta = {{"answer_id", answer_id}, {"snapshot", r.snapshot_version}, {"outcome", AnswerOutcomeName(r.outcome)},
                 {"cited", json::array()}, {"given", json::array()}};
    std::vector<uint64_t> cited;
    for (const AnswerSource& s : r.sources) {
      meta["given"].push_back(s.chunk_id);
      if (!s.cited) continue;
      cited.push_back(s.chunk_id);
      meta["cited"].push_back({s.doc_id, s.chunk_id});
    }
    answer_cache_.Put(key, meta.dump() + "\n" + body.dump(-1, ' ', false, json::error_handler_t::replace), cited,
                      answer_id);
  }
  body["answer_id"] = answer_id;
  body["request_id"] = ctx.request_id;
  body["cached"] = false;
  body["notices"] = notices;
  body["versions"] = Versions();
  const std::string not_kept = RememberAnswer(refreshed.value(), tenant.value(), req.query, "", thread, &body);
  if (!not_kept.empty()) body["notices"].push_back(not_kept);
  if (!stream) return body.dump(-1, ' ', false, json::error_handler_t::replace);

  // --- the rest of the stream: sentences, retractions, notices, done ---
  if (given.empty() && !r.sources.empty()) {
    json cards = json::array();
    for (const AnswerSource& s : r.sources) cards.push_back(SourceCard(s));
    stream->Emit("sources", {{"sources", cards}});
  }
  for (const AnswerClaim& c : r.claims) {
    if (stream->ended()) break;
    const bool was_streamed = std::find(streamed_ids.begin(), streamed_ids.end(), c.id) != streamed_ids.end();
    if (!c.kept) {
      if (was_streamed && stream->IsReleased(c.id)) stream->Retract(c.id, c.verdict.empty() ? "unsupported" : c.verdict);
      continue;
    }
    std::vector<CitedChunk> chunks;
    for (const AnswerCitation& cite : c.cites) {
      for (const AnswerSource& s : r.sources) {
        if (s.id == cite.source) chunks.push_back({s.doc_id, ChunkId(s.chunk_id)});
      }
    }
    if (was_streamed) {
      const bool released = stream->IsReleased(c.id);
      if (released && streamed_text[c.id] == c.text) continue;  // verified at its boundary, unchanged since
      if (!released && stream->RetractedForAccess(c.id)) continue;  // never shown again
      // The repair round rewrote it (or fixed a sentence retracted at its boundary): the final text
      // replaces what was shown, once its sources pass the access check.
      if (!released && !stream->Boundary(chunks, pinned)) {
        if (stream->ended()) break;
        continue;
      }
      stream->Emit("replace", {{"sentence_id", c.id}, {"text", SentenceText(r, c)}});
      stream->Emit("sentence_done", {{"sentence_id", c.id}, {"citations", Citations(r, c)}, {"verified", "supported"}});
      if (!released) stream->Released(c.id, std::move(chunks));
      continue;
    }
    if (!stream->Boundary(chunks, pinned)) {
      if (stream->ended()) break;
      metrics_.GetCounter("attest_retractions_total", "Sentences retracted or streams ended, by reason",
                          {{"reason", stream->last_reason()}})->Add();
      continue;  // never shown
    }
    stream->Emit("delta", {{"sentence_id", c.id}, {"text", SentenceText(r, c)}});
    stream->Emit("sentence_done", {{"sentence_id", c.id}, {"citations", Citations(r, c)}, {"verified", "supported"}});
    stream->Released(c.id, std::move(chunks));
  }
  // Streamed sentences that no final claim carries (the writer's repair dropped them) are withdrawn.
  for (const std::string& id : streamed_ids) {
    if (stream->ended()) break;
    const bool final_claim = std::any_of(r.claims.begin(), r.claims.end(), [&](const AnswerClaim& c) { return c.id == id; });
    if (!final_claim && stream->IsReleased(id)) stream->Retract(id, "superseded");
  }
  if (stream->ended()) return std::string();
  for (const std::string& n : notices) stream->Emit("notice", {{"code", "sources_changed"}, {"message", n}});
  if (!not_kept.empty()) stream->Emit("notice", {{"code", "not_remembered"}, {"message", not_kept}});
  for (const std::string& w : r.warnings) stream->Emit("notice", {{"code", "warning"}, {"message", w}});
  if (r.outcome == AnswerOutcome::kFallback) {
    stream->Emit("notice", {{"code", "fallback"}, {"message", "no confident answer: " + r.fallback_reason}});
  }
  json done = {{"answer_id", answer_id},
               {"snapshot_version", r.snapshot_version},
               {"as_of", r.as_of},
               {"outcome", AnswerOutcomeName(r.outcome)},
               {"tokens", {{"prompt", r.prompt_tokens}, {"completion", r.completion_tokens}}},
               {"cost", r.cost},
               {"timings_ms", r.timings_ms},
               {"dropped_claims", r.dropped_claims},
               {"retracted", stream->retracted()},
               {"degraded", r.degraded},
               {"cached", false},
               {"answer", body["answer"]},
               {"request_id", ctx.request_id},
               {"versions", body["versions"]}};
  if (r.outcome == AnswerOutcome::kFallback) {
    done["fallback_reason"] = r.fallback_reason;
    done["results"] = body["results"];
  }
  if (body.contains("thread")) done["thread"] = body["thread"];
  stream->Emit("done", done);
  return std::string();
}

}  // namespace attest::service
