#include "engine/vector_leg.h"

#include <unistd.h>

#include <chrono>

#include <spdlog/spdlog.h>

#include "embed/embedder_factory.h"

namespace attest {
namespace fs = std::filesystem;

CorpusStream SnapshotCorpus(std::shared_ptr<const Snapshot> snap) {
  return [snap](const std::function<Status(std::string_view)>& visit) -> Status {
    std::unordered_map<uint64_t, std::string> titles;
    for (const SegmentView& view : snap->segments()) {
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
        for (size_t i = 0; i < records.size(); ++i) {
          auto t = titles.find(docs[i].get());
          if (t == titles.end()) {
            ATTEST_ASSIGN_OR_RETURN(DocumentRecord doc, snap->GetDocument(docs[i]));
            t = titles.emplace(docs[i].get(), doc.title).first;
          }
          ATTEST_RETURN_IF_ERROR(visit(ChunkEmbeddingText(t->second, records[i].section_path, records[i].text)));
        }
      }
    }
    return Status::Ok();
  };
}

VectorLeg::VectorLeg(Store* store, const EngineOptions& options)
    : store_(store), options_(options), files_(store->dir() / "vectors"), models_dir_(store->dir() / "models") {}

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

Result<std::shared_ptr<const Embedder>> VectorLeg::EmbedderOf(const EmbedderRecord& rec) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = embedders_.find(rec.key);
    if (it != embedders_.end()) return it->second;
  }
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, LoadEmbedder(rec, models_dir_));
  std::shared_ptr<const Embedder> shared = std::move(e);
  std::lock_guard<std::mutex> lock(mu_);
  embedders_[rec.key] = shared;
  return shared;
}

Result<std::shared_ptr<const VectorView>> VectorLeg::ViewOf(const Snapshot& snap) {
  if (!snap.embedder()) return std::shared_ptr<const VectorView>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_view_ && last_view_version_ == snap.version().get() &&
        last_view_->embedder->identity().Key() == snap.embedder()->key) {
      return last_view_;
    }
  }
  const EmbedderRecord& rec = *snap.embedder();
  auto view = std::make_shared<VectorView>();
  ATTEST_ASSIGN_OR_RETURN(view->embedder, EmbedderOf(rec));
  ATTEST_ASSIGN_OR_RETURN(view->segments, files_.Load(snap, rec.key));
  for (const auto& sv : view->segments) view->covered_docs += sv.view.segment->num_docs();
  for (const auto& v : snap.segments()) view->total_docs += v.segment->num_docs();
  view->identity = rec.name + " " + std::to_string(rec.dim) + " " + rec.version;
  std::lock_guard<std::mutex> lock(mu_);
  last_view_ = view;
  last_view_version_ = snap.version().get();
  return std::shared_ptr<const VectorView>(view);
}

Result<std::vector<float>> VectorLeg::EmbedQuery(const VectorView& view, const std::string& text) {
  const std::string key = view.embedder->identity().Key();
  if (auto hit = query_cache_.Get(key, text)) return std::move(*hit);
  std::string_view sv(text);
  ATTEST_ASSIGN_OR_RETURN(std::vector<float> v, view.embedder->Embed(std::span<const std::string_view>(&sv, 1),
                                                                      EmbedPurpose::kQuery));
  query_cache_.Put(key, text, v);
  return v;
}

Status VectorLeg::SyncActive(const std::shared_ptr<const Snapshot>& snap) {
  if (!snap->embedder()) return Status::Ok();
  ATTEST_ASSIGN_OR_RETURN(std::shared_ptr<const Embedder> embedder, EmbedderOf(*snap->embedder()));
  ATTEST_ASSIGN_OR_RETURN(VectorIndexType type, ParseVectorIndexType(snap->embedder()->config_json));
  VectorSyncArgs args;
  args.snapshot = snap.get();
  args.embedder = embedder.get();
  args.index = IndexConfig(type);
  args.threads = Threads();
  args.fault_hook = options_.fault_hook;
  ATTEST_RETURN_IF_ERROR(Fault("vectors.sync"));
  ATTEST_ASSIGN_OR_RETURN(VectorSyncStats st, files_.Sync(args));
  if (st.segments_built) {
    spdlog::info("vectors: built {} segment file(s): {} rows embedded, {} reused, {:.2f} s", st.segments_built,
                 st.rows_embedded, st.rows_reused, st.seconds);
  }
  std::set<SegmentId> live;
  for (const auto& v : store_->Pin()->segments()) live.insert(v.id);
  for (const auto& v : snap->segments()) live.insert(v.id);
  RemoveModelsExcept(snap->embedder()->model_file);
  return files_.RemoveExcept(live, snap->embedder()->key);
}

void VectorLeg::RemoveModelsExcept(const std::string& keep) {
  // Called with work_mu_ held, so no training of this process is writing its temporary model; a
  // killed process's temporary model and a model the switch made inactive go here.
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(models_dir_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == keep) continue;
    std::error_code rm;
    fs::remove(entry.path(), rm);
    if (rm) spdlog::warn("vectors: cannot remove {}: {}", entry.path().string(), rm.message());
  }
}

