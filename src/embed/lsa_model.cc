#include "embed/lsa_model.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/checksum.h"
#include "common/file_util.h"
#include "embed/corpus_training.h"
#include "embed/randomized_svd.h"
#include "text/analyzer.h"

namespace attest {
namespace {

constexpr char kMagic[] = "ATLSAMD1";
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kMaxDim = 4096;
constexpr uint32_t kMaxTermBytes = 1024;
constexpr uint64_t kMaxFileBytes = 2ull << 30;

// The content of a model file, in memory.
struct LsaModelData {
  uint32_t dim = 0;
  uint32_t rank = 0;
  float sigma_power = 0;
  uint64_t texts = 0;
  uint64_t tokens = 0;
  std::vector<float> singular_values;  // dim
  std::vector<std::string> terms;      // ascending
  std::vector<float> idf;
  std::vector<float> projection;       // terms x dim, unscaled V
};

std::string Serialize(const LsaModelData& m) {
  ModelWriter w;
  w.Bytes(std::string_view(kMagic, 8));
  w.U32(kFormatVersion);
  w.U32(m.dim);
  w.U32(static_cast<uint32_t>(m.terms.size()));
  w.U32(m.rank);
  w.F32(m.sigma_power);
  w.U64(m.texts);
  w.U64(m.tokens);
  w.Raw(m.singular_values.data(), m.singular_values.size() * sizeof(float));
  for (size_t i = 0; i < m.terms.size(); ++i) {
    w.U16(static_cast<uint16_t>(m.terms[i].size()));
    w.Bytes(m.terms[i]);
    w.F32(m.idf[i]);
  }
  w.Raw(m.projection.data(), m.projection.size() * sizeof(float));
  return w.Finish();
}

Result<LsaModelData> Parse(std::string_view content, const std::string& file) {
  ATTEST_ASSIGN_OR_RETURN(std::string_view body, CheckModelEnvelope(content, std::string_view(kMagic, 8), file));
  auto bad = [&](const std::string& what) { return Status::Corruption("LSA model " + file + ": " + what); };
  ModelReader r(body);
  LsaModelData m;
  uint32_t version = 0, vocab = 0;
  if (!r.U32(&version)) return bad("truncated header");
  if (version != kFormatVersion) {
    return Status::Unsupported("LSA model " + file + " has format version " + std::to_string(version) +
                               "; this build reads version " + std::to_string(kFormatVersion));
  }
  if (!r.U32(&m.dim) || !r.U32(&vocab) || !r.U32(&m.rank) || !r.F32(&m.sigma_power) || !r.U64(&m.texts) ||
      !r.U64(&m.tokens)) {
    return bad("truncated header");
  }
  if (m.dim == 0 || m.dim > kMaxDim) return bad("dimension " + std::to_string(m.dim) + " out of range");
  if (m.rank > m.dim) return bad("rank larger than the dimension");
  if (!std::isfinite(m.sigma_power) || std::fabs(m.sigma_power) > 4) return bad("sigma_power out of range");
  // Each term takes at least 2 + 1 + 4 bytes plus its projection row.
  if (vocab == 0 || uint64_t(vocab) * (7 + 4ull * m.dim) > r.remaining()) return bad("vocabulary count out of range");
  m.singular_values.resize(m.dim);
  if (!r.Raw(m.singular_values.data(), m.dim * sizeof(float))) return bad("truncated singular values");
  for (float s : m.singular_values)
    if (!std::isfinite(s) || s < 0) return bad("invalid singular value");
  m.terms.resize(vocab);
  m.idf.resize(vocab);
  for (uint32_t i = 0; i < vocab; ++i) {
    uint16_t len = 0;
    std::string_view term;
    if (!r.U16(&len) || len == 0 || len > kMaxTermBytes || !r.Bytes(len, &term) || !r.F32(&m.idf[i])) {
      return bad("vocabulary entry " + std::to_string(i) + " is malformed");
    }
    m.terms[i] = std::string(term);
    if (i > 0 && !(m.terms[i - 1] < m.terms[i])) return bad("vocabulary is not strictly ordered at entry " + std::to_string(i));
    if (!std::isfinite(m.idf[i]) || m.idf[i] <= 0) return bad("invalid idf at entry " + std::to_string(i));
  }
  const uint64_t cells = uint64_t(vocab) * m.dim;
  if (r.remaining() != cells * sizeof(float)) return bad("projection size does not match the header");
  m.projection.resize(cells);
  if (!r.Raw(m.projection.data(), cells * sizeof(float))) return bad("truncated projection");
  for (float v : m.projection)
    if (!std::isfinite(v)) return bad("non-finite projection value");
  return m;
}

class LsaEmbedder final : public Embedder {
 public:
  LsaEmbedder(const LsaModelData& m, std::string version) : idf_(m.idf), dim_(m.dim) {
    identity_ = {kLsaModelName, m.dim, std::move(version)};
    vocab_.reserve(m.terms.size());
    for (size_t i = 0; i < m.terms.size(); ++i) vocab_.emplace(m.terms[i], static_cast<uint32_t>(i));
    std::vector<float> scale(m.dim, 0.0f);
    const float top = m.rank > 0 ? m.singular_values[0] : 0.0f;
    for (uint32_t j = 0; j < m.rank; ++j) {
      const float s = m.singular_values[j];
      if (s > 1e-6f * top) scale[j] = m.sigma_power == 0 ? 1.0f : std::pow(s, m.sigma_power);
    }
    projection_ = m.projection;
    for (size_t t = 0; t < m.terms.size(); ++t)
      for (uint32_t j = 0; j < m.dim; ++j) projection_[t * m.dim + j] *= scale[j];
  }

