// Measures a corpus-trained embedder on a BEIR folder, alone and fused with
// BM25.
//
//   embed_eval --model lsa|fasttext-sif --beir DIR [--split test[,train]]
//   [--dim N] [--weights 0.1,0.2,0.3]
//              [--threads N] [--seed S] [--sigma-power P] [--epochs E]
//              [--parallel-fasttext]
//
// Steps: trains the model on the corpus (text = title + "\n" + text) into a
// temporary file, reloads it from the file, embeds documents and the split's
// queries, and ranks every document by exact cosine (brute force; the oracle
// any vector index is measured against). BM25 runs through the public Engine
// API (a temporary data dir; corpus.jsonl ingested; Search k=1000,
// collapse_documents=true, with_snippets=false). Fusion is over the union of
// each leg's top 1000:
//   linear: fused = (1 - w) * minmax(bm25) + w * minmax(cos), a document
//   missing from a leg scores
//           0 there; minmax over that leg's list (all 1 when max == min);
//   RRF:    sum over legs of 1 / (60 + rank) (Cormack, Clarke, Buettcher, SIGIR
//   2009).
// Ties are broken by document id. Reports nDCG@10 and Recall@100
// (src/eval/metrics.h), training seconds and model bytes. Choose fusion weights
// on a train split, never on test.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attest/engine.h"
#include "common/file_util.h"
#include "embed/corpus_training.h"
#include "embed/fasttext_sif_model.h"
#include "embed/lsa_model.h"
#include "eval/beir.h"
#include "eval/metrics.h"
#include "ingest/html_extractor.h"

namespace attest {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Ranked =
    std::vector<std::pair<std::string, double>>; // (doc id, score), best first

constexpr size_t kDepth = 1000;

struct Flags {
  std::string model = "lsa";
  std::string beir;
  std::string
      html_dir; // train-only mode: time and size on the pages of an HTML folder
  std::string split = "test";
  uint32_t dim = 0;
  std::vector<double> weights = {0.1, 0.2, 0.3};
  unsigned threads = 2;
  uint64_t seed = 42;
  float sigma_power = 0.0f;
  uint32_t epochs = 10;
  bool parallel_fasttext = false;
};

[[noreturn]] void Usage(const std::string &msg) {
  std::fprintf(stderr,
               "embed_eval: %s\nusage: embed_eval --model lsa|fasttext-sif "
               "--beir DIR [--split test] "
               "[--dim N] [--weights 0.1,0.2,0.3] [--threads N] [--seed S] "
               "[--sigma-power P] [--epochs E] "
               "[--parallel-fasttext]\n",
               msg.c_str());
  std::exit(2);
}

Flags ParseFlags(int argc, char **argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc)
        Usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--model")
      f.model = next();
    else if (a == "--html-dir")
      f.html_dir = next();
    else if (a == "--beir")
      f.beir = next();
    else if (a == "--split")
      f.split = next();
    else if (a == "--dim")
      f.dim = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--threads")
      f.threads = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--seed")
      f.seed = std::stoull(next());
    else if (a == "--sigma-power")
      f.sigma_power = std::stof(next());
    else if (a == "--epochs")
      f.epochs = static_cast<uint32_t>(std::stoul(next()));
    else if (a == "--parallel-fasttext")
      f.parallel_fasttext = true;
    else if (a == "--weights") {
      f.weights.clear();
      std::string s = next();
      size_t p = 0;
      while (p <= s.size()) {
        size_t q = s.find(',', p);
        if (q == std::string::npos)
          q = s.size();
        if (q > p)
          f.weights.push_back(std::stod(s.substr(p, q - p)));
        p = q + 1;
      }
    } else
      Usage("unknown flag " + a);
  }
  if (f.beir.empty() && f.html_dir.empty())
    Usage("--beir is required");
  if (f.model != "lsa" && f.model != "fasttext-sif")
    Usage("--model must be lsa or fasttext-sif");
  return f;
}

Ranked TopByScore(std::vector<std::pair<std::string, double>> all,
                  size_t depth) {
  auto better = [](const auto &a, const auto &b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  };
  if (all.size() > depth) {
    std::partial_sort(all.begin(), all.begin() + depth, all.end(), better);
    all.resize(depth);
  } else {
    std::sort(all.begin(), all.end(), better);
  }
  return all;
}

