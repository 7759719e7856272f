// Search semantics: hand-computed BM25, phrases with stopword gaps, required/excluded clauses,
// filters (including the 1%-selective ACL filter), deletions and multi-segment statistics.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>
#include <limits>

#include "lexical/exhaustive_scorer.h"
#include "lexical/lexical_searcher.h"
#include "lexical_test_corpus.h"

namespace attest {
namespace {

using namespace testing_corpus;  // NOLINT

// A chunk whose body is `body` (space separated; "_" marks a dropped stopword: a position gap).
IndexedChunk Chunk(uint64_t id, const std::string& body, const std::string& title = "") {
  IndexedChunk c;
  c.id = ChunkId(id);
  auto fill = [](const std::string& text, AnalyzedField* f) {
    uint32_t pos = 0;
    size_t i = 0;
    while (i < text.size()) {
      size_t j = text.find(' ', i);
      if (j == std::string::npos) j = text.size();
      const std::string w = text.substr(i, j - i);
      if (!w.empty()) {
        if (w != "_") f->tokens.push_back(Token{w, pos, 0, 0});
        ++pos;
      }
      i = j + 1;
    }
    f->length = pos;
  };
  fill(title, &c.fields[0]);
  fill(body, &c.fields[2]);
  return c;
}

std::shared_ptr<const Segment> Build(const std::vector<IndexedChunk>& chunks) {
  return BuildSegment(chunks, 0, chunks.size());
}

QueryClause Term(const std::string& t, Occur o = Occur::kShould) { return QueryClause{o, {t}, {0}, false}; }
QueryClause Phrase(std::vector<std::string> terms, std::vector<uint32_t> pos, Occur o = Occur::kMust) {
  return QueryClause{o, std::move(terms), std::move(pos), true};
}

std::vector<uint64_t> Ids(const std::vector<ScoredChunk>& v) {
  std::vector<uint64_t> out;
  for (const auto& c : v) out.push_back(c.id.get());
  return out;
}

std::set<uint64_t> IdSet(const std::vector<ScoredChunk>& v) {
  std::set<uint64_t> out;
  for (const auto& c : v) out.insert(c.id.get());
  return out;
}

// Runs both TopK and Exhaustive and checks they agree; returns the result.
std::vector<ScoredChunk> Search(const LexicalSearcher& s, const LexicalQuery& q, size_t k = 10,
                                ChunkFilter filter = {}, Bm25Params bm25 = {}, LexicalSearchStats* stats = nullptr) {
  LexicalSearchArgs args;
  args.query = &q;
  args.k = k;
  args.filter = std::move(filter);
  args.bm25 = bm25;
  auto fast = s.TopK(args, stats);
  auto exact = s.Exhaustive(args);
  EXPECT_EQ(fast, exact);
  return fast;
}

TEST(LexicalSearchTest, Bm25MatchesHandComputation) {
  // Body lengths 3, 5, 2 -> avgdl = 10/3. "cat" appears in docs 1 (tf 1) and 2 (tf 2).
  LexicalSearcher s({{SegmentId(1), Build({Chunk(1, "the cat sat"), Chunk(2, "cat and cat are here"),
                                           Chunk(3, "dog sat")}), nullptr}});
  LexicalQuery q{{Term("cat")}};
  auto r = Search(s, q);
  ASSERT_EQ(r.size(), 2u);
  const double n = 3, df = 2, k1 = 0.9, b = 0.4, avgdl = 10.0 / 3.0;
  const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
  auto bm25 = [&](double tf, double dl) { return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl)); };
  // doc 2: tf 2, dl 5 -> 0.6296...; doc 1: tf 1, dl 3 -> 0.5059...
  EXPECT_EQ(r[0].id, ChunkId(2));
  EXPECT_NEAR(r[0].score, bm25(2, 5), 1e-5);
  EXPECT_EQ(r[1].id, ChunkId(1));
  EXPECT_NEAR(r[1].score, bm25(1, 3), 1e-5);
  EXPECT_GT(bm25(2, 5), bm25(1, 3));
}

