// Segment write/read round trip and corruption detection.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/checksum.h"
#include "common/file_util.h"
#include "lexical/lexical_searcher.h"
#include "lexical/segment_impl.h"
#include "lexical_test_corpus.h"

namespace attest {
namespace {

using namespace testing_corpus;  // NOLINT

std::filesystem::path TestDir(const std::string& name) {
  auto dir = std::filesystem::path(::testing::TempDir()) /
             ("lexical_segment_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string SmallImage(uint32_t docs = 300, uint64_t seed = 3) {
  std::mt19937_64 rng(seed);
  CorpusOptions o;
  o.num_docs = docs;
  auto chunks = MakeCorpus(rng, o);
  SegmentWriter w;
  for (const auto& c : chunks) EXPECT_TRUE(w.Add(c).ok());
  return w.Serialize();
}

TEST(LexicalSegmentTest, RoundTripMatchesInput) {
  std::mt19937_64 rng(5);
  CorpusOptions o;
  o.num_docs = 700;  // several blocks for frequent terms
  auto chunks = MakeCorpus(rng, o);
  SegmentWriter w;
  for (const auto& c : chunks) ASSERT_TRUE(w.Add(c).ok());
  EXPECT_EQ(w.num_chunks(), chunks.size());
  const auto dir = TestDir("roundtrip");
  ASSERT_TRUE(w.WriteTo(dir / "seg").ok());
  auto seg_or = Segment::Open(dir / "seg");
  ASSERT_TRUE(seg_or.ok()) << seg_or.status().ToString();
  const Segment& seg = **seg_or;
  ASSERT_EQ(seg.num_docs(), chunks.size());
  EXPECT_EQ(seg.file_size(), std::filesystem::file_size(dir / "seg"));
  std::map<std::string, std::set<uint32_t>> docs_of;
  uint64_t total[kNumFields] = {0, 0, 0, 0};
  for (uint32_t d = 0; d < chunks.size(); ++d) {
    EXPECT_EQ(seg.chunk_id(d), chunks[d].id);
    EXPECT_EQ(seg.local_of(chunks[d].id), std::optional<LocalDoc>(d));
    EXPECT_FALSE(seg.local_of(ChunkId(chunks[d].id.get() + 1)).has_value() &&
                 (d + 1 >= chunks.size() || chunks[d + 1].id.get() != chunks[d].id.get() + 1));
    for (int f = 0; f < kNumFields; ++f) {
      total[f] += chunks[d].fields[f].length;
      EXPECT_EQ(seg.impl().field_len(d, f), chunks[d].fields[f].length);
      for (const Token& t : chunks[d].fields[f].tokens) docs_of[t.term].insert(d);
    }
    ChunkAttributes a = seg.attributes(d);
    const ChunkAttributes& e = chunks[d].attrs;
    EXPECT_EQ(a.tenant, e.tenant);
    EXPECT_EQ(a.source_type, e.source_type);
    EXPECT_EQ(a.site, e.site);
    EXPECT_EQ(a.version, e.version);
    EXPECT_EQ(a.date, e.date);
    std::set<std::string> want(e.acl_groups.begin(), e.acl_groups.end());
    std::set<std::string> got(a.acl_groups.begin(), a.acl_groups.end());
    EXPECT_EQ(got, want);
  }
  for (int f = 0; f < kNumFields; ++f) EXPECT_EQ(seg.total_field_length(static_cast<Field>(f)), total[f]);
  EXPECT_GT(total[static_cast<int>(Field::kTerm)], 0u);
  for (const auto& [term, set] : docs_of) EXPECT_EQ(seg.doc_freq(term), set.size()) << term;
  EXPECT_EQ(seg.doc_freq("absent"), 0u);
  EXPECT_FALSE(seg.local_of(ChunkId(0)).has_value());
}

// local_of against a linear search, on chunk ids with gaps (a merged segment), with a run of
// consecutive ids and without any (a segment from one batch), for every id around them.
TEST(LexicalSegmentTest, LocalOfEqualsALinearSearch) {
  for (int gaps : {0, 1, 2}) {
    std::mt19937_64 rng(17 + gaps);
    CorpusOptions o;
    o.num_docs = 400;
    auto chunks = MakeCorpus(rng, o);
    uint64_t next = 7;
    for (size_t d = 0; d < chunks.size(); ++d) {
      chunks[d].id = ChunkId(next);
      const bool run = gaps == 2 && d >= 100 && d < 250;  // consecutive ids inside a gapped segment
      next += (gaps == 0 || run) ? 1 : 1 + rng() % 4;
    }
    SegmentWriter w;
    for (const auto& c : chunks) ASSERT_TRUE(w.Add(c).ok());
    auto seg_or = Segment::FromBytes(w.Serialize());
    ASSERT_TRUE(seg_or.ok()) << seg_or.status().ToString();
    const Segment& seg = **seg_or;
    for (uint64_t id = 0; id < next + 3; ++id) {
      std::optional<LocalDoc> want;
      for (uint32_t d = 0; d < chunks.size(); ++d) {
        if (chunks[d].id.get() == id) want = LocalDoc(d);
      }
      ASSERT_EQ(seg.local_of(ChunkId(id)), want) << "id " << id << " gaps " << gaps;
    }
  }
}

// Segments of format version 2 (three fields, before the term field) still open and search: their
// term field reads as empty, and they score exactly as a current segment whose chunks have no terms.
TEST(LexicalSegmentTest, Version2SegmentReadsWithAnEmptyTermField) {
  std::mt19937_64 rng(17);
  CorpusOptions o;
  o.num_docs = 400;
  auto chunks = MakeCorpus(rng, o);
  chunks[0].fields[3] = AnalyzedField{{Token{"onlyinterm", 0, 0, 0}}, 1};
  auto old_seg = BuildSegment(chunks, 0, chunks.size(), 2);
  ASSERT_NE(old_seg, nullptr);
  EXPECT_EQ(old_seg->impl().version(), 2u);
  EXPECT_EQ(old_seg->impl().num_fields(), 3);
  EXPECT_EQ(old_seg->total_field_length(Field::kTerm), 0u);
  EXPECT_EQ(old_seg->doc_freq("onlyinterm"), 0u);
  for (uint32_t d = 0; d < old_seg->num_docs(); ++d) {
    EXPECT_EQ(old_seg->impl().field_len(d, 3), 0u);
    for (int f = 0; f < 3; ++f) EXPECT_EQ(old_seg->impl().field_len(d, f), chunks[d].fields[f].length);
  }
  for (auto& c : chunks) c.fields[3] = AnalyzedField{};
  auto new_seg = BuildSegment(chunks, 0, chunks.size());
  ASSERT_NE(new_seg, nullptr);
  EXPECT_EQ(new_seg->impl().version(), Segment::CurrentFormatVersion());
  LexicalSearcher old_searcher({{SegmentId(1), old_seg, nullptr}});
  LexicalSearcher new_searcher({{SegmentId(1), new_seg, nullptr}});
  const std::vector<std::vector<std::string>> queries = {{"w0"}, {"w1", "w5"}, {"w3", "w17", "w2"}};
  for (const auto& q : queries) {
    LexicalQuery query;
    for (const std::string& t : q) query.clauses.push_back(QueryClause{Occur::kShould, {t}, {0}, false});
    LexicalSearchArgs args;
    args.query = &query;
    args.k = 20;
    const auto got = old_searcher.TopK(args);
    EXPECT_FALSE(got.empty()) << q[0];
    EXPECT_EQ(got, old_searcher.Exhaustive(args)) << q[0];
    EXPECT_EQ(got, new_searcher.TopK(args)) << q[0];
  }
}

TEST(LexicalSegmentTest, EmptySegmentIsValid) {
  SegmentWriter w;
  auto seg = Segment::FromBytes(w.Serialize());
  ASSERT_TRUE(seg.ok()) << seg.status().ToString();
  EXPECT_EQ((*seg)->num_docs(), 0u);
  EXPECT_EQ((*seg)->doc_freq("x"), 0u);
}

TEST(LexicalSegmentTest, RejectsNonIncreasingChunkIds) {
  SegmentWriter w;
  IndexedChunk c;
  c.id = ChunkId(10);
  ASSERT_TRUE(w.Add(c).ok());
  Status st = w.Add(c);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("not greater"), std::string::npos) << st.message();
}

TEST(LexicalSegmentTest, EveryFlippedByteIsCorruption) {
  const std::string image = SmallImage(150);
  ASSERT_TRUE(Segment::FromBytes(image).ok());
  // Every byte of a small image; each flip must be caught (checksum, magic or structure).
  for (size_t i = 0; i < image.size(); ++i) {
    std::string bad = image;
    bad[i] ^= static_cast<char>(1 + (i % 255));
    auto seg = Segment::FromBytes(bad);
    ASSERT_FALSE(seg.ok()) << "flip at byte " << i << " went unnoticed";
    ASSERT_EQ(seg.status().code(), StatusCode::kCorruption) << i << ": " << seg.status().ToString();
  }
}

TEST(LexicalSegmentTest, TruncationIsCorruption) {
  const std::string image = SmallImage(100);
  for (size_t len : {size_t(0), size_t(7), size_t(16), image.size() / 2, image.size() - 1, image.size() - 9}) {
    auto seg = Segment::FromBytes(image.substr(0, len));
    ASSERT_FALSE(seg.ok()) << len;
    EXPECT_EQ(seg.status().code(), StatusCode::kCorruption) << len << ": " << seg.status().ToString();
  }
}

TEST(LexicalSegmentTest, FutureVersionIsUnsupported) {
  std::string image = SmallImage(50);
  for (char version : {char(Segment::CurrentFormatVersion() + 1), char(1)}) {  // one newer than this build writes, one older than it reads
    image[8] = version;
    const uint32_t crc = Crc32c(image.data(), image.size() - 12);
    std::memcpy(&image[image.size() - 12], &crc, 4);
    auto seg = Segment::FromBytes(image);
    ASSERT_FALSE(seg.ok());
    EXPECT_EQ(seg.status().code(), StatusCode::kUnsupported);
    EXPECT_NE(seg.status().message().find("version " + std::to_string(version)), std::string::npos)
        << seg.status().message();
  }
}

TEST(LexicalSegmentTest, StructurallyInvalidButChecksummedIsCorruption) {
  // A crafted file with a valid checksum but a dictionary offset past its section.
  std::string image = SmallImage(50);
  auto ok = Segment::FromBytes(image);
  ASSERT_TRUE(ok.ok());
  const uint64_t footer = segfmt::Load64(reinterpret_cast<const uint8_t*>(image.data()) + image.size() - 20);
  const uint64_t dict_off =
      segfmt::Load64(reinterpret_cast<const uint8_t*>(image.data()) + footer + 4 + 16 * segfmt::kDict);
  uint32_t huge = 0x7fffffff;
  std::memcpy(&image[dict_off], &huge, 4);  // term offset of the first term
  const uint32_t crc = Crc32c(image.data(), image.size() - 12);
  std::memcpy(&image[image.size() - 12], &crc, 4);
  auto seg = Segment::FromBytes(image);
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kCorruption);
}

// Mutations that keep a valid checksum (as a crafted file would): Open either rejects the image
// with kCorruption/kUnsupported, or accepts it and every read path stays in bounds.
TEST(LexicalSegmentTest, ChecksummedMutationsAreRejectedOrSafe) {
  const std::string image = SmallImage(200, 8);
  std::mt19937_64 rng(123);
  int accepted = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string bad = image;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < flips; ++i) {
      const size_t at = 16 + rng() % (bad.size() - 36);  // not header/tail: those are checked first
      bad[at] = static_cast<char>(rng());
    }
    const uint32_t crc = Crc32c(bad.data(), bad.size() - 12);
    std::memcpy(&bad[bad.size() - 12], &crc, 4);
    auto seg = Segment::FromBytes(bad);
    if (!seg.ok()) {
      ASSERT_TRUE(seg.status().code() == StatusCode::kCorruption || seg.status().code() == StatusCode::kUnsupported)
          << seg.status().ToString();
      continue;
    }
    ++accepted;
    LexicalSearcher s({{SegmentId(1), *seg, nullptr}});
    for (int q = 0; q < 4; ++q) {
      LexicalQuery query{{QueryClause{Occur::kShould, {Word(rng() % 20)}, {0}, false},
                          QueryClause{Occur::kShould, {Word(rng() % 5), Word(rng() % 5)}, {0, 1}, true}}};
      LexicalSearchArgs args;
      args.query = &query;
      args.filter.groups = std::vector<std::string>{Groups()[rng() % Groups().size()]};
      (void)s.TopK(args);
      (void)s.Exhaustive(args);
    }
    for (uint32_t d = 0; d < (*seg)->num_docs(); ++d) (void)(*seg)->attributes(d);
  }
  std::cout << accepted << " of 3000 checksummed mutations were structurally valid\n";
}

TEST(LexicalSegmentTest, OpenMissingFileFails) {
  const auto dir = TestDir("missing");
  auto seg = Segment::Open(dir / "nope");
  EXPECT_FALSE(seg.ok());
}

TEST(LexicalSegmentTest, GarbageFileIsCorruptionAndNamesThePath) {
  const auto dir = TestDir("garbage");
  ASSERT_TRUE(WriteFileAtomically(dir / "seg", std::string(4096, 'x')).ok());
  auto seg = Segment::Open(dir / "seg");
  ASSERT_FALSE(seg.ok());
  EXPECT_EQ(seg.status().code(), StatusCode::kCorruption);
  EXPECT_NE(seg.status().message().find("seg"), std::string::npos);
}

}  // namespace
}  // namespace attest
