// The vector leg end to end through the public Engine API: a corpus model is trained at ingest,
// every chunk gets a vector, vector and hybrid searches apply tenant, ACL and deletions inside the
// leg, hits explain themselves, reembed switches at a snapshot, growth retrains, merges keep full
// coverage, and read-only engines see the same vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "attest/engine.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::TempDir;
using testing_support::WriteFile;

const std::vector<std::vector<std::string>> kTopics = {
    {"volcano", "lava", "magma", "eruption", "crater", "ash", "basalt", "tectonic", "caldera", "pyroclastic"},
    {"violin", "cello", "orchestra", "symphony", "concerto", "sonata", "conductor", "tempo", "melody", "quartet"},
    {"enzyme", "protein", "catalysis", "substrate", "kinase", "peptide", "ligand", "receptor", "folding", "amino"},
    {"compiler", "parser", "bytecode", "register", "optimizer", "linker", "syntax", "lexer", "inlining", "runtime"},
};
const std::vector<std::string> kCommon = {"study", "report", "system", "method", "result", "analysis",
                                          "data", "effect", "model", "process"};

// A BEIR-style JSONL corpus: `per_topic` documents per topic, ids "<prefix><topic>-<n>".
std::string Corpus(const std::string& prefix, int per_topic, uint32_t seed) {
  std::string out;
  uint32_t x = seed;
  auto next = [&] { return x = x * 1664525u + 1013904223u; };
  for (int t = 0; t < static_cast<int>(kTopics.size()); ++t) {
    for (int n = 0; n < per_topic; ++n) {
      std::string text;
      for (int w = 0; w < 40; ++w) {
        const auto& pool = (next() >> 8) % 3 == 0 ? kCommon : kTopics[t];
        text += pool[(next() >> 8) % pool.size()] + " ";
      }
      out += "{\"_id\":\"" + prefix + std::to_string(t) + "-" + std::to_string(n) + "\",\"title\":\"\",\"text\":\"" +
             text + "\"}\n";
    }
  }
  return out;
}

int TopicOf(const std::string& doc_id) {
  size_t dash = doc_id.find('-');
  return doc_id[dash - 1] - '0';
}

class EngineVectorTest : public ::testing::Test {
 protected:
  EngineOptions Options() const {
    EngineOptions o;
    o.data_dir = tmp_.str("data");
    o.threads = 2;
    o.embedder.min_chunks = 50;
    o.embedder.dim = 16;
    return o;
  }
  std::unique_ptr<Engine> Open(const EngineOptions& o) {
    auto e = Engine::Open(o);
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(e).value() : nullptr;
  }
  IngestReport Ingest(Engine& e, const std::string& name, const std::string& jsonl, const std::string& tenant = "",
                      std::vector<std::string> acl = {}, size_t batch = 4096) {
    WriteFile(tmp_.path() / name, jsonl);
    IngestOptions io;
    io.paths = {(tmp_.path() / name).string()};
    io.tenant = tenant;
    io.acl_groups = std::move(acl);
    io.batch_documents = batch;
    auto r = e.Ingest(io);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) {
      for (const auto& issue : r->issues) ADD_FAILURE() << issue.file << ": " << issue.message;
    }
    return r.ok() ? *r : IngestReport{};
  }
  size_t VectorFiles() const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(tmp_.path() / "data" / "vectors", ec)) {
      n += e.path().extension() == ".vec";
    }
    return n;
  }
  TempDir tmp_;
};

TEST_F(EngineVectorTest, IngestTrainsACorpusModelAndEmbedsEveryChunk) {
  auto e = Open(Options());
  ASSERT_TRUE(e);
  IngestReport rep = Ingest(*e, "c.jsonl", Corpus("d", 30, 1));
  EXPECT_NE(rep.embedder.find("lsa-corpus 16 "), std::string::npos) << rep.embedder;
  auto s = e->Stats();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->vector_chunks, s->chunks);
  EXPECT_GT(s->vector_bytes, 0u);
  EXPECT_GT(s->model_bytes, 0u);
  EXPECT_EQ(VectorFiles(), s->segments);

  // Vector mode: a query of one topic's words retrieves that topic's documents.
  for (int t = 0; t < 4; ++t) {
    SearchOptions so;
    so.mode = SearchMode::kVector;
    so.query = kTopics[t][0] + " " + kTopics[t][1] + " " + kTopics[t][2];
    so.k = 10;
    auto r = e->Search(so);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->mode, SearchMode::kVector);
    ASSERT_EQ(r->hits.size(), 10u);
    for (const auto& h : r->hits) {
      EXPECT_EQ(TopicOf(h.doc_id), t) << so.query << " -> " << h.doc_id;
      EXPECT_GT(h.vector_rank, 0u);
      EXPECT_EQ(h.lexical_rank, 0u);
    }
  }
}