TEST(LexicalSearchTest, Bm25FieldWeightsCombineTfAndLength) {
  // Title "cat" (len 1) + body "cat dog" (len 2). With title weight 2: tf = 2*1 + 1 = 3, dl = 2*1 + 2 = 4.
  LexicalSearcher s({{SegmentId(1), Build({Chunk(1, "cat dog", "cat"), Chunk(2, "dog dog dog", "")}), nullptr}});
  Bm25Params p;
  p.field_weights = {2.0f, 1.0f, 1.0f, 1.0f};
  LexicalQuery q{{Term("cat")}};
  auto r = Search(s, q, 10, {}, p);
  ASSERT_EQ(r.size(), 1u);
  const double n = 2, df = 1, k1 = 0.9, b = 0.4;
  const double avgdl = 2.0 * (1.0 / 2) + 1.0 * (5.0 / 2);  // weighted average lengths
  const double idf = std::log(1 + (n - df + 0.5) / (df + 0.5));
  const double want = idf * 3 * (k1 + 1) / (3 + k1 * (1 - b + b * 4 / avgdl));
  EXPECT_NEAR(r[0].score, want, 1e-5);
}

TEST(LexicalSearchTest, PhraseRespectsStopwordGapsAndFields) {
  // "release _ date": a stopword between them; the query phrase says so with positions {0, 2}.
  LexicalSearcher s({{SegmentId(1), Build({Chunk(1, "the release _ date is near"), Chunk(2, "release date"),
                                           Chunk(3, "date _ release"), Chunk(4, "release", "date")}),
                      nullptr}});
  EXPECT_EQ(Ids(Search(s, LexicalQuery{{Phrase({"release", "date"}, {0, 2})}})), std::vector<uint64_t>{1});
  EXPECT_EQ(Ids(Search(s, LexicalQuery{{Phrase({"release", "date"}, {0, 1})}})), std::vector<uint64_t>{2});
  // Across fields never matches (doc 4 has release in body, date in title).
  auto r = Search(s, LexicalQuery{{Phrase({"release", "date"}, {0, 1}, Occur::kShould), Term("zzz")}});
  EXPECT_EQ(Ids(r), std::vector<uint64_t>{2});
}

TEST(LexicalSearchTest, RequiredAndExcludedClauses) {
  LexicalSearcher s({{SegmentId(1), Build({Chunk(1, "vacuum freeze"), Chunk(2, "vacuum autovacuum freeze"),
                                           Chunk(3, "freeze only"), Chunk(4, "vacuum")}),
                      nullptr}});
  // should vacuum, should freeze, exclude autovacuum
  auto r = Search(s, LexicalQuery{{Term("vacuum"), Term("freeze"), Term("autovacuum", Occur::kMustNot)}});
  EXPECT_EQ(IdSet(r), (std::set<uint64_t>{1, 3, 4}));
  EXPECT_EQ(r[0].id, ChunkId(1));  // both terms
  // +vacuum freeze: vacuum required, freeze only scores.
  r = Search(s, LexicalQuery{{Term("vacuum", Occur::kMust), Term("freeze")}});
  EXPECT_EQ(IdSet(r), (std::set<uint64_t>{1, 2, 4}));
  EXPECT_NE(r.back().id, ChunkId(1));
  // -"vacuum freeze" excludes only the exact phrase.
  r = Search(s, LexicalQuery{{Term("freeze"), Phrase({"vacuum", "freeze"}, {0, 1}, Occur::kMustNot)}});
  EXPECT_EQ(IdSet(r), (std::set<uint64_t>{2, 3}));
  // Only excluded clauses match nothing.
  EXPECT_TRUE(Search(s, LexicalQuery{{Term("freeze", Occur::kMustNot)}}).empty());
  // A required term absent everywhere matches nothing.
  EXPECT_TRUE(Search(s, LexicalQuery{{Term("vacuum"), Term("nope", Occur::kMust)}}).empty());
}

TEST(LexicalSearchTest, TiesBreakByChunkIdAcrossSegments) {
  // Identical docs in two segments have identical scores: ascending ChunkId decides.
  auto a = Build({Chunk(5, "x y"), Chunk(9, "x y")});
  auto b = Build({Chunk(2, "x y"), Chunk(7, "x y")});
  LexicalSearcher s({{SegmentId(1), a, nullptr}, {SegmentId(2), b, nullptr}});
  EXPECT_EQ(Ids(Search(s, LexicalQuery{{Term("x")}}, 3)), (std::vector<uint64_t>{2, 5, 7}));
  EXPECT_EQ(s.num_docs(), 4u);
}

