#include "text/near_duplicate_index.h"

#include <algorithm>

#include "text/simhash.h"

namespace attest {
namespace {

// Orders matches by distance, then id; stable so equal (distance, id) keep insertion order.
void SortMatches(std::vector<std::pair<size_t, NearDuplicateMatch>>* found, std::vector<NearDuplicateMatch>* out) {
  std::sort(found->begin(), found->end(), [](const auto& a, const auto& b) {
    if (a.second.distance != b.second.distance) return a.second.distance < b.second.distance;
    if (a.second.id != b.second.id) return a.second.id < b.second.id;
    return a.first < b.first;
  });
  out->reserve(found->size());
  for (auto& f : *found) out->push_back(f.second);
}

}  // namespace

void NearDuplicateIndex::Add(uint64_t id, uint64_t fingerprint) {
  const auto position = static_cast<uint32_t>(entries_.size());
  entries_.push_back({id, fingerprint});
  for (int b = 0; b < kBlocks; ++b) tables_[b][Block(fingerprint, b)].push_back(position);
}

std::vector<NearDuplicateMatch> NearDuplicateIndex::Find(uint64_t fingerprint, int max_distance) const {
  std::vector<std::pair<size_t, NearDuplicateMatch>> found;
  if (max_distance < 0) return {};
  if (max_distance > kGuaranteedDistance) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      const int d = HammingDistance(entries_[i].fingerprint, fingerprint);
      if (d <= max_distance) found.push_back({i, {entries_[i].id, entries_[i].fingerprint, d}});
    }
  } else {
    for (int b = 0; b < kBlocks; ++b) {
      const auto it = tables_[b].find(Block(fingerprint, b));
      if (it == tables_[b].end()) continue;
      for (uint32_t position : it->second) {
        const Entry& e = entries_[position];
        // Reported from the first block it shares with the query, so each entry appears once.
        bool earlier = false;
        for (int p = 0; p < b && !earlier; ++p) earlier = Block(e.fingerprint, p) == Block(fingerprint, p);
        if (earlier) continue;
        const int d = HammingDistance(e.fingerprint, fingerprint);
        if (d <= max_distance) found.push_back({position, {e.id, e.fingerprint, d}});
      }
    }
  }
  std::vector<NearDuplicateMatch> out;
  SortMatches(&found, &out);
  return out;
}

size_t NearDuplicateIndex::CandidateCount(uint64_t fingerprint) const {
  size_t n = 0;
  for (int b = 0; b < kBlocks; ++b) {
    const auto it = tables_[b].find(Block(fingerprint, b));
    if (it != tables_[b].end()) n += it->second.size();
  }
  return n;
}

std::vector<NearDuplicateMatch> LinearNearDuplicateIndex::Find(uint64_t fingerprint, int max_distance) const {
  std::vector<std::pair<size_t, NearDuplicateMatch>> found;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const int d = HammingDistance(entries_[i].fingerprint, fingerprint);
    if (d <= max_distance) found.push_back({i, {entries_[i].id, entries_[i].fingerprint, d}});
  }
  std::vector<NearDuplicateMatch> out;
  SortMatches(&found, &out);
  return out;
}

}  // namespace attest
