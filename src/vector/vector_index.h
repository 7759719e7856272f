// A per-segment vector index: one file per (segment, embedder identity) whose rows are the
// segment's chunks in LocalDoc order (row i = LocalDoc i = FAISS label i).
//
// Kinds:
//   - kFlat: the raw vectors only; every search is an exact scan.
//   - kHnsw: a FAISS IndexHNSWFlat (graph + vectors). FAISS 1.7.3 ignores
//     SearchParametersHNSW::efSearch (measured: recall@10 0.281 with params.efSearch=512 vs 0.996
//     with the member set) and mutating hnsw.efSearch per query is a data race, so the level-0
//     beam search over the FAISS graph is ours (vector_search.cc): per-query ef, the filter applied
//     inside the walk (rejected rows are traversed but never enter the result set), no shared
//     mutable state. A segment of at most exact_below rows gets no graph (every filtered search of
//     it would be an exact scan, and merges discard small segments' graphs): the file keeps kind
//     kHnsw, holds the raw vectors (memory-mapped after Open) and every search is exact.
//   - kIvfPq: a FAISS IndexIVFPQ (PQ codes in memory) plus the raw vectors in a 64-byte aligned
//     section of the file (memory-mapped after Open) used to re-score k*rescore_factor candidates
//     exactly. The filter is a faiss::IDSelector passed through SearchParametersIVF::sel. Below
//     kIvfMinRows rows IVF training is not meaningful: the file keeps kind kIvfPq but holds no
//     FAISS structure and every search is exact.
//
// Filters: a VectorFilter admits LocalDocs. When EstimatedCount() <= exact_below the admitted rows
// are materialized and scanned exactly. When an approximate search returns fewer than k rows while
// at least k are admitted, the search falls back to the exact scan, so Search() always returns
// min(k, admitted) rows. Results: score (inner product) descending, ties by local ascending.
//
// File format: docs/vector_format.md. Open() and FromBytes() check magic, version, CRC-32C and
// every bound before handing bytes to FAISS, then validate the deserialized structure (graph links,
// inverted-list ids) against n and dim, so a corrupt file yields kCorruption, never a crash.
//
// Thread-safety: a VectorIndex is immutable after Build/Open; Search(), Exact() and Vector() may
// be called concurrently from any number of threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "attest/status.h"

namespace faiss {
struct Index;
struct IndexHNSW;
struct IndexIVFPQ;
}  // namespace faiss

namespace attest {

class MappedFile;

enum class VectorIndexKind : uint8_t { kFlat = 1, kHnsw = 2, kIvfPq = 3 };

std::string_view VectorIndexKindName(VectorIndexKind kind);

// Measured defaults (bench/tools/vector_compare.cc, 200k x 384-d clustered, see bench/README.md).
inline constexpr uint32_t kDefaultExactBelow = 16384;  // exact scan of <= this many admitted rows (crossover at 200k: 10k rows exact 0.89 ms vs walk 2.6 ms; 20k rows exact 2.5 ms vs walk 1.3 ms)
inline constexpr uint32_t kIvfMinRows = 4096;         // fewer rows: kIvfPq stores no IVF structure

struct VectorIndexConfig {
  VectorIndexKind kind = VectorIndexKind::kHnsw;
  uint32_t hnsw_m = 16;
  uint32_t hnsw_ef_construction = 100;
  uint32_t hnsw_ef_search = 64;
  uint32_t ivf_lists = 0;         // 0 = auto: 4*sqrt(n) clamped to [16, 1024]
  uint32_t pq_subquantizers = 0;  // 0 = auto: the largest divisor of dim that is <= dim/4; 8-bit codes
  uint32_t ivf_probe = 0;         // 0 = auto: max(8, lists/16)
  uint32_t rescore_factor = 8;    // IVF-PQ: re-score k*factor candidates with the raw vectors
  uint32_t exact_below = 0;       // 0 = kDefaultExactBelow
  uint32_t threads = 1;           // build threads (OpenMP)
};

struct VectorBuildArgs {
  const float* vectors = nullptr;  // n rows of dim floats, row i = LocalDoc i; unit-norm or zero
  uint32_t n = 0, dim = 0;
  VectorIndexConfig config;
  std::string tag;  // opaque metadata kept in the header, returned by tag()
};

struct VectorHit {
  uint32_t local;
  float score;  // inner product (cosine for unit vectors)
  bool operator==(const VectorHit&) const = default;
};

// A predicate over LocalDoc, compiled by the caller per segment.
class VectorFilter {
 public:
  virtual ~VectorFilter() = default;
  virtual bool Admits(uint32_t local) const = 0;
  virtual uint64_t EstimatedCount() const = 0;            // an upper bound of admitted rows
  virtual std::vector<uint32_t> Materialize() const = 0;  // the admitted rows, sorted
};

struct VectorSearchArgs {
  const float* query = nullptr;  // dim floats
  size_t k = 10;
  const VectorFilter* filter = nullptr;  // null = every row
  uint32_t exact_below = 0;  // per-query override of the config's threshold (0 = the index's)
  uint32_t ef_search = 0;    // per-query override of hnsw_ef_search (0 = the index's)
};

class VectorIndex {
 public:
  static Result<std::unique_ptr<VectorIndex>> Build(const VectorBuildArgs& args);
  static Result<std::unique_ptr<VectorIndex>> Open(const std::filesystem::path& path);
  static Result<std::unique_ptr<VectorIndex>> FromBytes(std::string bytes);
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  Status Write(const std::filesystem::path& path) const;  // atomically
  std::string Serialize() const;

