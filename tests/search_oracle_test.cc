// Oracle test of RunSearch where the legs meet (search/search_runner.h, search/fusion.h): on random
// corpora (seeded; documents of 1 to 40 chunks, several commits, replaced documents, two tenants,
// random access attributes) every search in bm25, vector and hybrid mode, with linear (min-max,
// z-score) and RRF fusion, collapsed to documents or not, under random filters and k, returns the
// hits that an exhaustive implementation written here computes:
//   - each leg ranks every visible chunk (lexical: LexicalSearcher::Exhaustive, the BM25 oracle;
//     vector: a brute-force inner product over the same vectors), so no window is involved;
//   - a document's leg score is its best chunk's (ties: the smaller chunk id represents it), and
//     documents are ranked by it (ties: by that chunk id); `-x` drops every document with a
//     visible chunk that contains x; each leg keeps its first `depth` candidates;
//   - in hybrid mode with `+x` or a phrase, the vector leg scores only the lexical candidates'
//     chunks;
//   - fusion follows the formulas of search/fusion.h, computed here in double with two-pass
//     variance.
// Hits are compared by score within a tolerance (hits with equal scores may come in any order);
// each hit's chunk, leg ranks and leg scores are compared exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <random>
#include <set>

#include "vector/vector_leg.h"
#include "lexical/exhaustive_scorer.h"
#include "search/search_runner.h"
#include "store_test_helpers.h"
#include "text/analyzer.h"
#include "vector/vector_index.h"

namespace attest {
namespace {

using store_test::TempDir;

// Vectors of 64 components of +-1/8: unit norm, and every inner product (a multiple of 1/64) is
// exact in float whatever the order of summation, so the brute force agrees bit for bit.
constexpr uint32_t kDim = 64;

std::vector<float> RandomUnitVector(uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  std::vector<float> v(kDim);
  for (float& x : v) x = (rng() & 1) ? 0.125f : -0.125f;
  return v;
}

float Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (uint32_t i = 0; i < kDim; ++i) s += double(a[i]) * b[i];
  return static_cast<float>(s);
}

const std::vector<std::string>& Vocabulary() {
  static const std::vector<std::string> words = {"apple",  "river", "stone", "cloud",  "maple",  "tiger",
                                                  "piano",  "orbit", "lemon", "quartz", "falcon", "meadow",
                                                  "copper", "violet", "harbor", "glacier"};
  return words;
}

// Skewed toward the first words, so that terms recur across many chunks of one document.
const std::string& RandomWord(std::mt19937_64& rng) {
  const size_t n = Vocabulary().size();
  return Vocabulary()[std::min(rng() % n, rng() % n)];
}

std::string RandomText(std::mt19937_64& rng, size_t min_words, size_t max_words) {
  std::string s;
  const size_t n = min_words + rng() % (max_words - min_words + 1);
  for (size_t i = 0; i < n; ++i) s += (i ? " " : "") + RandomWord(rng);
  return s;
}

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[rng() % v.size()];
}

const std::vector<std::string> kTenants = {"", "", "", "t2"};
const std::vector<std::string> kGroups = {"g1", "g2", "g3"};
const std::vector<std::string> kLabels = {"", "", "internal", "restricted"};
const std::vector<std::string> kSourceTypes = {"docs", "blog"};
const std::vector<std::string> kSites = {"a.test", "b.test"};
const std::vector<std::string> kVersions = {"", "1", "2"};

PreparedDocument RandomDocument(std::mt19937_64& rng, const Analyzer& analyzer, const std::string& tenant,
                                const std::string& id) {
  PreparedDocument d;
  DocumentRecord& r = d.record;
  r.tenant = tenant;
  r.id = id;
  r.url = "https://example.test/" + id;
  r.title = RandomText(rng, 0, 2);
  r.site = Pick(rng, kSites);
  r.source_type = Pick(rng, kSourceTypes);
  r.version = Pick(rng, kVersions);
  r.language = "en";
  r.access_label = Pick(rng, kLabels);
  if (rng() % 3 == 0) r.acl_groups = {Pick(rng, kGroups)};
  if (rng() % 3 != 0) r.published = static_cast<DayNumber>(19000 + rng() % 100);
  // Mostly short documents; some long ones whose chunks fill a leg's first window by themselves.
  const uint32_t chunks = rng() % 5 == 0 ? 10 + rng() % 31 : 1 + rng() % 3;
  std::string all = id;
  for (uint32_t i = 0; i < chunks; ++i) {
    TextChunk tc;
    tc.ordinal = i;
    tc.section_path = rng() % 4 == 0 ? RandomWord(rng) : "";
    tc.text = RandomText(rng, 1, 12);
    IndexedChunk ic;
    const std::string terms = rng() % 3 == 0 ? RandomWord(rng) : "";  // a defining term (Field::kTerm)
    const std::string* fields[kNumFields] = {&r.title, &tc.section_path, &tc.text, &terms};
    for (int f = 0; f < kNumFields; ++f) ic.fields[f].length = analyzer.Analyze(*fields[f], &ic.fields[f].tokens);
    all += "\n" + tc.section_path + "\n" + tc.text;
    r.bytes += tc.text.size();
    d.chunks.push_back(std::move(tc));
    d.indexed.push_back(std::move(ic));
  }
  r.sha256 = Sha256Hex(all + std::to_string(rng()));
  return d;
}

