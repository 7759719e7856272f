// Strong integer ids. ChunkId and DocNum are part of the public API (attest/ids.h); the ids below
// are the store's own.
#pragma once

#include "attest/ids.h"

namespace attest {

struct SegmentIdTag {};
struct SnapshotVersionTag {};

// Number of an immutable index segment file.
using SegmentId = StrongId<SegmentIdTag, uint64_t>;
// Version of a committed snapshot; strictly increasing with each commit.
using SnapshotVersion = StrongId<SnapshotVersionTag, uint64_t>;

}  // namespace attest
