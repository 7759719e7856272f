#include "cluster/shard_set.h"

#include <set>

namespace attest {
namespace {

Status Check(const ShardSet::List& shards) {
  if (shards.empty()) return Status::InvalidArgument("a cluster coordinator needs at least one shard");
  std::vector<const ShardClient*> raw;
  for (const auto& s : shards) {
    if (!s) return Status::InvalidArgument("a cluster coordinator's shard is null");
    raw.push_back(s.get());
  }
  return CheckShardTags(raw);
}

}  // namespace

Result<std::shared_ptr<ShardSet>> ShardSet::Make(List shards) {
  ATTEST_RETURN_IF_ERROR(Check(shards));
  return std::shared_ptr<ShardSet>(new ShardSet(std::make_shared<const List>(std::move(shards))));
}

std::shared_ptr<const ShardSet::List> ShardSet::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return list_;
}

Status ShardSet::Replace(List next) {
  ATTEST_RETURN_IF_ERROR(Check(next));
  auto list = std::make_shared<const List>(std::move(next));
  std::lock_guard<std::mutex> lock(mu_);
  list_ = std::move(list);
  return Status::Ok();
}

std::vector<ShardEndpoint> OwningNodes(const std::map<uint32_t, ShardAssignment>& assignments,
                                       const std::vector<NodeRecord>& nodes) {
  std::set<std::string> owners;
  for (const auto& [v, a] : assignments) {
    if (!a.node.empty()) owners.insert(a.node);
  }
  std::map<std::string, std::string> url_of;
  for (const NodeRecord& n : nodes) url_of[n.id] = n.url;
  std::vector<ShardEndpoint> out;
  for (const std::string& node : owners) {
    auto it = url_of.find(node);
    out.push_back(ShardEndpoint{node, it == url_of.end() ? "" : it->second});
  }
  return out;
}

}  // namespace attest
