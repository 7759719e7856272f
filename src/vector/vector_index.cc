// VectorIndex: build, file format (docs/vector_format.md), open and validation.
// The search paths are in vector_search.cc.
#include "vector/vector_index.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <faiss/invlists/InvertedLists.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "common/checksum.h"
#include "common/file_util.h"
#include "vector/hnsw_builder.h"

namespace attest {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'V', 'E', 'C', 'T', 'R', '1'};
constexpr char kTailMagic[4] = {'V', 'E', 'N', 'D'};
constexpr uint32_t kFormatVersion = 2;  // 2: an HNSW-kind file may hold no graph (docs/vector_format.md)
constexpr uint32_t kOldestReadableVersion = 1;
constexpr size_t kHeaderSize = 128;
constexpr size_t kTailSize = 8;  // crc32c (u32) + "VEND"
constexpr uint32_t kMaxDim = 1 << 16;
constexpr size_t kMaxTag = size_t{1} << 30;  // the store keeps a row -> chunk id map in the tag (8 bytes per row)

// Structure stored in the FAISS section.
enum class Structure : uint8_t { kNone = 0, kHnsw = 2, kIvfPq = 3 };

template <typename T>
void Put(std::string* s, size_t at, T v) {
  std::memcpy(s->data() + at, &v, sizeof(T));
}
template <typename T>
T Get(std::string_view s, size_t at) {
  T v;
  std::memcpy(&v, s.data() + at, sizeof(T));
  return v;
}
size_t Align64(size_t x) { return (x + 63) & ~size_t{63}; }
uint32_t EffectiveExactBelow(const VectorIndexConfig& c) {
  return c.exact_below == 0 ? kDefaultExactBelow : c.exact_below;
}

// An IOReader over a byte span; short reads return fewer items (FAISS then throws).
struct SpanReader : faiss::IOReader {
  SpanReader(const char* p, size_t n) : p_(p), n_(n) {}
  size_t operator()(void* ptr, size_t size, size_t nitems) override {
    if (size == 0) return nitems;
    const size_t avail = (n_ - pos_) / size;
    const size_t take = std::min(avail, nitems);
    // FAISS reads an empty vector into its data(), which may be null: memcpy of nothing to null is
    // still undefined (found by vector_index_fuzz under UBSan; fuzz/corpus/vector_index_fuzz/ubsan-*).
    if (take > 0) std::memcpy(ptr, p_ + pos_, take * size);
    pos_ += take * size;
    return take;
  }
  const char* p_;
  size_t n_;
  size_t pos_ = 0;
};

// Runs `fn` with `threads` OpenMP threads for parallel regions started by this thread.
template <typename Fn>
void WithOmpThreads(uint32_t threads, Fn&& fn) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(static_cast<int>(std::max<uint32_t>(1, threads)));
  try {
    fn();
  } catch (...) {
    omp_set_num_threads(saved);
    throw;
  }
  omp_set_num_threads(saved);
}

uint32_t AutoLists(uint32_t n) {
  const double l = 4.0 * std::sqrt(static_cast<double>(n));
  return static_cast<uint32_t>(std::clamp(l, 16.0, 1024.0));
}
uint32_t AutoSubquantizers(uint32_t dim) {
  for (uint32_t m = std::max<uint32_t>(1, dim / 4); m > 1; --m) {
    if (dim % m == 0) return m;
  }
  return 1;
}

