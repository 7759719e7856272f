// Service: documents (admin), conversation threads and feedback.
#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "service/service.h"
#include "service/service_internal.h"

namespace attest::service {

using nlohmann::json;

namespace {

DocumentSpec SpecOf(DocumentInput in, const std::string& tenant) {
  DocumentSpec s;
  s.id = std::move(in.id);
  s.tenant = internal::StoreTenant(tenant);
  s.title = std::move(in.title);
  s.text = std::move(in.text);
  s.content_type = std::move(in.content_type);
  s.url = std::move(in.url);
  s.site = std::move(in.site);
  s.version = std::move(in.version);
  s.source_type = std::move(in.source_type);
  s.language = std::move(in.language);
  s.published = in.published.value_or("");
  s.updated = in.updated.value_or("");
  s.acl_groups = std::move(in.acl_groups);
  s.access_label = std::move(in.access_label);
  s.feed = std::move(in.feed);
  s.metadata = std::move(in.metadata);
  return s;
}

ApiError AdminOnly(const char* what) {
  return ApiError{"forbidden", std::string(what) + " needs an admin credential", ""};
}

}  // namespace

ApiResult<std::string> Service::PutDocuments(const Identity& who, std::vector<DocumentInput> docs,
                                             const RequestContext& ctx) {
  if (!who.admin) return AdminOnly("writing documents");
  std::vector<DocumentSpec> specs;
  specs.reserve(docs.size());
  for (size_t i = 0; i < docs.size(); ++i) {
    auto tenant = EffectiveTenant(who, docs[i].tenant);
    if (!tenant.ok()) {
      ApiError e = tenant.error();
      e.field = docs.size() > 1 ? "documents[" + std::to_string(i) + "].tenant" : "tenant";
      return e;
    }
    specs.push_back(SpecOf(std::move(docs[i]), tenant.value()));
  }
  ApiResult<AuditSlot> slot = ReserveAudit();  // a write that could not be audited is not applied
  if (!slot.ok()) return slot.error();
  Result<PutDocumentsReport> r = engine_.PutDocuments(specs);
  if (!r.ok()) return internal::FromStatus(r.status(), "documents");
  if (!r->superseded_chunks.empty()) answer_cache_.InvalidateChunks(r->superseded_chunks);
  json ids = json::array();
  for (const DocumentSpec& s : specs) ids.push_back({{"id", s.id}, {"tenant", s.tenant.empty() ? internal::kDefaultTenant : s.tenant}});
  AuditRecord rec;
  rec.outcome = "documents_put";
  rec.snapshot = r->snapshot_version;
  Audit(std::move(slot).value(), who, ctx, std::move(rec));
  return json{{"request_id", ctx.request_id},
              {"snapshot_version", r->snapshot_version},
              {"added", r->added},
              {"replaced", r->replaced},
              {"unchanged", r->unchanged},
              {"chunks", r->chunks},
              {"documents", ids},
              {"versions", Versions()}}
      .dump();
}

ApiResult<std::string> Service::GetDocument(const Identity& who, const std::string& id, const std::string& tenant_param,
                                            const RequestContext& ctx) {
  auto tenant = EffectiveTenant(who, tenant_param.empty() ? std::nullopt : std::optional<std::string>(tenant_param));
  if (!tenant.ok()) return tenant.error();
  ApiResult<AuditSlot> slot = ReserveAudit();
  if (!slot.ok()) return slot.error();
  Result<DocumentInfo> d = engine_.GetDocument(FilterFor(who, tenant.value()), id);
  if (!d.ok()) {
    if (d.status().code() == StatusCode::kNotFound) {
      return ApiError{"not_found", "no document '" + id + "' that you can read", "id"};
    }
    return internal::FromStatus(d.status(), "id");
  }
  AuditRecord rec;
  rec.tenant = tenant.value();
  rec.outcome = "document_read";
  rec.snapshot = d->snapshot_version;
  rec.chunks_given = d->chunk_ids;
  Audit(std::move(slot).value(), who, ctx, std::move(rec));
  return json{{"request_id", ctx.request_id},
              {"id", d->id},
              {"tenant", d->tenant.empty() ? internal::kDefaultTenant : d->tenant},
              {"title", d->title},
              {"url", d->url},
              {"site", d->site},
              {"version", d->version},
              {"source_type", d->source_type},
              {"language", d->language},
              {"feed", d->feed},
              {"published", d->published},
              {"updated", d->updated},
              {"acl_groups", d->acl_groups},
              {"access_label", d->access_label},
              {"sha256", d->sha256},
              {"bytes", d->bytes},
              {"chunk_ids", d->chunk_ids},
              {"text", d->text},
              {"created_snapshot", d->created_snapshot},
              {"snapshot_version", d->snapshot_version},
              {"versions", Versions()}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

ApiResult<std::string> Service::DeleteDocument(const Identity& who, const std::string& id, const std::string& tenant_param,
                                               const RequestContext& ctx) {
  if (!who.admin) return AdminOnly("deleting documents");
  auto tenant = EffectiveTenant(who, tenant_param.empty() ? std::nullopt : std::optional<std::string>(tenant_param));
  if (!tenant.ok()) return tenant.error();
  ApiResult<AuditSlot> slot = ReserveAudit();
  if (!slot.ok()) return slot.error();
  // The chunks it had, so cached answers citing them go.
  std::vector<uint64_t> chunks;
  if (auto before = engine_.GetDocument(FilterFor(who, tenant.value()), id); before.ok()) chunks = before->chunk_ids;
  Result<uint64_t> r = engine_.Delete(internal::StoreTenant(tenant.value()), id);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kNotFound) {
      // Idempotent: deleting what is not there is not an error of the caller's request shape.
      return ApiError{"not_found", "no document '" + id + "' in tenant '" + tenant.value() + "'", "id"};
    }
    return internal::FromStatus(r.status(), "id");
  }
  if (!chunks.empty()) answer_cache_.InvalidateChunks(chunks);
  AuditRecord rec;
  rec.tenant = tenant.value();
  rec.outcome = "document_deleted";
  rec.snapshot = *r;
  Audit(std::move(slot).value(), who, ctx, std::move(rec));
  return json{{"request_id", ctx.request_id}, {"id", id}, {"tenant", tenant.value()}, {"deleted", true},
              {"snapshot_version", *r}, {"versions", Versions()}}
      .dump();
}

ApiResult<std::string> Service::CreateThread(const Identity& who, const ThreadCreateRequest& req,
                                             const RequestContext& ctx) {
  auto tenant = EffectiveTenant(who, req.tenant);
  if (!tenant.ok()) return tenant.error();
  auto t = std::make_unique<ThreadState>();
  t->id = internal::RandomId("thr_");
  t->tenant = tenant.value();
  t->user = who.user;
  t->title = req.title;
  t->created_ms = internal::UnixMs();
  const std::string id = t->id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (threads_.size() >= options_.max_threads) {
      // Forget the oldest thread (ids are random, so find it by creation time).
      auto oldest = threads_.begin();
      for (auto it = threads_.begin(); it != threads_.end(); ++it) {
        if (it->second->created_ms < oldest->second->created_ms) oldest = it;
      }
      threads_.erase(oldest);
    }
    threads_[id] = std::move(t);
  }
  return json{{"request_id", ctx.request_id}, {"thread_id", id}, {"tenant", tenant.value()}, {"title", req.title},
              {"versions", Versions()}}
      .dump();
}