Ranked FuseLinear(const Ranked &bm25, const Ranked &vec, double w) {
  std::map<std::string, double> fused;
  auto add = [&](const Ranked &r, double weight) {
    if (r.empty())
      return;
    double hi = r.front().second, lo = r.back().second;
    for (const auto &[id, s] : r)
      fused[id] += weight * (hi > lo ? (s - lo) / (hi - lo) : 1.0);
  };
  add(bm25, 1.0 - w);
  add(vec, w);
  return TopByScore({fused.begin(), fused.end()}, kDepth);
}

Ranked FuseRrf(const Ranked &bm25, const Ranked &vec) {
  std::map<std::string, double> fused;
  for (const Ranked *r : {&bm25, &vec})
    for (size_t i = 0; i < r->size(); ++i)
      fused[(*r)[i].first] += 1.0 / (60.0 + double(i + 1));
  return TopByScore({fused.begin(), fused.end()}, kDepth);
}

EvalSummary Score(const std::string &mode,
                  const std::map<std::string, Ranked> &runs,
                  const Qrels &qrels) {
  EvalRun run;
  for (const auto &[q, r] : runs) {
    auto &ids = run[q];
    for (const auto &[id, s] : r)
      ids.push_back(id);
  }
  EvaluateArgs ea;
  ea.run = &run;
  ea.qrels = &qrels;
  ea.mode = mode;
  return Evaluate(ea);
}

// Trains on the readable text of every *.html page under `flags.html_dir`
// (src/ingest's HTML extractor; one training text per page: title and blocks
// joined by newlines) and reports time and size. No retrieval measurement (the
// folder has no judgments).
int TrainOnHtml(const Flags &flags, const fs::path &model_path) {
  std::vector<fs::path> pages;
  for (const auto &entry : fs::recursive_directory_iterator(flags.html_dir))
    if (entry.is_regular_file() && entry.path().extension() == ".html")
      pages.push_back(entry.path());
  std::sort(pages.begin(), pages.end());
  std::vector<std::string> texts;
  uint64_t bytes = 0;
  for (const fs::path &page : pages) {
    Result<std::string> html = ReadFileToString(page);
    if (!html.ok()) {
      std::fprintf(stderr, "embed_eval: %s\n",
                   html.status().ToString().c_str());
      return 1;
    }
    ParsedDocument doc;
    if (Status st = ExtractHtml(*html, &doc); !st.ok()) {
      std::fprintf(stderr, "embed_eval: %s: %s\n", page.c_str(), st.ToString().c_str());
      continue;
    }
    std::string text = doc.title;
    for (const Block &b : doc.blocks)
      text += "\n" + b.text;
    bytes += text.size();
    texts.push_back(std::move(text));
  }
  CorpusTrainingArgs ta;
  ta.corpus =
      [&](const std::function<Status(std::string_view)> &visit) -> Status {
    for (const std::string &t : texts)
      ATTEST_RETURN_IF_ERROR(visit(t));
    return Status::Ok();
  };
  ta.model_path = model_path;
  ta.dim = flags.dim;
  ta.seed = flags.seed;
  ta.threads = flags.threads;
  Result<TrainedModelInfo> info = Status::Internal("unset");
  if (flags.model == "lsa") {
    LsaOptions lo;
    lo.sigma_power = flags.sigma_power;
    info = TrainLsaModel(ta, lo);
  } else {
    FastTextSifOptions fo;
    fo.epochs = flags.epochs;
    fo.deterministic = !flags.parallel_fasttext;
    info = TrainFastTextSifModel(ta, fo);
  }
  if (!info.ok()) {
    std::fprintf(stderr, "embed_eval: %s\n", info.status().ToString().c_str());
    return 1;
  }
  std::printf("RESULT html model=%s dim=%u pages=%zu text_mb=%.2f tokens=%llu "
              "vocabulary=%llu train_s=%.2f model_mb=%.2f\n",
              info->identity.name.c_str(), info->identity.dim, pages.size(),
              double(bytes) / 1e6, (unsigned long long)info->tokens,
              (unsigned long long)info->vocabulary, info->seconds,
              double(info->model_bytes) / 1e6);
  return 0;
}

