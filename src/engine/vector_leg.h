// The engine's vector leg: which embedder is active, its model and vector files, training and
// re-embedding, and the per-snapshot view that searches use.
//
// Lifecycle (docs/design.md, "Vector leg"):
//   - After an ingestion, AfterIngest() applies the policy: with no active embedder, a corpus model
//     is trained once the corpus has EmbedderOptions::min_chunks chunks (a remote embedder is
//     adopted at once); an active corpus model is retrained when the corpus has grown by
//     retrain_growth since it was trained; otherwise the vector files of new segments are built
//     (rows of merged-away segments are reused, not embedded again).
//   - Reembed() trains (or adopts) a new embedder, builds the vector files of every segment for it,
//     then switches with Store::ActivateEmbedder: a snapshot of its own. Searches pinned before the
//     switch keep the old embedder; segments committed during the build are embedded right after.
//   - With EngineOptions::background_vectors, that work runs on one background thread; searches are
//     never blocked by it.
//
// Thread-safety: all public methods may be called concurrently.
#pragma once

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "attest/engine.h"
#include "embed/embedder.h"
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

  // The view of `snap`; null when no embedder is active at it. Cached per snapshot version.
  Result<std::shared_ptr<const VectorView>> ViewOf(const Snapshot& snap);
  // Embeds a query with the view's embedder (cached by text and identity).
  Result<std::vector<float>> EmbedQuery(const VectorView& view, const std::string& text);

  Status AfterIngest();
  Result<ReembedReport> Reembed(const EmbedderOptions& options);
  Status Wait();

  // Statistics for `attest stats`.
  void FillStats(const Snapshot& snap, EngineStats* stats);
  const QueryEmbeddingCache& query_cache() const { return query_cache_; }

 private:
  Status RunPolicy();
  Status SyncActive(const std::shared_ptr<const Snapshot>& snap);
  Result<std::shared_ptr<const Embedder>> EmbedderOf(const EmbedderRecord& rec);
  VectorIndexConfig IndexConfig(VectorIndexType type) const;
  Result<ReembedReport> ReembedWith(const EmbedderOptions& options, VectorIndexType index);
  unsigned Threads() const;
  // Removes every file of models/ but `keep` (the active model): models made inactive by a switch
  // and temporary models of a killed training. Requires work_mu_.
  void RemoveModelsExcept(const std::string& keep);
  // Crash tests: EngineOptions::fault_hook at a named point of training, file builds or the switch.
  Status Fault(std::string_view point) const;

  Store* store_;
  EngineOptions options_;
  VectorFiles files_;
  std::filesystem::path models_dir_;
  QueryEmbeddingCache query_cache_;

  std::mutex mu_;  // guards the caches below
  std::map<std::string, std::shared_ptr<const Embedder>> embedders_;  // by identity key
  std::shared_ptr<const VectorView> last_view_;
  uint64_t last_view_version_ = 0;

  std::mutex work_mu_;  // one training/sync at a time
  std::mutex bg_mu_;
  std::thread bg_;
  Status bg_status_;
  bool bg_pending_ = false;
  bool bg_running_ = false;
};

// Streams the text of every live chunk of `snap` (title, section, body) for corpus training.
CorpusStream SnapshotCorpus(std::shared_ptr<const Snapshot> snap);

}  // namespace attest
