// Finding stored SimHash fingerprints within a small Hamming distance of a query.
//
// NearDuplicateIndex is the block-split method of Manku, Jain and Das Sarma (WWW'07, §3): the 64
// bits are cut into 4 blocks of 16. Two fingerprints that differ in at most 3 bits leave at least
// one of the 4 blocks untouched (pigeonhole), so every answer shares a whole block with the query.
// One hash table per block maps a 16-bit block value to the fingerprints that have it; a query looks
// up its 4 blocks and checks the full distance of those candidates only. On fingerprints spread
// over the 2^16 values of a block that is about 4·n/65536 candidates instead of n.
// A distance above 3 loses that guarantee, so Find then scans every fingerprint: the answer is
// exact for any distance, fast for ≤ 3.
//
// LinearNearDuplicateIndex is the exact oracle: it compares the query with every fingerprint.
// Both return the same matches in the same order (distance, then id, then insertion order).
//
// Thread-safety: Add must not run concurrently with anything; const methods may run concurrently.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace attest {

struct NearDuplicateMatch {
  uint64_t id = 0;  // the caller's id for the stored fingerprint (a page, a document)
  uint64_t fingerprint = 0;
  int distance = 0;
  bool operator==(const NearDuplicateMatch&) const = default;
};

class NearDuplicateIndex {
 public:
  static constexpr int kGuaranteedDistance = 3;
  void Add(uint64_t id, uint64_t fingerprint);
  std::vector<NearDuplicateMatch> Find(uint64_t fingerprint, int max_distance = kGuaranteedDistance) const;
  size_t size() const { return entries_.size(); }
  // How many stored fingerprints a query for `fingerprint` checks (with repeats across blocks):
  // for measuring the saving against a linear scan.
  size_t CandidateCount(uint64_t fingerprint) const;

 private:
  struct Entry {
    uint64_t id;
    uint64_t fingerprint;
  };
  static constexpr int kBlocks = 4;
  static uint16_t Block(uint64_t fingerprint, int b) { return static_cast<uint16_t>(fingerprint >> (16 * b)); }
  std::vector<Entry> entries_;
  std::array<std::unordered_map<uint16_t, std::vector<uint32_t>>, kBlocks> tables_;
};

class LinearNearDuplicateIndex {
 public:
  void Add(uint64_t id, uint64_t fingerprint) { entries_.push_back({id, fingerprint, 0}); }
  std::vector<NearDuplicateMatch> Find(uint64_t fingerprint, int max_distance = 3) const;
  size_t size() const { return entries_.size(); }

 private:
  std::vector<NearDuplicateMatch> entries_;
};

}  // namespace attest
