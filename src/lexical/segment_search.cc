#include "lexical/segment_search.h"

#include <algorithm>

#include "lexical/phrase.h"

namespace attest {

namespace {

// Conservative "can never reach the threshold": the bound, inflated by the same relative slack
// as the per-term bounds (covering float summation-order differences), is still strictly below.
inline bool Below(float bound, float theta) { return bound * Bm25Scorer::kSlack + Bm25Scorer::kTiny < theta; }

}  // namespace

SegmentSearch::SegmentSearch(const LexicalPlan& plan, const SegmentView& view, const ChunkFilter& filter,
                             TopKHeap* heap, LexicalSearchStats* stats)
    : plan_(plan),
      seg_(view.segment->impl()),
      deleted_(view.deleted.get()),
      filter_(seg_, filter),
      heap_(heap),
      stats_(stats) {
  terms_.resize(plan.terms.size());
  for (uint32_t i = 0; i < plan.terms.size(); ++i) {
    auto tp = seg_.FindTerm(plan.terms[i].text);
    if (!tp) continue;
    Term& t = terms_[i];
    t.cur = std::make_unique<PostingsCursor>(seg_, *tp);
    t.idf = plan.terms[i].idf;
    if (i < plan.num_scoring) {
      for (uint32_t b = 0; b < t.cur->num_blocks(); ++b) {
        const segfmt::SkipEntry s = t.cur->block_entry(b);
        t.ub = std::max(t.ub, plan.scorer.UpperBound(t.idf, s.max_tf, s.min_len));
      }
    }
  }
  contrib_.assign(plan.num_scoring, 0.0f);
  for (int f = 0; f < segfmt::kMaxFields; ++f) {
    for (int c = 0; c < 256; ++c) wlen_[f][c] = plan.scorer.weight(f) * float(LengthFromCode(static_cast<uint8_t>(c)));
  }
  for (const PlanClause& c : plan.clauses) {
    if (c.occur != Occur::kMust) continue;
    for (uint32_t t : c.terms) {
      if (std::find(required_.begin(), required_.end(), t) == required_.end()) required_.push_back(t);
    }
  }
  for (uint32_t t = 0; t < plan.num_scoring; ++t) {
    if (terms_[t].cur && std::find(required_.begin(), required_.end(), t) == required_.end()) optional_.push_back(t);
  }
}

void SegmentSearch::Run() {
  if (plan_.matches_nothing || filter_.admits_nothing() || seg_.num_docs() == 0) return;
  uint64_t work = 0;
  if (plan_.has_must) {
    work = UINT64_MAX;
    for (uint32_t t : required_) {
      if (!terms_[t].cur) return;  // a required term is absent: nothing matches here
      work = std::min<uint64_t>(work, terms_[t].cur->df());
    }
  } else {
    for (uint32_t t = 0; t < plan_.num_scoring; ++t) {
      if (terms_[t].cur) work += terms_[t].cur->df();
    }
    if (work == 0) return;
  }
  if (!filter_.empty() && filter_.EstimatedCount() * kDriveRatio < work) {
    const std::vector<uint32_t> admitted = filter_.Materialize();
    filter_in_lists_ = true;
    if (plan_.has_must) RunConjunctive(&admitted); else RunDriven(admitted);
    return;
  }
  // Not selective enough to drive: test admission per candidate, with a bitmap of the driving
  // lists checked first (before any scoring) when the filter has them.
  filter_.BuildBitmap();
  if (plan_.has_must) RunConjunctive(nullptr); else RunDisjunctive();
}

float SegmentSearch::BlockUb(uint32_t t, uint32_t d) {
  PostingsCursor* cur = terms_[t].cur.get();
  if (!cur || cur->doc() > d) return 0.0f;
  const uint32_t b = cur->ShallowBlock(d);
  if (b >= cur->num_blocks()) return 0.0f;
  Term& term = terms_[t];
  if (term.ub_block != b) {
    const segfmt::SkipEntry s = cur->block_entry(b);
    term.ub_block = b;
    term.ub_block_value = plan_.scorer.UpperBound(term.idf, s.max_tf, s.min_len);
  }
  return term.ub_block_value;
}

bool SegmentSearch::PhraseMatches(const PlanClause& c, uint32_t d) {
  const size_t m = c.terms.size();
  for (uint32_t t : c.terms) {
    if (!Present(t, d)) return false;
  }
  constexpr int kF = segfmt::kMaxFields;
  if (phrase_pos_.size() < m * kF) phrase_pos_.resize(m * kF);
  for (size_t i = 0; i < m; ++i) terms_[c.terms[i]].cur->Positions(&phrase_pos_[i * kF]);
  std::vector<const std::vector<uint32_t>*> ptrs(m);
  for (int f = 0; f < kF; ++f) {
    for (size_t i = 0; i < m; ++i) ptrs[i] = &phrase_pos_[i * kF + f];
    if (PhraseMatchesInField(ptrs, c.rel)) return true;
  }
  return false;
}

bool SegmentSearch::Excluded(uint32_t d) {
  for (const PlanClause& c : plan_.clauses) {
    if (c.occur != Occur::kMustNot) continue;
    if (c.phrase ? PhraseMatches(c, d) : Present(c.terms[0], d)) return true;
  }
  return false;
}

void SegmentSearch::Score(uint32_t d, const std::vector<uint32_t>& known, const std::vector<uint32_t>& rest,
                          const std::vector<float>& rest_bound) {
  const Bm25Scorer& sc = plan_.scorer;
  const float theta = heap_->prune_below();
  if (deleted_ && deleted_->Test(d)) {
    if (stats_) ++stats_->docs_filtered;
    return;
  }
  if (!filter_in_lists_ && filter_.has_bitmap() && !filter_.AdmitsFast(d)) {
    if (stats_) ++stats_->docs_filtered;
    return;
  }
  if (heap_->full()) {
    // Bound first: exact tfs with lengths from the one-byte codes (lower bounds of the lengths,
    // so an upper bound of the score); the exact lengths are a likely cache miss, read last.
    const uint8_t* codes = seg_.length_codes(d);
    const float norm_lb = sc.NormOfWeightedLength(wlen_[0][codes[0]] + wlen_[1][codes[1]] + wlen_[2][codes[2]] +
                                                  wlen_[3][codes[3]]);
    float ub = 0;
    for (uint32_t t : known) {
      PostingsCursor* cur = terms_[t].cur.get();
      if (cur->doc() == d) ub += sc.TermScore(terms_[t].idf, cur->tfs(), norm_lb);
    }
    for (size_t j = 0; j < rest.size(); ++j) {
      if (Below(ub + rest_bound[j], theta)) return;
      const uint32_t t = rest[j];
      if (!Present(t, d)) continue;
      PostingsCursor* cur = terms_[t].cur.get();
      ub += sc.TermScore(terms_[t].idf, cur->tfs(), norm_lb);
    }
    if (Below(ub, theta)) return;
  } else {
    for (uint32_t t : rest) Present(t, d);
  }
  // The filter reads the attribute columns (a likely cache miss): after the bound, before the heap.
  if (!filter_in_lists_ && !filter_.has_bitmap() && !filter_.Admits(d)) {
    if (stats_) ++stats_->docs_filtered;
    return;
  }
  if (Excluded(d)) return;
  // Every present term's cursor is now on d: the exact score.
  uint32_t lens[segfmt::kMaxFields];
  seg_.field_lens(d, lens);
  const float norm = sc.DocNorm(lens);
  std::fill(contrib_.begin(), contrib_.end(), 0.0f);
  auto exact = [&](const std::vector<uint32_t>& ts) {
    for (uint32_t t : ts) {
      PostingsCursor* cur = terms_[t].cur.get();
      if (cur->doc() == d) contrib_[t] = sc.TermScore(terms_[t].idf, cur->tfs(), norm);
    }
  };
  exact(known);
  exact(rest);
  // Matching: kMust phrases, or (without kMust) at least one kShould clause.
  bool any_should = false;
  for (const PlanClause& c : plan_.clauses) {
    if (c.occur == Occur::kMust && c.phrase && !PhraseMatches(c, d)) return;
    if (!plan_.has_must && !any_should && c.occur == Occur::kShould) {
      any_should = c.phrase ? PhraseMatches(c, d) : (terms_[c.terms[0]].cur && terms_[c.terms[0]].cur->doc() == d);
    }
  }
  if (!plan_.has_must && !any_should) return;
  if (stats_) ++stats_->postings_scored;
  float score = 0;
  for (float c : contrib_) score += c;
  if (Below(score, theta)) return;
  heap_->Offer({ChunkId(seg_.chunk_id(d)), score});
}

namespace {

// Orders `ts` by descending bound and fills suffix sums of the bounds.
void SortByBound(const std::vector<float>& bound_of, std::vector<uint32_t>* ts, std::vector<float>* suffix) {
  std::stable_sort(ts->begin(), ts->end(), [&](uint32_t a, uint32_t b) { return bound_of[a] > bound_of[b]; });
  suffix->assign(ts->size() + 1, 0.0f);
  for (size_t j = ts->size(); j-- > 0;) (*suffix)[j] = (*suffix)[j + 1] + bound_of[(*ts)[j]];
}

}  // namespace

void SegmentSearch::RunConjunctive(const std::vector<uint32_t>* admitted) {
  std::vector<float> ub(terms_.size(), 0.0f);
  for (uint32_t t = 0; t < plan_.num_scoring; ++t) ub[t] = terms_[t].ub;
  std::vector<uint32_t> req = required_;
  std::sort(req.begin(), req.end(), [&](uint32_t a, uint32_t b) { return terms_[a].cur->df() < terms_[b].cur->df(); });
  std::vector<uint32_t> rest = optional_;
  std::vector<float> rest_bound;
  SortByBound(ub, &rest, &rest_bound);
  const float opt_total = rest_bound[0];
  // Required terms of kMust clauses that are kMustNot-only cannot exist; all are scoring terms.
  PostingsCursor* lead = terms_[req[0]].cur.get();
  size_t ai = 0;
  auto next_candidate = [&](uint32_t target) -> uint32_t {
    if (target == kEndDoc) return kEndDoc;
    if (!admitted) return lead->NextGEQ(target);
    while (ai < admitted->size() && (*admitted)[ai] < target) ++ai;
    return ai < admitted->size() ? (*admitted)[ai] : kEndDoc;
  };
  uint32_t d = next_candidate(0);
  while (d != kEndDoc) {
    const float theta = heap_->prune_below();
    if (heap_->full()) {
      float bound = opt_total;
      uint32_t next = kEndDoc;
      for (uint32_t t : req) {
        PostingsCursor* cur = terms_[t].cur.get();
        if (cur->doc() == kEndDoc) return;  // a required term is exhausted
        if (cur->doc() > d) {  // absent before its current doc: bound 0 up to there
          next = std::min(next, cur->doc());
          continue;
        }
        const uint32_t b = cur->ShallowBlock(d);
        if (b >= cur->num_blocks()) return;
        const segfmt::SkipEntry s = cur->block_entry(b);
        bound += plan_.scorer.UpperBound(terms_[t].idf, s.max_tf, s.min_len);
        next = std::min(next, s.last_doc + 1);
      }
      if (Below(bound, theta)) {
        d = next_candidate(next);
        continue;
      }
    }
    bool aligned = true;
    for (uint32_t t : req) {
      const uint32_t x = terms_[t].cur->NextGEQ(d);
      if (x == kEndDoc) return;
      if (x > d) {
        d = x;
        aligned = false;
        break;
      }
    }
    if (!aligned) {
      d = next_candidate(d);
      continue;
    }
    Score(d, req, rest, rest_bound);
    d = next_candidate(d + 1);
  }
}

void SegmentSearch::RunDisjunctive() {
  std::vector<uint32_t> ord;  // present scoring terms by ascending bound
  for (uint32_t t = 0; t < plan_.num_scoring; ++t) {
    if (terms_[t].cur) ord.push_back(t);
  }
  std::stable_sort(ord.begin(), ord.end(), [&](uint32_t a, uint32_t b) { return terms_[a].ub < terms_[b].ub; });
  std::vector<float> ub(terms_.size(), 0.0f);
  for (uint32_t t = 0; t < plan_.num_scoring; ++t) ub[t] = terms_[t].ub;
  size_t ne = 0;  // ord[0..ne) are non-essential
  std::vector<uint32_t> essential, rest;
  std::vector<float> rest_bound;
  auto partition = [&]() {
    const float theta = heap_->prune_below();
    float acc = 0;
    size_t j = 0;
    while (j < ord.size() && Below(acc + ub[ord[j]], theta)) acc += ub[ord[j++]];
    ne = j;
    essential.assign(ord.begin() + ne, ord.end());
    rest.assign(ord.begin(), ord.begin() + ne);
    SortByBound(ub, &rest, &rest_bound);
  };
  partition();
  while (!essential.empty()) {
    uint32_t d = kEndDoc;
    for (uint32_t t : essential) d = std::min(d, terms_[t].cur->doc());
    if (d == kEndDoc) break;
    const float before = heap_->prune_below();
    bool skip = false;
    if (heap_->full()) {
      float bound = rest_bound[0];
      for (uint32_t t : essential) {
        if (terms_[t].cur->doc() == d) bound += BlockUb(t, d);
      }
      skip = Below(bound, before);
    }
    if (!skip) Score(d, essential, rest, rest_bound);
    const bool changed = heap_->prune_below() != before;
    for (uint32_t t : essential) {
      if (terms_[t].cur->doc() == d) terms_[t].cur->Next();
    }
    if (changed) partition();
  }
}

void SegmentSearch::RunDriven(const std::vector<uint32_t>& admitted) {
  std::vector<uint32_t> present;
  std::vector<float> ub(terms_.size(), 0.0f);
  for (uint32_t t = 0; t < plan_.num_scoring; ++t) {
    if (terms_[t].cur) present.push_back(t);
    ub[t] = terms_[t].ub;
  }
  std::vector<float> bound_suffix;
  SortByBound(ub, &present, &bound_suffix);
  static const std::vector<uint32_t> kNone;
  for (uint32_t d : admitted) {
    if (heap_->full()) {
      float bound = 0;
      for (uint32_t t : present) bound += BlockUb(t, d);
      if (Below(bound, heap_->prune_below())) continue;
    }
    Score(d, kNone, present, bound_suffix);
  }
}

}  // namespace attest