int Main(int argc, char **argv) {
  Flags flags = ParseFlags(argc, argv);
  auto fail = [](const Status &s) {
    std::fprintf(stderr, "embed_eval: %s\n", s.ToString().c_str());
    return 1;
  };
  if (!flags.html_dir.empty()) {
    std::random_device rd;
    const fs::path model = fs::temp_directory_path() /
                           ("embed-eval-html-" + std::to_string(::getpid()) +
                            "-" + std::to_string(rd()) + ".bin");
    int rc = TrainOnHtml(flags, model);
    std::error_code ec;
    fs::remove(model, ec);
    return rc;
  }
  const fs::path dir(flags.beir);
  std::vector<BeirSplit> splits;
  for (size_t p = 0; p <= flags.split.size();) {
    size_t q = flags.split.find(',', p);
    if (q == std::string::npos)
      q = flags.split.size();
    if (q > p) {
      Result<BeirSplit> split =
          LoadBeirSplit(dir, flags.split.substr(p, q - p));
      if (!split.ok())
        return fail(split.status());
      splits.push_back(std::move(split).value());
    }
    p = q + 1;
  }
  if (splits.empty())
    Usage("--split names no split");
  std::vector<std::string> doc_ids, doc_texts;
  Status st = StreamBeirCorpus(BeirCorpusPath(dir), [&](BeirDocument &&d) {
    doc_ids.push_back(std::move(d.id));
    doc_texts.push_back(d.title + "\n" + d.text);
    return Status::Ok();
  });
  if (!st.ok())
    return fail(st);

  std::random_device rd;
  const fs::path tmp =
      fs::temp_directory_path() /
      ("embed-eval-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
  fs::create_directories(tmp);
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(p, ec);
    }
  } cleanup{tmp};

  CorpusTrainingArgs ta;
  ta.corpus =
      [&](const std::function<Status(std::string_view)> &visit) -> Status {
    for (const std::string &t : doc_texts)
      ATTEST_RETURN_IF_ERROR(visit(t));
    return Status::Ok();
  };
  ta.model_path = tmp / "model.bin";
  ta.dim = flags.dim;
  ta.seed = flags.seed;
  ta.threads = flags.threads;
  Result<TrainedModelInfo> info = Status::Internal("unset");
  if (flags.model == "lsa") {
    LsaOptions lo;
    lo.sigma_power = flags.sigma_power;
    info = TrainLsaModel(ta, lo);
  } else {
    FastTextSifOptions fo;
    fo.epochs = flags.epochs;
    fo.deterministic = !flags.parallel_fasttext;
    info = TrainFastTextSifModel(ta, fo);
  }
  if (!info.ok())
    return fail(info.status());
  Result<std::unique_ptr<Embedder>> embedder =
      flags.model == "lsa" ? LoadLsaModel(ta.model_path)
                           : LoadFastTextSifModel(ta.model_path);
  if (!embedder.ok())
    return fail(embedder.status());
  const Embedder &e = **embedder;
  const uint32_t dim = e.identity().dim;
  std::printf("model %s dim %u version %s: trained in %.2f s on %llu texts, "
              "%llu tokens, vocabulary %llu, %.2f MB\n",
              e.identity().name.c_str(), dim, e.identity().version.c_str(),
              info->seconds, (unsigned long long)info->texts,
              (unsigned long long)info->tokens,
              (unsigned long long)info->vocabulary,
              double(info->model_bytes) / 1e6);

  // Embed documents and queries (parallel over batches; Embed is thread-safe).
  auto embed_all = [&](const std::vector<std::string> &texts,
                       EmbedPurpose purpose,
                       std::vector<float> *out) -> Status {
    out->assign(texts.size() * dim, 0.0f);
    constexpr size_t kBatch = 64;
    const size_t batches = (texts.size() + kBatch - 1) / kBatch;
    std::vector<Status> errors(batches);
    ParallelFor(batches, flags.threads, [&](size_t b, size_t end) {
      for (size_t i = b; i < end; ++i) {
        std::vector<std::string_view> views;
        for (size_t j = i * kBatch;
             j < std::min(texts.size(), (i + 1) * kBatch); ++j)
          views.push_back(texts[j]);
        Result<std::vector<float>> r = e.Embed(views, purpose);
        if (!r.ok()) {
          errors[i] = r.status();
          continue;
        }
        std::copy(r->begin(), r->end(), out->begin() + i * kBatch * dim);
      }
    });
    for (const Status &s : errors)
      ATTEST_RETURN_IF_ERROR(s);
    return Status::Ok();
  };
  auto t0 = Clock::now();
  std::vector<float> doc_vecs;
  if (Status s = embed_all(doc_texts, EmbedPurpose::kDocument, &doc_vecs);
      !s.ok())
    return fail(s);
  const double embed_s =
      std::chrono::duration<double>(Clock::now() - t0).count();
  size_t zero_docs = 0;
  for (size_t d = 0; d < doc_texts.size(); ++d)
    zero_docs += doc_vecs[d * dim] == 0 && doc_vecs[d * dim + 1] == 0;
  std::printf("embedded %zu documents in %.2f s (%zu with a zero vector)\n",
              doc_texts.size(), embed_s, zero_docs);

  // BM25 through the public Engine API.
  EngineOptions eo;
  eo.data_dir = (tmp / "data").string();
  eo.threads = flags.threads;
  eo.embedder.kind = EmbedderKind::kNone;  // BM25 only here: the tool trains its own model
  Result<std::unique_ptr<Engine>> engine = Engine::Open(eo);
  if (!engine.ok())
    return fail(engine.status());
  IngestOptions io;
  io.paths = {BeirCorpusPath(dir).string()};
  io.batch_documents = 100000;
  Result<IngestReport> ingested = (*engine)->Ingest(io);
  if (!ingested.ok())
    return fail(ingested.status());

  for (const BeirSplit &split_value : splits) {
    const BeirSplit *split = &split_value;
    std::vector<float> query_vecs;
    std::vector<std::string> query_texts;
    for (const BeirQuery &q : split->queries)
      query_texts.push_back(q.text);
    if (Status s = embed_all(query_texts, EmbedPurpose::kQuery, &query_vecs);
        !s.ok())
      return fail(s);

    // Exact cosine ranking (rows are unit-norm or zero).
    const size_t nq = split->queries.size();
    std::vector<Ranked> vec_runs(nq);
    ParallelFor(nq, flags.threads, [&](size_t b, size_t end) {
      for (size_t qi = b; qi < end; ++qi) {
        const float *q = query_vecs.data() + qi * dim;
        bool zero = true;
        for (uint32_t j = 0; j < dim && zero; ++j)
          zero = q[j] == 0;
        if (zero)
          continue;
        std::vector<std::pair<std::string, double>> all(doc_texts.size());
        for (size_t d = 0; d < doc_texts.size(); ++d) {
          const float *v = doc_vecs.data() + d * dim;
          double s = 0;
          for (uint32_t j = 0; j < dim; ++j)
            s += double(q[j]) * v[j];
          all[d] = {doc_ids[d], s};
        }
        vec_runs[qi] = TopByScore(std::move(all), kDepth);
      }
    });

    std::vector<Ranked> bm25_runs(nq);
    for (size_t qi = 0; qi < nq; ++qi) {
      SearchOptions so;
      so.query = split->queries[qi].text;
      so.k = kDepth;
      so.collapse_documents = true;
      so.with_snippets = false;
      Result<SearchResult> r = (*engine)->Search(so);
      if (!r.ok()) {
        if (r.status().code() != StatusCode::kInvalidArgument)
          return fail(r.status());
        continue; // a query that analyzes to nothing retrieves nothing
      }
      for (const SearchHit &h : r->hits)
        bm25_runs[qi].emplace_back(h.doc_id, h.score);
    }

    std::vector<EvalSummary> rows;
    auto collect = [&](const std::string &mode,
                       const std::function<Ranked(size_t)> &make) {
      std::map<std::string, Ranked> runs;
      for (size_t qi = 0; qi < nq; ++qi)
        runs[split->queries[qi].id] = make(qi);
      rows.push_back(Score(mode, runs, split->qrels));
    };
    collect("bm25", [&](size_t qi) { return bm25_runs[qi]; });
    collect("vector", [&](size_t qi) { return vec_runs[qi]; });
    for (double w : flags.weights) {
      char label[32];
      std::snprintf(label, sizeof label, "linear w=%.2f", w);
      collect(label, [&](size_t qi) {
        return FuseLinear(bm25_runs[qi], vec_runs[qi], w);
      });
    }
    collect("rrf k=60",
            [&](size_t qi) { return FuseRrf(bm25_runs[qi], vec_runs[qi]); });

    std::printf("dataset %s split %s: %zu docs, %zu queries\n",
                dir.string().c_str(), split->name.c_str(), doc_texts.size(),
                nq);
    std::printf("%-16s %8s %8s\n", "run", "nDCG@10", "R@100");
    for (const EvalSummary &r : rows)
      std::printf("%-16s %8.4f %8.4f\n", r.mode.c_str(), r.mean.ndcg_at_10,
                  r.mean.recall_at_100);
    std::printf("RESULT model=%s dim=%u split=%s train_s=%.2f model_mb=%.2f",
                e.identity().name.c_str(), dim, split->name.c_str(),
                info->seconds, double(info->model_bytes) / 1e6);
    for (const EvalSummary &r : rows)
      std::printf(" [%s]=%.4f/%.4f", r.mode.c_str(), r.mean.ndcg_at_10,
                  r.mean.recall_at_100);
    std::printf("\n");
  }
  return 0;
}

} // namespace
} // namespace attest

int main(int argc, char **argv) { return attest::Main(argc, argv); }
