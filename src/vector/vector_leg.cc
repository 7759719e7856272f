#include "vector/vector_leg.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <set>

#include <spdlog/spdlog.h>

#include "embed/embedder_factory.h"

namespace attest {
namespace fs = std::filesystem;

std::map<std::string, uint64_t> LiveChunksByTenant(const Snapshot& snap) {
  std::map<std::string, uint64_t> out;
  for (const SegmentView& view : snap.segments()) {
    const std::optional<std::string> tenant = view.segment->sole_tenant();
    if (!tenant) continue;  // empty (or, before an upgrade, mixed) segments
    out[*tenant] += view.segment->num_docs() - (view.deleted ? view.deleted->count() : 0);
  }
  return out;
}

CorpusStream SnapshotCorpus(std::shared_ptr<const Snapshot> snap, const std::string& tenant) {
  return [snap, tenant](const std::function<Status(std::string_view)>& visit) -> Status {
    std::unordered_map<uint64_t, std::string> titles;
    for (const SegmentView& view : snap->segments()) {
      if (!SegmentOfTenant(view, tenant)) continue;
      const uint32_t n = view.segment->num_docs();
      for (uint32_t lo = 0; lo < n; lo += 1024) {
        std::vector<ChunkId> ids;
        for (uint32_t d = lo; d < std::min(n, lo + 1024); ++d) {
          if (!view.deleted || !view.deleted->Test(d)) ids.push_back(view.segment->chunk_id(d));
        }
        if (ids.empty()) continue;
        ATTEST_ASSIGN_OR_RETURN(std::vector<ChunkRecord> records, snap->GetChunks(ids));
        std::vector<ChunkId> got;
        for (const auto& r : records) got.push_back(r.id);
        ATTEST_ASSIGN_OR_RETURN(std::vector<DocNum> docs, snap->DocumentsOf(got));
        if (titles.size() > 100000) titles.clear();
        std::vector<DocNum> unread;  // documents of this batch without a title yet, read together
        for (DocNum d : docs) {
          if (titles.emplace(d.get(), std::string()).second) unread.push_back(d);  // filled below
        }
        ATTEST_ASSIGN_OR_RETURN(std::vector<DocumentRecord> read, snap->GetDocuments(unread));
        for (size_t i = 0; i < unread.size(); ++i) titles[unread[i].get()] = std::move(read[i].title);
        for (size_t i = 0; i < records.size(); ++i) {
          const std::string& title = titles.at(docs[i].get());
          ATTEST_RETURN_IF_ERROR(visit(ChunkEmbeddingText(title, records[i].section_path, records[i].text)));
        }
      }
    }
    return Status::Ok();
  };
}

VectorLeg::VectorLeg(Store* store, const EngineOptions& options)
    : store_(store),
      options_(options),
      files_(store->dir() / "vectors"),
      models_dir_(store->dir() / "models"),
      remote_env_{options.credentials, options.models.embedder, options.clock} {}

VectorLeg::~VectorLeg() { (void)Wait(); }

unsigned VectorLeg::Threads() const {
  return options_.threads ? options_.threads : std::max(1u, std::thread::hardware_concurrency());
}

VectorIndexConfig VectorLeg::IndexConfig(VectorIndexType type) const {
  VectorIndexConfig c;
  switch (type) {
    case VectorIndexType::kHnsw: c.kind = VectorIndexKind::kHnsw; break;
    case VectorIndexType::kFlat: c.kind = VectorIndexKind::kFlat; break;
    case VectorIndexType::kIvfPq: c.kind = VectorIndexKind::kIvfPq; break;
  }
  c.threads = Threads();
  return c;
}

namespace {

// A model file's identity on disk ("" when it cannot be stat'ed): a load that failed is retried
// only once this changes (the file was restored or replaced).
std::string FileStamp(const fs::path& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) +
         "." + std::to_string(st.st_mtim.tv_nsec);
}

std::string TenantName(const std::string& tenant) { return tenant.empty() ? "default" : tenant; }

// `message` with the data directory's path taken out of the file names in it: callers of the HTTP
// API see these messages, and where the data directory lives is not their business.
std::string RelativeToData(std::string message, const fs::path& data_dir) {
  const std::string prefix = (data_dir / "").string();
  for (size_t at; (at = message.find(prefix)) != std::string::npos;) message.erase(at, prefix.size());
  return message;
}

Status ModelError(const EmbedderRecord& rec, const fs::path& data_dir, const Status& error) {
  const std::string file = rec.model_file.empty() ? rec.name : "models/" + rec.model_file;
  return Status(error.code(), "the vector model " + file + " of tenant '" + TenantName(rec.tenant) +
                                  "' cannot be loaded: " + RelativeToData(error.message(), data_dir) +
                                  " (restore the file, or run `attest reembed` to train a new one)");
}

}  // namespace