std::string RandomQuery(std::mt19937_64& rng) {
  std::string q;
  const uint32_t n = 1 + rng() % 3;
  for (uint32_t i = 0; i < n; ++i) {
    if (!q.empty()) q += " ";
    const uint32_t r = rng() % 10;
    if (r == 2 && i == 0) {
      q += RandomWord(rng);  // a query of exclusions only is refused
    } else if (r == 0) {
      q += "\"" + RandomWord(rng) + " " + RandomWord(rng) + "\"";
    } else if (r == 1) {
      q += "+" + RandomWord(rng);
    } else if (r == 2) {
      q += "-" + Vocabulary()[rng() % Vocabulary().size()];
    } else {
      q += RandomWord(rng);
    }
  }
  return q;
}

SearchFilter RandomFilter(std::mt19937_64& rng) {
  SearchFilter f;
  f.tenant = rng() % 5 == 0 ? "t2" : "";
  if (rng() % 3 == 0) f.groups = rng() % 4 == 0 ? std::vector<std::string>{} : std::vector{Pick(rng, kGroups)};
  if (rng() % 3 == 0) f.labels = std::vector<std::string>{"", rng() % 2 ? "internal" : "restricted"};
  if (rng() % 5 == 0) f.source_types = {Pick(rng, kSourceTypes)};
  if (rng() % 5 == 0) f.sites = {Pick(rng, kSites)};
  if (rng() % 6 == 0) f.versions = {Pick(rng, kVersions)};
  if (rng() % 6 == 0) f.date_from = FormatDate(static_cast<DayNumber>(19000 + rng() % 50));
  if (rng() % 6 == 0) f.date_to = FormatDate(static_cast<DayNumber>(19050 + rng() % 50));
  return f;
}

// One candidate of the oracle: a document (collapsed) or a chunk.
struct Candidate {
  uint64_t key = 0;  // DocNum or ChunkId value
  ChunkId chunk;     // the chunk that represents it in this leg
  float score = 0;
};

struct Expected {
  uint64_t key = 0;
  double fused = 0;
  uint32_t lexical_rank = 0, vector_rank = 0;
  float lexical_score = 0, vector_score = 0;
  ChunkId shown;
};

// The corpus as the oracle sees it: every live chunk's document and vector.
struct Corpus {
  std::map<ChunkId, DocNum> doc_of;
  std::map<DocNum, std::string> doc_id;
  std::map<ChunkId, std::vector<float>> vectors;
};

// Ranks `chunks` (any order) as a leg does: by document (best chunk) or by chunk, best first; ties
// by the representing chunk's id. Drops documents of `excluded`; keeps the first `depth`.
std::vector<Candidate> RankLeg(const Corpus& corpus, std::vector<ScoredChunk> chunks, bool collapse,
                               const std::set<DocNum>& excluded, size_t depth) {
  std::map<uint64_t, Candidate> best;
  for (const ScoredChunk& c : chunks) {
    const DocNum doc = corpus.doc_of.at(c.id);
    if (excluded.count(doc)) continue;
    const uint64_t key = collapse ? doc.get() : c.id.get();
    auto [it, inserted] = best.emplace(key, Candidate{key, c.id, c.score});
    Candidate& b = it->second;
    if (!inserted && (c.score > b.score || (c.score == b.score && c.id < b.chunk))) b.chunk = c.id, b.score = c.score;
  }
  std::vector<Candidate> out;
  for (const auto& [key, c] : best) out.push_back(c);
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score > b.score : a.chunk < b.chunk;
  });
  if (out.size() > depth) out.resize(depth);
  return out;
}

