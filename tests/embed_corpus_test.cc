// Tests for the corpus-trained embedders (LSA, fastText-SIF), run against both models: topic
// structure learned from a synthetic corpus, determinism, load round trip, unknown words, unit-norm
// rows and corrupted model files. Plus the randomized SVD against LAPACK's exact SVD.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common/file_util.h"
#include "embed/fasttext_sif_model.h"
#include "embed/lsa_model.h"
#include "embed/randomized_svd.h"
#include "support/process.h"

extern "C" void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
                        double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
                        int* iwork, int* info);

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

const std::vector<std::vector<std::string>> kTopics = {
    {"planet", "orbit", "rocket", "galaxy", "comet", "telescope", "asteroid", "nebula", "astronaut", "satellite",
     "lunar", "meteor"},
    {"recipe", "oven", "flour", "butter", "garlic", "onion", "simmer", "bake", "sauce", "pepper", "salad", "dough"},
    {"stock", "bond", "dividend", "market", "investor", "equity", "loan", "banker", "currency", "inflation",
     "portfolio", "mortgage"},
    {"guitar", "piano", "melody", "rhythm", "violin", "drum", "chord", "tempo", "orchestra", "concert", "lyric",
     "singer"},
};

// Text i is about topic i % 4: 12 words drawn from that topic's list.
std::vector<std::string> TopicTexts(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    const auto& words = kTopics[i % kTopics.size()];
    std::string t;
    for (int w = 0; w < 12; ++w) t += words[rng() % words.size()] + " ";
    out.push_back(t);
  }
  return out;
}

struct ModelKind {
  std::string name;
  std::function<Result<std::unique_ptr<Embedder>>(const CorpusTrainingArgs&, TrainedModelInfo*)> train;
  std::function<Result<std::unique_ptr<Embedder>>(const fs::path&)> load;
};

std::vector<ModelKind> Kinds() {
  ModelKind lsa{"lsa",
                [](const CorpusTrainingArgs& a, TrainedModelInfo* i) { return TrainLsaEmbedder(a, LsaOptions{}, i); },
                [](const fs::path& p) { return LoadLsaModel(p); }};
  ModelKind ft{"fasttext_sif",
               [](const CorpusTrainingArgs& a, TrainedModelInfo* i) {
                 FastTextSifOptions o;
                 o.epochs = 20;
                 o.buckets = 5000;
                 return TrainFastTextSifEmbedder(a, o, i);
               },
               [](const fs::path& p) { return LoadFastTextSifModel(p); }};
  return {lsa, ft};
}

class CorpusEmbedderTest : public ::testing::TestWithParam<ModelKind> {
 protected:
  CorpusTrainingArgs Args(const std::string& file, uint64_t seed = 7, unsigned threads = 2) {
    CorpusTrainingArgs a;
    a.corpus = [this](const std::function<Status(std::string_view)>& visit) -> Status {
      for (const std::string& t : corpus_) ATTEST_RETURN_IF_ERROR(visit(t));
      return Status::Ok();
    };
    a.model_path = dir_.path() / file;
    a.dim = 16;
    a.seed = seed;
    a.threads = threads;
    return a;
  }
  std::unique_ptr<Embedder> Train(const std::string& file, uint64_t seed = 7, unsigned threads = 2) {
    TrainedModelInfo info;
    auto r = GetParam().train(Args(file, seed, threads), &info);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return nullptr;
    EXPECT_EQ(info.texts, corpus_.size());
    EXPECT_EQ(info.model_bytes, fs::file_size(dir_.path() / file));
    EXPECT_EQ((*r)->identity(), info.identity);
    return std::move(r).value();
  }
  static std::vector<float> EmbedAll(const Embedder& e, const std::vector<std::string>& texts) {
    std::vector<std::string_view> views(texts.begin(), texts.end());
    auto r = e.Embed(views, EmbedPurpose::kDocument);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<float>();
  }
  std::string ReadBytes(const std::string& file) { return *ReadFileToString(dir_.path() / file); }

