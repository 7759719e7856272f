// Strong integer ids (after PISA's Integer<Tag,T>): a ChunkId cannot be passed where a DocNum is meant.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>

namespace attest {

template <typename Tag, typename T>
struct StrongId {
  using value_type = T;
  T value{};

  constexpr StrongId() = default;
  constexpr explicit StrongId(T v) : value(v) {}
  constexpr T get() const { return value; }
  constexpr auto operator<=>(const StrongId&) const = default;
};

struct ChunkIdTag {};
struct DocNumTag {};
struct SegmentIdTag {};
struct SnapshotVersionTag {};

// Global, monotonically assigned id of a chunk; never reused.
using ChunkId = StrongId<ChunkIdTag, uint64_t>;
// Internal row number of one stored version of a document (the catalog's key); never reused.
using DocNum = StrongId<DocNumTag, uint64_t>;
// Number of an immutable index segment file.
using SegmentId = StrongId<SegmentIdTag, uint64_t>;
// Version of a committed snapshot; strictly increasing with each commit.
using SnapshotVersion = StrongId<SnapshotVersionTag, uint64_t>;

}  // namespace attest

template <typename Tag, typename T>
struct std::hash<attest::StrongId<Tag, T>> {
  size_t operator()(const attest::StrongId<Tag, T>& id) const noexcept { return std::hash<T>()(id.value); }
};