  uint32_t size() const { return n_; }
  uint32_t dim() const { return dim_; }
  VectorIndexKind kind() const { return config_.kind; }
  const VectorIndexConfig& config() const { return config_; }
  const std::string& tag() const { return tag_; }
  // True when a kIvfPq or kHnsw index holds only the raw vectors (too small for IVF, or at most
  // exact_below rows for a graph): every search is an exact scan.
  bool exact_only() const;
  uint64_t memory_bytes() const;  // heap bytes of the searchable structure (mapped raw rows excluded)
  void Vector(uint32_t local, float* out) const;

  std::vector<VectorHit> Search(const VectorSearchArgs& args) const;
  std::vector<VectorHit> Exact(const VectorSearchArgs& args) const;

  // Which path the last-resort logic uses; exposed for the benchmark and tests.
  struct SearchTrace {
    bool exact_scan = false;  // materialized/filtered exact scan chosen up front
    bool fallback = false;    // approximate path returned < k, exact scan used instead
  };
  std::vector<VectorHit> SearchTraced(const VectorSearchArgs& args, SearchTrace* trace) const;

 private:
  VectorIndex();
  static Result<std::unique_ptr<VectorIndex>> Parse(std::string owned, std::unique_ptr<MappedFile> mapped,
                                                    const std::string& name);
  const float* row(uint32_t local) const { return raw_ + static_cast<size_t>(local) * dim_; }
  uint32_t exact_below(const VectorSearchArgs& args) const;
  std::vector<VectorHit> ScanRows(const float* q, size_t k, const std::vector<uint32_t>& rows) const;
  std::vector<VectorHit> ScanAll(const float* q, size_t k, const VectorFilter* filter) const;
  std::vector<VectorHit> ExactFallback(const float* q, size_t k, const VectorFilter* filter) const;
  std::vector<VectorHit> HnswSearch(const float* q, size_t k, size_t ef, const VectorFilter* filter,
                                    uint64_t budget) const;
  std::vector<VectorHit> IvfPqSearch(const float* q, size_t k, const VectorFilter* filter) const;

  uint32_t n_ = 0, dim_ = 0;
  VectorIndexConfig config_;
  std::string tag_;
  const float* raw_ = nullptr;      // row-major n x dim (FAISS storage, owned buffer or mapping)
  std::vector<float> raw_owned_;    // Build() of kFlat / kIvfPq
  std::string bytes_owned_;         // FromBytes(): backing for raw_
  std::unique_ptr<MappedFile> mapped_;  // Open(): backing for raw_
  std::unique_ptr<faiss::Index> index_;  // null for kFlat and exact-only kIvfPq
  const faiss::IndexHNSW* hnsw_ = nullptr;
  const faiss::IndexIVFPQ* ivfpq_ = nullptr;
};

}  // namespace attest
