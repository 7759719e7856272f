// SimHash fingerprints and the near-duplicate index: identical and near-identical texts, the
// block-split index against its linear oracle on random data, and the distance distributions on
// real pages (the PostgreSQL documentation), which docs/crawling.md quotes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/html_extractor.h"
#include "text/analyzer.h"
#include "text/near_duplicate_index.h"
#include "text/simhash.h"

namespace attest {
namespace {

constexpr SimHashFeatures kAllFeatures[] = {SimHashFeatures::kWeightedTerms, SimHashFeatures::kShingles2,
                                            SimHashFeatures::kShingles3};

const Analyzer& TheAnalyzer() {
  static const Analyzer analyzer;
  return analyzer;
}

const char* kPage =
    "The checkpointer process writes dirty buffers to disk at regular intervals. "
    "A checkpoint is begun every checkpoint_timeout seconds, or if max_wal_size is about to be exceeded. "
    "Reducing checkpoint_timeout and/or max_wal_size causes checkpoints to occur more often. "
    "This allows faster after-crash recovery, since less work will need to be redone. "
    "However, one must balance this against the increased cost of flushing dirty data pages more often. "
    "If full_page_writes is set, there is another factor to consider. "
    "To ensure data page consistency, the first modification of a data page after each checkpoint "
    "results in logging the entire page content. "
    "Checkpoints are fairly expensive, first because they require writing out all currently dirty buffers, "
    "and second because they result in extra subsequent WAL traffic as discussed above. "
    "It is therefore wise to set the checkpointing parameters high enough that checkpoints do not happen too often.";

TEST(TextSimHash, HammingDistance) {
  EXPECT_EQ(HammingDistance(0, 0), 0);
  EXPECT_EQ(HammingDistance(0, ~uint64_t{0}), 64);
  EXPECT_EQ(HammingDistance(0b1011, 0b0001), 2);
}

TEST(TextSimHash, FeatureHashIsStable) {
  // Pinned: fingerprints may be stored, so the feature hash must not change between builds.
  EXPECT_EQ(SimHashFeatureHash(""), SimHashFeatureHash(std::string()));
  EXPECT_NE(SimHashFeatureHash("a"), SimHashFeatureHash("b"));
  EXPECT_EQ(SimHashFeatureHash("checkpoint"), 2575184099462851913ULL);
}

TEST(TextSimHash, IdenticalAndReformattedTextsAgree) {
  for (SimHashFeatures f : kAllFeatures) {
    const SimHashOptions o{f};
    const uint64_t a = SimHashText(TheAnalyzer(), kPage, o);
    EXPECT_EQ(a, SimHashText(TheAnalyzer(), kPage, o)) << SimHashFeaturesName(f);
    std::string shouted = kPage;
    std::transform(shouted.begin(), shouted.end(), shouted.begin(), [](char c) { return c == ' ' ? '\n' : c; });
    EXPECT_EQ(a, SimHashText(TheAnalyzer(), shouted, o)) << "whitespace must not matter: " << SimHashFeaturesName(f);
    EXPECT_EQ(SimHashText(TheAnalyzer(), "", o), 0u);
    EXPECT_NE(SimHashText(TheAnalyzer(), "vacuum", o), SimHashText(TheAnalyzer(), "analyze", o));
  }
}

TEST(TextSimHash, OneChangedSentenceIsNearAndAnotherTextIsFar) {
  std::string changed = kPage;
  const std::string from = "Checkpoints are fairly expensive";
  changed.replace(changed.find(from), from.size(), "Checkpoints cost a great deal of I/O");
  const char* other =
      "The pg_dump utility extracts a database into a script file or another archive file. "
      "The dumps are consistent even if the database is being used concurrently. "
      "Script dumps are plain-text files containing the SQL commands required to rebuild the database.";
  const uint64_t a = SimHashText(TheAnalyzer(), kPage);
  EXPECT_LE(HammingDistance(a, SimHashText(TheAnalyzer(), changed)), 12);
  EXPECT_GE(HammingDistance(a, SimHashText(TheAnalyzer(), other)), 15);
}

// ---- the index against its oracle ----

std::vector<uint64_t> Queries(const std::vector<uint64_t>& stored, std::mt19937_64& rng, size_t n) {
  std::vector<uint64_t> q;
  for (size_t i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      q.push_back(rng());
      continue;
    }
    uint64_t fp = stored[rng() % stored.size()];
    const int flips = static_cast<int>(rng() % 6);  // 0..5 bits: inside and just outside the radius
    for (int k = 0; k < flips; ++k) fp ^= uint64_t{1} << (rng() % 64);
    q.push_back(fp);
  }
  return q;
}

void ExpectAgreement(const std::vector<uint64_t>& stored, const std::vector<uint64_t>& queries, size_t* matches) {
  NearDuplicateIndex index;
  LinearNearDuplicateIndex oracle;
  for (size_t i = 0; i < stored.size(); ++i) {
    index.Add(i % 997, stored[i]);  // repeated ids: ties ordered by insertion
    oracle.Add(i % 997, stored[i]);
  }
  ASSERT_EQ(index.size(), oracle.size());
  for (uint64_t q : queries) {
    for (int d = 0; d <= 5; ++d) {
      const std::vector<NearDuplicateMatch> fast = index.Find(q, d);
      ASSERT_EQ(fast, oracle.Find(q, d)) << std::hex << q << std::dec << " distance " << d;
      if (d == 3) *matches += fast.size();
    }
  }
}

TEST(TextNearDuplicateIndex, AgreesWithTheLinearOracleOnRandomFingerprints) {
  std::mt19937_64 rng(20261202);
  std::vector<uint64_t> stored(20000);
  for (uint64_t& fp : stored) fp = rng();
  // Planted near neighbours of stored fingerprints, so queries have answers at every distance.
  for (size_t i = 0; i < 2000; ++i) {
    uint64_t fp = stored[rng() % 20000];
    for (int k = 0, n = static_cast<int>(rng() % 5); k < n; ++k) fp ^= uint64_t{1} << (rng() % 64);
    stored.push_back(fp);
  }
  size_t matches = 0;
  ExpectAgreement(stored, Queries(stored, rng, 3000), &matches);
  EXPECT_GT(matches, 1000u);  // the comparison was not vacuous
}

TEST(TextNearDuplicateIndex, AgreesOnClusteredFingerprints) {
  // Few distinct block values: candidates repeat across blocks, which the dedupe must handle.
  std::mt19937_64 rng(7);
  std::vector<uint64_t> stored(5000);
  for (uint64_t& fp : stored) {
    fp = 0;
    for (int b = 0; b < 4; ++b) fp |= (rng() % 4) << (16 * b) << (rng() % 3);
  }
  size_t matches = 0;
  ExpectAgreement(stored, Queries(stored, rng, 500), &matches);
  EXPECT_GT(matches, 1000u);
}

TEST(TextNearDuplicateIndex, ChecksFewCandidates) {
  std::mt19937_64 rng(11);
  NearDuplicateIndex index;
  for (int i = 0; i < 100000; ++i) index.Add(static_cast<uint64_t>(i), rng());
  size_t candidates = 0;
  for (int i = 0; i < 1000; ++i) candidates += index.CandidateCount(rng());
  // 4 blocks × 100000 / 65536 ≈ 6 per query, against 100000 for a linear scan.
  EXPECT_LT(candidates / 1000.0, 20.0);
}

// ---- real pages ----

struct Page {
  std::string text;
  size_t terms = 0;
};

std::vector<Page> PostgresPages() {
  const std::filesystem::path dir = "/usr/share/doc/postgresql-doc-15/html";
  std::vector<Page> pages;
  if (!std::filesystem::is_directory(dir)) return pages;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".html") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    ParsedDocument doc;
    if (!ExtractHtml(ss.str(), &doc).ok()) continue;
    std::string text;
    for (const Block& b : doc.blocks) text += b.text + "\n";
    const size_t terms = TheAnalyzer().Terms(text).size();
    if (terms >= 60) pages.push_back({std::move(text), terms});
  }
  return pages;
}