TEST_F(EngineVectorTest, HybridHitsExplainThemselves) {
  auto e = Open(Options());
  ASSERT_TRUE(e);
  Ingest(*e, "c.jsonl", Corpus("d", 30, 2));
  SearchOptions so;
  so.query = "volcano eruption";
  so.k = 20;
  auto r = e->Search(so);  // kAuto -> hybrid
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->mode, SearchMode::kHybrid);
  EXPECT_FALSE(r->embedder.empty());
  ASSERT_EQ(r->hits.size(), 20u);
  bool both = false;
  for (size_t i = 0; i < r->hits.size(); ++i) {
    const auto& h = r->hits[i];
    EXPECT_TRUE(h.lexical_rank > 0 || h.vector_rank > 0);
    both |= h.lexical_rank > 0 && h.vector_rank > 0;
    if (i) {
      EXPECT_GE(r->hits[i - 1].score, h.score);
    }
    EXPECT_GE(h.score, 0.0f);
    EXPECT_LE(h.score, 1.0f + 1e-5f);  // min-max linear fusion stays in [0, 1]
  }
  EXPECT_TRUE(both);
  // BM25 mode never reports a vector rank; RRF scores follow their formula.
  so.mode = SearchMode::kBm25;
  r = e->Search(so);
  ASSERT_TRUE(r.ok());
  for (const auto& h : r->hits) EXPECT_EQ(h.vector_rank, 0u);
  // A required term is a lexical constraint: in hybrid mode the vector leg only re-ranks documents
  // that satisfy it, scoring exactly their chunks.
  so.mode = SearchMode::kHybrid;
  so.query = "+concerto violin";
  r = e->Search(so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->hits.empty());
  for (const auto& h : r->hits) {
    EXPECT_GT(h.lexical_rank, 0u) << h.doc_id;
    EXPECT_GT(h.vector_rank, 0u) << h.doc_id;
    EXPECT_EQ(TopicOf(h.doc_id), 1);
  }
  so.query = "volcano eruption";
  so.fusion.method = FusionMethod::kRrf;
  r = e->Search(so);
  ASSERT_TRUE(r.ok());
  for (const auto& h : r->hits) {
    double f = (h.lexical_rank ? 1.0 / (60 + h.lexical_rank) : 0) + (h.vector_rank ? 1.0 / (60 + h.vector_rank) : 0);
    EXPECT_NEAR(h.score, f, 1e-6);
  }
}

TEST_F(EngineVectorTest, TenantAclAndDeletionsApplyInsideTheVectorLeg) {
  EngineOptions o = Options();
  o.embedder.min_chunks = 30;  // per tenant: "other" has 40 chunks
  auto e = Open(o);
  ASSERT_TRUE(e);
  Ingest(*e, "pub.jsonl", Corpus("pub", 10, 3), "acme");
  Ingest(*e, "sec.jsonl", Corpus("sec", 10, 4), "acme", {"finance"});
  Ingest(*e, "oth.jsonl", Corpus("oth", 10, 5), "other");
  auto s = e->Stats();
  ASSERT_TRUE(s.ok());
  ASSERT_FALSE(s->embedder.empty());
  ASSERT_EQ(s->vector_chunks, s->chunks);
  EXPECT_EQ(s->embedder_tenants, 2u) << "each tenant has a model of its own";

  for (SearchMode mode : {SearchMode::kVector, SearchMode::kHybrid}) {
    SearchOptions so;
    so.mode = mode;
    so.query = "volcano lava magma";
    so.k = 50;
    so.filter.tenant = "acme";
    so.filter.groups = std::vector<std::string>{"engineering"};
    auto r = e->Search(so);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    // Only acme's public documents are admitted: 40 of them, so 40 hits, whatever the scores.
    EXPECT_EQ(r->hits.size(), 40u) << SearchModeName(mode);
    for (const auto& h : r->hits) EXPECT_EQ(h.doc_id.rfind("pub", 0), 0u) << h.doc_id;

    so.filter.groups = std::vector<std::string>{"finance"};
    r = e->Search(so);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->hits.size(), 50u);
    for (const auto& h : r->hits) EXPECT_NE(h.doc_id.rfind("oth", 0), 0u) << h.doc_id;
  }

  // A deleted document disappears from the vector leg at the next snapshot.
  SearchOptions so;
  so.mode = SearchMode::kVector;
  so.query = "volcano lava magma eruption";
  so.filter.tenant = "other";
  so.k = 1;
  auto r = e->Search(so);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  const std::string top = r->hits[0].doc_id;
  ASSERT_TRUE(e->Delete("other", top).ok());
  so.k = 100;
  r = e->Search(so);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->hits.size(), 39u);
  for (const auto& h : r->hits) EXPECT_NE(h.doc_id, top);
}

