// One open segment file shared by every snapshot state that includes it.
//
// Snapshots reach the Segment through aliasing shared_ptrs that keep the SegmentFile alive, so the
// file outlives the last view of it. After a merge commits, the store marks the merged-away files
// obsolete; the file is unlinked when the last holder releases it (the last pinned snapshot goes).
//
// Thread-safety: immutable except for the obsolete flag, which is atomic.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include "attest/status.h"
#include "common/strong_id.h"
#include "lexical/segment.h"

namespace attest {

class SegmentFile : public std::enable_shared_from_this<SegmentFile> {
 public:
  // Opens and validates the segment (Segment::Open checks magic, version, checksum and bounds).
  static Result<std::shared_ptr<SegmentFile>> Open(SegmentId id, const std::filesystem::path& path);
  ~SegmentFile();
  SegmentFile(const SegmentFile&) = delete;
  SegmentFile& operator=(const SegmentFile&) = delete;

  SegmentId id() const { return id_; }
  const std::filesystem::path& path() const { return path_; }
  // A pointer to the Segment that keeps this SegmentFile (and so the file on disk) alive.
  std::shared_ptr<const Segment> segment() const;
  const Segment& raw() const { return *segment_; }
  // The file is unlinked when the last reference goes.
  void MarkObsolete() { obsolete_.store(true); }

 private:
  SegmentFile(SegmentId id, std::filesystem::path path, std::shared_ptr<const Segment> seg)
      : id_(id), path_(std::move(path)), segment_(std::move(seg)) {}
  SegmentId id_;
  std::filesystem::path path_;
  std::shared_ptr<const Segment> segment_;
  std::atomic<bool> obsolete_{false};
};

}  // namespace attest
