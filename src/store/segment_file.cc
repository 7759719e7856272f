#include "store/segment_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace attest {

Result<std::shared_ptr<SegmentFile>> SegmentFile::Open(SegmentId id, const std::filesystem::path& path) {
  auto seg = Segment::Open(path);
  if (!seg.ok()) {
    return Status(seg.status().code(), "segment " + std::to_string(id.get()) + " (" + path.string() +
                                           "): " + seg.status().message());
  }
  return std::shared_ptr<SegmentFile>(new SegmentFile(id, path, std::move(seg).value()));
}

SegmentFile::~SegmentFile() {
  segment_.reset();  // unmap first
  if (obsolete_.load() && ::unlink(path_.c_str()) != 0 && errno != ENOENT) {
    // Not fatal: the next writer open removes unreferenced segment files.
    spdlog::warn("cannot remove obsolete segment {}: {}", path_.string(), std::strerror(errno));
  }
}

std::shared_ptr<const Segment> SegmentFile::segment() const {
  return std::shared_ptr<const Segment>(shared_from_this(), segment_.get());
}

}  // namespace attest