TEST(LexicalSearchTest, DeletedDocsNeverMatchButCountInN) {
  auto seg = Build({Chunk(1, "alpha"), Chunk(2, "alpha beta"), Chunk(3, "gamma")});
  auto del = std::make_shared<DeletedDocs>(3);
  del->Set(0);
  LexicalSearcher s({{SegmentId(1), seg, del}});
  LexicalSearchStats stats;
  auto r = Search(s, LexicalQuery{{Term("alpha")}}, 10, {}, {}, &stats);
  EXPECT_EQ(Ids(r), std::vector<uint64_t>{2});
  EXPECT_EQ(stats.docs_filtered, 1u);
  const double idf = std::log(1 + (3 - 2 + 0.5) / (2 + 0.5));  // N = 3 and df = 2 include the deleted doc
  const double avgdl = 4.0 / 3.0;
  EXPECT_NEAR(r[0].score, idf * 1.9 / (1 + 0.9 * (0.6 + 0.4 * 2 / avgdl)), 1e-5);
}

TEST(LexicalSearchTest, OnePercentAclFilterReturnsTenPermittedResults) {
  // 20,000 chunks; 1% (every 100th) belong to group "secret", the rest to "other"; none public.
  std::mt19937_64 rng(99);
  CorpusOptions o;
  o.num_docs = 20000;
  o.vocab = 500;
  auto chunks = MakeCorpus(rng, o);
  for (size_t i = 0; i < chunks.size(); ++i) chunks[i].attrs.acl_groups = {i % 100 == 37 ? "secret" : "other"};
  LexicalSearcher s({{SegmentId(1), BuildSegment(chunks, 0, chunks.size()), nullptr}});
  ChunkFilter f;
  f.groups = std::vector<std::string>{"secret"};
  LexicalQuery q{{Term(Word(3)), Term(Word(10)), Term(Word(40))}};
  LexicalSearchStats stats;
  auto r = Search(s, q, 10, f, {}, &stats);
  ASSERT_EQ(r.size(), 10u);
  for (const auto& c : r) {
    const auto local = s.segments()[0].segment->local_of(c.id);
    ASSERT_TRUE(local.has_value());
    EXPECT_EQ(*local % 100, 37u) << "result " << c.id.get() << " is not permitted";
  }
  // Driven by the admitted list: far fewer docs touched than the postings of the terms.
  EXPECT_LT(stats.postings_scored + stats.docs_filtered, 200u + 0u) << stats.postings_scored << " " << stats.docs_filtered;
}

TEST(LexicalSearchTest, TopKPrunesButStaysExact) {
  std::mt19937_64 rng(4);
  CorpusOptions o;
  o.num_docs = 5000;
  o.vocab = 1000;
  auto chunks = MakeCorpus(rng, o);
  LexicalSearcher s({{SegmentId(1), BuildSegment(chunks, 0, chunks.size()), nullptr}});
  LexicalQuery q{{Term(Word(0)), Term(Word(1)), Term(Word(200))}};
  LexicalSearchStats stats;
  auto r = Search(s, q, 10, {}, {}, &stats);
  ASSERT_EQ(r.size(), 10u);
  LexicalSearchArgs all;
  all.query = &q;
  all.k = 1000000;
  const size_t matches = s.Exhaustive(all).size();
  EXPECT_LT(stats.postings_scored, matches / 2) << "MaxScore should skip most of " << matches << " matches";
}

