#include "store/access_attributes.h"

#include <algorithm>

namespace attest {
namespace {

std::string ListOf(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
  return s + "]";
}

std::string DocumentName(const DocumentRecord& doc) {
  return "document '" + doc.id + "' of tenant '" + (doc.tenant.empty() ? "default" : doc.tenant) + "' (#" +
         std::to_string(doc.num.get()) + ")";
}

}  // namespace

std::optional<ChunkAttributes> SegmentAttributesOf(const std::vector<SegmentView>& views, ChunkId id) {
  for (const SegmentView& v : views) {
    if (std::optional<LocalDoc> local = v.segment->local_of(id)) return v.segment->attributes(*local);
  }
  return std::nullopt;
}

std::string AccessMismatch(const DocumentRecord& doc, const ChunkAttributes& attrs) {
  std::string out;
  auto add = [&](const std::string& what, const std::string& row, const std::string& segment) {
    out += (out.empty() ? "" : "; ") + what + " " + row + " in the catalog row, " + segment + " in the segment";
  };
  if (doc.tenant != attrs.tenant) add("tenant", "'" + doc.tenant + "'", "'" + attrs.tenant + "'");
  if (ListOf(doc.acl_groups) != ListOf(attrs.acl_groups)) {
    add("ACL groups", ListOf(doc.acl_groups), ListOf(attrs.acl_groups));
  }
  if (doc.access_label != attrs.access_label) {
    add("access label", "'" + doc.access_label + "'", "'" + attrs.access_label + "'");
  }
  return out;
}

Status CheckAccessAttributes(const std::vector<SegmentView>& views, const DocumentRecord& doc,
                             std::span<const ChunkId> chunks) {
  for (ChunkId id : chunks) {
    std::optional<ChunkAttributes> attrs = SegmentAttributesOf(views, id);
    if (!attrs) {
      return Status::Corruption("store: chunk " + std::to_string(id.get()) + " of " + DocumentName(doc) +
                                " is in no segment of the snapshot (index and catalog disagree)");
    }
    const std::string mismatch = AccessMismatch(doc, *attrs);
    if (!mismatch.empty()) {
      return Status::Corruption("store: who may read " + DocumentName(doc) + " differs between its two copies (" +
                                mismatch + ", chunk " + std::to_string(id.get()) +
                                "): one was changed outside attest; it is not served until an operator re-ingests "
                                "or deletes the document");
    }
  }
  return Status::Ok();
}

}  // namespace attest