ApiResult<std::string> Service::PostMessage(const Identity& who, const std::string& thread_id, const AnswerRequest& req,
                                            const RequestContext& ctx, EventSink* sink) {
  ThreadState* t = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = threads_.find(thread_id);
    // Another caller's thread is indistinguishable from a missing one.
    if (it != threads_.end() && it->second->tenant == who.tenant && it->second->user == who.user) t = it->second.get();
  }
  if (!t) return ApiError{"not_found", "no thread '" + thread_id + "' of yours", "thread_id"};
  if (req.tenant && *req.tenant != t->tenant) {
    return ApiError{"invalid_request", "the thread belongs to tenant '" + t->tenant + "'", "tenant"};
  }
  std::lock_guard<std::mutex> turn(t->mu);
  AnswerRequest r = req;
  r.tenant = t->tenant;
  auto out = RunAnswer(who, r, ctx, sink, t);
  if (out.ok()) t->questions.push_back(req.query);
  return out;
}

ApiResult<std::string> Service::Feedback(const Identity& who, const FeedbackRequest& req, const RequestContext& ctx) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = recent_.find(req.answer_id);
    if (it == recent_.end() || it->second->tenant != who.tenant) {
      return ApiError{"not_found", "no recent answer '" + req.answer_id + "' of your tenant", "answer_id"};
    }
    if (!req.claim_id.empty() && !it->second->claims.count(req.claim_id)) {
      return ApiError{"invalid_request", "answer '" + req.answer_id + "' has no claim '" + req.claim_id + "'", "claim_id"};
    }
    if (!req.source_id.empty() && !it->second->sources.count(req.source_id)) {
      return ApiError{"invalid_request", "answer '" + req.answer_id + "' has no source '" + req.source_id + "'",
                      "source_id"};
    }
  }
  const std::string feedback_id = internal::RandomId("fb_");
  json line = {{"feedback_id", feedback_id}, {"ts_ms", internal::UnixMs()}, {"request_id", ctx.request_id},
               {"answer_id", req.answer_id}, {"claim_id", req.claim_id}, {"source_id", req.source_id},
               {"kind", req.kind},           {"comment", req.comment},    {"tenant", who.tenant},
               {"user", who.user}};
  if (!options_.feedback_path.empty()) {
    const std::string text = line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> lock(mu_);
    int fd = ::open(options_.feedback_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
    if (fd >= 0) ::close(fd);
    if (!ok) {
      spdlog::error("feedback {} could not be stored in {}", feedback_id, options_.feedback_path.string());
      return ApiError{"unavailable", "feedback could not be stored; retry", ""};
    }
  }
  const bool invalidated = answer_cache_.InvalidateAnswer(req.answer_id);
  metrics_.GetCounter("attest_feedback_total", "Feedback received, by kind", {{"kind", req.kind}})->Add();
  return json{{"request_id", ctx.request_id}, {"feedback_id", feedback_id}, {"answer_id", req.answer_id},
              {"cache_invalidated", invalidated}, {"versions", Versions()}}
      .dump();
}

}  // namespace attest::service