  TempDir dir_;
  std::vector<std::string> corpus_ = TopicTexts(320, 1);
};

TEST_P(CorpusEmbedderTest, SameTopicTextsAreCloserThanCrossTopic) {
  auto e = Train("m.bin");
  ASSERT_NE(e, nullptr);
  const uint32_t dim = e->identity().dim;
  EXPECT_EQ(dim, 16u);
  std::vector<std::string> held_out = TopicTexts(40, 99);  // unseen word combinations
  std::vector<float> v = EmbedAll(*e, held_out);
  ASSERT_EQ(v.size(), held_out.size() * dim);
  double same = 0, cross = 0;
  size_t n_same = 0, n_cross = 0;
  for (size_t i = 0; i < held_out.size(); ++i) {
    for (size_t j = i + 1; j < held_out.size(); ++j) {
      double c = 0;
      for (uint32_t k = 0; k < dim; ++k) c += double(v[i * dim + k]) * v[j * dim + k];
      if (i % 4 == j % 4) { same += c; ++n_same; } else { cross += c; ++n_cross; }
    }
  }
  same /= double(n_same);
  cross /= double(n_cross);
  EXPECT_GT(same, cross + 0.3) << "same-topic mean cosine " << same << ", cross-topic " << cross;
}

TEST_P(CorpusEmbedderTest, RowsAreUnitNormAndUnknownWordsGiveZero) {
  auto e = Train("m.bin");
  ASSERT_NE(e, nullptr);
  const uint32_t dim = e->identity().dim;
  std::vector<float> v = EmbedAll(*e, corpus_);
  for (size_t i = 0; i < corpus_.size(); ++i) {
    double n = 0;
    for (uint32_t k = 0; k < dim; ++k) n += double(v[i * dim + k]) * v[i * dim + k];
    ASSERT_NEAR(n, 1.0, 1e-4) << "row " << i;
  }
  std::vector<float> z = EmbedAll(*e, {"zyzzyva quokkaish", "", "planet"});
  ASSERT_EQ(z.size(), 3u * dim);
  for (uint32_t k = 0; k < 2 * dim; ++k) EXPECT_EQ(z[k], 0.0f);
  double known = 0;
  for (uint32_t k = 0; k < dim; ++k) known += double(z[2 * dim + k]) * z[2 * dim + k];
  EXPECT_NEAR(known, 1.0, 1e-4);
}

TEST_P(CorpusEmbedderTest, DeterministicForASeed) {
  ASSERT_NE(Train("a.bin", 7), nullptr);
  ASSERT_NE(Train("b.bin", 7), nullptr);
  ASSERT_NE(Train("c.bin", 8), nullptr);
  EXPECT_EQ(ReadBytes("a.bin"), ReadBytes("b.bin"));
  EXPECT_NE(ReadBytes("a.bin"), ReadBytes("c.bin"));
}

TEST_P(CorpusEmbedderTest, ThreadCountDoesNotChangeTheModel) {
  ASSERT_NE(Train("t1.bin", 7, 1), nullptr);
  ASSERT_NE(Train("t3.bin", 7, 3), nullptr);
  EXPECT_EQ(ReadBytes("t1.bin"), ReadBytes("t3.bin"));
}

TEST_P(CorpusEmbedderTest, LoadRoundTripGivesTheSameEmbeddings) {
  auto trained = Train("m.bin");
  ASSERT_NE(trained, nullptr);
  auto loaded = GetParam().load(dir_.path() / "m.bin");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->identity(), trained->identity());
  EXPECT_EQ((*loaded)->identity().version.size(), 16u);
  std::vector<std::string> texts = TopicTexts(12, 5);
  texts.push_back("unknownword planet");
  EXPECT_EQ(EmbedAll(**loaded, texts), EmbedAll(*trained, texts));
}

