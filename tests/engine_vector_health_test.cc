// A tenant's vector model that cannot be loaded, through the public Engine API: CheckVectorLeg names
// the tenant, the model file (relative to the data directory) and what is wrong; explicit vector
// and hybrid searches fail, auto searches and answers degrade to BM25 and say so in `degraded`;
// other tenants are unaffected; a broken file is not read again until it changes on disk.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "attest/answer.h"
#include "attest/engine.h"
#include "support/process.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;
using testing_support::WriteFile;

std::string Corpus(const std::string& prefix, uint32_t seed) {
  const std::vector<std::vector<std::string>> topics = {
      {"volcano", "lava", "magma", "eruption", "crater", "basalt"},
      {"violin", "cello", "orchestra", "symphony", "concerto", "sonata"},
      {"enzyme", "protein", "catalysis", "substrate", "kinase", "peptide"}};
  std::string out;
  uint32_t x = seed;
  for (int t = 0; t < 3; ++t) {
    for (int n = 0; n < 15; ++n) {
      std::string text;
      for (int w = 0; w < 30; ++w) {
        x = x * 1664525u + 1013904223u;
        text += topics[t][(x >> 8) % topics[t].size()] + " ";
      }
      out += "{\"_id\":\"" + prefix + std::to_string(t) + "-" + std::to_string(n) + "\",\"title\":\"\",\"text\":\"" +
             text + "\"}\n";
    }
  }
  return out;
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Overwrites `p` in place (same inode, same size) with `bytes`.
void Overwrite(const fs::path& p, const std::string& bytes) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(f.good());
}

class EngineVectorHealthTest : public ::testing::Test {
 protected:
  EngineOptions Options() const {
    EngineOptions o;
    o.data_dir = tmp_.str("data");
    o.threads = 2;
    o.embedder.min_chunks = 10;
    o.embedder.dim = 8;
    return o;
  }
  std::unique_ptr<Engine> Open() {
    auto e = Engine::Open(Options());
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  void SetUp() override {
    auto engine = Open();
    ASSERT_TRUE(engine);
    for (const auto& [tenant, seed] : std::vector<std::pair<std::string, uint32_t>>{{"a", 3}, {"b", 5}}) {
      WriteFile(tmp_.path() / (tenant + ".jsonl"), Corpus(tenant, seed));
      IngestOptions io;
      io.paths = {(tmp_.path() / (tenant + ".jsonl")).string()};
      io.tenant = tenant;
      auto r = engine->Ingest(io);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_FALSE(r->embedder.empty()) << "tenant " << tenant << " got no model";
    }
    ASSERT_TRUE(engine->CheckVectorLeg(std::nullopt).ok());
    // Tenant a's model: the one file a search of tenant a stops working without.
    for (const auto& e : fs::directory_iterator(tmp_.path() / "data" / "models")) models_.push_back(e.path());
    ASSERT_EQ(models_.size(), 2u);
  }
  // Damages each model in turn on a fresh engine; returns tenant a's (the one a's check names).
  fs::path ModelOfA() {
    for (const fs::path& m : models_) {
      const std::string good = ReadAll(m);
      std::string bad = good;
      bad[bad.size() / 2] ^= 0x21;
      Overwrite(m, bad);
      auto engine = Open();
      const bool a_broken = !engine->CheckVectorLeg(std::string("a")).ok();
      engine.reset();
      Overwrite(m, good);
      if (a_broken) return m;
    }
    return {};
  }
  SearchOptions Query(const std::string& tenant, SearchMode mode) {
    SearchOptions so;
    so.query = "volcano magma";
    so.filter.tenant = tenant;
    so.mode = mode;
    return so;
  }
  TempDir tmp_;
  std::vector<fs::path> models_;
};

TEST_F(EngineVectorHealthTest, CorruptModelIsNamedAndAutoModeSaysItDegraded) {
  const fs::path model = ModelOfA();
  ASSERT_FALSE(model.empty());
  const std::string good = ReadAll(model);
  std::string bad = good;
  bad[bad.size() / 2] ^= 0x21;
  Overwrite(model, bad);

  auto engine = Open();
  ASSERT_TRUE(engine);
  Status all = engine->CheckVectorLeg(std::nullopt);
  ASSERT_FALSE(all.ok());
  const std::string relative = "models/" + model.filename().string();
  EXPECT_NE(all.message().find(relative), std::string::npos) << all.message();
  EXPECT_NE(all.message().find("tenant 'a'"), std::string::npos) << all.message();
  EXPECT_NE(all.message().find("CRC-32C"), std::string::npos) << all.message();
  EXPECT_EQ(all.message().find(tmp_.str("data")), std::string::npos) << "the data directory's path is named";
  EXPECT_TRUE(engine->CheckVectorLeg(std::string("b")).ok());
  EXPECT_TRUE(engine->CheckVectorLeg(std::string("nobody")).ok());  // no embedder: nothing to load

  for (SearchMode mode : {SearchMode::kVector, SearchMode::kHybrid}) {
    auto r = engine->Search(Query("a", mode));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(relative), std::string::npos) << r.status().ToString();
    EXPECT_TRUE(engine->Search(Query("b", mode)).ok());
  }
  auto autosearch = engine->Search(Query("a", SearchMode::kAuto));
  ASSERT_TRUE(autosearch.ok()) << autosearch.status().ToString();
  EXPECT_EQ(autosearch->mode, SearchMode::kBm25);
  EXPECT_FALSE(autosearch->hits.empty());
  ASSERT_EQ(autosearch->degraded.size(), 1u);
  EXPECT_EQ(autosearch->degraded[0].rfind("vector_leg_unavailable: ", 0), 0u) << autosearch->degraded[0];
  EXPECT_NE(autosearch->degraded[0].find(relative), std::string::npos);
  auto healthy = engine->Search(Query("b", SearchMode::kAuto));
  ASSERT_TRUE(healthy.ok());
  EXPECT_EQ(healthy->mode, SearchMode::kHybrid);
  EXPECT_TRUE(healthy->degraded.empty());

