// An append-only string -> dense id hash table (open addressing, linear probing) used by the
// segment writer to intern terms without one heap allocation per term. Keys of up to 24 bytes
// live inside the slot, so a lookup usually touches a single cache line (slots are 40 bytes).
// Not thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace attest {

class TermTable {
 public:
  TermTable() : slots_(1 << 12), mask_((1 << 12) - 1) {}

  // Per-term scratch the writer keeps inside the slot (same cache line as the key).
  struct Payload {
    uint32_t stamp = 0;
    uint32_t local = 0;
  };

  // Returns the id of `s`, inserting it with the next id when new, and its payload (valid until
  // the next call).
  uint32_t Intern(std::string_view s, Payload** payload) { return Intern(s, Hash(s), payload); }

  // Hints the cache about the slot a later Intern(s, h, ...) will probe first.
  void Prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }

  // Intern with a precomputed h == Hash(s).
  uint32_t Intern(std::string_view s, uint64_t h, Payload** payload) {
    if ((offsets_.size() + 2) * 2 > slots_.size()) Rehash(slots_.size() * 2);
    const uint64_t tag = Tag(h, s.size());
    size_t i = h & mask_;
    while (true) {
      Slot& slot = slots_[i];
      if (slot.meta == 0) break;
      if ((slot.meta & kTagMask) == tag && Equal(slot, s)) {
        *payload = &slot.payload;
        return static_cast<uint32_t>(slot.meta) - 1;
      }
      i = (i + 1) & mask_;
    }
    const uint32_t id = static_cast<uint32_t>(offsets_.size());
    offsets_.push_back(static_cast<uint64_t>(arena_.size()));
    lengths_.push_back(static_cast<uint32_t>(s.size()));
    arena_.append(s.data(), s.size());
    hashes_.push_back(h);
    Fill(&slots_[i], id, s, tag);
    *payload = &slots_[i].payload;
    return id;
  }
  uint32_t Intern(std::string_view s) {
    Payload* unused;
    return Intern(s, &unused);
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
  static constexpr size_t kInline = 24;
  static constexpr uint64_t kTagMask = 0xffffffff00000000ull;
  // meta: id + 1 (low 32 bits; 0 = empty slot), key length saturated at 255 (8 bits), 24-bit hash tag.
  struct Slot {
    uint64_t meta = 0;
    char key[kInline];
    Payload payload;
  };
  static_assert(sizeof(Slot) == 40);

  static uint64_t Tag(uint64_t h, size_t len) {
    return (h & 0xffffff0000000000ull) | (uint64_t(std::min<size_t>(len, 255)) << 32);
  }

  bool Equal(const Slot& slot, std::string_view s) const {
    if (s.size() <= kInline) return std::memcmp(slot.key, s.data(), s.size()) == 0;
    const uint32_t id = static_cast<uint32_t>(slot.meta) - 1;
    return lengths_[id] == s.size() && std::memcmp(arena_.data() + offsets_[id], s.data(), s.size()) == 0;
  }

  static void Fill(Slot* slot, uint32_t id, std::string_view s, uint64_t tag) {
    slot->meta = tag | (uint64_t(id) + 1);
    std::memcpy(slot->key, s.data(), std::min(s.size(), kInline));
  }

  void Rehash(size_t n) {
    std::vector<Slot> old(n);
    old.swap(slots_);
    mask_ = n - 1;
    for (const Slot& s : old) {
      if (s.meta == 0) continue;
      size_t i = hashes_[static_cast<uint32_t>(s.meta) - 1] & mask_;
      while (slots_[i].meta != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  std::vector<uint64_t> offsets_;
  std::vector<uint32_t> lengths_;
  std::vector<uint64_t> hashes_;
  std::string arena_;
};

}  // namespace attest