Result<std::shared_ptr<const Embedder>> VectorLeg::EmbedderOf(const EmbedderRecord& rec) {
  const fs::path file = models_dir_ / rec.model_file;
  const std::string stamp = rec.model_file.empty() ? std::string() : FileStamp(file);
  {
    MutexLock lock(mu_);
    auto it = embedders_.find(rec.key);
    if (it != embedders_.end()) return it->second;
    auto failed = failed_models_.find(rec.key);
    if (failed != failed_models_.end() && !rec.model_file.empty() && failed->second.first == stamp) {
      return failed->second.second;
    }
  }
  Result<std::unique_ptr<Embedder>> loaded = LoadEmbedder(rec, models_dir_, remote_env_);
  if (!loaded.ok()) {
    Status error = ModelError(rec, store_->dir(), loaded.status());
    if (!rec.model_file.empty()) {
      MutexLock lock(mu_);
      auto& slot = failed_models_[rec.key];
      if (slot.first != stamp || slot.second.ok()) spdlog::error("vectors: {}", error.message());
      slot = {stamp, error};
    }
    return error;
  }
  std::shared_ptr<const Embedder> shared = std::move(loaded).value();
  MutexLock lock(mu_);
  failed_models_.erase(rec.key);
  embedders_[rec.key] = shared;
  return shared;
}

Status VectorLeg::Check(const Snapshot& snap, const std::optional<std::string>& tenant) {
  Status first;
  std::string all;
  for (const auto& [t, rec] : snap.embedders()) {
    if (tenant && t != *tenant) continue;
    Status s = EmbedderOf(rec).status();  // vector files are never fatal: a bad one is ignored and rebuilt
    if (s.ok()) continue;
    if (first.ok()) first = s;
    all += (all.empty() ? "" : "; ") + s.message();
  }
  return first.ok() ? first : Status(first.code(), all);
}

Result<std::shared_ptr<const VectorView>> VectorLeg::ViewOf(const Snapshot& snap, const std::string& tenant) {
  const EmbedderRecord* rec = snap.embedder(tenant);
  if (!rec) return std::shared_ptr<const VectorView>();
  {
    MutexLock lock(mu_);
    auto it = last_views_.find(tenant);
    if (it != last_views_.end() && it->second.first == snap.version().get() &&
        it->second.second->embedder->identity().Key() == rec->key) {
      return it->second.second;
    }
  }
  auto view = std::make_shared<VectorView>();
  ATTEST_ASSIGN_OR_RETURN(view->embedder, EmbedderOf(*rec));
  auto segments = files_.Load(snap, tenant, rec->key);
  if (!segments.ok()) {
    return Status(segments.status().code(), "the vector files of tenant '" + TenantName(tenant) +
                                                "' cannot be used: " +
                                                RelativeToData(segments.status().message(), store_->dir()));
  }
  view->segments = std::move(segments).value();
  for (const auto& sv : view->segments) view->covered_docs += sv.view.segment->num_docs();
  for (const auto& v : snap.segments()) {
    if (SegmentOfTenant(v, tenant)) view->total_docs += v.segment->num_docs();
  }
  view->identity = rec->name + " " + std::to_string(rec->dim) + " " + rec->version;
  MutexLock lock(mu_);
  last_views_[tenant] = {snap.version().get(), view};
  return std::shared_ptr<const VectorView>(view);
}

Result<std::vector<float>> VectorLeg::EmbedQuery(const VectorView& view, const std::string& text) {
  // The key is the model's identity: corpus models of different tenants differ in content and so in
  // key; tenants share an entry only when they share the very same model.
  const std::string key = view.embedder->identity().Key();
  if (auto hit = query_cache_.Get(key, text)) return std::move(*hit);
  std::string_view sv(text);
  ATTEST_ASSIGN_OR_RETURN(std::vector<float> v, view.embedder->Embed(std::span<const std::string_view>(&sv, 1),
                                                                      EmbedPurpose::kQuery));
  query_cache_.Put(key, text, v);
  return v;
}

