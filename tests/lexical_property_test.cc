// Property test: on hundreds of random corpora, queries and filters, TopK() returns exactly the
// first k results of the exhaustive oracle (same ids, same order, bit-identical scores).
#include <gtest/gtest.h>

#include <chrono>

#include "lexical/exhaustive_scorer.h"
#include "lexical/lexical_searcher.h"
#include "lexical_test_corpus.h"

namespace attest {
namespace {

using namespace testing_corpus;  // NOLINT

QueryClause RandomClause(std::mt19937_64& rng, const Zipf& zipf, bool allow_phrase) {
  QueryClause c;
  const uint32_t r = rng() % 10;
  c.occur = r < 6 ? Occur::kShould : (r < 8 ? Occur::kMust : Occur::kMustNot);
  if (allow_phrase && rng() % 4 == 0) {
    c.phrase = true;
    const uint32_t m = 2 + rng() % 2;
    uint32_t pos = 0;
    for (uint32_t i = 0; i < m; ++i) {
      // Frequent words so that phrases actually occur.
      c.terms.push_back(Word(rng() % 6));
      c.positions.push_back(pos);
      pos += 1 + (rng() % 5 == 0 ? 1 : 0);
    }
  } else {
    c.terms.push_back(Word(zipf(rng)));
    c.positions.push_back(0);
  }
  return c;
}

LexicalQuery RandomQuery(std::mt19937_64& rng, const Zipf& zipf) {
  LexicalQuery q;
  const uint32_t n = 1 + rng() % 6;
  for (uint32_t i = 0; i < n; ++i) q.clauses.push_back(RandomClause(rng, zipf, true));
  // Occasionally a term that exists nowhere.
  if (rng() % 10 == 0) q.clauses.push_back(QueryClause{Occur::kShould, {"zzz-missing"}, {0}, false});
  return q;
}

template <typename T>
std::vector<T> Subset(std::mt19937_64& rng, const std::vector<T>& all, uint32_t max) {
  std::vector<T> out;
  const uint32_t n = 1 + rng() % max;
  for (uint32_t i = 0; i < n; ++i) out.push_back(all[rng() % all.size()]);
  if (rng() % 5 == 0) out.push_back("no-such-value");
  return out;
}

ChunkFilter RandomFilter(std::mt19937_64& rng) {
  ChunkFilter f;
  if (rng() % 2 == 0) return f;  // half unfiltered
  if (rng() % 3 == 0) f.tenant = Tenants()[rng() % Tenants().size()];
  if (rng() % 3 == 0) {
    f.groups = rng() % 6 == 0 ? std::vector<std::string>{} : Subset(rng, Groups(), 2);
  }
  if (rng() % 3 == 0) f.labels = rng() % 6 == 0 ? std::vector<std::string>{} : Subset(rng, Labels(), 3);
  if (rng() % 4 == 0) f.source_types = Subset(rng, SourceTypes(), 2);
  if (rng() % 4 == 0) f.sites = Subset(rng, Sites(), 2);
  if (rng() % 4 == 0) f.versions = Subset(rng, Versions(), 2);
  if (rng() % 4 == 0) f.date_from = static_cast<int32_t>(19000 + rng() % 1000);
  if (rng() % 4 == 0) f.date_to = static_cast<int32_t>(19000 + rng() % 1000);
  return f;
}

std::string Describe(const std::vector<ScoredChunk>& v) {
  std::string s;
  for (const auto& c : v) s += std::to_string(c.id.get()) + ":" + std::to_string(c.score) + " ";
  return s;
}

TEST(LexicalPropertyTest, TopKEqualsExhaustiveOnRandomCorpora) {
  std::mt19937_64 rng(20240601);
  const auto start = std::chrono::steady_clock::now();
  int corpora = 0, queries = 0, nonempty = 0;
  for (; corpora < 300; ++corpora) {
    CorpusOptions o;
    const uint32_t size_class = rng() % 10;
    o.num_docs = size_class < 5 ? 1 + rng() % 200 : (size_class < 9 ? 200 + rng() % 1500 : 1500 + rng() % 2500);
    o.vocab = 20 + rng() % 400;
    o.zipf_s = 0.8 + (rng() % 60) / 100.0;
    o.max_body = 5 + rng() % 80;
    auto chunks = MakeCorpus(rng, o);
    const uint32_t nseg = 1 + rng() % 3;
    std::vector<SegmentView> views;
    size_t begin = 0;
    for (uint32_t s = 0; s < nseg; ++s) {
      const size_t end = s + 1 == nseg ? chunks.size() : begin + (chunks.size() - begin) / 2;
      // Some segments in the old three-field format (version 2) beside current ones: both must
      // agree with the exhaustive oracle, alone and mixed.
      auto seg = BuildSegment(chunks, begin, end, rng() % 4 == 0 ? 2 : 0);
      ASSERT_NE(seg, nullptr);
      std::shared_ptr<DeletedDocs> del;
      if (rng() % 2 == 0 && seg->num_docs() > 0) {
        del = std::make_shared<DeletedDocs>(seg->num_docs());
        const uint32_t rate = 2 + rng() % 20;
        for (uint32_t d = 0; d < seg->num_docs(); ++d) {
          if (rng() % rate == 0) del->Set(d);
        }
      }
      views.push_back({SegmentId(s), seg, del});
      begin = end;
    }
    LexicalSearcher searcher(views);
    Zipf qzipf(o.vocab, 0.7);
    for (int qi = 0; qi < 12; ++qi, ++queries) {
      LexicalQuery q = RandomQuery(rng, qzipf);
      LexicalSearchArgs args;
      args.query = &q;
      args.filter = RandomFilter(rng);
      static const size_t kKs[] = {1, 3, 10, 50};
      args.k = kKs[rng() % 4];
      if (rng() % 3 == 0) {
        args.bm25.field_weights = {float(rng() % 40) / 10.0f, float(rng() % 30) / 10.0f, float(rng() % 20) / 10.0f,
                                   float(rng() % 80) / 10.0f};
      }
      LexicalSearchStats stats;
      const auto fast = searcher.TopK(args, &stats);
      const auto exact = searcher.Exhaustive(args);
      if (!exact.empty()) ++nonempty;
      ASSERT_EQ(fast, exact) << "corpus " << corpora << " query " << qi << " k=" << args.k
                             << "\n fast:  " << Describe(fast) << "\n exact: " << Describe(exact);
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GT(nonempty, queries / 3) << "too few queries had results; the test would prove little";
  std::cout << corpora << " corpora, " << queries << " queries (" << nonempty << " with results) in " << secs
            << " s\n";
}

// Splits `chunks` into 1..3 segments at random points.
std::vector<SegmentView> RandomSegments(std::mt19937_64& rng, const std::vector<IndexedChunk>& chunks) {
  std::vector<SegmentView> views;
  const uint32_t nseg = 1 + rng() % 3;
  size_t begin = 0;
  for (uint32_t s = 0; s < nseg && begin < chunks.size(); ++s) {
    const size_t end = s + 1 == nseg ? chunks.size() : begin + 1 + rng() % (chunks.size() - begin);
    views.push_back({SegmentId(s), BuildSegment(chunks, begin, end), nullptr});
    begin = end;
  }
  return views;
}

// What a caller cannot read (another tenant's chunks, chunks of groups it lacks, labels above its
// clearance) must not change its results: same chunks, same order, bit-identical scores, whether
// the hidden chunks share its segments or do not exist at all.
TEST(LexicalPropertyTest, ACallersResultsDoNotDependOnChunksItCannotRead) {
  std::mt19937_64 rng(20261201);
  int corpora = 0, compared = 0, nonempty = 0;
  uint64_t hidden_total = 0;
  for (; corpora < 150; ++corpora) {
    CorpusOptions o;
    o.num_docs = 20 + rng() % 900;
    o.vocab = 20 + rng() % 300;
    o.zipf_s = 0.8 + (rng() % 60) / 100.0;
    o.max_body = 5 + rng() % 60;
    const auto all = MakeCorpus(rng, o);
    ChunkFilter caller;
    caller.tenant = Tenants()[rng() % Tenants().size()];
    if (rng() % 3 != 0) caller.groups = Subset(rng, Groups(), 2);
    if (rng() % 3 != 0) caller.labels = Subset(rng, Labels(), 2);
    std::vector<IndexedChunk> visible;
    for (const auto& c : all) {
      if (FilterAdmits(caller, c.attrs)) visible.push_back(c);
    }
    hidden_total += all.size() - visible.size();
    if (visible.empty()) continue;
    LexicalSearcher with(RandomSegments(rng, all));
    LexicalSearcher without(RandomSegments(rng, visible));
    ASSERT_EQ(with.NumDocs(caller), visible.size());
    Zipf qzipf(o.vocab, 0.7);
    for (int qi = 0; qi < 10; ++qi, ++compared) {
      LexicalQuery q = RandomQuery(rng, qzipf);
      LexicalSearchArgs args;
      args.query = &q;
      args.filter = caller;
      if (rng() % 4 == 0) args.filter.source_types = Subset(rng, SourceTypes(), 2);
      args.k = 1 + rng() % 30;
      const auto a = with.TopK(args);
      const auto b = without.TopK(args);
      if (!b.empty()) ++nonempty;
      ASSERT_EQ(a, b) << "corpus " << corpora << " query " << qi << "\n with hidden:    " << Describe(a)
                      << "\n without hidden: " << Describe(b);
      ASSERT_EQ(with.Exhaustive(args), b) << "the oracle disagrees, corpus " << corpora;
    }
  }
  EXPECT_GT(hidden_total, 1000u) << "too few hidden chunks; the test would prove little";
  EXPECT_GT(nonempty, compared / 3) << "too few queries had results";
}

}  // namespace
}  // namespace attest
