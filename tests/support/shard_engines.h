// Engines for cluster tests: a BM25-only store (no embedder: a cluster searches BM25 only), opened
// with one thread (a failure to open fails the test that asked); and a shard client that forwards.
#pragma once

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "attest/engine.h"
#include "cluster/scatter_search.h"

namespace attest::testing_support {

inline std::unique_ptr<Engine> OpenBm25Engine(const std::string& dir) {
  EngineOptions o;
  o.data_dir = dir;
  o.embedder.kind = EmbedderKind::kNone;
  o.threads = 1;
  auto e = Engine::Open(o);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

// A shard client that passes every call to another; tests override the calls they make fail.
class ForwardingShard : public ShardClient {
 public:
  explicit ForwardingShard(const ShardClient* inner) : inner_(inner) {}
  const std::string& name() const override { return inner_->name(); }
  Result<ShardStatistics> Statistics(const ShardCall& c, const SearchOptions& o) const override {
    return inner_->Statistics(c, o);
  }
  Result<SearchResult> Search(const ShardCall& c, const SearchOptions& o, const ShardStatistics& g,
                              uint64_t v) const override {
    return inner_->Search(c, o, g, v);
  }
  Result<ShardHealth> Health(const ShardCall& c) const override { return inner_->Health(c); }
  Result<DocumentInfo> Document(const ShardCall& c, const SearchFilter& f, const std::string& id) const override {
    return inner_->Document(c, f, id);
  }
  Result<DocumentListing> Documents(const ShardCall& c, const ListDocumentsOptions& o) const override {
    return inner_->Documents(c, o);
  }
  Result<ShardStatistics> TermStatistics(const ShardCall& c, const SearchFilter& f,
                                         const std::vector<std::string>& t) const override {
    return inner_->TermStatistics(c, f, t);
  }
  Result<std::vector<ChunkContent>> Chunks(const ShardCall& c, const SearchFilter& f,
                                           const std::vector<ChunkId>& ids) const override {
    return inner_->Chunks(c, f, ids);
  }
  Result<std::vector<CitationState>> Citations(const ShardCall& c, const SearchFilter& f,
                                               const std::vector<CitedChunk>& cited) const override {
    return inner_->Citations(c, f, cited);
  }
  Result<std::vector<SourceInfo>> Sources(const ShardCall& c, const SearchFilter& f,
                                          const std::vector<std::string>& ids) const override {
    return inner_->Sources(c, f, ids);
  }

 protected:
  const ShardClient* inner_;
};

}  // namespace attest::testing_support