TEST_F(EngineVectorTest, ModesNeedAnEmbedderAndAutoFallsBackToBm25) {
  EngineOptions o = Options();
  o.embedder.min_chunks = 100000;  // never trained here
  auto e = Open(o);
  ASSERT_TRUE(e);
  IngestReport rep = Ingest(*e, "c.jsonl", Corpus("d", 5, 6));
  EXPECT_TRUE(rep.embedder.empty());
  SearchOptions so;
  so.query = "volcano";
  auto r = e->Search(so);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mode, SearchMode::kBm25);
  ASSERT_FALSE(r->notices.empty());
  so.mode = SearchMode::kVector;
  r = e->Search(so);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("embedder"), std::string::npos);
  so.mode = SearchMode::kHybrid;
  so.fusion.vector_weight = 2.0f;
  EXPECT_FALSE(e->Search(so).ok());

  // reembed trains regardless of the threshold.
  auto rr = e->Reembed();
  ASSERT_TRUE(rr.ok()) << rr.status().ToString();
  so.mode = SearchMode::kVector;
  so.fusion.vector_weight = 0.2f;
  r = e->Search(so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->hits.empty());
}

TEST_F(EngineVectorTest, ReembedSwitchesAtANewSnapshotAndRemovesOldFiles) {
  auto e = Open(Options());
  ASSERT_TRUE(e);
  Ingest(*e, "c.jsonl", Corpus("d", 30, 7));
  auto before = e->Stats();
  ASSERT_TRUE(before.ok());
  EngineOptions o2 = Options();
  o2.embedder.seed = 7;
  e.reset();
  e = Open(o2);
  ASSERT_TRUE(e);
  auto r = e->Reembed();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->snapshot_version, before->snapshot_version + 1);
  EXPECT_EQ(r->chunks, before->chunks);
  auto after = e->Stats();
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->embedder, before->embedder) << "a different seed gives a different model";
  EXPECT_EQ(after->vector_chunks, after->chunks);
  EXPECT_EQ(VectorFiles(), after->segments) << "files of the old embedder are removed";
  size_t models = 0;
  for (const auto& m : std::filesystem::directory_iterator(tmp_.path() / "data" / "models")) models += 1, (void)m;
  EXPECT_EQ(models, 1u);
}