Status VectorLeg::RunPolicy() {
  std::unique_lock<std::mutex> work(work_mu_);
  std::shared_ptr<const Snapshot> snap = store_->Pin();
  ATTEST_ASSIGN_OR_RETURN(StoreStats stats, snap->Stats());
  if (!snap->embedder()) {
    const EmbedderOptions& o = options_.embedder;
    if (o.kind == EmbedderKind::kNone) return Status::Ok();
    if (IsCorpusKind(o.kind) && stats.chunks < o.min_chunks) {
      spdlog::debug("vectors: {} chunks, fewer than the {} needed to train a corpus model; BM25 only for now",
                   stats.chunks, o.min_chunks);
      return Status::Ok();
    }
    work.unlock();
    return ReembedWith(o, options_.vector_index).status();
  }
  const EmbedderRecord& rec = *snap->embedder();
  ATTEST_ASSIGN_OR_RETURN(EmbedderOptions active, ParseEmbedderConfigJson(rec.config_json));
  ATTEST_ASSIGN_OR_RETURN(VectorIndexType active_index, ParseVectorIndexType(rec.config_json));
  const double growth = options_.embedder.retrain_growth;
  if (IsCorpusKind(active.kind) && growth > 0 &&
      double(stats.chunks) >= double(rec.trained_chunks) * (1.0 + growth)) {
    spdlog::info("vectors: the corpus grew from {} to {} chunks since {} was trained; retraining", rec.trained_chunks,
                 stats.chunks, rec.name);
    active.min_chunks = options_.embedder.min_chunks;
    active.retrain_growth = growth;
    work.unlock();
    return ReembedWith(active, active_index).status();
  }
  return SyncActive(snap);
}

Result<ReembedReport> VectorLeg::Reembed(const EmbedderOptions& o) { return ReembedWith(o, options_.vector_index); }

Result<ReembedReport> VectorLeg::ReembedWith(const EmbedderOptions& o, VectorIndexType index) {
  std::lock_guard<std::mutex> work(work_mu_);
  if (o.kind == EmbedderKind::kNone) return Status::InvalidArgument("reembed: the embedder is 'none'");
  ReembedReport report;
  std::shared_ptr<const Snapshot> snap = store_->Pin();
  ATTEST_ASSIGN_OR_RETURN(StoreStats stats, snap->Stats());
  if (stats.chunks == 0) return Status::InvalidArgument("reembed: the store has no chunks to learn from or embed");

  std::shared_ptr<const Embedder> embedder;
  std::string model_file;
  if (IsCorpusKind(o.kind)) {
    std::error_code ec;
    fs::create_directories(models_dir_, ec);
    if (ec) return Status::IOError("cannot create " + models_dir_.string() + ": " + ec.message());
    const fs::path tmp = models_dir_ / ("training-" + std::to_string(::getpid()) + ".tmp-model");
    CorpusTrainingArgs args;
    args.corpus = SnapshotCorpus(snap);
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
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, LoadEmbedder(probe, models_dir_));
    embedder = std::move(e);
    spdlog::info("vectors: trained {} on {} texts ({} tokens, vocabulary {}) in {:.2f} s; model {} bytes",
                 info.identity.name, info.texts, info.tokens, info.vocabulary, report.train_seconds, info.model_bytes);
  } else {
    // A remote model: Create() learns its dimension from one probe call, then enforces it.
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, CreateRemoteEmbedder(o, 0));
    embedder = std::move(e);
  }
  const EmbedderIdentity& id = embedder->identity();

  const auto t1 = std::chrono::steady_clock::now();
  VectorSyncArgs args;
  args.snapshot = snap.get();
  args.embedder = embedder.get();
  args.index = IndexConfig(index);
  args.threads = Threads();
  args.fault_hook = options_.fault_hook;
  ATTEST_RETURN_IF_ERROR(Fault("vectors.build_files"));
  ATTEST_ASSIGN_OR_RETURN(VectorSyncStats st, files_.Sync(args));

  EmbedderRecord rec;
  rec.key = id.Key();
  rec.name = id.name;
  rec.dim = id.dim;
  rec.version = id.version;
  rec.model_file = model_file;
  rec.config_json = EmbedderConfigJson(o, index);
  rec.trained_chunks = stats.chunks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    embedders_[rec.key] = embedder;
  }
  ATTEST_RETURN_IF_ERROR(Fault("vectors.before_switch"));
  ATTEST_ASSIGN_OR_RETURN(SnapshotVersion v, store_->ActivateEmbedder(rec));
  // Segments committed while the files were built: embed them now. This also removes the older
  // models: they are no longer active anywhere a new pin can reach.
  ATTEST_RETURN_IF_ERROR(SyncActive(store_->Pin()));
  report.embed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  report.embedder = rec.name + " " + std::to_string(rec.dim) + " " + rec.version;
  report.chunks = stats.chunks;
  report.embedded = st.rows_embedded;
  report.reused = st.rows_reused;
  report.snapshot_version = v.get();
  return report;
}

Status VectorLeg::Fault(std::string_view point) const {
  return options_.fault_hook ? options_.fault_hook(point) : Status::Ok();
}

Status VectorLeg::AfterIngest() {
  if (!options_.background_vectors) return RunPolicy();
  std::lock_guard<std::mutex> lock(bg_mu_);
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
      std::lock_guard<std::mutex> lock(bg_mu_);
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
    std::lock_guard<std::mutex> lock(bg_mu_);
    t = std::move(bg_);
  }
  if (t.joinable()) t.join();
  std::lock_guard<std::mutex> lock(bg_mu_);
  return bg_status_;
}

void VectorLeg::FillStats(const Snapshot& snap, EngineStats* stats) {
  auto view = ViewOf(snap);
  if (!view.ok() || !*view) return;
  stats->embedder = (*view)->identity;
  stats->vector_chunks = (*view)->covered_docs;
  stats->vector_bytes = files_.BytesOf((*view)->segments, snap.embedder()->key);
  auto type = ParseVectorIndexType(snap.embedder()->config_json);
  if (type.ok()) stats->vector_index = VectorIndexTypeName(*type);
  std::error_code ec;
  if (!snap.embedder()->model_file.empty()) {
    uintmax_t n = fs::file_size(models_dir_ / snap.embedder()->model_file, ec);
    if (!ec) stats->model_bytes = n;
  }
}

}  // namespace attest