// norm(s) for each candidate of a leg, and the value of a candidate the leg lacks.
std::pair<std::vector<double>, double> Normalize(const std::vector<Candidate>& leg, ScoreNormalization method) {
  std::vector<double> out;
  if (leg.empty()) return {out, 0.0};
  if (method == ScoreNormalization::kMinMax) {
    double lo = leg[0].score, hi = leg[0].score;
    for (const Candidate& c : leg) lo = std::min<double>(lo, c.score), hi = std::max<double>(hi, c.score);
    for (const Candidate& c : leg) out.push_back(hi > lo ? (c.score - lo) / (hi - lo) : 1.0);
    return {out, 0.0};
  }
  double mean = 0;
  for (const Candidate& c : leg) mean += c.score;
  mean /= leg.size();
  double var = 0;
  for (const Candidate& c : leg) var += (c.score - mean) * (c.score - mean);
  const double sd = std::sqrt(var / leg.size());
  double floor = 0;
  for (const Candidate& c : leg) {
    out.push_back(sd > 1e-12 ? (c.score - mean) / sd : 0.0);
    floor = std::min(floor, out.back());
  }
  return {out, sd > 1e-12 ? floor : 0.0};
}

std::vector<Expected> Fuse(const std::vector<Candidate>& lexical, const std::vector<Candidate>& vector,
                           const FusionOptions& o, bool hybrid) {
  std::map<uint64_t, Expected> all;
  for (size_t i = 0; i < lexical.size(); ++i) {
    Expected& e = all[lexical[i].key];
    e.key = lexical[i].key, e.lexical_rank = uint32_t(i + 1), e.lexical_score = lexical[i].score;
    e.shown = lexical[i].chunk;
  }
  for (size_t i = 0; i < vector.size(); ++i) {
    Expected& e = all[vector[i].key];
    e.key = vector[i].key, e.vector_rank = uint32_t(i + 1), e.vector_score = vector[i].score;
    if (!e.lexical_rank) e.shown = vector[i].chunk;
  }
  const auto [nl, lfloor] = Normalize(lexical, o.normalization);
  const auto [nv, vfloor] = Normalize(vector, o.normalization);
  const double w = o.vector_weight;
  std::vector<Expected> out;
  for (auto& [key, e] : all) {
    if (!hybrid) {
      e.fused = e.lexical_rank ? e.lexical_score : e.vector_score;
    } else if (o.method == FusionMethod::kRrf) {
      e.fused = (e.lexical_rank ? 1.0 / (o.rrf_k + e.lexical_rank) : 0) +
                (e.vector_rank ? 1.0 / (o.rrf_k + e.vector_rank) : 0);
    } else {
      const double l = e.lexical_rank ? nl[e.lexical_rank - 1] : lfloor;
      const double v = e.vector_rank ? nv[e.vector_rank - 1] : vfloor;
      e.fused = (1 - w) * l + w * v;
    }
    out.push_back(e);
  }
  std::sort(out.begin(), out.end(), [](const Expected& a, const Expected& b) { return a.fused > b.fused; });
  return out;
}

struct Case {
  SearchOptions options;
  std::vector<float> query_vector;
};

// True when the first chunk window the lexical leg reads (1.5 chunks per document of the corpus per
// wanted document, at most 3, and 3 when documents are excluded; at least 30) holds fewer than
// `depth` documents although more chunks match: RunSearch must widen it.
bool NeedsWidening(const Corpus& corpus, const std::vector<ScoredChunk>& ranked, const std::set<DocNum>& excluded,
                   size_t depth, double chunks_per_document) {
  const double factor = excluded.empty() ? std::min(3.0, 1.5 * std::max(1.0, chunks_per_document)) : 3.0;
  const size_t window = std::max<size_t>(static_cast<size_t>(std::ceil(depth * factor)), 30);
  if (ranked.size() <= window) return false;
  std::set<DocNum> docs;
  for (size_t i = 0; i < window; ++i) {
    if (!excluded.count(corpus.doc_of.at(ranked[i].id))) docs.insert(corpus.doc_of.at(ranked[i].id));
  }
  return docs.size() < depth;
}