TEST(LexicalSearchTest, ConcurrentSearchesAgreeWithSerialOnes) {
  std::mt19937_64 rng(31);
  CorpusOptions o;
  o.num_docs = 3000;
  auto chunks = MakeCorpus(rng, o);
  LexicalSearcher s({{SegmentId(1), BuildSegment(chunks, 0, 1500), nullptr},
                     {SegmentId(2), BuildSegment(chunks, 1500, chunks.size()), nullptr}});
  std::vector<LexicalQuery> queries;
  for (int i = 0; i < 40; ++i) queries.push_back(LexicalQuery{{Term(Word(i % 30)), Term(Word(i * 7 % 100))}});
  std::vector<std::vector<ScoredChunk>> serial;
  for (const auto& q : queries) {
    LexicalSearchArgs args;
    args.query = &q;
    serial.push_back(s.TopK(args));
  }
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) {
        for (size_t i = 0; i < queries.size(); ++i) {
          const size_t qi = (i + t * 11) % queries.size();
          LexicalSearchArgs args;
          args.query = &queries[qi];
          if (s.TopK(args) != serial[qi]) ++mismatches;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(LexicalSearchTest, FilterSemanticsOnStrings) {
  ChunkAttributes a;
  a.tenant = "acme";
  a.acl_groups = {"eng"};
  a.source_type = "docs";
  a.date = 100;
  ChunkFilter f;
  EXPECT_TRUE(FilterAdmits(f, a));
  f.groups = std::vector<std::string>{};
  EXPECT_FALSE(FilterAdmits(f, a));  // not public and no group in common
  a.acl_groups.clear();
  EXPECT_TRUE(FilterAdmits(f, a));   // public
  f.tenant = "globex";
  EXPECT_FALSE(FilterAdmits(f, a));
  f.tenant = "acme";
  f.date_from = 101;
  EXPECT_FALSE(FilterAdmits(f, a));
  f.date_from = 100;
  f.date_to = 100;
  EXPECT_TRUE(FilterAdmits(f, a));
  a.date = ChunkAttributes::kNoDate;
  EXPECT_FALSE(FilterAdmits(f, a));
}

TEST(LexicalSearchTest, NonsenseParametersAreSanitized) {
  LexicalSearcher s({{SegmentId(1), Build({Chunk(1, "a b", "a"), Chunk(2, "a c"), Chunk(3, "b")}), nullptr}});
  LexicalQuery q{{Term("a"), Term("b")}};
  Bm25Params p;
  p.k1 = std::nanf("");
  p.b = -3;
  p.field_weights = {std::numeric_limits<float>::infinity(), -1.0f, std::nanf("")};
  auto r = Search(s, q, size_t{1} << 40, {}, p);  // a huge k must not allocate k slots
  ASSERT_EQ(r.size(), 3u);
  for (const auto& c : r) EXPECT_TRUE(std::isfinite(c.score)) << c.id.get();
  // All weights sanitized to 0: every score is 0 and ties fall back to ChunkId order.
  EXPECT_EQ(Ids(r), (std::vector<uint64_t>{1, 2, 3}));
}

TEST(LexicalSearchTest, EmptyQueryAndZeroK) {
  LexicalSearcher s({{SegmentId(1), Build({Chunk(1, "a b")}), nullptr}});
  LexicalQuery empty;
  EXPECT_TRUE(Search(s, empty).empty());
  EXPECT_TRUE(Search(s, LexicalQuery{{Term("a")}}, 0).empty());
  LexicalSearcher none({});
  EXPECT_TRUE(Search(none, LexicalQuery{{Term("a")}}).empty());
}

}  // namespace
}  // namespace attest

namespace attest {
namespace {

// Regression for the size fix of single-valued attribute families (their doc list is stored empty):
// filters on such a family admit all docs or none, in TopK exactly as in the oracle.
TEST(LexicalSearchTest, SingleValuedAttributeFamiliesAdmitAllOrNothing) {
  std::vector<IndexedChunk> chunks;
  for (uint64_t i = 1; i <= 300; ++i) {
    IndexedChunk c = Chunk(i, i % 3 ? "alpha beta" : "alpha gamma");
    c.attrs.tenant = "acme";
    c.attrs.source_type = "docs";
    c.attrs.site = "example.org";
    c.attrs.version = "15";
    c.attrs.acl_groups = {i % 2 ? "eng" : "ops"};
    chunks.push_back(std::move(c));
  }
  LexicalSearcher s({{SegmentId(1), Build(chunks), nullptr}});
  LexicalQuery q{{Term("alpha"), Term("gamma")}};
  auto check = [&](const ChunkFilter& f, size_t expected) {
    LexicalSearchArgs args;
    args.query = &q;
    args.filter = f;
    args.k = 1000;
    auto fast = s.TopK(args);
    EXPECT_EQ(fast, s.Exhaustive(args));
    EXPECT_EQ(fast.size(), expected);
  };
  ChunkFilter f;
  f.tenant = "acme";
  check(f, 300);
  f.tenant = "globex";
  check(f, 0);
  f.tenant = "acme";
  f.source_types = {"wiki", "docs"};
  f.sites = {"example.org"};
  f.versions = {"15"};
  check(f, 300);
  f.groups = std::vector<std::string>{"ops"};
  check(f, 150);
  f.versions = {"16"};
  check(f, 0);
}

}  // namespace
}  // namespace attest
