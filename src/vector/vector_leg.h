// The engine's vector leg: which embedder is active, its model and vector files, training and
// re-embedding, and the per-snapshot view that searches use.
//
// Every tenant has an embedder of its own (docs/design.md, "Vector leg"): a corpus model is trained
// on that tenant's text only, so what one tenant stores never changes another tenant's vectors.
// Lifecycle, per tenant:
//   - After an ingestion, AfterIngest() applies the policy to every tenant: with no active embedder,
//     a corpus model is trained once the tenant has EmbedderOptions::min_chunks chunks (a remote
//     embedder is adopted at once); an active corpus model is retrained when the tenant's corpus has
//     grown by retrain_growth since it was trained; otherwise the vector files of the tenant's new
//     segments are built (rows of merged-away segments are reused, not embedded again).
//   - Reembed() trains (or adopts) a new embedder for each tenant, builds the vector files of the
//     tenant's segments for it, then switches with Store::ActivateEmbedder: a snapshot of its own.
//     Searches pinned before the switch keep the old embedder; segments committed during the build
//     are embedded right after.
//   - With EngineOptions::background_vectors, that work runs on one background thread; searches are
//     never blocked by it.
//
// Thread-safety: all public methods may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "attest/engine.h"
#include "common/thread_annotations.h"
#include "embed/embedder.h"
#include "embed/embedder_factory.h"
#include "embed/query_cache.h"
#include "store/store.h"
#include "vector/segment_vectors.h"

namespace attest {

// What a search needs from the vector leg for one snapshot.
struct VectorView {
  std::shared_ptr<const Embedder> embedder;
  std::vector<SegmentVectors> segments;  // segments with vectors of `embedder`
  uint64_t covered_docs = 0;             // rows (chunks) of those segments
  uint64_t total_docs = 0;               // rows of every segment of the snapshot
  std::string identity;                  // "name dim version"
};

class VectorLeg {
 public:
  VectorLeg(Store* store, const EngineOptions& options);
  ~VectorLeg();

  // The view of `tenant` at `snap`; null when the tenant has no active embedder at it. Cached per
  // snapshot version and tenant. An error names the tenant and what cannot be used: the model file
  // (relative to the data directory, with what is wrong with it) or the vector files.
  Result<std::shared_ptr<const VectorView>> ViewOf(const Snapshot& snap, const std::string& tenant);
  // Whether the active model of `tenant` (of every tenant with an active embedder when nullopt) at
  // `snap` loads: OK, or every failure joined by "; " (with the first failure's code). Loaded models
  // are cached; a model file that failed to load is not read again until it changes on disk (size,
  // time, inode), so readiness probes cost a stat() while it stays broken. (Vector files are never
  // fatal: a missing or bad one is left out of the view and rebuilt.)
  Status Check(const Snapshot& snap, const std::optional<std::string>& tenant);
  // Embeds a query with the view's embedder (cached by text and identity).
  Result<std::vector<float>> EmbedQuery(const VectorView& view, const std::string& text);

  Status AfterIngest();
  // Retrains (or re-adopts) the embedder of every tenant of the store.
  Result<ReembedReport> Reembed(const EmbedderOptions& options);
  Status Wait();

  // Statistics for `attest stats` (summed over tenants).
  void FillStats(const Snapshot& snap, EngineStats* stats);
  const QueryEmbeddingCache& query_cache() const { return query_cache_; }

 private:
  Status RunPolicy();
  Status RunTenantPolicy(const std::string& tenant);
  Status SyncTenant(const std::shared_ptr<const Snapshot>& snap, const std::string& tenant) REQUIRES(work_mu_);
  // Removes vector files and models that no tenant's active embedder uses.
  Status RemoveUnused() REQUIRES(work_mu_);
  Result<std::shared_ptr<const Embedder>> EmbedderOf(const EmbedderRecord& rec);
  VectorIndexConfig IndexConfig(VectorIndexType type) const;
  Result<ReembedReport> ReembedTenant(const std::string& tenant, const EmbedderOptions& options, VectorIndexType index);
  unsigned Threads() const;
  // Removes every file of models/ but `keep` (the active model): models made inactive by a switch
  // and temporary models of a killed training. Requires work_mu_.
  // Crash tests: EngineOptions::fault_hook at a named point of training, file builds or the switch.
  Status Fault(std::string_view point) const;

  Store* store_;
  EngineOptions options_;
  VectorFiles files_;
  std::filesystem::path models_dir_;
  RemoteEmbedderEnv remote_env_;  // credentials, injected embedder and clock of options_
  QueryEmbeddingCache query_cache_;

  Mutex mu_;  // guards the caches below
  std::map<std::string, std::shared_ptr<const Embedder>> embedders_ GUARDED_BY(mu_);  // by identity key
  std::map<std::string, std::pair<uint64_t, std::shared_ptr<const VectorView>>> last_views_
      GUARDED_BY(mu_);  // by tenant
  // Model files that failed to load, by embedder key: the file's stamp then and the error.
  std::map<std::string, std::pair<std::string, Status>> failed_models_ GUARDED_BY(mu_);

  Mutex work_mu_;  // one training/sync at a time
  Mutex bg_mu_;
  std::thread bg_ GUARDED_BY(bg_mu_);
  Status bg_status_ GUARDED_BY(bg_mu_);
  bool bg_pending_ GUARDED_BY(bg_mu_) = false;
  bool bg_running_ GUARDED_BY(bg_mu_) = false;
};

// Streams the text of every live chunk of `tenant` at `snap` (title, section, body) for corpus
// training.
CorpusStream SnapshotCorpus(std::shared_ptr<const Snapshot> snap, const std::string& tenant);

// The tenants with chunks at `snap` and their live chunk counts.
std::map<std::string, uint64_t> LiveChunksByTenant(const Snapshot& snap);

}  // namespace attest