// The hits RunSearch must return, best first (equal scores in any order). Counts in `*widened`
// the searches whose lexical leg needs more than one window.
std::vector<Expected> Oracle(const Snapshot& snap, const Analyzer& analyzer, const Corpus& corpus, const Case& c,
                             int* widened) {
  const SearchOptions& o = c.options;
  auto query = ParseLexicalQuery(o.query, analyzer);
  auto filter = TranslateFilter(o.filter);
  EXPECT_TRUE(query.ok() && filter.ok());
  LexicalSearchArgs args;
  args.query = &query.value();
  args.filter = filter.value();
  args.bm25.field_weights = {o.title_weight, o.section_weight, o.body_weight, o.term_weight};
  if (o.name_query_title_weight > 0 && IsNameQuery(o.query)) {  // a name query's weights (search_runner.h)
    args.bm25.field_weights[0] = o.name_query_title_weight;
    args.bm25.field_weights[1] = o.name_query_section_weight;
  }
  args.k = std::max<uint64_t>(1, snap.lexical().num_docs());
  const bool hybrid = o.mode == SearchMode::kHybrid;
  const size_t depth = hybrid ? std::max(o.k, o.candidates ? o.candidates : std::max<size_t>(100, 2 * o.k)) : o.k;

  std::set<DocNum> excluded;
  LexicalQuery exclusions;
  bool constrained = false;
  for (const QueryClause& q : query.value().clauses) {
    constrained = constrained || q.occur == Occur::kMust || q.phrase;
    if (q.occur != Occur::kMustNot) continue;
    exclusions.clauses.push_back(q);
    exclusions.clauses.back().occur = Occur::kShould;
  }
  if (o.collapse_documents && !exclusions.empty()) {
    LexicalSearchArgs ex = args;
    ex.query = &exclusions;
    for (const ScoredChunk& s : snap.lexical().Exhaustive(ex)) excluded.insert(corpus.doc_of.at(s.id));
  }

  std::vector<Candidate> lexical, vector;
  if (o.mode != SearchMode::kVector) {
    const std::vector<ScoredChunk> ranked = snap.lexical().Exhaustive(args);
    if (o.collapse_documents && NeedsWidening(corpus, ranked, excluded, depth, snap.chunks_per_document())) ++*widened;
    lexical = RankLeg(corpus, ranked, o.collapse_documents, excluded, depth);
  }
  if (o.mode != SearchMode::kBm25) {
    std::vector<ScoredChunk> scored;
    if (hybrid && constrained) {
      for (const Candidate& l : lexical) scored.push_back({l.chunk, Dot(corpus.vectors.at(l.chunk), c.query_vector)});
    } else {
      for (const SegmentView& v : snap.segments()) {
        for (LocalDoc d = 0; d < v.segment->num_docs(); ++d) {
          if ((v.deleted && v.deleted->Test(d)) || !FilterAdmits(args.filter, v.segment->attributes(d))) continue;
          const ChunkId id = v.segment->chunk_id(d);
          scored.push_back({id, Dot(corpus.vectors.at(id), c.query_vector)});
        }
      }
    }
    vector = RankLeg(corpus, std::move(scored), o.collapse_documents, excluded, depth);
  }
  return Fuse(lexical, vector, o.fusion, hybrid);
}

// Builds the vector view of `snap`: a flat (exact) index per segment over the corpus's vectors.
VectorView MakeView(const Snapshot& snap, const Corpus& corpus) {
  VectorView view;
  for (const SegmentView& v : snap.segments()) {
    std::vector<float> rows;
    for (LocalDoc d = 0; d < v.segment->num_docs(); ++d) {
      const auto it = corpus.vectors.find(v.segment->chunk_id(d));
      const std::vector<float> zero(kDim, 0.0f);
      const std::vector<float>& row = it == corpus.vectors.end() ? zero : it->second;
      rows.insert(rows.end(), row.begin(), row.end());
    }
    VectorBuildArgs b;
    b.vectors = rows.data();
    b.n = v.segment->num_docs();
    b.dim = kDim;
    b.config.kind = VectorIndexKind::kFlat;
    auto index = VectorIndex::Build(b);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    view.segments.push_back(SegmentVectors{v, std::shared_ptr<const VectorIndex>(std::move(index).value())});
    view.covered_docs += b.n;
  }
  view.total_docs = view.covered_docs;
  view.identity = "test 64 1";
  return view;
}

std::string Describe(const std::vector<SearchHit>& hits) {
  std::string s;
  for (const SearchHit& h : hits) s += h.doc_id + "/" + std::to_string(h.chunk_id.get()) + ":" + std::to_string(h.score) + " ";
  return s;
}