  const EmbedderIdentity& identity() const override { return identity_; }

  Result<std::vector<float>> Embed(std::span<const std::string_view> texts, EmbedPurpose) const override {
    std::vector<float> out(texts.size() * dim_, 0.0f);
    std::vector<uint32_t> ids;
    std::vector<double> acc(dim_);
    for (size_t i = 0; i < texts.size(); ++i) {
      ids.clear();
      for (const std::string& term : analyzer_.Terms(texts[i])) {
        auto it = vocab_.find(term);
        if (it != vocab_.end()) ids.push_back(it->second);
      }
      if (ids.empty()) continue;
      std::sort(ids.begin(), ids.end());
      std::fill(acc.begin(), acc.end(), 0.0);
      for (size_t p = 0; p < ids.size();) {
        size_t q = p;
        while (q < ids.size() && ids[q] == ids[p]) ++q;
        const double w = (1.0 + std::log(double(q - p))) * idf_[ids[p]];
        const float* row = projection_.data() + size_t(ids[p]) * dim_;
        for (uint32_t j = 0; j < dim_; ++j) acc[j] += w * row[j];
        p = q;
      }
      float* dst = out.data() + i * dim_;
      for (uint32_t j = 0; j < dim_; ++j) dst[j] = static_cast<float>(acc[j]);
      NormalizeL2(std::span<float>(dst, dim_));
    }
    return out;
  }

 private:
  EmbedderIdentity identity_;
  Analyzer analyzer_;
  std::unordered_map<std::string, uint32_t> vocab_;
  std::vector<float> idf_;
  std::vector<float> projection_;  // scaled by S^p
  uint32_t dim_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> TrainLsaEmbedder(const CorpusTrainingArgs& args, const LsaOptions& options,
                                                   TrainedModelInfo* info) {
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t dim = args.dim == 0 ? kLsaDefaultDim : args.dim;
  if (dim > kMaxDim) return Status::InvalidArgument("LSA dimension " + std::to_string(dim) + " exceeds " + std::to_string(kMaxDim));
  if (!(options.max_df_share > 0)) return Status::InvalidArgument("max_df_share must be positive");
  if (args.model_path.empty()) return Status::InvalidArgument("no model path given");
  const unsigned threads = ResolveThreads(args.threads);

  // 1. Analyze: term ids in first-seen order, per-text (id, tf) lists.
  Analyzer analyzer;
  std::unordered_map<std::string, uint32_t> ids;
  std::vector<std::string> terms;
  std::vector<uint32_t> df;
  std::vector<uint64_t> doc_offsets{0};
  std::vector<std::pair<uint32_t, uint32_t>> entries;
  uint64_t tokens = 0;
  std::vector<uint32_t> scratch;
  ATTEST_RETURN_IF_ERROR(AnalyzeCorpus(args.corpus, analyzer, threads, [&](std::vector<std::string>&& t) -> Status {
    scratch.clear();
    for (std::string& term : t) {
      if (term.size() > kMaxTermBytes) continue;
      auto [it, inserted] = ids.try_emplace(std::move(term), static_cast<uint32_t>(terms.size()));
      if (inserted) {
        terms.push_back(it->first);
        df.push_back(0);
      }
      scratch.push_back(it->second);
    }
    tokens += scratch.size();
    std::sort(scratch.begin(), scratch.end());
    for (size_t p = 0; p < scratch.size();) {
      size_t q = p;
      while (q < scratch.size() && scratch[q] == scratch[p]) ++q;
      entries.emplace_back(scratch[p], static_cast<uint32_t>(q - p));
      ++df[scratch[p]];
      p = q;
    }
    doc_offsets.push_back(entries.size());
    return Status::Ok();
  }));
  ids.clear();
  const uint64_t n_docs = doc_offsets.size() - 1;
  if (n_docs < 2) return Status::InvalidArgument("LSA training needs at least 2 texts, got " + std::to_string(n_docs));

  // 2. Vocabulary.
  const double max_df = options.max_df_share >= 1.0 ? double(n_docs) : options.max_df_share * double(n_docs);
  std::vector<uint32_t> kept;
  for (uint32_t t = 0; t < terms.size(); ++t)
    if (df[t] >= options.min_df && double(df[t]) <= max_df) kept.push_back(t);
  const uint64_t per_term = 4ull * dim + 16;
  const uint64_t fit = options.max_model_bytes > (1u << 20) ? (options.max_model_bytes - (1u << 20)) / per_term : 0;
  const uint64_t cap = std::min<uint64_t>(options.max_vocabulary, fit);
  if (kept.size() > cap) {
    std::sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) {
      return df[a] != df[b] ? df[a] > df[b] : terms[a] < terms[b];
    });
    kept.resize(cap);
  }
  if (kept.empty()) return Status::InvalidArgument("no term occurs in at least min_df texts; corpus too small for LSA");
  std::sort(kept.begin(), kept.end(), [&](uint32_t a, uint32_t b) { return terms[a] < terms[b]; });
  std::vector<int64_t> remap(terms.size(), -1);
  LsaModelData model;
  model.dim = dim;
  model.sigma_power = options.sigma_power;
  model.texts = n_docs;
  model.tokens = tokens;
  for (size_t i = 0; i < kept.size(); ++i) {
    remap[kept[i]] = int64_t(i);
    model.terms.push_back(terms[kept[i]]);
    model.idf.push_back(static_cast<float>(std::log((1.0 + n_docs) / (1.0 + df[kept[i]])) + 1.0));
  }
  terms.clear();

