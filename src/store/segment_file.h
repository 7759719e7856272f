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
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "attest/status.h"
#include "common/strong_id.h"
#include "lexical/segment.h"

namespace attest {

class SegmentFile : public std::enable_shared_from_this<SegmentFile> {
 public:
  // Opens and validates the segment (Segment::Open checks magic, version, checksum and bounds).
  // `docs[i]` is the document of local doc i (DocNum 0 where the catalog no longer has the row);
  // it must have one entry per chunk of the segment.
  static Result<std::shared_ptr<SegmentFile>> Open(SegmentId id, const std::filesystem::path& path,
                                                   std::vector<DocNum> docs);
  ~SegmentFile();
  SegmentFile(const SegmentFile&) = delete;
  SegmentFile& operator=(const SegmentFile&) = delete;

  SegmentId id() const { return id_; }
  const std::filesystem::path& path() const { return path_; }
  // A pointer to the Segment that keeps this SegmentFile (and so the file on disk) alive.
  std::shared_ptr<const Segment> segment() const;
  // Reopens a file the catalog registered. The file must carry the checksum the catalog recorded when
  // it was written. That file was deeply verified then, so only the header, checksum and section
  // bounds are checked again (SegmentOpenOptions::deep = false). A segment of format 4 or later holds
  // its chunks' documents; for an older one `chunk_docs` reads them from the catalog, per chunk id
  // (rows purged from the catalog leave DocNum 0 for chunks that are deleted anyway).
  using ChunkDocsReader = std::function<Result<std::vector<std::pair<ChunkId, DocNum>>>()>;
  static Result<std::shared_ptr<SegmentFile>> Reopen(SegmentId id, const std::filesystem::path& path,
                                                     uint32_t catalog_crc, const ChunkDocsReader& chunk_docs);
  const Segment& raw() const { return *segment_; }
  // The document a chunk of this segment belongs to, without a catalog read (collapsing hits).
  DocNum doc_of(LocalDoc local) const { return docs_[local]; }
  // Runs of consecutive chunks of one document: the number of documents when each document's chunks
  // are adjacent (as written), more otherwise. Sizes the first window of collapsed rankings.
  uint32_t document_runs() const { return document_runs_; }
  // The file is unlinked when the last reference goes.
  void MarkObsolete() { obsolete_.store(true); }

 private:
  SegmentFile(SegmentId id, std::filesystem::path path, std::shared_ptr<const Segment> seg, std::vector<DocNum> docs)
      : id_(id), path_(std::move(path)), segment_(std::move(seg)), docs_(std::move(docs)) {
    for (size_t i = 0; i < docs_.size(); ++i) document_runs_ += i == 0 || docs_[i] != docs_[i - 1];
  }
  SegmentId id_;
  std::filesystem::path path_;
  std::shared_ptr<const Segment> segment_;
  std::vector<DocNum> docs_;
  uint32_t document_runs_ = 0;
  std::atomic<bool> obsolete_{false};
};

}  // namespace attest