TEST_F(EngineVectorTest, GrowthRetrainsAndSmallBatchesKeepFullCoverage) {
  EngineOptions o = Options();
  o.embedder.retrain_growth = 0.5;
  auto e = Open(o);
  ASSERT_TRUE(e);
  Ingest(*e, "a.jsonl", Corpus("a", 20, 8));  // 80 chunks: trained
  const std::string first = e->Stats()->embedder;
  ASSERT_FALSE(first.empty());
  Ingest(*e, "b.jsonl", Corpus("b", 5, 9));   // +20 (25%): same model, new segment embedded
  EXPECT_EQ(e->Stats()->embedder, first);
  EXPECT_EQ(e->Stats()->vector_chunks, e->Stats()->chunks);
  // Many small commits: segments are merged; vectors follow (rows reused), coverage stays full.
  Ingest(*e, "c.jsonl", Corpus("c", 15, 10), "", {}, /*batch=*/4);
  auto s = e->Stats();
  ASSERT_TRUE(s.ok());
  EXPECT_NE(s->embedder, first) << "160 chunks >= 1.5 x 80: retrained";
  EXPECT_EQ(s->vector_chunks, s->chunks);
  EXPECT_EQ(VectorFiles(), s->segments);

  // A read-only engine (another process, typically) sees the same vectors.
  EngineOptions ro = o;
  ro.read_only = true;
  auto reader = Open(ro);
  ASSERT_TRUE(reader);
  SearchOptions so;
  so.mode = SearchMode::kVector;
  so.query = "violin cello";
  auto a = e->Search(so), b = reader->Search(so);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->hits.size(), b->hits.size());
  for (size_t i = 0; i < a->hits.size(); ++i) EXPECT_EQ(a->hits[i].doc_id, b->hits[i].doc_id);
}

TEST_F(EngineVectorTest, BackgroundTrainingDoesNotBlockIngestOrSearch) {
  EngineOptions o = Options();
  o.background_vectors = true;
  auto e = Open(o);
  ASSERT_TRUE(e);
  Ingest(*e, "c.jsonl", Corpus("d", 30, 11));
  SearchOptions so;
  so.query = "enzyme protein";
  auto r = e->Search(so);  // BM25 or hybrid, depending on how far the background work is
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->hits.empty());
  ASSERT_TRUE(e->WaitForVectors().ok());
  auto s = e->Stats();
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->embedder.empty());
  EXPECT_EQ(s->vector_chunks, s->chunks);
  r = e->Search(so);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->mode, SearchMode::kHybrid);
}

// The fastText-SIF corpus model is selectable in place of LSA and serves the vector leg.
TEST_F(EngineVectorTest, FastTextSifEmbedderServesTheVectorLeg) {
  EngineOptions o = Options();
  o.embedder.kind = EmbedderKind::kCorpusFastTextSif;
  auto e = Open(o);
  ASSERT_TRUE(e);
  IngestReport rep = Ingest(*e, "c.jsonl", Corpus("d", 30, 14));
  EXPECT_EQ(rep.embedder.rfind("fasttext-sif-corpus 16 ", 0), 0u) << rep.embedder;
  SearchOptions so;
  so.mode = SearchMode::kVector;
  so.query = "orchestra symphony conductor";
  so.k = 10;
  auto r = e->Search(so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 10u);
  int on_topic = 0;
  for (const auto& h : r->hits) on_topic += TopicOf(h.doc_id) == 1;
  EXPECT_GE(on_topic, 8);
}

// The index kind is part of the active embedder's configuration: reembedding the same model with
// another kind rebuilds every file from its own rows (nothing is embedded again), and later syncs
// (new segments) keep that kind.
TEST_F(EngineVectorTest, ReembedWithAnotherIndexKindRebuildsFromStoredRows) {
  auto e = Open(Options());
  ASSERT_TRUE(e);
  Ingest(*e, "c.jsonl", Corpus("d", 30, 15));
  EXPECT_EQ(e->Stats()->vector_index, "hnsw");
  const std::string model = e->Stats()->embedder;
  EngineOptions flat = Options();
  flat.vector_index = VectorIndexType::kFlat;
  e.reset();
  e = Open(flat);
  ASSERT_TRUE(e);
  auto r = e->Reembed();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->embedder, model) << "same corpus, same seed: the same model";
  EXPECT_EQ(r->embedded, 0u);
  EXPECT_EQ(r->reused, r->chunks);
  EXPECT_EQ(e->Stats()->vector_index, "flat");
  // An engine configured with the default (HNSW) keeps the active flat kind for new segments.
  e.reset();
  e = Open(Options());
  ASSERT_TRUE(e);
  Ingest(*e, "more.jsonl", Corpus("m", 3, 16));
  auto s = e->Stats();
  EXPECT_EQ(s->vector_index, "flat");
  EXPECT_EQ(s->vector_chunks, s->chunks);
}