// Replaces the sentence nearest the middle of the text with one of our own.
std::string ChangeOneSentence(const std::string& text) {
  size_t start = text.find(". ", text.size() / 2);
  if (start == std::string::npos) start = text.size() / 2;
  start += 2;
  size_t end = text.find(". ", start);
  if (end == std::string::npos) end = std::min(text.size(), start + 80);
  return text.substr(0, start) + "This sentence was rewritten to say something else about replication slots" +
         text.substr(end);
}

std::string Mirror(const std::string& text) {
  return "Mirror hosted by Example University. Home | Downloads | Mailing lists | Contact the mirror team\n" + text +
         "\nThis mirror is updated nightly. Report broken links to mirror-admin.\n";
}

struct Distribution {
  std::vector<int> d;
  double Within(int k) const {
    return d.empty() ? 0 : static_cast<double>(std::count_if(d.begin(), d.end(), [k](int x) { return x <= k; })) / d.size();
  }
  int Percentile(double p) {
    std::sort(d.begin(), d.end());
    return d.empty() ? 0 : d[std::min(d.size() - 1, static_cast<size_t>(p * (d.size() - 1)))];
  }
};

TEST(TextSimHashOnPostgresDocs, DistancesOfNearAndDifferentPages) {
  const std::vector<Page> pages = PostgresPages();
  if (pages.size() < 100) GTEST_SKIP() << "PostgreSQL documentation (postgresql-doc-15) not installed";
  std::mt19937_64 rng(15);
  std::vector<size_t> perm(pages.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  const size_t long_pages = static_cast<size_t>(std::count_if(pages.begin(), pages.end(), [](const Page& p) { return p.terms >= 500; }));
  std::printf("pages: %zu (at least 60 terms), %zu with at least 500\n", pages.size(), long_pages);
  std::printf("%-15s %-22s %5s %5s %5s %5s %8s\n", "features", "pair", "p10", "p50", "p90", "max", "<=3");
  for (SimHashFeatures f : kAllFeatures) {
    const SimHashOptions o{f};
    std::vector<uint64_t> fp(pages.size());
    Distribution changed, mirrored, different, changed_long, mirrored_long;
    for (size_t i = 0; i < pages.size(); ++i) {
      fp[i] = SimHashText(TheAnalyzer(), pages[i].text, o);
      changed.d.push_back(HammingDistance(fp[i], SimHashText(TheAnalyzer(), ChangeOneSentence(pages[i].text), o)));
      mirrored.d.push_back(HammingDistance(fp[i], SimHashText(TheAnalyzer(), Mirror(pages[i].text), o)));
      if (pages[i].terms >= 500) {
        changed_long.d.push_back(changed.d.back());
        mirrored_long.d.push_back(mirrored.d.back());
      }
    }
    for (size_t i = 0; i < pages.size(); ++i) different.d.push_back(HammingDistance(fp[i], fp[perm[i]]));
    different.d.erase(std::remove(different.d.begin(), different.d.end(), 0), different.d.end());  // i == perm[i]
    const std::string name(SimHashFeaturesName(f));
    for (auto [label, dist] : {std::pair{"one sentence changed", &changed}, std::pair{"  (>= 500 terms)", &changed_long},
                               std::pair{"mirror boilerplate", &mirrored}, std::pair{"  (>= 500 terms)", &mirrored_long},
                               std::pair{"different pages", &different}}) {
      const double within = dist->Within(3);
      std::printf("%-15s %-22s %5d %5d %5d %5d %7.1f%%\n", name.c_str(), label, dist->Percentile(0.1),
                  dist->Percentile(0.5), dist->Percentile(0.9), dist->Percentile(1.0), 100 * within);
    }
    // All pairs of real pages within distance 3, by the index and by the oracle.
    NearDuplicateIndex index;
    LinearNearDuplicateIndex oracle;
    for (size_t i = 0; i < fp.size(); ++i) {
      index.Add(i, fp[i]);
      oracle.Add(i, fp[i]);
    }
    size_t pairs = 0;
    for (size_t i = 0; i < fp.size(); ++i) {
      const std::vector<NearDuplicateMatch> found = index.Find(fp[i]);
      ASSERT_EQ(found, oracle.Find(fp[i]));
      for (const NearDuplicateMatch& m : found) pairs += m.id > i ? 1 : 0;
    }
    int closest = 64;
    for (size_t i = 0; i < fp.size(); ++i) {
      for (size_t j = i + 1; j < fp.size(); ++j) closest = std::min(closest, HammingDistance(fp[i], fp[j]));
    }
    std::printf("%-15s pairs of distinct pages within 3: %zu of %zu; closest pair: %d bits\n", name.c_str(), pairs,
                fp.size() * (fp.size() - 1) / 2, closest);
    if (f == SimHashOptions{}.features) {
      // The default must cluster most near copies and almost never join different pages.
      EXPECT_GE(changed.Within(3), 0.4) << name;
      EXPECT_GE(mirrored.Within(3), 0.5) << name;
      EXPECT_GE(changed_long.Within(3), 0.6) << name;
      EXPECT_GE(mirrored_long.Within(3), 0.8) << name;
      EXPECT_LE(different.Within(3), 0.01) << name;
    }
  }
}

}  // namespace
}  // namespace attest
