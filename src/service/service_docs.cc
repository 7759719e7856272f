// Service: documents (admin). Threads and feedback are in service_threads.cc.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "service/service.h"
#include "service/service_internal.h"

namespace attest::service {

using nlohmann::json;

namespace {

// Chunk ids as the plain numbers of the wire format, the audit log and the answer cache.
std::vector<uint64_t> ChunkNumbers(const std::vector<ChunkId>& ids) {
  std::vector<uint64_t> out;
  out.reserve(ids.size());
  for (ChunkId id : ids) out.push_back(id.get());
  return out;
}

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
  s.license = std::move(in.license);
  s.fetched_at = std::move(in.fetched_at);
  s.metadata = std::move(in.metadata);
  return s;
}

ApiError AdminOnly(const char* what) {
  return ApiError{ApiErrorCode::kForbidden, std::string(what) + " needs an admin credential", ""};
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
  if (!r.ok()) return internal::FromStatus(r.status(), "documents", internal::LimitsOf::kCallerInput);
  if (!r->superseded_chunks.empty()) answer_cache_.InvalidateChunks(ChunkNumbers(r->superseded_chunks));
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

void Service::DocumentsChanged(const std::vector<ChunkId>& superseded_chunks) {
  if (!superseded_chunks.empty()) answer_cache_.InvalidateChunks(ChunkNumbers(superseded_chunks));
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
      return ApiError{ApiErrorCode::kNotFound, "no document '" + id + "' that you can read", "id"};
    }
    return internal::FromStatus(d.status(), "id", internal::LimitsOf::kCallerInput);
  }
  AuditRecord rec;
  rec.tenant = tenant.value();
  rec.outcome = "document_read";
  rec.snapshot = d->snapshot_version;
  rec.chunks_given = ChunkNumbers(d->chunk_ids);
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
              {"license", d->license},
              {"published", d->published},
              {"updated", d->updated},
              {"acl_groups", d->acl_groups},
              {"access_label", d->access_label},
              {"sha256", d->sha256},
              {"bytes", d->bytes},
              {"chunk_ids", ChunkNumbers(d->chunk_ids)},
              {"text", d->text},
              {"created_snapshot", d->created_snapshot},
              {"fetched_at", d->fetched_at},
              {"snapshot_version", d->snapshot_version},
              {"versions", Versions()}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

ApiResult<std::string> Service::ListDocuments(const Identity& who, const DocumentListRequest& req,
                                              const RequestContext& ctx) {
  if (!who.admin) return AdminOnly("listing documents");
  auto tenant = EffectiveTenant(who, req.tenant);
  if (!tenant.ok()) return tenant.error();
  ApiResult<AuditSlot> slot = ReserveAudit();
  if (!slot.ok()) return slot.error();
  ListDocumentsOptions o;
  o.tenant = internal::StoreTenant(tenant.value());
  o.limit = req.limit;
  o.after_id = req.after_id;
  if (req.source_type) o.source_types.push_back(*req.source_type);
  if (req.site) o.sites.push_back(*req.site);
  if (req.version) o.versions.push_back(*req.version);
  o.text = req.q.value_or("");
  o.date_from = req.date_from;
  o.date_to = req.date_to;
  Result<DocumentListing> r = engine_.ListDocuments(o);
  if (!r.ok()) return internal::FromStatus(r.status(), "limit", internal::LimitsOf::kCallerInput);
  json docs = json::array();
  for (const DocumentSummary& d : r->documents) {
    docs.push_back({{"id", d.id},
                    {"title", d.title},
                    {"url", d.url},
                    {"site", d.site},
                    {"version", d.version},
                    {"source_type", d.source_type},
                    {"language", d.language},
                    {"feed", d.feed},
                    {"license", d.license},
                    {"published", d.published},
                    {"updated", d.updated},
                    {"access_label", d.access_label},
                    {"acl_groups", d.acl_groups},
                    {"chunks", d.chunks},
                    {"bytes", d.bytes},
                    {"created_snapshot", d.created_snapshot},
                    {"fetched_at", d.fetched_at}});
  }
  json corrupt = json::array();
  for (const CorruptDocument& c : r->corrupt) corrupt.push_back({{"id", c.id}, {"message", c.message}});
  AuditRecord rec;
  rec.tenant = tenant.value();
  rec.outcome = "documents_listed";
  rec.snapshot = r->snapshot_version;
  Audit(std::move(slot).value(), who, ctx, std::move(rec));
  return json{{"request_id", ctx.request_id},
              {"tenant", tenant.value()},
              {"documents", std::move(docs)},
              {"corrupt", std::move(corrupt)},
              {"next_cursor", r->next_after_id ? json(DocumentListCursor(*r->next_after_id)) : json(nullptr)},
              {"total", r->total},
              {"snapshot_version", r->snapshot_version},
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
  if (auto before = engine_.GetDocument(FilterFor(who, tenant.value()), id); before.ok()) chunks = ChunkNumbers(before->chunk_ids);
  Result<uint64_t> r = engine_.Delete(internal::StoreTenant(tenant.value()), id);
  if (!r.ok()) {
    if (r.status().code() == StatusCode::kNotFound) {
      // Idempotent: deleting what is not there is not an error of the caller's request shape.
      return ApiError{ApiErrorCode::kNotFound, "no document '" + id + "' in tenant '" + tenant.value() + "'", "id"};
    }
    return internal::FromStatus(r.status(), "id", internal::LimitsOf::kCallerInput);
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

}  // namespace attest::service
