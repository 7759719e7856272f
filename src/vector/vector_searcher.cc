#include "vector/vector_searcher.h"

#include <algorithm>

#include "lexical/segment_filter.h"

namespace attest {
namespace {

// The caller's filter compiled against one segment, plus its deletions, as a VectorFilter.
class SegmentVectorFilter final : public VectorFilter {
 public:
  SegmentVectorFilter(const SegmentView& view, const ChunkFilter* filter)
      : view_(view), n_(view.segment->num_docs()) {
    if (filter && !filter->empty()) {
      sf_.emplace(view.segment->impl(), *filter);
      sf_->BuildBitmap();
    }
  }
  bool admits_nothing() const { return sf_ && sf_->admits_nothing(); }

  bool Admits(uint32_t local) const override {
    if (local >= n_) return false;
    if (view_.deleted && view_.deleted->Test(local)) return false;
    return !sf_ || sf_->empty() || sf_->AdmitsFast(local);
  }
  uint64_t EstimatedCount() const override {
    uint64_t live = n_ - (view_.deleted ? view_.deleted->count() : 0);
    if (!sf_ || sf_->empty()) return live;
    return std::min<uint64_t>(live, sf_->EstimatedCount());
  }
  std::vector<uint32_t> Materialize() const override {
    std::vector<uint32_t> out;
    if (!sf_ || sf_->empty()) {
      for (uint32_t d = 0; d < n_; ++d) {
        if (!view_.deleted || !view_.deleted->Test(d)) out.push_back(d);
      }
      return out;
    }
    for (uint32_t d : sf_->Materialize()) {
      if (!view_.deleted || !view_.deleted->Test(d)) out.push_back(d);
    }
    return out;
  }

 private:
  const SegmentView& view_;
  const uint32_t n_;
  std::optional<SegmentFilter> sf_;
};

}  // namespace

std::vector<ScoredChunk> SearchVectors(const std::vector<SegmentVectors>& segments, const VectorLegArgs& args) {
  std::vector<ScoredChunk> all;
  if (!args.query || args.k == 0) return all;
  for (const SegmentVectors& sv : segments) {
    SegmentVectorFilter filter(sv.view, args.filter);
    if (filter.admits_nothing()) continue;
    VectorSearchArgs va;
    va.query = args.query;
    va.k = args.k;
    const bool unfiltered = (!args.filter || args.filter->empty()) && !sv.view.deleted;
    va.filter = unfiltered ? nullptr : &filter;
    std::vector<VectorHit> hits = args.exact ? sv.index->Exact(va) : sv.index->Search(va);
    for (const VectorHit& h : hits) all.push_back(ScoredChunk{sv.view.segment->chunk_id(h.local), h.score});
  }
  std::sort(all.begin(), all.end(), [](const ScoredChunk& a, const ScoredChunk& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.id < b.id;
  });
  if (all.size() > args.k) all.resize(args.k);
  return all;
}

std::vector<ScoredChunk> ScoreChunks(const std::vector<SegmentVectors>& segments, const float* query,
                                     const std::vector<ChunkId>& ids) {
  std::vector<ScoredChunk> out;
  if (!query) return out;
  std::vector<float> row;
  for (ChunkId id : ids) {
    for (const SegmentVectors& sv : segments) {
      std::optional<LocalDoc> local = sv.view.segment->local_of(id);
      if (!local) continue;
      if (sv.view.deleted && sv.view.deleted->Test(*local)) break;
      row.resize(sv.index->dim());
      sv.index->Vector(*local, row.data());
      double dot = 0;
      for (size_t i = 0; i < row.size(); ++i) dot += double(row[i]) * query[i];
      out.push_back(ScoredChunk{id, static_cast<float>(dot)});
      break;
    }
  }
  std::sort(out.begin(), out.end(), [](const ScoredChunk& a, const ScoredChunk& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.id < b.id;
  });
  return out;
}

}  // namespace attest
