#include "lexical/exhaustive_scorer.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "common/varint.h"
#include "lexical/postings_codec.h"
#include "lexical/segment_impl.h"

namespace attest {

namespace {

constexpr int kF = segfmt::kMaxFields;

struct Occurrence {
  uint32_t tf[kF] = {0, 0, 0, 0};
  std::set<uint32_t> pos[kF];
};

// Decodes a whole postings list, block by block, with positions.
std::map<uint32_t, Occurrence> DecodeAll(const SegmentImpl& seg, const TermPostings& tp) {
  std::map<uint32_t, Occurrence> out;
  uint32_t docs[segfmt::kBlockSize], tfb[kF][segfmt::kBlockSize];
  uint32_t* const tf[kF] = {tfb[0], tfb[1], tfb[2], tfb[3]};
  int64_t prev = -1;
  for (uint32_t b = 0; b < tp.num_blocks; ++b) {
    const segfmt::SkipEntry s = seg.skip(tp.first_skip + b);
    const uint32_t n = b + 1 < tp.num_blocks ? segfmt::kBlockSize : tp.df - b * segfmt::kBlockSize;
    codec::DecodeBlock(tp.postings + s.block_offset, n, seg.num_fields(), prev, docs, tf);
    prev = docs[n - 1];
    const uint8_t* p = tp.positions + s.positions_offset;
    const uint8_t* end = seg.positions_end();
    for (uint32_t i = 0; i < n; ++i) {
      Occurrence& o = out[docs[i]];
      const uint32_t tfs[kF] = {tf[0][i], tf[1][i], tf[2][i], tf[3][i]};
      for (int f = 0; f < kF; ++f) {
        o.tf[f] = tfs[f];
        uint64_t acc = 0;
        for (uint32_t j = 0; j < tfs[f] && p != nullptr; ++j) {
          uint64_t v;
          p = GetVarint(p, end, &v);
          if (p == nullptr) break;
          acc += v;
          o.pos[f].insert(static_cast<uint32_t>(acc));
        }
      }
    }
  }
  return out;
}

bool AnyOf(const std::vector<std::string>& allowed, const std::string& v) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

}  // namespace

bool FilterAdmits(const ChunkFilter& f, const ChunkAttributes& a) {
  if (f.tenant && a.tenant != *f.tenant) return false;
  if (!f.source_types.empty() && !AnyOf(f.source_types, a.source_type)) return false;
  if (!f.sites.empty() && !AnyOf(f.sites, a.site)) return false;
  if (!f.versions.empty() && !AnyOf(f.versions, a.version)) return false;
  if (f.date_from && (a.date == ChunkAttributes::kNoDate || a.date < *f.date_from)) return false;
  if (f.date_to && (a.date == ChunkAttributes::kNoDate || a.date > *f.date_to)) return false;
  if (f.labels && !AnyOf(*f.labels, a.access_label)) return false;
  if (f.groups && !a.acl_groups.empty()) {
    bool any = false;
    for (const auto& g : a.acl_groups) any = any || AnyOf(*f.groups, g);
    if (!any) return false;
  }
  return true;
}

CollectionStats ExhaustiveStats(const std::vector<SegmentView>& segments, const ChunkFilter& filter) {
  const ChunkFilter vis = filter.Visibility();
  auto visible = std::make_shared<std::vector<std::vector<bool>>>();
  CollectionStats cs;
  uint64_t total[kF] = {0, 0, 0, 0};
  for (const SegmentView& v : segments) {
    const SegmentImpl& seg = v.segment->impl();
    std::vector<bool>& bits = visible->emplace_back(seg.num_docs(), false);
    for (uint32_t d = 0; d < seg.num_docs(); ++d) {
      if (!FilterAdmits(vis, v.segment->attributes(d))) continue;
      bits[d] = true;
      ++cs.num_docs;
      for (int f = 0; f < kF; ++f) total[f] += seg.field_len(d, f);
    }
  }
  for (int f = 0; f < kF; ++f) cs.avg_len[f] = cs.num_docs ? double(total[f]) / double(cs.num_docs) : 0.0;
  cs.doc_freq = [visible, &segments](std::string_view term) {
    uint64_t df = 0;
    for (size_t i = 0; i < segments.size(); ++i) {
      const SegmentImpl& seg = segments[i].segment->impl();
      auto tp = seg.FindTerm(term);
      if (!tp) continue;
      for (const auto& [d, occ] : DecodeAll(seg, *tp)) df += (*visible)[i][d] ? 1 : 0;
    }
    return df;
  };
  return cs;
}

void ExhaustiveScoreSegment(const LexicalPlan& plan, const SegmentView& view, const ChunkFilter& filter,
                            std::vector<ScoredChunk>* out) {
  if (plan.matches_nothing) return;
  const Segment& segment = *view.segment;
  const SegmentImpl& seg = segment.impl();
  std::vector<std::map<uint32_t, Occurrence>> lists(plan.terms.size());
  std::set<uint32_t> candidates;
  for (size_t t = 0; t < plan.terms.size(); ++t) {
    if (auto tp = seg.FindTerm(plan.terms[t].text)) lists[t] = DecodeAll(seg, *tp);
    if (t < plan.num_scoring) {
      for (const auto& [d, o] : lists[t]) candidates.insert(d);
    }
  }
  auto present = [&](uint32_t t, uint32_t d) { return lists[t].count(d) > 0; };
  auto phrase = [&](const PlanClause& c, uint32_t d) {
    for (uint32_t t : c.terms) {
      if (!present(t, d)) return false;
    }
    for (int f = 0; f < kF; ++f) {
      for (uint32_t x : lists[c.terms[0]].at(d).pos[f]) {
        const int64_t base = int64_t(x) - c.rel[0];
        bool all = true;
        for (size_t i = 1; i < c.terms.size() && all; ++i) {
          const int64_t want = base + c.rel[i];
          all = want >= 0 && lists[c.terms[i]].at(d).pos[f].count(static_cast<uint32_t>(want)) > 0;
        }
        if (all) return true;
      }
    }
    return false;
  };
  auto clause_matches = [&](const PlanClause& c, uint32_t d) {
    return c.phrase ? phrase(c, d) : present(c.terms[0], d);
  };
  for (uint32_t d : candidates) {
    if (view.deleted && view.deleted->Test(d)) continue;
    if (!filter.empty() && !FilterAdmits(filter, segment.attributes(d))) continue;
    bool ok = true, any_should = false;
    for (const PlanClause& c : plan.clauses) {
      const bool m = clause_matches(c, d);
      if (c.occur == Occur::kMust && !m) ok = false;
      if (c.occur == Occur::kMustNot && m) ok = false;
      if (c.occur == Occur::kShould && m) any_should = true;
    }
    if (!ok || (!plan.has_must && !any_should)) continue;
    uint32_t lens[kF];
    for (int f = 0; f < kF; ++f) lens[f] = seg.field_len(d, f);
    const float norm = plan.scorer.DocNorm(lens);
    float score = 0;
    for (uint32_t t = 0; t < plan.num_scoring; ++t) {
      auto it = lists[t].find(d);
      if (it == lists[t].end()) continue;
      const Occurrence& o = it->second;
      score += plan.scorer.TermScore(plan.terms[t].idf, o.tf, norm);
    }
    out->push_back({segment.chunk_id(d), score});
  }
}

}  // namespace attest