std::string Describe(const std::vector<Expected>& want, const Corpus& corpus, size_t k) {
  std::string s;
  for (size_t i = 0; i < want.size() && i < k; ++i) {
    s += corpus.doc_id.at(corpus.doc_of.at(want[i].shown)) + "/" + std::to_string(want[i].shown.get()) + ":" +
         std::to_string(want[i].fused) + " ";
  }
  return s;
}

Case RandomCase(std::mt19937_64& rng) {
  Case c;
  SearchOptions& o = c.options;
  o.query = RandomQuery(rng);
  static const size_t kKs[] = {1, 2, 5, 10, 30};
  o.k = kKs[rng() % 5];
  o.filter = RandomFilter(rng);
  o.collapse_documents = rng() % 4 != 0;
  o.with_snippets = rng() % 2 == 0;
  static const SearchMode kModes[] = {SearchMode::kBm25, SearchMode::kVector, SearchMode::kHybrid,
                                      SearchMode::kHybrid};
  o.mode = kModes[rng() % 4];
  o.fusion.method = rng() % 3 == 0 ? FusionMethod::kRrf : FusionMethod::kLinear;
  o.fusion.normalization = rng() % 2 ? ScoreNormalization::kZScore : ScoreNormalization::kMinMax;
  static const float kWeights[] = {0.0f, 0.2f, 0.5f, 1.0f};
  o.fusion.vector_weight = kWeights[rng() % 4];
  o.fusion.rrf_k = rng() % 2 ? 60 : 1 + rng() % 5;
  if (rng() % 3 == 0) o.candidates = 1 + rng() % 20;  // fewer candidates than documents
  if (rng() % 4 == 0) o.title_weight = 2.0f, o.body_weight = 0.5f;
  if (rng() % 3 == 0) o.term_weight = float(rng() % 60) / 10.0f;
  // Name queries (one to three words) take their own title and section weights, which the oracle
  // mirrors; the page-titled-by-the-name re-order is tested in search_name_query_test.
  if (rng() % 2 == 0) o.name_query_title_weight = 0;
  o.name_query_title_first = false;
  c.query_vector = RandomUnitVector(rng());
  return c;
}

// Compares one search with the oracle; returns false (after recording the failure) on a mismatch.
bool Check(const SearchResult& got, const std::vector<Expected>& want, const Corpus& corpus, const Case& c,
           const std::string& where) {
  const SearchOptions& o = c.options;
  const size_t n = std::min(o.k, want.size());
  const std::string detail = where + " query '" + o.query + "' mode " + SearchModeName(o.mode) + " k=" +
                             std::to_string(o.k) + (o.collapse_documents ? " documents" : " chunks") +
                             "\n got:    " + Describe(got.hits) + "\n oracle: " + Describe(want, corpus, n);
  EXPECT_EQ(got.hits.size(), n) << detail;
  if (got.hits.size() != n) return false;
  const double tol = o.mode == SearchMode::kHybrid && o.fusion.method == FusionMethod::kRrf ? 1e-7 : 1e-5;
  std::map<uint64_t, const Expected*> by_key;
  for (const Expected& e : want) by_key[e.key] = &e;
  std::set<uint64_t> seen;
  for (size_t i = 0; i < n; ++i) {
    const SearchHit& h = got.hits[i];
    const uint64_t key = o.collapse_documents ? corpus.doc_of.at(h.chunk_id).get() : h.chunk_id.get();
    auto it = by_key.find(key);
    EXPECT_TRUE(it != by_key.end()) << "hit " << i << " is no candidate of the oracle\n" << detail;
    if (it == by_key.end()) return false;
    const Expected& e = *it->second;
    const double scale = std::max(1.0, std::abs(want[i].fused));
    // The i-th hit scores what the oracle's i-th best does (hits of equal score may swap), and is
    // the candidate the oracle scores so.
    EXPECT_NEAR(h.score, want[i].fused, tol * scale) << "hit " << i << "\n" << detail;
    EXPECT_NEAR(h.score, e.fused, tol * scale) << "hit " << i << "\n" << detail;
    EXPECT_TRUE(seen.insert(key).second) << "hit " << i << " repeats a candidate\n" << detail;
    EXPECT_EQ(h.chunk_id.get(), e.shown.get()) << "hit " << i << ": the chunk shown\n" << detail;
    EXPECT_EQ(h.doc_id, corpus.doc_id.at(corpus.doc_of.at(h.chunk_id))) << detail;
    EXPECT_EQ(h.lexical_rank, e.lexical_rank) << "hit " << i << "\n" << detail;
    EXPECT_EQ(h.vector_rank, e.vector_rank) << "hit " << i << "\n" << detail;
    EXPECT_EQ(h.lexical_score, e.lexical_score) << "hit " << i << "\n" << detail;
    EXPECT_EQ(h.vector_score, e.vector_score) << "hit " << i << "\n" << detail;
    if (::testing::Test::HasFailure()) return false;
  }
  return true;
}