Status ValidateHnsw(const faiss::IndexHNSW& idx, uint32_t n, uint32_t dim) {
  auto* flat = dynamic_cast<const faiss::IndexFlat*>(idx.storage);
  if (flat == nullptr || flat->metric_type != faiss::METRIC_INNER_PRODUCT) {
    return Status::Corruption("HNSW storage is not an inner-product flat index");
  }
  if (flat->d != static_cast<int>(dim) || flat->ntotal != n || idx.ntotal != n ||
      flat->codes.size() != static_cast<size_t>(n) * dim * sizeof(float)) {
    return Status::Corruption("HNSW storage size disagrees with the header");
  }
  const faiss::HNSW& h = idx.hnsw;
  if (h.levels.size() != n || h.offsets.size() != static_cast<size_t>(n) + 1 || h.offsets[0] != 0 ||
      h.offsets[n] != h.neighbors.size()) {
    return Status::Corruption("HNSW graph tables disagree with n");
  }
  if (h.cum_nneighbor_per_level.empty() || h.cum_nneighbor_per_level[0] != 0 || h.max_level < (n > 0 ? 0 : -1) ||
      static_cast<size_t>(h.max_level) + 1 >= h.cum_nneighbor_per_level.size()) {
    return Status::Corruption("HNSW level table is invalid");
  }
  for (size_t i = 1; i < h.cum_nneighbor_per_level.size(); ++i) {
    if (h.cum_nneighbor_per_level[i] < h.cum_nneighbor_per_level[i - 1]) {
      return Status::Corruption("HNSW level table is not monotonic");
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    const int lv = h.levels[i];
    if (lv < 1 || lv > h.max_level + 1) return Status::Corruption("HNSW node level out of range");
    if (h.offsets[i + 1] < h.offsets[i] ||
        h.offsets[i + 1] - h.offsets[i] != static_cast<size_t>(h.cum_nneighbor_per_level[lv])) {
      return Status::Corruption("HNSW neighbor offsets are invalid");
    }
  }
  for (const auto v : h.neighbors) {
    if (v < -1 || v >= static_cast<int64_t>(n)) return Status::Corruption("HNSW link out of range");
  }
  if (n > 0 && (h.entry_point < 0 || h.entry_point >= static_cast<int>(n) ||
                h.levels[h.entry_point] != h.max_level + 1)) {
    return Status::Corruption("HNSW entry point is invalid");
  }
  return Status::Ok();
}

Status ValidateIvfPq(const faiss::IndexIVFPQ& idx, uint32_t n, uint32_t dim) {
  if (idx.d != static_cast<int>(dim) || idx.ntotal != n || idx.metric_type != faiss::METRIC_INNER_PRODUCT) {
    return Status::Corruption("IVF-PQ index disagrees with the header");
  }
  if (idx.nlist == 0 || idx.quantizer == nullptr || idx.quantizer->ntotal != static_cast<int64_t>(idx.nlist) ||
      idx.quantizer->d != idx.d || idx.pq.nbits != 8 || idx.pq.M * idx.pq.dsub != dim ||
      idx.code_size != idx.pq.code_size || idx.pq.centroids.size() != idx.pq.M * idx.pq.ksub * idx.pq.dsub) {
    return Status::Corruption("IVF-PQ parameters are inconsistent");
  }
  auto* lists = dynamic_cast<const faiss::ArrayInvertedLists*>(idx.invlists);
  if (lists == nullptr || lists->nlist != idx.nlist || lists->code_size != idx.code_size) {
    return Status::Corruption("IVF-PQ inverted lists are invalid");
  }
  size_t total = 0;
  for (size_t l = 0; l < lists->nlist; ++l) {
    if (lists->codes[l].size() != lists->ids[l].size() * lists->code_size) {
      return Status::Corruption("IVF-PQ list code size mismatch");
    }
    for (const auto id : lists->ids[l]) {
      if (id < 0 || id >= static_cast<int64_t>(n)) return Status::Corruption("IVF-PQ id out of range");
    }
    total += lists->ids[l].size();
  }
  if (total != n) return Status::Corruption("IVF-PQ lists do not hold every row");
  return Status::Ok();
}

}  // namespace

std::string_view VectorIndexKindName(VectorIndexKind kind) {
  switch (kind) {
    case VectorIndexKind::kFlat: return "flat";
    case VectorIndexKind::kHnsw: return "hnsw";
    case VectorIndexKind::kIvfPq: return "ivfpq";
  }
  return "unknown";
}

VectorIndex::VectorIndex() = default;
VectorIndex::~VectorIndex() = default;

bool VectorIndex::exact_only() const {
  return (config_.kind == VectorIndexKind::kIvfPq && ivfpq_ == nullptr) ||
         (config_.kind == VectorIndexKind::kHnsw && hnsw_ == nullptr);
}