TEST_P(CorpusEmbedderTest, CorruptedFilesAreRejected) {
  ASSERT_NE(Train("m.bin"), nullptr);
  const std::string good = ReadBytes("m.bin");
  auto expect_corrupt = [&](const std::string& label, const std::string& content) {
    testing_support::WriteFile(dir_.path() / "bad.bin", content);
    auto r = GetParam().load(dir_.path() / "bad.bin");
    ASSERT_FALSE(r.ok()) << label;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << label << ": " << r.status().ToString();
    EXPECT_NE(r.status().message().find("bad.bin"), std::string::npos) << r.status().ToString();
  };
  for (size_t pos : {size_t(9), size_t(20), good.size() / 2, good.size() - 1}) {
    std::string flipped = good;
    flipped[pos] = static_cast<char>(flipped[pos] ^ 0x40);
    expect_corrupt("flip at " + std::to_string(pos), flipped);
  }
  expect_corrupt("truncated", good.substr(0, good.size() - 9));
  expect_corrupt("header only", good.substr(0, 12));
  expect_corrupt("empty", "");
  std::string magic = good;
  magic[0] = 'X';
  expect_corrupt("wrong magic", magic);
  auto missing = GetParam().load(dir_.path() / "absent.bin");
  EXPECT_FALSE(missing.ok());
}

INSTANTIATE_TEST_SUITE_P(Models, CorpusEmbedderTest, ::testing::ValuesIn(Kinds()),
                         [](const auto& info) { return info.param.name; });

TEST(LsaTrainingTest, RejectsEmptyCorpusAndWrongArguments) {
  TempDir dir;
  CorpusTrainingArgs a;
  a.corpus = [](const std::function<Status(std::string_view)>&) { return Status::Ok(); };
  a.model_path = dir.path() / "m.bin";
  auto r = TrainLsaModel(a);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  a.corpus = nullptr;
  EXPECT_FALSE(TrainLsaModel(a).ok());
  EXPECT_FALSE(fs::exists(a.model_path));
}

// The SVD over evenly spaced texts (LsaOptions::max_svd_texts): a cap at or above the corpus trains the
// very model every text gives; a cap below it reads fewer rows, stays deterministic, keeps the whole
// corpus's vocabulary and IDF (the same text count and vocabulary) and relates texts as the full
// model does (same-topic pairs stay closer than cross-topic pairs, by as wide a margin).
TEST(LsaTrainingTest, SvdOverEvenlySpacedTextsKeepsTheModelsStructure) {
  TempDir dir;
  const std::vector<std::string> corpus = TopicTexts(2000, 3);
  auto train = [&](uint64_t cap, const std::string& file, TrainedModelInfo* info) {
    CorpusTrainingArgs a;
    a.corpus = [&](const std::function<Status(std::string_view)>& visit) -> Status {
      for (const std::string& t : corpus) ATTEST_RETURN_IF_ERROR(visit(t));
      return Status::Ok();
    };
    a.model_path = dir.path() / file;
    a.dim = 16;
    a.threads = 2;
    LsaOptions o;
    o.max_svd_texts = cap;
    auto r = TrainLsaEmbedder(a, o, info);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  };
  TrainedModelInfo all_info, at_size_info, capped_info, again_info;
  auto all = train(0, "all.bin", &all_info);
  auto at_size = train(corpus.size(), "at_size.bin", &at_size_info);
  auto capped = train(400, "capped.bin", &capped_info);
  auto again = train(400, "again.bin", &again_info);
  ASSERT_TRUE(all && at_size && capped && again);
  EXPECT_EQ(*ReadFileToString(dir.path() / "all.bin"), *ReadFileToString(dir.path() / "at_size.bin"));
  EXPECT_EQ(*ReadFileToString(dir.path() / "capped.bin"), *ReadFileToString(dir.path() / "again.bin"));
  EXPECT_NE(capped_info.identity.version, all_info.identity.version);
  EXPECT_EQ(capped_info.texts, corpus.size());
  EXPECT_EQ(capped_info.vocabulary, all_info.vocabulary);

  const std::vector<std::string> held_out = TopicTexts(40, 99);
  std::vector<std::string_view> views(held_out.begin(), held_out.end());
  auto margin = [&](const Embedder& e) {
    auto v = e.Embed(views, EmbedPurpose::kDocument);
    EXPECT_TRUE(v.ok());
    const uint32_t dim = e.identity().dim;
    double same = 0, cross = 0;
    size_t n_same = 0, n_cross = 0;
    for (size_t i = 0; i < held_out.size(); ++i) {
      for (size_t j = i + 1; j < held_out.size(); ++j) {
        double c = 0;
        for (uint32_t k = 0; k < dim; ++k) c += double((*v)[i * dim + k]) * (*v)[j * dim + k];
        if (i % 4 == j % 4) same += c, ++n_same; else cross += c, ++n_cross;
      }
    }
    return same / double(n_same) - cross / double(n_cross);
  };
  const double full_margin = margin(*all), capped_margin = margin(*capped);
  EXPECT_GT(full_margin, 0.3);
  EXPECT_GT(capped_margin, 0.9 * full_margin) << "full " << full_margin << ", over 400 of 2,000 texts " << capped_margin;
}

