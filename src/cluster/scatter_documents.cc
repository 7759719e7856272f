#include "cluster/scatter_documents.h"

#include <algorithm>

namespace attest {

Result<DocumentInfo> ScatterGetDocument(const DocumentScatterArgs& args, const SearchFilter& filter,
                                        const std::string& id) {
  if (args.shards.empty()) return Status::Unavailable("the cluster has no shard to read from");
  std::vector<Result<DocumentInfo>> found = ForEachShard<DocumentInfo>(
      args.shards.size(), [&](size_t i) { return args.shards[i]->Document(args.call, filter, id); });
  std::string failed;
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].ok()) {
      DocumentInfo d = std::move(found[i]).value();
      const uint16_t tag = ShardTag(args.shards[i]->name());
      for (ChunkId& c : d.chunk_ids) {
        ATTEST_ASSIGN_OR_RETURN(c, ClusterChunkId(tag, c));
      }
      return d;
    }
    const StatusCode code = found[i].status().code();
    if (code == StatusCode::kInvalidArgument) return found[i].status();
    if (code != StatusCode::kNotFound) {
      failed += "; shard_unavailable: " + args.shards[i]->name() + ": " + found[i].status().message();
    }
  }
  if (!failed.empty()) return Status::Unavailable("document '" + id + "' not found on the shards that answered" + failed);
  return Status::NotFound("no document with id '" + id + "' in tenant '" + filter.tenant + "'");
}

Result<DocumentListing> ScatterListDocuments(const DocumentScatterArgs& args, const ListDocumentsOptions& options) {
  if (args.shards.empty()) return Status::Unavailable("the cluster has no shard to list");
  std::vector<Result<DocumentListing>> pages = ForEachShard<DocumentListing>(
      args.shards.size(), [&](size_t i) { return args.shards[i]->Documents(args.call, options); });
  DocumentListing out;
  std::vector<DocumentSummary> all;
  std::vector<CorruptDocument> corrupt;
  bool more = false;
  for (size_t i = 0; i < pages.size(); ++i) {
    if (!pages[i].ok()) {
      if (pages[i].status().code() == StatusCode::kInvalidArgument) return pages[i].status();
      return Status::Unavailable("listing needs every shard; shard_unavailable: " + args.shards[i]->name() + ": " +
                                 pages[i].status().message());
    }
    DocumentListing& p = pages[i].value();
    out.total += p.total;
    more = more || p.next_after_id.has_value();
    for (DocumentSummary& d : p.documents) all.push_back(std::move(d));
    for (CorruptDocument& c : p.corrupt) corrupt.push_back(std::move(c));
  }
  // In id order; a document on two nodes (mid-move) once, from the first shard listed.
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  all.erase(std::unique(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.id == b.id; }), all.end());
  if (all.size() > options.limit) {
    all.resize(options.limit);
    more = true;
  }
  if (more && !all.empty()) out.next_after_id = all.back().id;
  // A corrupt row belongs to this page when its id is within it (a later page names the others).
  for (CorruptDocument& c : corrupt) {
    if (!out.next_after_id || c.id <= *out.next_after_id) out.corrupt.push_back(std::move(c));
  }
  std::sort(out.corrupt.begin(), out.corrupt.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  out.documents = std::move(all);
  return out;
}

}  // namespace attest