  AskOptions ask;
  ask.question = "What is magma?";
  ask.filter.tenant = "a";
  ask.today = "2026-01-01";
  auto answer = engine->Ask(ask);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  ASSERT_FALSE(answer->degraded.empty());
  EXPECT_EQ(answer->degraded[0].rfind("vector_leg_unavailable: ", 0), 0u) << answer->degraded[0];
}

// A probe of a broken model costs a stat(): the file is read again only once it changes. Shown by
// putting the good bytes back while keeping the broken file's size, inode and time (still
// reported broken: not re-read), then touching it (read again: healthy).
TEST_F(EngineVectorHealthTest, BrokenModelIsReadAgainOnlyWhenTheFileChanges) {
  const fs::path model = ModelOfA();
  ASSERT_FALSE(model.empty());
  const std::string good = ReadAll(model);
  std::string bad = good;
  bad[bad.size() / 2] ^= 0x21;
  Overwrite(model, bad);
  auto engine = Open();
  ASSERT_TRUE(engine);
  ASSERT_FALSE(engine->CheckVectorLeg(std::string("a")).ok());

  struct stat before{};
  ASSERT_EQ(::stat(model.c_str(), &before), 0);
  Overwrite(model, good);
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, model.c_str(), times, 0), 0);
  EXPECT_FALSE(engine->CheckVectorLeg(std::string("a")).ok()) << "re-read although the file looks unchanged";

  const struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
  ASSERT_EQ(::utimensat(AT_FDCWD, model.c_str(), now, 0), 0);
  EXPECT_TRUE(engine->CheckVectorLeg(std::string("a")).ok());
  EXPECT_TRUE(engine->Search(Query("a", SearchMode::kVector)).ok());
}

}  // namespace
}  // namespace attest
