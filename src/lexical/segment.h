// An immutable lexical index segment: a term dictionary, block-compressed postings with per-field
// term frequencies and block-max metadata, positions, per-chunk field lengths, the local->ChunkId
// map and the filter attribute columns. Layout: docs/segment_format.md.
//
// Thread-safety: immutable after Open(); any number of threads may read concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "common/strong_id.h"
#include "lexical/indexed_chunk.h"

namespace attest {

class SegmentImpl;  // defined in lexical/, private to the engine

struct SegmentOpenOptions {
  // Decode every postings block and cross-check block-max bounds and value lists against the data
  // (O(postings)). Always on for files of unknown origin. The store turns it off only for a file
  // whose checksum equals the one its catalog recorded when the file was written and deeply
  // verified; the magic, version, checksum and every section bound are checked regardless.
  bool deep = true;
};

// Local document number inside one segment: 0..num_docs()-1, in ChunkId order.
using LocalDoc = uint32_t;

class Segment {
 public:
  // Maps and validates a segment file (magic, version, checksum, section bounds).
  static Result<std::shared_ptr<const Segment>> Open(const std::filesystem::path& path,
                                                     const SegmentOpenOptions& options = {});
  // The format version in a segment file's header (after checking its magic), without validating
  // the rest: lets a store find files of an older format to migrate.
  static Result<uint32_t> FileFormatVersion(const std::filesystem::path& path);
  // The version this build writes.
  static uint32_t CurrentFormatVersion();
  // The oldest version this build reads (older files must be rebuilt: the store re-indexes them).
  // Version 2 files read as segments whose term field is empty.
  static uint32_t OldestReadableFormatVersion();
  // Validates and adopts an in-memory image (tests, benchmarks).
  static Result<std::shared_ptr<const Segment>> FromBytes(std::string bytes, const SegmentOpenOptions& options = {});
  ~Segment();

  uint32_t num_docs() const;
  ChunkId chunk_id(LocalDoc local) const;
  std::optional<LocalDoc> local_of(ChunkId id) const;
  // Number of chunks containing `term` (deleted ones included), 0 if absent.
  uint32_t doc_freq(std::string_view term) const;
  // Sum over chunks of the field's length.
  uint64_t total_field_length(Field f) const;
  uint64_t file_size() const;
  // The checksum in the file's tail: CRC-32C of every byte before it, verified by Open(). It
  // identifies the content (the store's catalog records it). Note that the CRC of the whole file
  // would not: a message followed by its own CRC always has the same CRC (the CRC residue).
  uint32_t content_crc() const;
  // The tenant of every chunk, when they share one (the store writes one tenant per segment);
  // nullopt for an empty segment or one that mixes tenants.
  std::optional<std::string> sole_tenant() const;
  // Reads back the attributes of one chunk (for tests and for `attest stats`).
  ChunkAttributes attributes(LocalDoc local) const;

  const SegmentImpl& impl() const { return *impl_; }

 private:
  explicit Segment(std::unique_ptr<SegmentImpl> impl);
  std::unique_ptr<SegmentImpl> impl_;
};

// Bitmap of deleted local docs of one segment (bit set = deleted). Immutable once shared.
class DeletedDocs {
 public:
  explicit DeletedDocs(uint32_t num_docs) : bits_((num_docs + 63) / 64, 0) {}
  void Set(LocalDoc d) {
    if (!(bits_[d >> 6] >> (d & 63) & 1)) ++count_;
    bits_[d >> 6] |= uint64_t{1} << (d & 63);
  }
  bool Test(LocalDoc d) const { return (bits_[d >> 6] >> (d & 63)) & 1; }
  uint32_t count() const { return count_; }

 private:
  std::vector<uint64_t> bits_;
  uint32_t count_ = 0;
};

// One segment as seen by one snapshot: the file plus the deletions visible at that snapshot.
struct SegmentView {
  SegmentId id;
  std::shared_ptr<const Segment> segment;
  std::shared_ptr<const DeletedDocs> deleted;  // may be null: nothing deleted
};

}  // namespace attest
