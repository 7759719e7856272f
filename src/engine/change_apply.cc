#include "engine/change_apply.h"

#include <map>
#include <set>
#include <utility>

#include "cluster/change_log.h"
#include "index/document_api.h"

namespace attest {

Result<PreparedChanges> PrepareChanges(const ChangeBatch& changes, const DocumentIndexer& indexer,
                                       const std::vector<std::string>& access_levels) {
  if (!changes.drop_vshards.empty() && changes.vshard_count == 0) {
    return Status::InvalidArgument("change batch: drop_vshards given without vshard_count");
  }
  // The last change of each document, in log order.
  std::map<std::pair<std::string, std::string>, size_t> last;
  for (size_t i = 0; i < changes.changes.size(); ++i) {
    const LogChange& c = changes.changes[i];
    if (c.doc == nullptr) return Status::InvalidArgument("change batch: change #" + std::to_string(i) + " has no document");
    last[{c.doc->tenant, c.doc->id}] = i;
  }
  PreparedChanges out;
  for (size_t i = 0; i < changes.changes.size(); ++i) {
    const LogChange& c = changes.changes[i];
    const DocumentSpec& spec = *c.doc;
    if (last[{spec.tenant, spec.id}] != i) continue;
    const std::string where = std::to_string(c.vshard) + "/" + std::to_string(c.sequence) + " '" + spec.id + "'";
    if (spec.id.empty()) {
      out.report.rejected.push_back(where + ": the document id is empty");
      continue;
    }
    if (c.kind == LogChange::Kind::kDelete) {
      out.batch.deletes.push_back(DocumentKey{spec.tenant, spec.id});
      continue;
    }
    auto parsed = ParseDocumentSpec(spec);
    Status label = parsed.ok() ? CheckAccessLabel(access_levels, spec.access_label) : parsed.status();
    if (!label.ok()) {
      // As a refused PutDocuments: the stored version, if any, stays (writers validate before
      // appending, so this is a message no single-process write would have accepted either).
      out.report.rejected.push_back(where + ": " + label.message());
      continue;
    }
    DocumentDefaults defaults;
    defaults.tenant = spec.tenant;
    defaults.acl_groups = spec.acl_groups;
    defaults.access_label = spec.access_label;
    out.batch.upserts.push_back(indexer.Prepare(*parsed, defaults, spec.text.size()));
  }
  out.batch.log_positions = changes.log_positions;
  return out;
}

Result<uint32_t> AddDrops(const ChangeBatch& changes, const Snapshot& latest, PreparedChanges* out) {
  if (changes.drop_vshards.empty()) return 0u;
  const std::set<uint32_t> dropped(changes.drop_vshards.begin(), changes.drop_vshards.end());
  auto gone = [&](const std::string& tenant, const std::string& id) {
    return dropped.count(VirtualShardOf(tenant, id, changes.vshard_count)) > 0;
  };
  std::erase_if(out->batch.upserts,
                [&](const PreparedDocument& d) { return gone(d.record.tenant, d.record.id); });
  std::erase_if(out->batch.deletes, [&](const DocumentKey& k) { return gone(k.tenant, k.id); });
  ATTEST_ASSIGN_OR_RETURN(std::vector<DocumentKey> keys, latest.LiveDocumentKeys());
  uint32_t n = 0;
  for (DocumentKey& k : keys) {
    if (!gone(k.tenant, k.id)) continue;
    out->batch.deletes.push_back(std::move(k));
    ++n;
  }
  for (uint32_t v : dropped) out->batch.log_positions[v] = 0;
  return n;
}

}  // namespace attest