// Damaged derived files are never used: a corrupt vector file is skipped (the rest of the vector leg
// still answers, with a notice) and rebuilt at the next ingestion; a corrupt model makes auto mode
// fall back to BM25 saying why, and vector mode fail naming the file.
TEST_F(EngineVectorTest, CorruptVectorFilesAndModelsAreNeverUsed) {
  auto e = Open(Options());
  ASSERT_TRUE(e);
  Ingest(*e, "a.jsonl", Corpus("a", 20, 17));
  Ingest(*e, "b.jsonl", Corpus("b", 5, 18));  // a second segment, same model
  ASSERT_EQ(e->Stats()->segments, 2u);
  e.reset();
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(tmp_.path() / "data" / "vectors")) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 2u);
  {
    std::fstream f(files[1], std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200);
    f.put('\x5a');
  }
  e = Open(Options());
  ASSERT_TRUE(e);
  SearchOptions so;
  so.mode = SearchMode::kVector;
  so.query = "volcano lava";
  so.k = 100;
  auto r = e->Search(so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->hits.size(), 80u) << "only the intact segment's chunks";
  ASSERT_FALSE(r->notices.empty());
  EXPECT_NE(r->notices[0].find("covers 80 of 100"), std::string::npos) << r->notices[0];
  Ingest(*e, "c.jsonl", Corpus("c", 1, 19));  // the next ingestion rebuilds it
  auto s = e->Stats();
  EXPECT_EQ(s->vector_chunks, s->chunks);

  e.reset();
  std::filesystem::path model;
  for (const auto& f : std::filesystem::directory_iterator(tmp_.path() / "data" / "models")) model = f.path();
  std::filesystem::resize_file(model, std::filesystem::file_size(model) / 2);
  e = Open(Options());
  ASSERT_TRUE(e);
  so.mode = SearchMode::kAuto;
  r = e->Search(so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->mode, SearchMode::kBm25);
  ASSERT_FALSE(r->notices.empty());
  EXPECT_NE(r->notices[0].find("vector leg unavailable"), std::string::npos) << r->notices[0];
  so.mode = SearchMode::kVector;
  r = e->Search(so);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().ToString().find(model.filename().string()), std::string::npos) << r.status().ToString();
}

// Every index kind answers the same as the exact flat index on a small store.
TEST_F(EngineVectorTest, IndexKindsAgreeWithFlat) {
  std::vector<std::vector<std::string>> results;
  for (VectorIndexType type : {VectorIndexType::kFlat, VectorIndexType::kHnsw, VectorIndexType::kIvfPq}) {
    EngineOptions o = Options();
    o.data_dir = tmp_.str("data-" + std::to_string(static_cast<int>(type)));
    o.vector_index = type;
    auto e = Open(o);
    ASSERT_TRUE(e);
    WriteFile(tmp_.path() / "k.jsonl", Corpus("d", 40, 13));
    IngestOptions io;
    io.paths = {(tmp_.path() / "k.jsonl").string()};
    ASSERT_TRUE(e->Ingest(io).ok());
    std::vector<std::string> ids;
    for (const char* q : {"lava crater", "symphony tempo", "kinase ligand", "lexer inlining"}) {
      SearchOptions so;
      so.mode = SearchMode::kVector;
      so.query = q;
      so.k = 10;
      so.filter.tenant = "";
      auto r = e->Search(so);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      for (const auto& h : r->hits) ids.push_back(h.doc_id);
    }
    results.push_back(ids);
  }
  EXPECT_EQ(results[1], results[0]) << "HNSW vs flat";
  EXPECT_EQ(results[2], results[0]) << "IVF-PQ vs flat";
}

// A segment of more than 8,192 chunks: its vector file's row -> chunk id map is larger than 64 KiB.
TEST_F(EngineVectorTest, LargeSegmentsAreCoveredAndSearchable) {
  auto e = Open(Options());
  ASSERT_TRUE(e);
  Ingest(*e, "big.jsonl", Corpus("d", 2300, 12));  // 9,200 documents, one commit
  auto s = e->Stats();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->chunks, 9200u);
  EXPECT_EQ(s->vector_chunks, s->chunks);
  SearchOptions so;
  so.mode = SearchMode::kVector;
  so.query = "compiler parser bytecode";
  so.k = 20;
  auto r = e->Search(so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 20u);
  for (const auto& h : r->hits) EXPECT_EQ(TopicOf(h.doc_id), 3) << h.doc_id;
}

}  // namespace
}  // namespace attest