Status VectorLeg::SyncTenant(const std::shared_ptr<const Snapshot>& snap, const std::string& tenant) {
  const EmbedderRecord* rec = snap->embedder(tenant);
  if (!rec) return Status::Ok();
  ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const Embedder> embedder, EmbedderOf(*rec));
  ATTEST_ASSIGN_OR_RETURN(VectorIndexType type, ParseVectorIndexType(rec->config_json));
  VectorSyncArgs args;
  args.snapshot = snap.get();
  args.tenant = tenant;
  args.embedder = embedder.get();
  args.index = IndexConfig(type);
  args.threads = Threads();
  args.fault_hook = options_.fault_hook;
  ATTEST_RETURN_IF_ERROR(Fault("vectors.sync"));
  ATTEST_ASSIGN_OR_RETURN(VectorSyncStats st, files_.Sync(args));
  if (st.segments_built) {
    spdlog::info("vectors: built {} segment file(s) of tenant '{}': {} rows embedded, {} reused, {:.2f} s",
                 st.segments_built, tenant, st.rows_embedded, st.rows_reused, st.seconds);
  }
  return Status::Ok();
}

Status VectorLeg::RemoveUnused() {
  // Keep the files of every live segment under its tenant's active embedder, and their models.
  std::shared_ptr<const Snapshot> snap = store_->Pin();
  std::map<SegmentId, std::string> keep;
  std::set<std::string> models;
  for (const SegmentView& v : snap->segments()) {
    const std::optional<std::string> tenant = v.segment->sole_tenant();
    if (!tenant) continue;
    if (const EmbedderRecord* rec = snap->embedder(*tenant)) keep[v.id] = rec->key;
  }
  for (const auto& [tenant, rec] : snap->embedders()) {
    if (!rec.model_file.empty()) models.insert(rec.model_file);
  }
  ATTEST_RETURN_IF_ERROR(files_.RemoveExcept(keep));
  std::error_code ec;
  if (!fs::is_directory(models_dir_, ec)) return Status::Ok();
  for (const auto& entry : fs::directory_iterator(models_dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (!models.count(name)) fs::remove(entry.path(), ec);
  }
  return Status::Ok();
}

Status VectorLeg::RunTenantPolicy(const std::string& tenant) {
  MutexLock work(work_mu_);
  std::shared_ptr<const Snapshot> snap = store_->Pin();
  const uint64_t chunks = LiveChunksByTenant(*snap)[tenant];
  const EmbedderRecord* rec = snap->embedder(tenant);
  if (!rec) {
    const EmbedderOptions& o = options_.embedder;
    if (o.kind == EmbedderKind::kNone) return Status::Ok();
    if (IsCorpusKind(o.kind) && chunks < o.min_chunks) {
      spdlog::debug("vectors: tenant '{}' has {} chunks, fewer than the {} needed to train a corpus model; BM25 only "
                    "for now", tenant, chunks, o.min_chunks);
      return Status::Ok();
    }
    work.Unlock();
    return ReembedTenant(tenant, o, options_.vector_index).status();
  }
  ATTEST_ASSIGN_OR_RETURN(EmbedderOptions active, ParseEmbedderConfigJson(rec->config_json));
  ATTEST_ASSIGN_OR_RETURN(VectorIndexType active_index, ParseVectorIndexType(rec->config_json));
  const double growth = options_.embedder.retrain_growth;
  if (IsCorpusKind(active.kind) && growth > 0 && double(chunks) >= double(rec->trained_chunks) * (1.0 + growth)) {
    spdlog::info("vectors: tenant '{}' grew from {} to {} chunks since {} was trained; retraining", tenant,
                 rec->trained_chunks, chunks, rec->name);
    active.min_chunks = options_.embedder.min_chunks;
    active.retrain_growth = growth;
    work.Unlock();
    return ReembedTenant(tenant, active, active_index).status();
  }
  return SyncTenant(snap, tenant);
}

Status VectorLeg::RunPolicy() {
  Status first;
  for (const auto& [tenant, chunks] : LiveChunksByTenant(*store_->Pin())) {
    Status s = RunTenantPolicy(tenant);
    if (!s.ok()) {
      spdlog::warn("vectors: tenant '{}': {}", tenant, s.ToString());
      if (first.ok()) first = s.WithContext("tenant '" + tenant + "'");
    }
  }
  MutexLock work(work_mu_);
  Status removed = RemoveUnused();
  return first.ok() ? removed : first;
}

Result<ReembedReport> VectorLeg::Reembed(const EmbedderOptions& o) {
  if (o.kind == EmbedderKind::kNone) return Status::InvalidArgument("reembed: the embedder is 'none'");
  const std::map<std::string, uint64_t> tenants = LiveChunksByTenant(*store_->Pin());
  if (tenants.empty()) return Status::InvalidArgument("reembed: the store has no chunks to learn from or embed");
  ReembedReport total;
  std::set<std::string> identities;
  Status first;
  // An explicit reembed trains every tenant, whatever the automatic threshold (min_chunks); a
  // tenant whose model cannot be trained is reported and the others proceed.
  for (const auto& [tenant, chunks] : tenants) {
    auto r = ReembedTenant(tenant, o, options_.vector_index);
    if (!r.ok()) {
      spdlog::warn("vectors: reembed of tenant '{}' failed: {}", tenant, r.status().ToString());
      total.skipped_tenants.push_back(tenant);
      if (first.ok()) first = r.status().WithContext("tenant '" + tenant + "'");
      continue;
    }
    identities.insert(r->embedder);
    total.chunks += r->chunks;
    total.embedded += r->embedded;
    total.reused += r->reused;
    total.train_seconds += r->train_seconds;
    total.embed_seconds += r->embed_seconds;
    total.model_bytes += r->model_bytes;
    total.snapshot_version = r->snapshot_version;
    total.tenants.push_back(tenant);
  }
  if (total.tenants.empty()) return first;
  total.embedder = identities.size() == 1 ? *identities.begin()
                                          : std::to_string(identities.size()) + " models (one per tenant)";
  MutexLock work(work_mu_);
  ATTEST_RETURN_IF_ERROR(RemoveUnused());
  return total;
}

Result<ReembedReport> VectorLeg::ReembedTenant(const std::string& tenant, const EmbedderOptions& o,
                                               VectorIndexType index) {
  MutexLock work(work_mu_);
  if (o.kind == EmbedderKind::kNone) return Status::InvalidArgument("reembed: the embedder is 'none'");
  ReembedReport report;
  std::shared_ptr<const Snapshot> snap = store_->Pin();
  const uint64_t chunks = LiveChunksByTenant(*snap)[tenant];
  if (chunks == 0) return Status::InvalidArgument("reembed: tenant '" + tenant + "' has no chunks");

  std::shared_ptr<const Embedder> embedder;
  std::string model_file;
  if (IsCorpusKind(o.kind)) {
    std::error_code ec;
    fs::create_directories(models_dir_, ec);
    if (ec) return Status::IOError("cannot create " + models_dir_.string() + ": " + ec.message());
    const fs::path tmp = models_dir_ / ("training-" + std::to_string(::getpid()) + ".tmp-model");
    CorpusTrainingArgs args;
    args.corpus = SnapshotCorpus(snap, tenant);
    args.model_path = tmp;
    args.threads = Threads();
    const auto t0 = std::chrono::steady_clock::now();
    ATTEST_RETURN_IF_ERROR(Fault("vectors.train"));
    ATTEST_ASSIGN_OR_RETURN(TrainedModelInfo info, TrainCorpusModel(o.kind, o, args));
    report.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report.model_bytes = info.model_bytes;
    model_file = std::string(EmbedderKindName(o.kind)) + "-" + info.identity.Key() + ".model";
    ATTEST_RETURN_IF_ERROR(Fault("vectors.before_model_rename"));
    fs::rename(tmp, models_dir_ / model_file, ec);
    if (ec) return Status::IOError("cannot rename " + tmp.string() + ": " + ec.message());
    EmbedderRecord probe;
    probe.key = info.identity.Key();
    probe.model_file = model_file;
    probe.config_json = EmbedderConfigJson(o, index);
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, LoadEmbedder(probe, models_dir_, remote_env_));
    embedder = std::move(e);
    spdlog::info("vectors: trained {} for tenant '{}' on {} texts ({} tokens, vocabulary {}) in {:.2f} s; model {} bytes",
                 info.identity.name, tenant, info.texts, info.tokens, info.vocabulary, report.train_seconds,
                 info.model_bytes);
  } else {
    // A remote model: Create() learns its dimension from one probe call, then enforces it.
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, CreateRemoteEmbedder(o, 0, remote_env_));
    embedder = std::move(e);
  }
  const EmbedderIdentity& id = embedder->identity();

  const auto t1 = std::chrono::steady_clock::now();
  VectorSyncArgs args;
  args.snapshot = snap.get();
  args.tenant = tenant;
  args.embedder = embedder.get();
  args.index = IndexConfig(index);
  args.threads = Threads();
  args.fault_hook = options_.fault_hook;
  ATTEST_RETURN_IF_ERROR(Fault("vectors.build_files"));
  ATTEST_ASSIGN_OR_RETURN(VectorSyncStats st, files_.Sync(args));

  EmbedderRecord rec;
  rec.tenant = tenant;
  rec.key = id.Key();
  rec.name = id.name;
  rec.dim = id.dim;
  rec.version = id.version;
  rec.model_file = model_file;
  rec.config_json = EmbedderConfigJson(o, index);
  rec.trained_chunks = chunks;
  {
    MutexLock lock(mu_);
    embedders_[rec.key] = embedder;
  }
  ATTEST_RETURN_IF_ERROR(Fault("vectors.before_switch"));
  ATTEST_ASSIGN_OR_RETURN(SnapshotVersion v, store_->ActivateEmbedder(rec));
  // Segments committed while the files were built: embed them now.
  ATTEST_RETURN_IF_ERROR(SyncTenant(store_->Pin(), tenant));
  report.embed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  report.embedder = rec.name + " " + std::to_string(rec.dim) + " " + rec.version;
  report.chunks = chunks;
  report.embedded = st.rows_embedded;
  report.reused = st.rows_reused;
  report.snapshot_version = v.get();
  report.tenants.push_back(tenant);
  return report;
}

