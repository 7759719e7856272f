#include "lexical/segment.h"

#include "common/file_util.h"
#include "lexical/segment_impl.h"

#include <cstring>

namespace attest {

Segment::Segment(std::unique_ptr<SegmentImpl> impl) : impl_(std::move(impl)) {}
Segment::~Segment() = default;

Result<std::shared_ptr<const Segment>> Segment::Open(const std::filesystem::path& path,
                                                     const SegmentOpenOptions& options) {
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(path));
  std::shared_ptr<const MappedFile> owner(std::move(file));
  auto impl = SegmentImpl::Create(owner, owner->data(), owner->size(), options.deep);
  if (!impl.ok()) return impl.status().WithContext(path.string());
  return std::shared_ptr<const Segment>(new Segment(std::move(impl).value()));
}

Result<uint32_t> Segment::FileFormatVersion(const std::filesystem::path& path) {
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(path));
  if (file->size() < segfmt::kHeaderSize || std::memcmp(file->data(), segfmt::kMagic, 8) != 0) {
    return Status::Corruption("segment: " + path.string() + " has no segment header");
  }
  return segfmt::Load32(file->data() + 8);
}

uint32_t Segment::CurrentFormatVersion() { return segfmt::kFormatVersion; }
uint32_t Segment::OldestReadableFormatVersion() { return segfmt::kMinFormatVersion; }

Result<std::shared_ptr<const Segment>> Segment::FromBytes(std::string bytes, const SegmentOpenOptions& options) {
  auto owner = std::make_shared<const std::string>(std::move(bytes));
  ATTEST_ASSIGN_OR_RETURN(
      std::unique_ptr<SegmentImpl> impl,
      SegmentImpl::Create(owner, reinterpret_cast<const uint8_t*>(owner->data()), owner->size(), options.deep));
  return std::shared_ptr<const Segment>(new Segment(std::move(impl)));
}

uint32_t Segment::num_docs() const { return impl_->num_docs(); }
ChunkId Segment::chunk_id(LocalDoc local) const { return ChunkId(impl_->chunk_id(local)); }
std::optional<LocalDoc> Segment::local_of(ChunkId id) const { return impl_->local_of(id.get()); }

uint32_t Segment::doc_freq(std::string_view term) const {
  auto t = impl_->FindTerm(term);
  return t ? t->df : 0;
}

uint64_t Segment::total_field_length(Field f) const { return impl_->total_len(static_cast<int>(f)); }
uint64_t Segment::file_size() const { return impl_->file_size(); }
uint32_t Segment::content_crc() const { return impl_->content_crc(); }

std::optional<std::string> Segment::sole_tenant() const {
  if (impl_->num_docs() == 0 || impl_->num_values(AttrFamily::kTenant) != 1) return std::nullopt;
  return std::string(impl_->value(AttrFamily::kTenant, 0));
}

ChunkAttributes Segment::attributes(LocalDoc local) const {
  const SegmentImpl& s = *impl_;
  ChunkAttributes a;
  a.tenant = std::string(s.value(AttrFamily::kTenant, s.column(local, AttrFamily::kTenant)));
  a.source_type = std::string(s.value(AttrFamily::kSourceType, s.column(local, AttrFamily::kSourceType)));
  a.site = std::string(s.value(AttrFamily::kSite, s.column(local, AttrFamily::kSite)));
  a.version = std::string(s.value(AttrFamily::kVersion, s.column(local, AttrFamily::kVersion)));
  a.date = s.date(local);
  a.access_label = std::string(s.label(s.class_entry(s.doc_class(local)).label));
  U32List groups = s.acl(local);
  for (uint32_t i = 0; i < groups.size; ++i) a.acl_groups.emplace_back(s.value(AttrFamily::kGroup, groups[i]));
  return a;
}

}  // namespace attest
