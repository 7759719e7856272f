#include "store/segment_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

#include "lexical/segment_impl.h"

namespace attest {

Result<std::shared_ptr<SegmentFile>> SegmentFile::Open(SegmentId id, const std::filesystem::path& path,
                                                       std::vector<DocNum> docs) {
  auto seg = Segment::Open(path);
  if (!seg.ok()) {
    return Status(seg.status().code(), "segment " + std::to_string(id.get()) + " (" + path.string() +
                                           "): " + seg.status().message());
  }
  if (docs.size() != (*seg)->num_docs()) {
    return Status::Corruption("segment " + std::to_string(id.get()) + " (" + path.string() + ") has " +
                              std::to_string((*seg)->num_docs()) + " chunks but the catalog maps " +
                              std::to_string(docs.size()));
  }
  const SegmentImpl& impl = (*seg)->impl();
  if (impl.has_chunk_docs()) {  // what Reopen will read instead of the catalog must agree with it
    for (uint32_t d = 0; d < docs.size(); ++d) {
      if (impl.chunk_doc(d) != docs[d].get()) {
        return Status::Internal("segment " + std::to_string(id.get()) + " (" + path.string() + ") stores document " +
                                std::to_string(impl.chunk_doc(d)) + " for chunk " +
                                std::to_string(impl.chunk_id(d)) + "; the catalog has " + std::to_string(docs[d].get()));
      }
    }
  }
  return std::shared_ptr<SegmentFile>(new SegmentFile(id, path, std::move(seg).value(), std::move(docs)));
}

Result<std::shared_ptr<SegmentFile>> SegmentFile::Reopen(SegmentId id, const std::filesystem::path& path,
                                                         uint32_t catalog_crc, const ChunkDocsReader& chunk_docs) {
  SegmentOpenOptions shallow;
  shallow.deep = false;
  auto seg = Segment::Open(path, shallow);
  if (!seg.ok()) {
    return Status(seg.status().code(), "segment " + std::to_string(id.get()) + " (" + path.string() +
                                           "): " + seg.status().message());
  }
  if ((*seg)->content_crc() != catalog_crc) {
    return Status::Corruption("segment " + std::to_string(id.get()) + " (" + path.string() +
                              ") is not the file the catalog recorded: checksum " +
                              std::to_string((*seg)->content_crc()) + ", expected " + std::to_string(catalog_crc));
  }
  std::vector<DocNum> docs((*seg)->num_docs(), DocNum(0));
  const SegmentImpl& impl = (*seg)->impl();
  if (impl.has_chunk_docs()) {
    for (uint32_t d = 0; d < docs.size(); ++d) docs[d] = DocNum(impl.chunk_doc(d));
    return std::shared_ptr<SegmentFile>(new SegmentFile(id, path, std::move(seg).value(), std::move(docs)));
  }
  ATTEST_ASSIGN_OR_RETURN(auto from_catalog, chunk_docs());
  for (const auto& [chunk, doc] : from_catalog) {
    std::optional<LocalDoc> local = (*seg)->local_of(chunk);
    if (!local) {
      return Status::Corruption("catalog places chunk " + std::to_string(chunk.get()) + " in segment " +
                                std::to_string(id.get()) + " (" + path.string() + "), which does not hold it");
    }
    docs[*local] = doc;
  }
  return std::shared_ptr<SegmentFile>(new SegmentFile(id, path, std::move(seg).value(), std::move(docs)));
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