Status VectorLeg::Fault(std::string_view point) const {
  return options_.fault_hook ? options_.fault_hook(point) : Status::Ok();
}

Status VectorLeg::AfterIngest() {
  if (!options_.background_vectors) return RunPolicy();
  MutexLock lock(bg_mu_);
  if (bg_running_) {
    bg_pending_ = true;
    return Status::Ok();
  }
  if (bg_.joinable()) bg_.join();
  bg_running_ = true;
  bg_ = std::thread([this] {
    for (;;) {
      Status s = RunPolicy();
      if (!s.ok()) spdlog::error("vectors: background work failed: {}", s.ToString());
      MutexLock lock(bg_mu_);
      bg_status_ = s;
      if (bg_pending_) {
        bg_pending_ = false;
        continue;
      }
      bg_running_ = false;
      return;
    }
  });
  return Status::Ok();
}

Status VectorLeg::Wait() {
  std::thread t;
  {
    MutexLock lock(bg_mu_);
    t = std::move(bg_);
  }
  if (t.joinable()) t.join();
  MutexLock lock(bg_mu_);
  return bg_status_;
}

void VectorLeg::FillStats(const Snapshot& snap, EngineStats* stats) {
  std::set<std::string> identities, kinds;
  for (const auto& [tenant, rec] : snap.embedders()) {
    auto view = ViewOf(snap, tenant);
    if (!view.ok() || !*view) continue;
    identities.insert((*view)->identity);
    stats->vector_chunks += (*view)->covered_docs;
    stats->vector_bytes += files_.BytesOf((*view)->segments, rec.key);
    auto type = ParseVectorIndexType(rec.config_json);
    if (type.ok()) kinds.insert(VectorIndexTypeName(*type));
    std::error_code ec;
    if (!rec.model_file.empty()) {
      uintmax_t n = fs::file_size(models_dir_ / rec.model_file, ec);
      if (!ec) stats->model_bytes += n;
    }
  }
  stats->embedder_tenants = snap.embedders().size();
  if (identities.size() == 1) {
    stats->embedder = *identities.begin();
  } else if (!identities.empty()) {
    stats->embedder = std::to_string(identities.size()) + " models (one per tenant)";
  }
  for (const auto& k : kinds) stats->vector_index += (stats->vector_index.empty() ? "" : ",") + k;
}

}  // namespace attest
