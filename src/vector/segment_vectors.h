// The vector files of a data directory: one per (segment, embedder), in <data>/vectors/, named
// seg-<segment id>-<embedder key>.vec (format: docs/vector_format.md). Row i of a file is the
// segment's LocalDoc i. Vector files are derived data: the catalog does not list them, and a file
// counts only when its tag names the segment's content checksum, so a stale or foreign file is
// ignored (and rebuilt), never used.
//
// The tag of each file (VectorIndex::tag()) holds "ATVTAG1\n", a JSON line {segment, segment_crc,
// embedder, name, dim, version}, then the chunk id of every row (8 bytes little-endian each). The
// chunk ids make a file self-describing: when segments are merged, the rows of the merged-away
// segments' files are reused for the new segment instead of embedding those chunks again.
//
// Thread-safety: all methods may be called concurrently; loaded indexes are shared and immutable.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/thread_annotations.h"
#include "embed/embedder.h"
#include "store/store.h"
#include "vector/vector_index.h"

namespace attest {

struct VectorSyncArgs {
  const Snapshot* snapshot = nullptr;
  std::string tenant;                   // only this tenant's segments (each tenant has its own embedder)
  const Embedder* embedder = nullptr;
  VectorIndexConfig index;
  unsigned threads = 1;                 // embedding threads
  // The text embedded for a chunk: title, section path and body (see ChunkEmbeddingText()).
  size_t batch = 256;                   // chunks per Embed() call
  // Crash tests only: called as "vectors.before_file_write" before each file is written.
  std::function<Status(std::string_view point)> fault_hook;
};

struct VectorSyncStats {
  uint64_t segments_built = 0;
  uint64_t rows_embedded = 0;
  uint64_t rows_reused = 0;
  double seconds = 0;
};

// The vectors of one snapshot segment for one embedder.
struct SegmentVectors {
  SegmentView view;
  std::shared_ptr<const VectorIndex> index;
};

class VectorFiles {
 public:
  explicit VectorFiles(std::filesystem::path dir) : dir_(std::move(dir)) {}

  const std::filesystem::path& dir() const { return dir_; }
  static std::string FileName(SegmentId segment, const std::string& embedder_key);
  std::filesystem::path PathOf(SegmentId segment, const std::string& embedder_key) const {
    return dir_ / FileName(segment, embedder_key);
  }

  // The indexes of `tenant`'s segments of `snapshot` for `embedder_key` whose files exist and
  // match; segments without one are left out (the caller reports the coverage). Files are loaded
  // once and cached.
  Result<std::vector<SegmentVectors>> Load(const Snapshot& snapshot, const std::string& tenant,
                                           const std::string& embedder_key);

  // Builds the missing files of `args.tenant`'s segments of `args.snapshot` for `args.embedder`,
  // reusing rows of any other file of the same embedder that holds the same chunk. Writers only.
  Result<VectorSyncStats> Sync(const VectorSyncArgs& args);

  // Deletes every file but those of `keep` (segment -> the key of its tenant's embedder), and
  // forgets them. Writers only, after Sync.
  Status RemoveExcept(const std::map<SegmentId, std::string>& keep);

  // Bytes of the files of `loaded` (segments of one embedder, `key`).
  uint64_t BytesOf(const std::vector<SegmentVectors>& loaded, const std::string& key) const;

 private:
  struct Loaded {
    std::shared_ptr<const VectorIndex> index;
    uint32_t segment_crc = 0;
    std::vector<uint64_t> chunk_ids;  // per row
  };
  // Opens and validates one file; kNotFound when absent.
  Result<std::shared_ptr<const Loaded>> Open(SegmentId segment, const std::string& key);
  Result<std::shared_ptr<const Loaded>> Get(SegmentId segment, const std::string& key);

  std::filesystem::path dir_;
  Mutex mu_;
  std::map<std::pair<uint64_t, std::string>, std::shared_ptr<const Loaded>> cache_ GUARDED_BY(mu_);
};

// True when `view`'s chunks belong to `tenant` (segments hold one tenant each).
bool SegmentOfTenant(const SegmentView& view, const std::string& tenant);

// The text the vector leg embeds for a chunk.
std::string ChunkEmbeddingText(const std::string& title, const std::string& section, const std::string& body);

}  // namespace attest
