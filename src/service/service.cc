// Service: common parts (tenant and filter resolution, deadlines, versions, audit) and search.
#include "service/service.h"

#include <algorithm>
#include <chrono>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "answer/answer_json.h"
#include "answer/output_sanitizer.h"
#include "service/service_internal.h"

namespace attest::service {

using nlohmann::json;

Service::Service(Engine& engine, Authenticator& auth, Registry& metrics, AuditLog* audit, ServiceOptions options)
    : engine_(engine),
      auth_(auth),
      metrics_(metrics),
      audit_(audit),
      options_(std::move(options)),
      retrieval_cache_(options_.retrieval_cache_bytes, options_.retrieval_cache_ttl),
      answer_cache_(options_.answer_cache_bytes, options_.answer_cache_ttl),
      feedback_limiter_(options_.feedback_rate) {
  if (options_.event_log) {
    EventApplierOptions ao;
    ao.clock = options_.clock;
    ao.invalidate_chunks = [this](const std::vector<uint64_t>& chunks) { answer_cache_.InvalidateChunks(chunks); };
    event_applier_ = std::make_unique<EventApplier>(*options_.event_log, engine_, metrics_, std::move(ao));
    event_applier_->Start();  // applies what a previous process left queued
  }
}

Service::~Service() = default;

std::string Service::VersionHeader() const {
  return std::string("attest/") + ATTEST_VERSION + " api/" + kApiVersion + " pipeline/" + kPipelineVersion;
}

json Service::Versions() const {
  json j = {{"attest", ATTEST_VERSION},
            {"api", kApiVersion},
            {"pipeline", kPipelineVersion},
            {"snapshot", engine_.CurrentSnapshot()}};
  if (!options_.embedder.empty()) j["embedder"] = options_.embedder;
  return j;
}

ApiResult<std::string> Service::EffectiveTenant(const Identity& who, const std::optional<std::string>& requested) const {
  if (!requested || *requested == who.tenant) return who.tenant;
  // Only the deployment operator crosses tenants; a tenant admin administers its own tenant only.
  if (who.deployment_operator) return *requested;
  return ApiError{ApiErrorCode::kForbidden, "your credential is for tenant '" + who.tenant + "', not '" + *requested + "'",
                  "tenant"};
}

SearchFilter Service::FilterFor(const Identity& who, const std::string& tenant) const {
  SearchFilter f;
  f.tenant = internal::StoreTenant(tenant);
  if (!who.admin) {
    f.groups = who.groups;        // an admin reads the whole tenant
    f.clearance = who.clearance;  // and every access label; a reader up to its clearance
  }
  return f;
}

uint32_t Service::RemainingMs(const RequestContext& ctx, std::optional<uint32_t> deadline) const {
  const double budget = deadline ? *deadline : options_.default_deadline_ms;
  const double spent =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ctx.received).count();
  return static_cast<uint32_t>(std::max(1.0, budget - spent));
}

ApiResult<AuditSlot> Service::ReserveAudit() {
  if (!audit_) return AuditSlot();
  Result<AuditSlot> slot = audit_->Reserve();
  if (slot.ok()) return std::move(slot).value();
  metrics_.GetCounter("attest_audit_refused_total", "Requests refused because the audit log was full")->Add();
  return ApiError{ApiErrorCode::kAuditUnavailable,
                  "the request was not run: its audit record could not be kept (" + slot.status().message() +
                      "); retry later",
                  ""};
}