// A store with 1 to 3 commits of random documents (later commits replace some earlier ones), and
// the oracle's view of its latest snapshot.
struct TestStore {
  std::unique_ptr<Store> store;
  std::shared_ptr<const Snapshot> snapshot;
  Corpus corpus;
};

void BuildStore(std::mt19937_64& rng, const Analyzer& analyzer, const TempDir& dir, TestStore* out) {
  out->store = store_test::OpenOrDie(store_test::Options(dir.path(), /*with_reindex=*/false));
  ASSERT_NE(out->store, nullptr);
  const uint32_t docs = 3 + rng() % 40;
  std::vector<DocumentKey> keys;
  for (uint32_t i = 0; i < docs; ++i) keys.push_back({Pick(rng, kTenants), "d" + std::to_string(i)});
  const uint32_t commits = 1 + rng() % 3;
  for (uint32_t c = 0; c < commits; ++c) {
    WriteBatch batch;
    for (const DocumentKey& k : keys) {
      if (c == 0 || rng() % 4 == 0) batch.upserts.push_back(RandomDocument(rng, analyzer, k.tenant, k.id));
    }
    auto r = out->store->Commit(std::move(batch));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  out->snapshot = out->store->Pin();
  for (const DocumentKey& k : keys) {
    auto d = out->snapshot->FindDocument(k);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    auto chunks = out->snapshot->ChunksOfDocument(d->num);
    ASSERT_TRUE(chunks.ok()) << chunks.status().ToString();
    out->corpus.doc_id[d->num] = k.id;
    for (const ChunkRecord& c : *chunks) {
      out->corpus.doc_of[c.id] = d->num;
      out->corpus.vectors[c.id] = RandomUnitVector(rng());
    }
  }
}

// ATTEST_ORACLE_SEED and ATTEST_ORACLE_CORPORA override the seed and the number of corpora (longer
// sweeps by hand).
uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

TEST(SearchOracleTest, RunSearchEqualsExhaustiveFusionOnRandomCorpora) {
  const Analyzer analyzer;
  std::mt19937_64 rng(EnvOr("ATTEST_ORACLE_SEED", 20261202));
  const uint64_t corpora = EnvOr("ATTEST_ORACLE_CORPORA", 60);
  int searches = 0, nonempty = 0, widened = 0;
  std::map<std::string, int> by_mode;
  TaskPool pool(1);
  for (uint64_t corpus_n = 0; corpus_n < corpora; ++corpus_n) {
    TempDir dir;
    TestStore ts;
    BuildStore(rng, analyzer, dir, &ts);
    if (::testing::Test::HasFatalFailure()) return;
    const VectorView view = MakeView(*ts.snapshot, ts.corpus);
    for (int qi = 0; qi < 40; ++qi, ++searches) {
      const Case c = RandomCase(rng);
      VectorLegInput vin;
      vin.view = &view;
      vin.embed_query = [&](const std::string&) -> Result<std::vector<float>> { return c.query_vector; };
      vin.pool = qi % 2 ? &pool : nullptr;  // the vector leg concurrently, or on this thread
      auto got = RunSearch(*ts.snapshot, analyzer, c.options, vin);
      ASSERT_TRUE(got.ok()) << got.status().ToString() << " query '" << c.options.query << "'";
      const std::vector<Expected> want = Oracle(*ts.snapshot, analyzer, ts.corpus, c, &widened);
      if (!Check(*got, want, ts.corpus, c, "corpus " + std::to_string(corpus_n) + " search " + std::to_string(qi))) {
        return;
      }
      if (!got->hits.empty()) ++nonempty, ++by_mode[SearchModeName(c.options.mode)];
    }
  }
  EXPECT_GT(nonempty, searches / 2) << "too few searches had hits; the test would prove little";
  for (const char* mode : {"bm25", "vector", "hybrid"}) EXPECT_GT(by_mode[mode], 50) << mode;
  EXPECT_GT(widened, 10) << "too few searches needed a wider window";
  std::cout << searches << " searches (" << nonempty << " with hits, " << widened << " widened)\n";
}

}  // namespace
}  // namespace attest