  // 3. TF-IDF matrix, rows L2-normalized: every text's row, or max_svd_texts rows evenly spaced
  //    (row i is text floor(i * n_docs / rows)).
  const uint64_t rows =
      options.max_svd_texts == 0 ? n_docs : std::min<uint64_t>(n_docs, std::max<uint64_t>(2, options.max_svd_texts));
  SparseMatrix a;
  a.rows = rows;
  a.cols = kept.size();
  a.offsets.push_back(0);
  std::vector<std::pair<uint32_t, float>> row;
  for (uint64_t i = 0; i < rows; ++i) {
    const uint64_t d = rows == n_docs ? i : static_cast<uint64_t>((static_cast<unsigned __int128>(i) * n_docs) / rows);
    row.clear();
    for (uint64_t p = doc_offsets[d]; p < doc_offsets[d + 1]; ++p) {
      int64_t c = remap[entries[p].first];
      if (c < 0) continue;
      row.emplace_back(uint32_t(c), static_cast<float>((1.0 + std::log(double(entries[p].second))) * model.idf[c]));
    }
    std::sort(row.begin(), row.end());
    double norm = 0;
    for (auto& [c, v] : row) norm += double(v) * v;
    const double inv = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
    for (auto& [c, v] : row) {
      a.indices.push_back(c);
      a.values.push_back(static_cast<float>(v * inv));
    }
    a.offsets.push_back(a.indices.size());
  }
  entries.clear();
  entries.shrink_to_fit();

  // 4. Truncated SVD.
  RandomizedSvdOptions so;
  so.rank = dim;
  so.oversampling = options.oversampling;
  so.power_iterations = options.power_iterations;
  so.seed = args.seed;
  so.threads = threads;
  ATTEST_ASSIGN_OR_RETURN(TruncatedSvd svd, RandomizedSvd(a, so));
  model.rank = svd.rank;
  model.singular_values.assign(dim, 0.0f);
  for (uint32_t j = 0; j < svd.rank; ++j) model.singular_values[j] = static_cast<float>(svd.singular_values[j]);
  const size_t n = a.cols;
  model.projection.assign(n * dim, 0.0f);
  for (size_t t = 0; t < n; ++t)
    for (uint32_t j = 0; j < svd.rank; ++j) model.projection[t * dim + j] = static_cast<float>(svd.right_vectors[t + j * n]);

  // 5. Write.
  std::string content = Serialize(model);
  if (content.size() > kMaxFileBytes) return Status::ResourceExhausted("LSA model would be " + std::to_string(content.size()) + " bytes");
  ATTEST_RETURN_IF_ERROR(WriteFileAtomically(args.model_path, content));
  std::string version = Sha256Hex(content).substr(0, 16);
  if (info) {
    info->identity = {kLsaModelName, dim, version};
    info->texts = n_docs;
    info->tokens = tokens;
    info->vocabulary = model.terms.size();
    info->model_bytes = content.size();
    info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return std::unique_ptr<Embedder>(new LsaEmbedder(model, std::move(version)));
}

Result<TrainedModelInfo> TrainLsaModel(const CorpusTrainingArgs& args, const LsaOptions& options) {
  TrainedModelInfo info;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, TrainLsaEmbedder(args, options, &info));
  return info;
}

Result<std::unique_ptr<Embedder>> LoadLsaModel(const std::filesystem::path& path) {
  ATTEST_ASSIGN_OR_RETURN(std::string content, ReadFileToString(path, kMaxFileBytes));
  ATTEST_ASSIGN_OR_RETURN(LsaModelData model, Parse(content, path.string()));
  return std::unique_ptr<Embedder>(new LsaEmbedder(model, Sha256Hex(content).substr(0, 16)));
}

}  // namespace attest
