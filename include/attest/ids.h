// Strong integer ids (after PISA's Integer<Tag,T>): a ChunkId cannot be passed where a DocNum is
// meant, nor either where a plain integer is. The value is read explicitly with get() (at JSON and
// storage boundaries, where ids stay plain numbers).
#pragma once

#include <compare>
#include <cstddef>
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

// Global, monotonically assigned id of a chunk; never reused.
using ChunkId = StrongId<ChunkIdTag, uint64_t>;
// Internal row number of one stored version of a document (the catalog's key); never reused.
using DocNum = StrongId<DocNumTag, uint64_t>;

}  // namespace attest

template <typename Tag, typename T>
struct std::hash<attest::StrongId<Tag, T>> {
  size_t operator()(const attest::StrongId<Tag, T>& id) const noexcept { return std::hash<T>()(id.value); }
};
