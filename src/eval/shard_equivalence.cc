#include "eval/shard_equivalence.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/change_log.h"
#include "cluster/scatter_search.h"
#include "common/file_util.h"

namespace attest {
namespace {

// Splits corpus.jsonl by the virtual shard of each line's _id (a line without one goes to shard 0,
// whose ingestion reports it as the single store's did).
Status SplitCorpus(const std::string& corpus_path, uint32_t shards, uint32_t vshards, const std::string& dir,
                   std::vector<std::string>* paths) {
  std::ifstream in(corpus_path);
  if (!in) return Status::IOError("cannot read " + corpus_path);
  std::vector<std::ofstream> outs;
  for (uint32_t s = 0; s < shards; ++s) {
    paths->push_back(dir + "/shard" + std::to_string(s) + ".jsonl");
    outs.emplace_back(paths->back());
  }
  std::string line;
  while (std::getline(in, line)) {
    uint32_t shard = 0;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("_id")) {
      const nlohmann::json& id = j["_id"];
      const std::string text = id.is_string() ? id.get<std::string>() : id.dump();
      shard = VirtualShardOf("", text, vshards) % shards;
    }
    outs[shard] << line << '\n';
  }
  for (auto& o : outs) {
    o.flush();
    if (!o) return Status::IOError("cannot write the shard corpora under " + dir);
  }
  return Status::Ok();
}

enum class Same { kIdentical, kUpToTies, kDifferent };

Same Compare(const SearchResult& a, const SearchResult& b, double* max_diff) {
  if (a.hits.size() != b.hits.size()) return Same::kDifferent;
  bool identical = true;
  size_t i = 0;
  while (i < a.hits.size()) {
    size_t j = i;
    while (j < a.hits.size() && a.hits[j].score == a.hits[i].score) ++j;
    std::multiset<std::string> x, y;
    for (size_t n = i; n < j; ++n) {
      *max_diff = std::max(*max_diff, std::fabs(double(a.hits[n].score) - double(b.hits[n].score)));
      identical &= a.hits[n].doc_id == b.hits[n].doc_id;
      x.insert(a.hits[n].doc_id);
      y.insert(b.hits[n].doc_id);
    }
    // The last group may be cut by k differently: its scores must still agree.
    if (j < a.hits.size() && x != y) return Same::kDifferent;
    i = j;
  }
  return identical ? Same::kIdentical : Same::kUpToTies;
}

}  // namespace

Result<ShardStores> BuildShardStores(const std::string& corpus_path, uint32_t shards, uint32_t vshards,
                                     unsigned threads, const std::string& dir) {
  if (shards < 1) return Status::InvalidArgument("shards must be at least 1");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  std::vector<std::string> corpora;
  ATTEST_RETURN_IF_ERROR(SplitCorpus(corpus_path, shards, vshards, dir, &corpora));
  ShardStores out;
  out.documents_min = UINT64_MAX;
  for (uint32_t s = 0; s < shards; ++s) {
    EngineOptions eo;
    eo.data_dir = dir + "/store" + std::to_string(s);
    eo.threads = threads;
    eo.embedder.kind = EmbedderKind::kNone;
    ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Engine> e, Engine::Open(eo));
    IngestOptions io;
    io.paths = {corpora[s]};
    io.batch_documents = 100000;
    ATTEST_ASSIGN_OR_RETURN(IngestReport ing, e->Ingest(io));
    out.documents_min = std::min<uint64_t>(out.documents_min, ing.documents_seen);
    out.documents_max = std::max<uint64_t>(out.documents_max, ing.documents_seen);
    out.clients.push_back(std::make_unique<EngineShard>("shard" + std::to_string(s), e.get()));
    out.engines.push_back(std::move(e));
  }
  return out;
}

Result<ShardEquivalenceReport> CompareWithShards(const ShardEquivalenceArgs& args) {
  if (args.single == nullptr || args.split == nullptr || args.shards < 1) {
    return Status::InvalidArgument("shard equivalence: a store, a split and at least one shard are needed");
  }
  ScopedTempDir temp("attest-shards");
  ATTEST_ASSIGN_OR_RETURN(ShardStores stores,
                          BuildShardStores(args.corpus_path, args.shards, args.vshards, args.threads, temp.path().string()));
  ShardEquivalenceReport report;
  report.shards = args.shards;
  report.documents_per_shard_min = stores.documents_min;
  report.documents_per_shard_max = stores.documents_max;
  ScatterArgs scatter;
  for (const auto& c : stores.clients) scatter.shards.push_back(c.get());
  scatter.options = args.options;
  scatter.options.mode = SearchMode::kBm25;
  EvalRun run;
  std::vector<double> latencies;
  for (const BeirQuery& q : args.split->queries) {
    SearchOptions so = scatter.options;
    so.query = q.text;
    Result<SearchResult> one = args.single->Search(so);
    scatter.options.query = q.text;
    const auto t0 = std::chrono::steady_clock::now();
    Result<SearchResult> cluster = ScatterSearch(scatter);
    latencies.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    std::vector<std::string>& ranked = run[q.id];
    if (one.ok() != cluster.ok()) {
      ++report.different;
      if (report.first_difference.empty()) report.first_difference = q.id + ": one failed where the other did not";
      continue;
    }
    if (!one.ok()) continue;  // e.g. a query of stopwords only: both refuse it
    ++report.queries;
    for (const SearchHit& h : cluster->hits) ranked.push_back(h.doc_id);
    switch (Compare(*one, *cluster, &report.max_score_diff)) {
      case Same::kIdentical: ++report.identical; break;
      case Same::kUpToTies: ++report.equal_up_to_ties; break;
      case Same::kDifferent:
        ++report.different;
        if (report.first_difference.empty()) report.first_difference = q.id + ": '" + q.text + "'";
        break;
    }
  }
  EvaluateArgs ea;
  ea.run = &run;
  ea.qrels = &args.split->qrels;
  ea.mode = "bm25 " + std::to_string(args.shards) + " shards";
  ea.latencies_ms = std::move(latencies);
  report.summary = Evaluate(ea);
  return report;
}

}  // namespace attest