// The randomized SVD against LAPACK's exact SVD of the same (dense) matrix.
TEST(RandomizedSvdTest, MatchesExactSingularValuesAndSubspace) {
  const int m = 80, n = 50;
  std::mt19937 rng(3);
  SparseMatrix a;
  a.rows = m;
  a.cols = n;
  a.offsets.push_back(0);
  std::vector<double> dense(size_t(m) * n, 0.0);  // column-major
  for (int r = 0; r < m; ++r) {
    for (int c = 0; c < n; ++c) {
      if (rng() % 3 != 0) continue;
      // Low-rank structure plus noise so the top singular values are well separated.
      float v = float((r % 5 + 1) * (c % 4 + 1)) + float(rng() % 100) / 100.0f;
      a.indices.push_back(uint32_t(c));
      a.values.push_back(v);
      dense[r + size_t(c) * m] = v;
    }
    a.offsets.push_back(a.indices.size());
  }
  RandomizedSvdOptions o;
  o.rank = 5;
  o.power_iterations = 6;
  o.threads = 2;
  auto svd = RandomizedSvd(a, o);
  ASSERT_TRUE(svd.ok()) << svd.status().ToString();
  ASSERT_EQ(svd->rank, 5u);

  std::vector<double> s(n), u(size_t(m) * m), vt(size_t(n) * n), work(1);
  std::vector<int> iwork(8 * n);
  int info = 0, lwork = -1;
  const char jobz = 'A';
  dgesdd_(&jobz, &m, &n, dense.data(), &m, s.data(), u.data(), &m, vt.data(), &n, work.data(), &lwork,
          iwork.data(), &info);
  lwork = int(work[0]);
  work.resize(lwork);
  dgesdd_(&jobz, &m, &n, dense.data(), &m, s.data(), u.data(), &m, vt.data(), &n, work.data(), &lwork,
          iwork.data(), &info);
  ASSERT_EQ(info, 0);
  for (int j = 0; j < 3; ++j) {
    EXPECT_NEAR(svd->singular_values[j], s[j], 1e-6 * s[0]) << "singular value " << j;
    // Same right singular vector up to sign.
    double dot = 0;
    for (int i = 0; i < n; ++i) dot += svd->right_vectors[i + size_t(j) * n] * vt[j + size_t(i) * n];
    EXPECT_NEAR(std::fabs(dot), 1.0, 1e-4) << "vector " << j;
  }
}

}  // namespace
}  // namespace attest
