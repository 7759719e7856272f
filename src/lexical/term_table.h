// An append-only string -> dense id hash table (open addressing, linear probing) used by the
// segment writer to intern terms without one heap allocation per term.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace attest {

class TermTable {
 public:
  TermTable() { Rehash(1 << 12); }

  // Returns the id of `s`, inserting it with the next id when new.
  uint32_t Intern(std::string_view s) {
    const uint64_t h = Hash(s);
    size_t i = h & mask_;
    while (true) {
      const uint32_t slot = slots_[i];
      if (slot == 0) break;
      const uint32_t id = slot - 1;
      if (hashes_[id] == h && key(id) == s) return id;
      i = (i + 1) & mask_;
    }
    const uint32_t id = static_cast<uint32_t>(offsets_.size());
    offsets_.push_back(static_cast<uint64_t>(arena_.size()));
    lengths_.push_back(static_cast<uint32_t>(s.size()));
    arena_.append(s.data(), s.size());
    hashes_.push_back(h);
    slots_[i] = id + 1;
    if ((offsets_.size() + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);
    return id;
  }

  size_t size() const { return offsets_.size(); }
  std::string_view key(uint32_t id) const { return {arena_.data() + offsets_[id], lengths_[id]}; }

  static uint64_t Hash(std::string_view s) {
    // 64-bit FNV-1a over 8-byte words, then a final avalanche (splitmix64).
    uint64_t h = 0xcbf29ce484222325ull ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0x100000001b3ull;
    }
    uint64_t tail = 0;
    std::memcpy(&tail, s.data() + i, s.size() - i);
    h = (h ^ tail) * 0x100000001b3ull;
    h ^= h >> 30;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 27;
    h *= 0x94d049bb133111ebull;
    h ^= h >> 31;
    return h;
  }

 private:
  void Rehash(size_t n) {
    slots_.assign(n, 0);
    mask_ = n - 1;
    for (uint32_t id = 0; id < offsets_.size(); ++id) {
      size_t i = hashes_[id] & mask_;
      while (slots_[i] != 0) i = (i + 1) & mask_;
      slots_[i] = id + 1;
    }
  }

  std::vector<uint32_t> slots_;  // id + 1, 0 = empty
  size_t mask_ = 0;
  std::vector<uint64_t> offsets_;
  std::vector<uint32_t> lengths_;
  std::vector<uint64_t> hashes_;
  std::string arena_;
};

}  // namespace attest
