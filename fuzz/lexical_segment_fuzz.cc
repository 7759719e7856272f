// Fuzz target: the lexical segment writer, reader and searcher.
//
// The first byte picks a mode; the rest drives it:
//   0: a recipe -> a small corpus (docs, terms, positions, attributes) -> SegmentWriter -> Segment
//      (must open) -> random queries and filters, where TopK must equal the exhaustive oracle;
//   1: raw bytes as a segment image, with the CRC recomputed so that the structural validation
//      (not the checksum) is what gets exercised; whatever opens must agree with the oracle;
//   2: a recipe-built image whose bytes are then overwritten at input-chosen places (CRC fixed):
//      near-valid images that reach deep into the validator.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "common/checksum.h"
#include "fuzz_check.h"
#include "lexical/lexical_searcher.h"
#include "lexical/segment_writer.h"

namespace {

using namespace attest;

class Bytes {
 public:
  Bytes(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint8_t Next() { return i_ < n_ ? p_[i_++] : 0; }
  bool Done() const { return i_ >= n_; }
  size_t Remaining() const { return n_ - i_; }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

const char* kWords[] = {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7", "max_wal", "15.4", "x", "y"};
const char* kValues[] = {"", "a", "b", "c"};

std::string BuildImage(Bytes& in) {
  SegmentWriter w;
  const int docs = 1 + in.Next() % 48;
  for (int d = 0; d < docs; ++d) {
    IndexedChunk c;
    c.id = ChunkId(10 + 3 * d + in.Next() % 3);
    for (int f = 0; f < kNumFields; ++f) {
      const int len = in.Next() % (f == 2 ? 24 : 4);
      uint32_t pos = 0;
      for (int t = 0; t < len; ++t) {
        const uint8_t b = in.Next();
        pos += (b >> 6) == 3 ? 2 : 1;  // sometimes a gap (a dropped stopword)
        c.fields[f].tokens.push_back(Token{kWords[b % 12], pos - 1, 0, 0});
      }
      c.fields[f].length = pos;
    }
    const uint8_t a = in.Next();
    c.attrs.tenant = kValues[a & 3];
    c.attrs.source_type = kValues[(a >> 2) & 3];
    c.attrs.site = kValues[(a >> 4) & 3];
    c.attrs.version = kValues[a >> 6];
    const uint8_t g = in.Next();
    for (int k = 0; k < 3; ++k) {
      if (g & (1 << k)) c.attrs.acl_groups.push_back(std::string("g") + char('0' + k));
    }
    c.attrs.date = (g & 8) ? ChunkAttributes::kNoDate : int32_t(g >> 4);
    c.attrs.access_label = kValues[in.Next() & 3];
    FUZZ_CHECK(w.Add(c).ok());
  }
  return w.Serialize();
}

void FixChecksum(std::string* image) {
  if (image->size() < 36) return;
  const uint32_t crc = Crc32c(image->data(), image->size() - 12);
  std::memcpy(&(*image)[image->size() - 12], &crc, 4);
}

// Any image that opens must search exactly like the oracle (filters with tenants, groups and
// access labels, and the statistics computed over the visibility classes they admit): Segment::Open checks that block-max
// bounds really bound their blocks and that value lists invert the attribute columns, so even a
// hand-edited image with a valid checksum cannot make pruning or filter driving disagree.
void SearchAndCompare(const std::shared_ptr<const Segment>& seg, Bytes& in) {
  for (uint32_t d = 0; d < seg->num_docs(); ++d) {
    (void)seg->attributes(d);
    FUZZ_CHECK(seg->local_of(seg->chunk_id(d)) == d);
  }
  LexicalSearcher searcher({{SegmentId(1), seg, nullptr}});
  for (int q = 0; q < 4 && !in.Done(); ++q) {
    LexicalQuery query;
    const int clauses = 1 + in.Next() % 3;
    for (int c = 0; c < clauses; ++c) {
      const uint8_t b = in.Next();
      QueryClause clause;
      clause.occur = static_cast<Occur>(b % 3);
      clause.phrase = (b & 4) != 0;
      const int terms = clause.phrase ? 2 + (b >> 6) % 2 : 1;
      for (int t = 0; t < terms; ++t) {
        clause.terms.push_back(kWords[in.Next() % 12]);
        clause.positions.push_back(static_cast<uint32_t>(t));
      }
      query.clauses.push_back(clause);
    }
    LexicalSearchArgs args;
    args.query = &query;
    args.k = 1 + in.Next() % 12;
    const uint8_t f = in.Next();
    if (f & 1) args.filter.tenant = kValues[(f >> 1) & 3];
    if (f & 8) args.filter.groups = std::vector<std::string>{"g" + std::to_string((f >> 4) % 3)};
    if (f & 64) args.filter.versions = {kValues[in.Next() & 3]};
    if (f & 128) args.filter.date_from = in.Next() % 16;
    const uint8_t l = in.Next();
    if (l & 1) args.filter.labels = std::vector<std::string>{kValues[(l >> 1) & 3], kValues[(l >> 3) & 3]};
    if (l & 32) args.filter.groups = std::vector<std::string>{};  // public only
    const auto fast = searcher.TopK(args);
    const auto oracle = searcher.Exhaustive(args);
    FUZZ_CHECK(fast == oracle);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  const uint8_t mode = in.Next() % 3;
  std::string image;
  if (mode == 1) {
    image.assign(reinterpret_cast<const char*>(data) + 1, size > 0 ? size - 1 : 0);
    FixChecksum(&image);
  } else {
    image = BuildImage(in);
    if (mode == 2) {
      const int edits = 1 + in.Next() % 4;
      for (int e = 0; e < edits && image.size() > 36; ++e) {
        const size_t at = (size_t(in.Next()) << 8 | in.Next()) % (image.size() - 20);
        image[at] = static_cast<char>(in.Next());
      }
      FixChecksum(&image);
    }
  }
  auto seg = Segment::FromBytes(image);
  if (mode == 0) FUZZ_CHECK(seg.ok());
  if (seg.ok()) SearchAndCompare(*seg, in);
  return 0;
}