uint32_t VectorIndex::exact_below(const VectorSearchArgs& args) const {
  if (args.exact_below != 0) return args.exact_below;
  return EffectiveExactBelow(config_);
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Build(const VectorBuildArgs& args) {
  const auto& c = args.config;
  if (c.kind != VectorIndexKind::kFlat && c.kind != VectorIndexKind::kHnsw && c.kind != VectorIndexKind::kIvfPq) {
    return Status::InvalidArgument("unknown vector index kind");
  }
  if (args.dim == 0 || args.dim > kMaxDim) return Status::InvalidArgument("vector dim must be in [1, 65536]");
  if (args.n > 0 && args.vectors == nullptr) return Status::InvalidArgument("vectors is null");
  if (args.tag.size() > kMaxTag) return Status::InvalidArgument("vector index tag too long");
  if (c.kind == VectorIndexKind::kHnsw && (c.hnsw_m < 2 || c.hnsw_m > 256 || c.hnsw_ef_search == 0)) {
    return Status::InvalidArgument("hnsw_m must be in [2, 256] and hnsw_ef_search > 0");
  }
  if (c.pq_subquantizers != 0 && args.dim % c.pq_subquantizers != 0) {
    return Status::InvalidArgument("pq_subquantizers must divide dim");
  }
  std::unique_ptr<VectorIndex> out(new VectorIndex());
  out->n_ = args.n;
  out->dim_ = args.dim;
  out->config_ = c;
  out->tag_ = args.tag;
  const size_t floats = static_cast<size_t>(args.n) * args.dim;
  try {
    // A segment small enough that a filtered search always scans it exactly (n <= exact_below) gets
    // no graph: the walk would rarely be used, and merges discard the graphs of small segments.
    if (c.kind == VectorIndexKind::kHnsw && args.n > EffectiveExactBelow(c)) {
      auto idx = std::make_unique<faiss::IndexHNSWFlat>(static_cast<int>(args.dim), static_cast<int>(c.hnsw_m),
                                                        faiss::METRIC_INNER_PRODUCT);
      idx->hnsw.efConstruction = static_cast<int>(std::max<uint32_t>(c.hnsw_ef_construction, c.hnsw_m));
      idx->hnsw.efSearch = static_cast<int>(c.hnsw_ef_search);  // only used by FAISS's own search
      if (args.n > 0) {
        // FAISS keeps the rows; the graph is ours (vector/hnsw_builder.h): same layout, SIMD and threads.
        idx->storage->add(args.n, args.vectors);
        idx->ntotal = args.n;
        HnswBuildArgs build;
        build.vectors = args.vectors;
        build.n = args.n;
        build.dim = args.dim;
        build.ef_construction = static_cast<uint32_t>(idx->hnsw.efConstruction);
        build.threads = c.threads;
        ATTEST_RETURN_IF_ERROR(BuildHnswGraph(build, &idx->hnsw));
      }
      out->hnsw_ = idx.get();
      out->raw_ = reinterpret_cast<const float*>(dynamic_cast<faiss::IndexFlat*>(idx->storage)->codes.data());
      out->index_ = std::move(idx);
    } else {
      out->raw_owned_.assign(args.vectors, args.vectors + floats);
      out->raw_ = out->raw_owned_.data();
      if (c.kind == VectorIndexKind::kIvfPq && args.n >= kIvfMinRows) {
        const uint32_t lists = c.ivf_lists ? c.ivf_lists : AutoLists(args.n);
        if (lists > args.n / 8) return Status::InvalidArgument("ivf_lists too large for n");
        const uint32_t m = c.pq_subquantizers ? c.pq_subquantizers : AutoSubquantizers(args.dim);
        out->config_.ivf_lists = lists;
        out->config_.pq_subquantizers = m;
        auto quantizer = std::make_unique<faiss::IndexFlatIP>(static_cast<int>(args.dim));
        auto idx = std::make_unique<faiss::IndexIVFPQ>(quantizer.get(), args.dim, lists, m, 8,
                                                       faiss::METRIC_INNER_PRODUCT);
        idx->own_fields = true;
        quantizer.release();
        idx->cp.niter = 10;
        idx->pq.cp.niter = 10;
        idx->cp.min_points_per_centroid = 5;  // we train on a sample by design; silence the warning
        idx->pq.cp.min_points_per_centroid = 5;
        // Train on a seeded sample of at most 32 rows per list (and >= 9984 for the PQ codebooks).
        const size_t sample = std::min<size_t>(args.n, std::max<size_t>(32ull * lists, 9984));
        std::vector<float> train;
        const float* train_ptr = args.vectors;
        if (sample < args.n) {
          std::vector<uint32_t> ids(args.n);
          for (uint32_t i = 0; i < args.n; ++i) ids[i] = i;
          std::mt19937_64 rng(0x5eed);
          std::shuffle(ids.begin(), ids.end(), rng);
          train.resize(sample * args.dim);
          for (size_t i = 0; i < sample; ++i) {
            std::memcpy(&train[i * args.dim], args.vectors + static_cast<size_t>(ids[i]) * args.dim,
                        args.dim * sizeof(float));
          }
          train_ptr = train.data();
        }
        WithOmpThreads(c.threads, [&] {
          idx->train(static_cast<faiss::Index::idx_t>(sample), train_ptr);
          idx->add(args.n, args.vectors);
        });
        out->ivfpq_ = idx.get();
        out->index_ = std::move(idx);
      }
    }
  } catch (const std::exception& e) {
    return Status::Internal(std::string("FAISS failed to build the vector index: ") + e.what());
  }
  return out;
}

std::string VectorIndex::Serialize() const {
  std::string faiss_blob;
  if (index_ != nullptr) {
    faiss::VectorIOWriter w;
    faiss::write_index(index_.get(), &w);
    faiss_blob.assign(reinterpret_cast<const char*>(w.data.data()), w.data.size());
  }
  const bool keep_raw = hnsw_ == nullptr;  // an HNSW graph holds the vectors in its own storage
  const size_t tag_off = kHeaderSize;
  const size_t vec_off = Align64(tag_off + tag_.size());
  const size_t vec_len = keep_raw ? static_cast<size_t>(n_) * dim_ * sizeof(float) : 0;
  const size_t faiss_off = Align64(vec_off + vec_len);
  const size_t total = faiss_off + faiss_blob.size() + kTailSize;
  std::string s(total, '\0');
  std::memcpy(s.data(), kMagic, 8);
  Put<uint32_t>(&s, 8, kFormatVersion);
  Put<uint8_t>(&s, 12, static_cast<uint8_t>(config_.kind));
  const Structure st = hnsw_ ? Structure::kHnsw : ivfpq_ ? Structure::kIvfPq : Structure::kNone;
  Put<uint8_t>(&s, 13, static_cast<uint8_t>(st));
  Put<uint32_t>(&s, 16, dim_);
  Put<uint32_t>(&s, 20, n_);
  const uint32_t cfg[8] = {config_.hnsw_m,         config_.hnsw_ef_construction, config_.hnsw_ef_search,
                           config_.ivf_lists,      config_.pq_subquantizers,     config_.ivf_probe,
                           config_.rescore_factor, config_.exact_below};
  std::memcpy(s.data() + 24, cfg, sizeof(cfg));
  Put<uint32_t>(&s, 56, static_cast<uint32_t>(tag_.size()));
  Put<uint64_t>(&s, 64, tag_off);
  Put<uint64_t>(&s, 72, vec_off);
  Put<uint64_t>(&s, 80, vec_len);
  Put<uint64_t>(&s, 88, faiss_off);
  Put<uint64_t>(&s, 96, faiss_blob.size());
  std::memcpy(s.data() + tag_off, tag_.data(), tag_.size());
  if (vec_len > 0) std::memcpy(s.data() + vec_off, raw_, vec_len);
  std::memcpy(s.data() + faiss_off, faiss_blob.data(), faiss_blob.size());
  const uint32_t crc = Crc32c(s.data(), total - kTailSize);
  Put<uint32_t>(&s, total - kTailSize, crc);
  std::memcpy(s.data() + total - 4, kTailMagic, 4);
  return s;
}

Status VectorIndex::Write(const std::filesystem::path& path) const {
  return WriteFileAtomically(path, Serialize());
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Open(const std::filesystem::path& path) {
  ATTEST_ASSIGN_OR_RETURN(auto mapped, MappedFile::Open(path));
  return Parse(std::string(), std::move(mapped), path.string());
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::FromBytes(std::string bytes) {
  return Parse(std::move(bytes), nullptr, "<bytes>");
}

Result<std::unique_ptr<VectorIndex>> VectorIndex::Parse(std::string owned, std::unique_ptr<MappedFile> mapped,
                                                        const std::string& name) {
  std::unique_ptr<VectorIndex> out(new VectorIndex());
  out->bytes_owned_ = std::move(owned);
  out->mapped_ = std::move(mapped);
  const std::string_view s = out->mapped_ ? out->mapped_->view() : std::string_view(out->bytes_owned_);
  auto bad = [&](const std::string& what) { return Status::Corruption("vector index " + name + ": " + what); };
  if (s.size() < kHeaderSize + kTailSize) return bad("file too short");
  if (std::memcmp(s.data(), kMagic, 8) != 0) return bad("wrong magic");
  if (std::memcmp(s.data() + s.size() - 4, kTailMagic, 4) != 0) return bad("wrong tail magic");
  const uint32_t version = Get<uint32_t>(s, 8);
  if (version < kOldestReadableVersion || version > kFormatVersion) {
    return bad("unsupported format version " + std::to_string(version));
  }
  if (Get<uint32_t>(s, s.size() - kTailSize) != Crc32c(s.data(), s.size() - kTailSize)) {
    return bad("checksum mismatch");
  }
  const uint8_t kind = Get<uint8_t>(s, 12);
  const auto st = static_cast<Structure>(Get<uint8_t>(s, 13));
  if (kind < 1 || kind > 3) return bad("unknown kind " + std::to_string(kind));
  out->config_.kind = static_cast<VectorIndexKind>(kind);
  const bool st_ok = (out->config_.kind == VectorIndexKind::kFlat && st == Structure::kNone) ||
                     (out->config_.kind == VectorIndexKind::kHnsw &&
                      (st == Structure::kHnsw || (st == Structure::kNone && version >= 2))) ||
                     (out->config_.kind == VectorIndexKind::kIvfPq &&
                      (st == Structure::kNone || st == Structure::kIvfPq));
  if (!st_ok) return bad("structure does not match kind");
  out->dim_ = Get<uint32_t>(s, 16);
  out->n_ = Get<uint32_t>(s, 20);
  if (out->dim_ == 0 || out->dim_ > kMaxDim) return bad("dim out of range");
  uint32_t cfg[8];
  std::memcpy(cfg, s.data() + 24, sizeof(cfg));
  auto& c = out->config_;
  c.hnsw_m = cfg[0], c.hnsw_ef_construction = cfg[1], c.hnsw_ef_search = cfg[2], c.ivf_lists = cfg[3];
  c.pq_subquantizers = cfg[4], c.ivf_probe = cfg[5], c.rescore_factor = cfg[6], c.exact_below = cfg[7];
  if (c.hnsw_ef_search == 0 || c.hnsw_ef_search > (1u << 20) || c.rescore_factor > 4096) {
    return bad("search parameters out of range");
  }
  const uint64_t body = s.size() - kTailSize;
  const uint64_t tag_len = Get<uint32_t>(s, 56);
  const uint64_t tag_off = Get<uint64_t>(s, 64), vec_off = Get<uint64_t>(s, 72), vec_len = Get<uint64_t>(s, 80);
  const uint64_t faiss_off = Get<uint64_t>(s, 88), faiss_len = Get<uint64_t>(s, 96);
  auto in_body = [&](uint64_t off, uint64_t len) { return off <= body && len <= body - off; };
  if (tag_off != kHeaderSize || tag_len > kMaxTag || !in_body(tag_off, tag_len)) return bad("tag out of bounds");
  if (vec_off % 64 != 0 || vec_off < tag_off + tag_len || !in_body(vec_off, vec_len)) {
    return bad("vector section out of bounds");
  }
  if (faiss_off < vec_off + vec_len || !in_body(faiss_off, faiss_len)) return bad("FAISS section out of bounds");
  const uint64_t want_vec =
      st == Structure::kHnsw ? 0 : static_cast<uint64_t>(out->n_) * out->dim_ * sizeof(float);
  if (vec_len != want_vec) return bad("vector section length disagrees with n and dim");
  if ((st == Structure::kNone) != (faiss_len == 0)) return bad("FAISS section presence disagrees with kind");
  out->tag_.assign(s.data() + tag_off, tag_len);
  if (vec_len > 0) out->raw_ = reinterpret_cast<const float*>(s.data() + vec_off);
  if (st == Structure::kNone) {
    if (c.kind == VectorIndexKind::kIvfPq && out->n_ >= kIvfMinRows) return bad("IVF-PQ structure missing");
    return out;
  }
  try {
    SpanReader reader(s.data() + faiss_off, faiss_len);
    std::unique_ptr<faiss::Index> idx(faiss::read_index(&reader, 0));
    if (reader.pos_ != faiss_len) return bad("trailing bytes in the FAISS section");
    if (st == Structure::kHnsw) {
      auto* h = dynamic_cast<faiss::IndexHNSWFlat*>(idx.get());
      if (h == nullptr) return bad("FAISS section is not an HNSW flat index");
      Status v = ValidateHnsw(*h, out->n_, out->dim_);
      if (!v.ok()) return bad(v.message());
      h->hnsw.efSearch = static_cast<int>(c.hnsw_ef_search);
      out->hnsw_ = h;
      out->raw_ = reinterpret_cast<const float*>(dynamic_cast<faiss::IndexFlat*>(h->storage)->codes.data());
      out->mapped_.reset();  // FAISS copied everything it needs; the file bytes are not used again
      std::string().swap(out->bytes_owned_);
    } else {
      auto* p = dynamic_cast<faiss::IndexIVFPQ*>(idx.get());
      if (p == nullptr) return bad("FAISS section is not an IVF-PQ index");
      Status v = ValidateIvfPq(*p, out->n_, out->dim_);
      if (!v.ok()) return bad(v.message());
      if (c.ivf_lists != p->nlist) return bad("IVF list count disagrees with the header");
      out->ivfpq_ = p;
    }
    out->index_ = std::move(idx);
  } catch (const faiss::FaissException& e) {
    return bad(std::string("FAISS rejected the index: ") + e.what());
  } catch (const std::exception& e) {
    return bad(std::string("FAISS could not read the index: ") + e.what());
  }
  return out;
}

uint64_t VectorIndex::memory_bytes() const {
  const uint64_t raw = static_cast<uint64_t>(n_) * dim_ * sizeof(float);
  if (hnsw_ != nullptr) {
    const auto& h = hnsw_->hnsw;
    return raw + h.neighbors.size() * sizeof(int32_t) + h.offsets.size() * sizeof(size_t) +
           h.levels.size() * sizeof(int);
  }
  if (ivfpq_ != nullptr) {
    uint64_t b = static_cast<uint64_t>(ivfpq_->nlist) * dim_ * sizeof(float) + ivfpq_->pq.centroids.size() * 4;
    auto* lists = dynamic_cast<const faiss::ArrayInvertedLists*>(ivfpq_->invlists);
    for (size_t l = 0; lists && l < lists->nlist; ++l) b += lists->codes[l].size() + lists->ids[l].size() * 8;
    return b;
  }
  return raw;  // flat / exact-only: the scan reads every row
}

void VectorIndex::Vector(uint32_t local, float* out) const {
  if (local >= n_) return;
  std::memcpy(out, row(local), dim_ * sizeof(float));
}

}  // namespace attest
