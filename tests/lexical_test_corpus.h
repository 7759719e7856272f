// Random corpora for the lexical tests: Zipfian vocabularies, four fields with stopword gaps,
// random filter attributes. Header-only; used by tests/lexical_*_test.cc.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "lexical/indexed_chunk.h"
#include "lexical/segment.h"
#include "lexical/segment_writer.h"

namespace attest::testing_corpus {

// Samples ranks 0..n-1 with probability ~ 1 / (rank + 1)^s.
class Zipf {
 public:
  Zipf(uint32_t n, double s) : cdf_(n) {
    double acc = 0;
    for (uint32_t i = 0; i < n; ++i) cdf_[i] = (acc += 1.0 / std::pow(i + 1.0, s));
    for (auto& c : cdf_) c /= acc;
  }
  uint32_t operator()(std::mt19937_64& rng) const {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    return static_cast<uint32_t>(std::lower_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin()) %
           static_cast<uint32_t>(cdf_.size());
  }
  uint32_t size() const { return static_cast<uint32_t>(cdf_.size()); }

 private:
  std::vector<double> cdf_;
};

inline std::string Word(uint32_t rank) { return "w" + std::to_string(rank); }

struct CorpusOptions {
  uint32_t num_docs = 100;
  uint32_t vocab = 200;
  double zipf_s = 1.0;
  uint32_t max_body = 60;
  uint64_t first_id = 1;
  uint32_t max_id_gap = 3;
};

inline const std::vector<std::string>& Tenants() { static const std::vector<std::string> v{"", "acme", "globex"}; return v; }
inline const std::vector<std::string>& Labels() { static const std::vector<std::string> v{"", "public", "internal", "restricted"}; return v; }
inline const std::vector<std::string>& Groups() { static const std::vector<std::string> v{"eng", "ops", "hr", "sales", "exec"}; return v; }
inline const std::vector<std::string>& SourceTypes() { static const std::vector<std::string> v{"docs", "wiki", "ticket", "release_notes"}; return v; }
inline const std::vector<std::string>& Sites() { static const std::vector<std::string> v{"a.example", "b.example", "c.example", ""}; return v; }
inline const std::vector<std::string>& Versions() { static const std::vector<std::string> v{"", "14", "15", "15.4", "16"}; return v; }

inline void FillField(std::mt19937_64& rng, const Zipf& zipf, uint32_t len, AnalyzedField* f) {
  uint32_t pos = 0;
  for (uint32_t i = 0; i < len; ++i) {
    if (rng() % 7 == 0) ++pos;  // a dropped stopword leaves a gap
    f->tokens.push_back(Token{Word(zipf(rng)), pos, 0, 0});
    ++pos;
  }
  f->length = pos;
}

inline std::vector<IndexedChunk> MakeCorpus(std::mt19937_64& rng, const CorpusOptions& o) {
  Zipf zipf(o.vocab, o.zipf_s);
  std::vector<IndexedChunk> out(o.num_docs);
  uint64_t id = o.first_id;
  for (auto& c : out) {
    c.id = ChunkId(id);
    id += 1 + rng() % o.max_id_gap;
    FillField(rng, zipf, rng() % 5, &c.fields[0]);
    FillField(rng, zipf, rng() % 8, &c.fields[1]);
    FillField(rng, zipf, 1 + rng() % o.max_body, &c.fields[2]);
    if (rng() % 3 == 0) FillField(rng, zipf, 1 + rng() % 3, &c.fields[3]);  // defining terms: few chunks
    c.attrs.tenant = Tenants()[rng() % Tenants().size()];
    const uint32_t ng = rng() % 3;
    for (uint32_t g = 0; g < ng; ++g) c.attrs.acl_groups.push_back(Groups()[rng() % Groups().size()]);
    if (rng() % 2 == 0) c.attrs.access_label = Labels()[rng() % Labels().size()];
    c.attrs.source_type = SourceTypes()[rng() % SourceTypes().size()];
    c.attrs.site = Sites()[rng() % Sites().size()];
    c.attrs.version = Versions()[rng() % Versions().size()];
    c.attrs.date = rng() % 10 == 0 ? ChunkAttributes::kNoDate : static_cast<int32_t>(19000 + rng() % 1000);
  }
  return out;
}

// `format_version` 0 writes the current version; 2 the old three-field format (term field dropped).
inline std::shared_ptr<const Segment> BuildSegment(const std::vector<IndexedChunk>& chunks, size_t begin, size_t end,
                                                   uint32_t format_version = 0) {
  SegmentWriter w = format_version == 0 ? SegmentWriter() : SegmentWriter(format_version);
  for (size_t i = begin; i < end; ++i) {
    Status st = w.Add(chunks[i]);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto seg = Segment::FromBytes(w.Serialize());
  EXPECT_TRUE(seg.ok()) << seg.status().ToString();
  return seg.ok() ? *seg : nullptr;
}

}  // namespace attest::testing_corpus