ApiResult<std::string> Service::Me(const Identity& who, const RequestContext& ctx) const {
  // Only what the caller already holds or was told when its credential was made: its tenant, name,
  // groups and clearance, and what it may do. The credential id, rate limit and token times stay out
  // (the id names the key in audit records; nothing here helps guess or replay a credential).
  return json{{"request_id", ctx.request_id},
              {"tenant", who.tenant},
              {"user", who.user},
              {"admin", who.admin || who.deployment_operator},
              {"operator", who.deployment_operator},
              {"groups", who.groups},
              {"clearance", who.clearance},
              {"method", who.method},
              {"versions", Versions()}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::vector<std::string> Service::NotReadyReasons() const {
  std::vector<std::string> reasons;
  if (Status v = engine_.CheckVectorLeg(std::nullopt); !v.ok()) reasons.push_back(v.message());
  if (audit_) {
    const AuditHealth h = audit_->health();
    if (!h.writing) reasons.push_back("the audit log cannot be written: " + h.error);
    if (h.full()) {
      reasons.push_back("the audit log holds " + std::to_string(h.held) + " unwritten records, its limit");
    }
  }
  return reasons;
}

void Service::Audit(AuditSlot slot, const Identity& who, const RequestContext& ctx, AuditRecord record) {
  if (!audit_) return;
  record.request_id = ctx.request_id;
  record.unix_ms = internal::UnixMs();
  record.route = ctx.route;
  record.user = who.user;
  record.tenant = record.tenant.empty() ? who.tenant : record.tenant;
  record.credential_id = who.credential_id;
  record.groups = who.groups;
  record.clearance = who.admin ? std::string("*") : who.clearance;
  audit_->Append(std::move(slot), std::move(record));
}

ApiResult<std::string> Service::Search(const Identity& who, const SearchRequest& req, const RequestContext& ctx) {
  auto tenant = EffectiveTenant(who, req.tenant);
  if (!tenant.ok()) return tenant.error();
  ApiResult<AuditSlot> slot = ReserveAudit();
  if (!slot.ok()) return slot.error();
  const uint64_t snapshot = engine_.CurrentSnapshot();
  SearchOptions so;
  so.query = req.query;
  so.k = req.top_k;
  so.filter = FilterFor(who, tenant.value());
  internal::ApplyFilters(req.filters, &so.filter);
  so.mode = internal::ParseMode(req.mode);
  if (so.mode == SearchMode::kVector || so.mode == SearchMode::kHybrid) {
    // The caller asked for the vector leg: say plainly when it cannot run (auto mode degrades).
    if (Status v = engine_.CheckVectorLeg(so.filter.tenant); !v.ok()) {
      return ApiError{ApiErrorCode::kVectorLegUnavailable,
                      v.message() + "; mode auto or bm25 still searches this tenant (BM25 only)", ""};
    }
  }
  const uint32_t remaining = RemainingMs(ctx, req.deadline_ms);
  std::vector<std::string> degraded;
  if (remaining < internal::kMinVectorBudgetMs && so.mode == SearchMode::kAuto) {
    so.mode = SearchMode::kBm25;  // too little time left for the vector leg: lexical only
    degraded.push_back("vector_leg_skipped_deadline");
  }

  // Retrieval cache: everything that changes the hits is in the key.
  std::string key;
  if (options_.caches) {
    json k = {kPipelineVersion, snapshot, who.admin ? std::string("admin:") + tenant.value() : who.Scope(),
              tenant.value(), internal::NormalizeQuery(req.query), req.top_k, req.mode, req.explain,
              internal::FiltersJson(req.filters), degraded.empty()};
    key = "search|" + k.dump();
    if (auto hit = retrieval_cache_.Get(key)) {
      metrics_.GetCounter("attest_cache_requests_total", "Cache lookups by cache and result",
                          {{"cache", "retrieval"}, {"result", "hit"}})->Add();
      json body = json::parse(*hit);
      body["request_id"] = ctx.request_id;
      body["cached"] = true;
      Audit(std::move(slot).value(), who, ctx, internal::SearchAudit(body, tenant.value()));
      return body.dump();
    }
    metrics_.GetCounter("attest_cache_requests_total", "Cache lookups by cache and result",
                        {{"cache", "retrieval"}, {"result", "miss"}})->Add();
  }
  Result<SearchResult> r = engine_.Search(so);
  if (!r.ok()) return internal::FromStatus(r.status(), "query", internal::LimitsOf::kDependency);
  metrics_.GetHistogram("attest_stage_seconds", "Latency of each pipeline stage", {{"stage", "search"}})
      ->Observe(r->took_ms / 1000.0);
  json hits = json::array();
  for (const SearchHit& raw : r->hits) {
    // Highlights are byte ranges of the snippet: take them from the sanitized hit (a link target
    // removed from the snippet shifts or drops them), never from the raw one.
    SearchHit h = raw;
    SanitizeHit(&h);
    json j = SanitizedHitJson(h);
    j["section"] = h.section;
    json hl = json::array();
    for (const Highlight& x : h.highlights) hl.push_back({x.start, x.end});
    j["highlights"] = hl;
    if (req.explain) {
      auto leg = [](uint32_t rank, float score) -> json {
        if (rank == 0) return nullptr;
        return {{"rank", rank}, {"score", score}};
      };
      j["explain"] = {{"bm25", leg(h.lexical_rank, h.lexical_score)},
                      {"vector", leg(h.vector_rank, h.vector_score)},
                      {"fused", h.score}};
    }
    hits.push_back(std::move(j));
  }
  for (const std::string& d : r->degraded) degraded.push_back(d);
  json body = {{"request_id", ctx.request_id},
               {"snapshot_version", r->snapshot_version},
               {"took_ms", r->took_ms},
               {"mode", SearchModeName(r->mode)},
               {"hits", std::move(hits)},
               {"notices", r->notices},
               {"degraded", degraded},
               {"cached", false},
               {"versions", Versions()}};
  if (!r->embedder.empty()) body["embedder"] = r->embedder;
  if (!r->cluster_snapshot.empty()) body["cluster_snapshot"] = r->cluster_snapshot;
  // A degraded result (e.g. a model that could not be loaded) is not kept: once the model is fixed,
  // the same query at the same snapshot gets the full result.
  if (options_.caches && r->snapshot_version == snapshot && r->degraded.empty()) retrieval_cache_.Put(key, body.dump());
  Audit(std::move(slot).value(), who, ctx, internal::SearchAudit(body, tenant.value()));
  return body.dump();
}

void Service::RefreshGauges() {
  auto put = [&](const char* cache, const CacheStats& s) {
    metrics_.GetGauge("attest_cache_entries", "Entries held by each cache", {{"cache", cache}})->Set(double(s.entries));
    metrics_.GetGauge("attest_cache_bytes", "Bytes held by each cache", {{"cache", cache}})->Set(double(s.bytes));
    metrics_.GetGauge("attest_cache_invalidations", "Entries removed by invalidation", {{"cache", cache}})
        ->Set(double(s.invalidations));
  };
  put("retrieval", retrieval_cache_.stats());
  put("answer", answer_cache_.stats());
  auto [hits, misses] = engine_.EmbeddingCacheCounts();
  metrics_.GetGauge("attest_embedding_cache_hits", "Query-embedding cache hits (text + embedder identity)")->Set(double(hits));
  metrics_.GetGauge("attest_embedding_cache_misses", "Query-embedding cache misses")->Set(double(misses));
  metrics_.GetGauge("attest_snapshot_version", "The latest index snapshot")->Set(double(engine_.CurrentSnapshot()));
  if (auto f = engine_.Freshness(); f.ok()) {
    // Index lag: how long since the index last changed (docs/http_api.md, "Metrics").
    const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch()).count();
    metrics_.GetGauge("attest_index_last_commit_timestamp_seconds", "Commit time of the latest index snapshot")
        ->Set(double(f->last_commit_unix_ms) / 1000.0);
    metrics_.GetGauge("attest_index_lag_seconds", "Seconds since the latest index commit (now - last commit)")
        ->Set(f->last_commit_unix_ms > 0 ? double(std::max<int64_t>(0, now_ms - f->last_commit_unix_ms)) / 1000.0 : 0.0);
    if (f->live_fetch) {
      auto page = [&](const char* result, uint64_t n) {
        metrics_.GetGauge("attest_page_cache_requests", "Live fetch page cache lookups by result (cumulative)",
                          {{"result", result}})->Set(double(n));
      };
      page("hit", f->page_cache_hits);
      page("revalidated", f->page_cache_revalidated);
      page("miss", f->page_cache_misses);
    }
  }
  if (audit_) {
    metrics_.GetGauge("attest_audit_records_written", "Audit records written")->Set(double(audit_->written()));
    const AuditHealth h = audit_->health();
    metrics_.GetGauge("attest_audit_held_records", "Audit records held in memory (queued, being written, claimed)")
        ->Set(double(h.held));
    metrics_.GetGauge("attest_audit_held_limit", "The most audit records held in memory (--audit-queue)")
        ->Set(double(h.limit));
    metrics_.GetGauge("attest_audit_writable", "1 while audit writes succeed, 0 from a failed write until one succeeds")
        ->Set(h.writing ? 1 : 0);
    metrics_.GetCounter("attest_audit_refused_total", "Requests refused because the audit log was full");
  }
  if (options_.event_log) {
    if (auto queued = options_.event_log->QueuedCount(); queued.ok()) {
      metrics_.GetGauge("attest_events_queue_depth", "Pushed events durable but not yet applied")->Set(double(*queued));
    }
  }
  if (options_.conversations) {
    if (auto c = options_.conversations->Counts(); c.ok()) {
      auto kept = [&](const char* what, uint64_t n) {
        metrics_.GetGauge("attest_conversation_records", "Records kept in conversations.db", {{"kind", what}})
            ->Set(double(n));
      };
      kept("threads", c->threads);
      kept("answers", c->answers);
      kept("feedback", c->feedback);
    }
  }
}

}  // namespace attest::service
