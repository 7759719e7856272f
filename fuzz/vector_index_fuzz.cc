// Fuzz target: the vector index file reader and search.
//
// The first byte picks a mode; the rest drives it:
//   0: the rest as a file image for VectorIndex::FromBytes (checksum and header checks);
//   1: a recipe -> a small index (kind, n, dim, vectors from the input) -> Serialize -> edits of
//      header bytes with the CRC recomputed (the structural checks, not the checksum, must catch
//      them) -> FromBytes; whatever opens must search within its invariants;
//   2: a recipe-built image with edits anywhere and the CRC NOT recomputed: must be rejected as
//      kCorruption unless the edits changed nothing.
// FAISS's own blob is never edited with a fixed CRC here: FAISS 1.7.3 sizes its vectors from the
// blob before reading them, so a forged size with a valid CRC could allocate up to its 2^40 cap
// (documented in docs/vector_format.md).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/checksum.h"
#include "fuzz_check.h"
#include "vector/vector_index.h"

namespace {

using namespace attest;

class Bytes {
 public:
  Bytes(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint8_t Next() { return i_ < n_ ? p_[i_++] : 0; }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

class MaskFilter : public VectorFilter {
 public:
  MaskFilter(uint32_t n, uint8_t mask) : n_(n), mask_(mask) {}
  bool Admits(uint32_t local) const override { return local < n_ && (mask_ >> (local % 8)) & 1; }
  uint64_t EstimatedCount() const override { return n_; }
  std::vector<uint32_t> Materialize() const override {
    std::vector<uint32_t> r;
    for (uint32_t i = 0; i < n_; ++i) {
      if (Admits(i)) r.push_back(i);
    }
    return r;
  }

 private:
  uint32_t n_;
  uint8_t mask_;
};

std::string BuildImage(Bytes& in) {
  VectorBuildArgs a;
  a.config.kind = static_cast<VectorIndexKind>(1 + in.Next() % 3);
  a.config.hnsw_m = 4 + in.Next() % 8;
  a.n = in.Next() % 40;
  a.dim = 1 + in.Next() % 8;
  std::vector<float> x(size_t(a.n) * a.dim);
  for (uint32_t i = 0; i < a.n; ++i) {
    double s = 0;
    for (uint32_t j = 0; j < a.dim; ++j) {
      x[size_t(i) * a.dim + j] = (static_cast<int>(in.Next()) - 128) / 16.0f;
      s += double(x[size_t(i) * a.dim + j]) * x[size_t(i) * a.dim + j];
    }
    for (uint32_t j = 0; j < a.dim && s > 0; ++j) x[size_t(i) * a.dim + j] /= float(std::sqrt(s));
  }
  a.vectors = x.data();
  a.tag = "fuzz";
  auto idx = VectorIndex::Build(a);
  FUZZ_CHECK(idx.ok());
  return (*idx)->Serialize();
}

void FixChecksum(std::string* s) {
  if (s->size() < 8) return;
  const uint32_t crc = Crc32c(s->data(), s->size() - 8);
  std::memcpy(&(*s)[s->size() - 8], &crc, 4);
}

void SearchChecks(const VectorIndex& idx, Bytes& in) {
  std::vector<float> q(idx.dim());
  for (auto& v : q) v = (static_cast<int>(in.Next()) - 128) / 16.0f;
  const size_t k = 1 + in.Next() % 12;
  MaskFilter f(idx.size(), in.Next());
  for (const VectorFilter* filter : {static_cast<const VectorFilter*>(nullptr), static_cast<const VectorFilter*>(&f)}) {
    const auto hits = idx.Search({q.data(), k, filter});
    const auto exact = idx.Exact({q.data(), k, filter});
    FUZZ_CHECK(hits.size() == exact.size());
    for (size_t i = 0; i < hits.size(); ++i) {
      FUZZ_CHECK(hits[i].local < idx.size());
      FUZZ_CHECK(filter == nullptr || filter->Admits(hits[i].local));
      if (i > 0) FUZZ_CHECK(hits[i - 1].score > hits[i].score ||
                            (hits[i - 1].score == hits[i].score && hits[i - 1].local < hits[i].local));
    }
    if (idx.kind() == VectorIndexKind::kFlat) FUZZ_CHECK(hits == exact);
  }
  std::vector<float> v(idx.dim());
  if (idx.size() > 0) idx.Vector(idx.size() - 1, v.data());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const uint8_t mode = in.Next() % 3;
  std::string image;
  if (mode == 0) {
    image.assign(reinterpret_cast<const char*>(data) + 1, size > 0 ? size - 1 : 0);
  } else {
    image = BuildImage(in);
    const std::string original = image;
    const int edits = in.Next() % 4;
    for (int e = 0; e < edits; ++e) {
      const size_t limit = mode == 1 ? std::min<size_t>(128, image.size()) : image.size();
      const size_t at = (size_t(in.Next()) << 8 | in.Next()) % limit;
      image[at] = static_cast<char>(in.Next());
    }
    if (mode == 1) FixChecksum(&image);
    if (mode == 2 && image != original) {
      auto r = VectorIndex::FromBytes(image);
      FUZZ_CHECK(!r.ok() && r.status().code() == StatusCode::kCorruption);
      return 0;
    }
    if (image == original) FUZZ_CHECK(VectorIndex::FromBytes(image).ok());
  }
  auto idx = VectorIndex::FromBytes(image);
  if (idx.ok()) SearchChecks(**idx, in);
  else FUZZ_CHECK(idx.status().code() == StatusCode::kCorruption);
  return 0;
}
