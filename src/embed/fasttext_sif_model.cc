#include "embed/fasttext_sif_model.h"

#include <unistd.h>

#include <fasttext/fasttext.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/checksum.h"
#include "common/file_util.h"
#include "embed/corpus_training.h"
#include "text/analyzer.h"

namespace attest {
namespace {

constexpr char kMagic[] = "ATFTSIF1";
constexpr uint32_t kFormatVersion = 1;
constexpr uint32_t kMaxDim = 2048;
constexpr uint32_t kMaxWordBytes = 1024;
constexpr uint64_t kMaxFileBytes = 2ull << 30;

AnalyzerOptions WordAnalyzerOptions() {
  AnalyzerOptions o;
  o.stem = false;
  o.remove_stopwords = false;
  o.split_identifiers = false;
  return o;
}

bool UsableWord(std::string_view w) {
  if (w.empty() || w.size() > kMaxWordBytes) return false;
  for (char c : w)
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '\0') return false;
  return true;
}

struct SifModelData {
  uint32_t dim = 0;
  float sif_a = 1e-3f;
  uint64_t texts = 0;
  uint64_t tokens = 0;
  std::vector<float> principal;       // dim
  std::vector<std::string> words;     // ascending
  std::vector<uint64_t> counts;
  std::vector<float> vectors;         // words x dim
};

std::string Serialize(const SifModelData& m) {
  ModelWriter w;
  w.Bytes(std::string_view(kMagic, 8));
  w.U32(kFormatVersion);
  w.U32(m.dim);
  w.U32(static_cast<uint32_t>(m.words.size()));
  w.F32(m.sif_a);
  w.U64(m.texts);
  w.U64(m.tokens);
  w.Raw(m.principal.data(), m.dim * sizeof(float));
  for (size_t i = 0; i < m.words.size(); ++i) {
    w.U16(static_cast<uint16_t>(m.words[i].size()));
    w.Bytes(m.words[i]);
    w.U64(m.counts[i]);
  }
  w.Raw(m.vectors.data(), m.vectors.size() * sizeof(float));
  return w.Finish();
}

Result<SifModelData> Parse(std::string_view content, const std::string& file) {
  ATTEST_ASSIGN_OR_RETURN(std::string_view body, CheckModelEnvelope(content, std::string_view(kMagic, 8), file));
  auto bad = [&](const std::string& what) { return Status::Corruption("fastText-SIF model " + file + ": " + what); };
  ModelReader r(body);
  SifModelData m;
  uint32_t version = 0, vocab = 0;
  if (!r.U32(&version)) return bad("truncated header");
  if (version != kFormatVersion) {
    return Status::Unsupported("fastText-SIF model " + file + " has format version " + std::to_string(version) +
                               "; this build reads version " + std::to_string(kFormatVersion));
  }
  if (!r.U32(&m.dim) || !r.U32(&vocab) || !r.F32(&m.sif_a) || !r.U64(&m.texts) || !r.U64(&m.tokens)) {
    return bad("truncated header");
  }
  if (m.dim == 0 || m.dim > kMaxDim) return bad("dimension " + std::to_string(m.dim) + " out of range");
  if (!std::isfinite(m.sif_a) || m.sif_a <= 0 || m.sif_a > 1) return bad("sif_a out of range");
  if (vocab == 0 || uint64_t(vocab) * (11 + 4ull * m.dim) > r.remaining()) return bad("vocabulary count out of range");
  m.principal.resize(m.dim);
  if (!r.Raw(m.principal.data(), m.dim * sizeof(float))) return bad("truncated principal component");
  for (float v : m.principal)
    if (!std::isfinite(v)) return bad("non-finite principal component");
  m.words.resize(vocab);
  m.counts.resize(vocab);
  for (uint32_t i = 0; i < vocab; ++i) {
    uint16_t len = 0;
    std::string_view word;
    if (!r.U16(&len) || len == 0 || len > kMaxWordBytes || !r.Bytes(len, &word) || !r.U64(&m.counts[i])) {
      return bad("vocabulary entry " + std::to_string(i) + " is malformed");
    }
    m.words[i] = std::string(word);
    if (i > 0 && !(m.words[i - 1] < m.words[i])) return bad("vocabulary is not strictly ordered at entry " + std::to_string(i));
    if (m.counts[i] == 0 || m.counts[i] > (1ull << 48)) return bad("invalid count at entry " + std::to_string(i));
  }
  const uint64_t cells = uint64_t(vocab) * m.dim;
  if (r.remaining() != cells * sizeof(float)) return bad("vector block size does not match the header");
  m.vectors.resize(cells);
  if (!r.Raw(m.vectors.data(), cells * sizeof(float))) return bad("truncated vectors");
  for (float v : m.vectors)
    if (!std::isfinite(v)) return bad("non-finite vector value");
  return m;
}

// SIF weighted average of the known words of `words` (no principal-component removal); false if none.
class SifCore {
 public:
  explicit SifCore(const SifModelData& m) : dim_(m.dim), vectors_(m.vectors) {
    double total = 0;
    for (uint64_t c : m.counts) total += double(c);
    weights_.resize(m.words.size());
    index_.reserve(m.words.size());
    for (size_t i = 0; i < m.words.size(); ++i) {
      index_.emplace(m.words[i], static_cast<uint32_t>(i));
      weights_[i] = static_cast<float>(m.sif_a / (m.sif_a + double(m.counts[i]) / total));
    }
  }
  template <typename Words>
  bool Average(const Words& words, double* out) const {
    std::fill(out, out + dim_, 0.0);
    size_t n = 0;
    for (const auto& w : words) {
      ++n;
      auto it = index_.find(std::string_view(w));
      if (it == index_.end()) continue;
      const float* v = vectors_.data() + size_t(it->second) * dim_;
      const double wt = weights_[it->second];
      for (uint32_t j = 0; j < dim_; ++j) out[j] += wt * v[j];
    }
    bool any = false;
    for (uint32_t j = 0; j < dim_; ++j) any |= out[j] != 0;
    if (!any) return false;
    for (uint32_t j = 0; j < dim_; ++j) out[j] /= double(n);
    return true;
  }
  uint32_t dim() const { return dim_; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  uint32_t dim_;
  std::vector<float> vectors_;
  std::vector<float> weights_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

class FastTextSifEmbedder final : public Embedder {
 public:
  FastTextSifEmbedder(const SifModelData& m, std::string version)
      : core_(m), principal_(m.principal.begin(), m.principal.end()), analyzer_(WordAnalyzerOptions()) {
    identity_ = {kFastTextSifModelName, m.dim, std::move(version)};
  }
  const EmbedderIdentity& identity() const override { return identity_; }
  Result<std::vector<float>> Embed(std::span<const std::string_view> texts, EmbedPurpose) const override {
    const uint32_t dim = core_.dim();
    std::vector<float> out(texts.size() * dim, 0.0f);
    std::vector<double> v(dim);
    for (size_t i = 0; i < texts.size(); ++i) {
      if (!core_.Average(analyzer_.Terms(texts[i]), v.data())) continue;
      double dot = 0;
      for (uint32_t j = 0; j < dim; ++j) dot += v[j] * principal_[j];
      float* dst = out.data() + i * dim;
      for (uint32_t j = 0; j < dim; ++j) dst[j] = static_cast<float>(v[j] - dot * principal_[j]);
      NormalizeL2(std::span<float>(dst, dim));
    }
    return out;
  }

 private:
  EmbedderIdentity identity_;
  SifCore core_;
  std::vector<double> principal_;
  Analyzer analyzer_;
};

// First right singular vector of the rows' matrix X: top eigenvector of X^T X by power iteration
// (deterministic start, fixed iteration count, sign: largest component positive).
std::vector<float> PrincipalComponent(const std::vector<double>& gram, uint32_t dim) {
  std::vector<double> u(dim, 1.0 / std::sqrt(double(dim))), next(dim);
  for (int it = 0; it < 300; ++it) {
    for (uint32_t i = 0; i < dim; ++i) {
      double s = 0;
      for (uint32_t j = 0; j < dim; ++j) s += gram[i * dim + j] * u[j];
      next[i] = s;
    }
    double norm = 0;
    for (double x : next) norm += x * x;
    norm = std::sqrt(norm);
    if (norm == 0) return std::vector<float>(dim, 0.0f);
    for (uint32_t i = 0; i < dim; ++i) u[i] = next[i] / norm;
  }
  size_t best = 0;
  for (uint32_t i = 1; i < dim; ++i)
    if (std::fabs(u[i]) > std::fabs(u[best])) best = i;
  std::vector<float> out(dim);
  for (uint32_t i = 0; i < dim; ++i) out[i] = static_cast<float>(u[best] < 0 ? -u[i] : u[i]);
  return out;
}

class TempFile {
 public:
  TempFile() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() /
            ("attest-fasttext-" + std::to_string(::getpid()) + "-" + std::to_string(rd()) + ".txt");
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace

Result<std::unique_ptr<Embedder>> TrainFastTextSifEmbedder(const CorpusTrainingArgs& args,
                                                           const FastTextSifOptions& options, TrainedModelInfo* info) {
  const auto t0 = std::chrono::steady_clock::now();
  const uint32_t dim = args.dim == 0 ? kFastTextSifDefaultDim : args.dim;
  if (dim > kMaxDim) return Status::InvalidArgument("fastText dimension " + std::to_string(dim) + " exceeds " + std::to_string(kMaxDim));
  if (args.model_path.empty()) return Status::InvalidArgument("no model path given");
  if (!(options.sif_a > 0)) return Status::InvalidArgument("sif_a must be positive");
  const unsigned threads = ResolveThreads(args.threads);

  // 1. Tokenized corpus, one text per line.
  TempFile input;
  uint64_t texts = 0, tokens = 0;
  {
    std::ofstream out(input.path(), std::ios::binary | std::ios::trunc);
    if (!out) return Status::IOError("cannot create " + input.path().string());
    Analyzer analyzer(WordAnalyzerOptions());
    std::string line;
    ATTEST_RETURN_IF_ERROR(AnalyzeCorpus(args.corpus, analyzer, threads, [&](std::vector<std::string>&& words) -> Status {
      line.clear();
      for (const std::string& w : words) {
        if (!UsableWord(w)) continue;
        if (!line.empty()) line.push_back(' ');
        line += w;
        ++tokens;
      }
      line.push_back('\n');
      out << line;
      ++texts;
      return Status::Ok();
    }));
    out.close();
    if (!out) return Status::IOError("cannot write " + input.path().string());
  }
  if (texts < 2) return Status::InvalidArgument("fastText training needs at least 2 texts");

  // 2. Skipgram.
  fasttext::Args fa;
  fa.input = input.path().string();
  fa.model = fasttext::model_name::sg;
  fa.loss = fasttext::loss_name::ns;
  fa.dim = int(dim);
  fa.epoch = int(options.epochs);
  fa.minCount = int(options.min_count);
  fa.ws = int(options.window);
  fa.neg = int(options.negatives);
  fa.bucket = int(options.buckets);
  fa.minn = int(options.min_n);
  fa.maxn = int(options.max_n);
  fa.lr = options.learning_rate;
  fa.thread = options.deterministic ? 1 : int(threads);
  fa.seed = int(args.seed & 0x7fffffff);
  fa.verbose = 0;
  fasttext::FastText ft;
  try {
    ft.train(fa);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("fastText training failed: ") + e.what());
  }

  // 3. Vocabulary (most frequent words if over the size cap), stored in word order.
  std::shared_ptr<const fasttext::Dictionary> dict = ft.getDictionary();
  const int32_t nwords = dict->nwords();
  std::vector<int64_t> counts = dict->getCounts(fasttext::entry_type::word);
  std::vector<int32_t> order;
  for (int32_t i = 0; i < nwords; ++i) {
    const std::string w = dict->getWord(i);
    if (UsableWord(w) && w != "</s>") order.push_back(i);
  }
  const uint64_t per_word = 4ull * dim + 16;
  const uint64_t cap = options.max_model_bytes > (1u << 20) ? (options.max_model_bytes - (1u << 20)) / per_word : 0;
  if (order.size() > cap) {
    std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return counts[a] != counts[b] ? counts[a] > counts[b] : dict->getWord(a) < dict->getWord(b);
    });
    order.resize(cap);
  }
  if (order.empty()) return Status::InvalidArgument("fastText vocabulary is empty; corpus too small");
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return dict->getWord(a) < dict->getWord(b); });
  SifModelData model;
  model.dim = dim;
  model.sif_a = options.sif_a;
  model.texts = texts;
  model.tokens = tokens;
  model.vectors.resize(order.size() * size_t(dim));
  fasttext::Vector vec(dim);
  for (size_t i = 0; i < order.size(); ++i) {
    model.words.push_back(dict->getWord(order[i]));
    model.counts.push_back(uint64_t(counts[order[i]]));
    ft.getWordVector(vec, model.words.back());
    for (uint32_t j = 0; j < dim; ++j) model.vectors[i * dim + j] = vec[j];
  }

  // 4. First principal component of the training texts' SIF averages.
  {
    SifCore core(model);
    std::vector<double> gram(size_t(dim) * dim, 0.0), v(dim);
    std::ifstream in(input.path(), std::ios::binary);
    std::string line;
    std::vector<std::string_view> words;
    while (std::getline(in, line)) {
      words.clear();
      size_t p = 0;
      while (p < line.size()) {
        size_t q = line.find(' ', p);
        if (q == std::string::npos) q = line.size();
        if (q > p) words.emplace_back(line.data() + p, q - p);
        p = q + 1;
      }
      if (!core.Average(words, v.data())) continue;
      for (uint32_t i = 0; i < dim; ++i)
        for (uint32_t j = 0; j < dim; ++j) gram[i * dim + j] += v[i] * v[j];
    }
    model.principal = PrincipalComponent(gram, dim);
  }

  std::string content = Serialize(model);
  ATTEST_RETURN_IF_ERROR(WriteFileAtomically(args.model_path, content));
  std::string version = Sha256Hex(content).substr(0, 16);
  if (info) {
    info->identity = {kFastTextSifModelName, dim, version};
    info->texts = texts;
    info->tokens = tokens;
    info->vocabulary = model.words.size();
    info->model_bytes = content.size();
    info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  return std::unique_ptr<Embedder>(new FastTextSifEmbedder(model, std::move(version)));
}

Result<TrainedModelInfo> TrainFastTextSifModel(const CorpusTrainingArgs& args, const FastTextSifOptions& options) {
  TrainedModelInfo info;
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> e, TrainFastTextSifEmbedder(args, options, &info));
  return info;
}

Result<std::unique_ptr<Embedder>> LoadFastTextSifModel(const std::filesystem::path& path) {
  ATTEST_ASSIGN_OR_RETURN(std::string content, ReadFileToString(path, kMaxFileBytes));
  ATTEST_ASSIGN_OR_RETURN(SifModelData model, Parse(content, path.string()));
  return std::unique_ptr<Embedder>(new FastTextSifEmbedder(model, Sha256Hex(content).substr(0, 16)));
}

}  // namespace attest
