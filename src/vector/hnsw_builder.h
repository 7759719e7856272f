// Builds an HNSW graph (Malkov & Yashunin, "Efficient and robust approximate nearest neighbor search
// using Hierarchical Navigable Small World graphs") for inner-product similarity, into FAISS's graph
// layout (faiss::HNSW: per-node levels, offsets, neighbour slots padded with -1; 2M slots on level 0
// and M above), so that the index file format and the search walk stay FAISS's.
//
// Why our own: Debian's libfaiss is compiled for baseline x86-64, and its insertion spends >90% of
// the time in a scalar inner product. This builder uses the run-time chosen AVX2/FMA kernel
// (vector/inner_product.h) and inserts on several threads with a lock per group of nodes.
//
// The algorithm: levels drawn from FAISS's level probabilities (seeded per node, so they do not
// depend on the thread count); node 0 first; every other node descends greedily from the entry point
// through the levels above its own, then on each of its levels runs a beam search of width
// ef_construction, keeps neighbours by the paper's heuristic (a candidate is kept only if it is more
// similar to the new node than to every neighbour already kept), and links back, re-selecting by the
// same heuristic when a neighbour's list is full. With threads == 1 the graph is deterministic.
#pragma once

#include <cstdint>

#include "attest/status.h"

namespace faiss {
struct HNSW;
}

namespace attest {

struct HnswBuildArgs {
  const float* vectors = nullptr;  // n rows of dim floats, row-major; must outlive the call
  uint32_t n = 0;
  uint32_t dim = 0;
  uint32_t ef_construction = 100;  // beam width while inserting (>= the level-0 list size is useful)
  uint32_t threads = 1;
  uint64_t seed = 0x5eedULL;       // node levels
};

// Fills `hnsw` (constructed as faiss::HNSW(M), empty) with the graph of the n rows.
Status BuildHnswGraph(const HnswBuildArgs& args, faiss::HNSW* hnsw);

}  // namespace attest
