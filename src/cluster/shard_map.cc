#include "cluster/shard_map.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <utility>

#include "cluster/nats_connection.h"

namespace attest {
namespace {

using nlohmann::json;

// A create or update refused because the key's revision is not the expected one (JetStream's
// "wrong last sequence", which the key-value calls report as NATS_ERR with that text).
bool IsConflict(natsStatus s) {
  if (s != NATS_ERR) return false;
  const char* text = nats_GetLastError(nullptr);
  return text != nullptr && std::string(text).find("wrong last sequence") != std::string::npos;
}

std::string VShardKey(uint32_t v) { return "vshard." + std::to_string(v); }

Result<ClusterConfig> ParseConfig(const std::string& text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [](const std::string& what) { return Status::Corruption("shard map config: " + what); };
  if (j.is_discarded() || !j.is_object()) return bad("not a JSON object");
  if (!j.contains("v") || !j["v"].is_number_integer() || j["v"].get<int>() != 1) return bad("version is not 1");
  if (!j.contains("vshards") || !j["vshards"].is_number_unsigned()) return bad("vshards is not a count");
  if (!j.contains("stream") || !j["stream"].is_string()) return bad("stream is not a string");
  if (!j.contains("replicas") || !j["replicas"].is_number_integer()) return bad("replicas is not an integer");
  ClusterConfig c;
  c.vshards = j["vshards"].get<uint32_t>();
  c.stream = j["stream"].get<std::string>();
  c.replicas = j["replicas"].get<int>();
  return c;
}

class NatsShardMapWatch final : public ShardMapWatch {
 public:
  explicit NatsShardMapWatch(kvWatcher* w) : w_(w) {}
  ~NatsShardMapWatch() override {
    kvWatcher_Stop(w_);
    kvWatcher_Destroy(w_);
  }
  Result<std::map<uint32_t, std::string>> Next(int64_t timeout_ms) override {
    std::map<uint32_t, std::string> out;
    for (int64_t wait = std::max<int64_t>(timeout_ms, 1);; wait = 1) {
      kvEntry* e = nullptr;
      natsStatus s = kvWatcher_Next(&e, w_, wait);
      if (s == NATS_TIMEOUT) return out;
      if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "watch the shard map");
      if (e == nullptr) continue;  // the end of the initial values
      uint32_t v = 0;
      if (ParseVShardKey(kvEntry_Key(e), &v)) {
        out[v] = kvEntry_Operation(e) == kvOp_Put ? std::string(kvEntry_ValueString(e)) : std::string();
      }
      kvEntry_Destroy(e);
    }
  }

 private:
  kvWatcher* w_;
};

class NatsShardMap final : public ShardMap {
 public:
  NatsShardMap(std::unique_ptr<NatsConnection> conn, kvStore* kv) : conn_(std::move(conn)), kv_(kv) {}
  ~NatsShardMap() override { kvStore_Destroy(kv_); }

  Result<ClusterConfig> Config() override {
    ATTEST_ASSIGN_OR_RETURN(std::string text, Get("config"));
    return ParseConfig(text);
  }

  Result<std::map<uint32_t, ShardAssignment>> Assignments() override {
    ATTEST_ASSIGN_OR_RETURN(ClusterConfig config, Config());
    std::map<uint32_t, ShardAssignment> out;
    for (uint32_t v = 0; v < config.vshards; ++v) {
      kvEntry* e = nullptr;
      natsStatus s = kvStore_Get(&e, kv_, VShardKey(v).c_str());
      if (s == NATS_NOT_FOUND) continue;
      if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "read " + VShardKey(v));
      out[v] = ShardAssignment{kvEntry_ValueString(e), kvEntry_Revision(e)};
      kvEntry_Destroy(e);
    }
    return out;
  }

  Result<uint64_t> Assign(uint32_t vshard, const std::string& node, uint64_t expected_revision) override {
    ATTEST_RETURN_IF_ERROR(CheckNodeId(node));
    uint64_t rev = 0;
    natsStatus s = kvStore_UpdateString(&rev, kv_, VShardKey(vshard).c_str(), node.c_str(), expected_revision);
    if (s == NATS_OK) return rev;
    if (IsConflict(s)) {
      return Status::AlreadyExists("conflict: " + VShardKey(vshard) + " changed since revision " +
                                   std::to_string(expected_revision) + "; read the map again");
    }
    return NatsStatus(s, jsErrCode(0), "update " + VShardKey(vshard));
  }

  Status PutNode(const NodeRecord& node) override {
    ATTEST_RETURN_IF_ERROR(CheckNodeId(node.id));
    const std::string value = json{{"url", node.url}, {"heartbeat_unix_ms", node.heartbeat_unix_ms}}.dump();
    uint64_t rev = 0;
    natsStatus s = kvStore_PutString(&rev, kv_, ("node." + node.id).c_str(), value.c_str());
    return s == NATS_OK ? Status::Ok() : NatsStatus(s, jsErrCode(0), "register node " + node.id);
  }

  Status AddNode(const std::string& id) override {
    ATTEST_RETURN_IF_ERROR(CheckNodeId(id));
    const std::string value = json{{"url", ""}, {"heartbeat_unix_ms", 0}}.dump();
    uint64_t rev = 0;
    natsStatus s = kvStore_CreateString(&rev, kv_, ("node." + id).c_str(), value.c_str());
    if (s == NATS_OK) return Status::Ok();
    if (IsConflict(s)) return Status::AlreadyExists("node " + id + " is already registered");
    return NatsStatus(s, jsErrCode(0), "register node " + id);
  }

  Result<std::vector<NodeRecord>> Nodes() override {
    kvKeysList keys;
    natsStatus s = kvStore_Keys(&keys, kv_, nullptr);
    std::vector<NodeRecord> out;
    if (s == NATS_NOT_FOUND) return out;
    if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "list the shard map");
    std::vector<std::string> ids;
    for (int i = 0; i < keys.Count; ++i) {
      const std::string key = keys.Keys[i];
      if (key.rfind("node.", 0) == 0) ids.push_back(key.substr(5));
    }
    kvKeysList_Destroy(&keys);
    for (const std::string& id : ids) {
      auto text = Get("node." + id);
      if (!text.ok()) continue;  // deleted meanwhile
      json j = json::parse(*text, nullptr, false);
      NodeRecord r;
      r.id = id;
      if (j.is_object() && j.contains("url") && j["url"].is_string()) r.url = j["url"].get<std::string>();
      if (j.is_object() && j.contains("heartbeat_unix_ms") && j["heartbeat_unix_ms"].is_number_integer()) {
        r.heartbeat_unix_ms = j["heartbeat_unix_ms"].get<int64_t>();
      }
      out.push_back(std::move(r));
    }
    return out;
  }

  Result<std::unique_ptr<ShardMapWatch>> Watch() override {
    kvWatcher* w = nullptr;
    natsStatus s = kvStore_Watch(&w, kv_, "vshard.*", nullptr);
    if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "watch the shard map");
    return std::unique_ptr<ShardMapWatch>(new NatsShardMapWatch(w));
  }

  // Puts a key only when it does not exist yet (init).
  Status Create(const std::string& key, const std::string& value) {
    uint64_t rev = 0;
    natsStatus s = kvStore_CreateString(&rev, kv_, key.c_str(), value.c_str());
    if (s == NATS_OK) return Status::Ok();
    if (IsConflict(s)) return Status::AlreadyExists("the shard map already has " + key);
    return NatsStatus(s, jsErrCode(0), "write " + key);
  }

 private:
  Result<std::string> Get(const std::string& key) {
    kvEntry* e = nullptr;
    natsStatus s = kvStore_Get(&e, kv_, key.c_str());
    if (s == NATS_NOT_FOUND) return Status::NotFound("the shard map has no " + key + " (run `attest cluster init`)");
    if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "read " + key);
    std::string out(static_cast<const char*>(kvEntry_Value(e)), kvEntry_ValueLen(e));
    kvEntry_Destroy(e);
    return out;
  }

  std::unique_ptr<NatsConnection> conn_;
  kvStore* kv_;
};

}  // namespace

std::vector<std::pair<uint32_t, std::string>> FairShareMoves(const std::map<uint32_t, std::string>& owners,
                                                             const std::string& new_node) {
  std::map<std::string, std::vector<uint32_t>> by_node;
  for (const auto& [v, node] : owners) {
    if (!node.empty()) by_node[node].push_back(v);
  }
  by_node.erase(new_node);
  std::vector<std::pair<uint32_t, std::string>> moves;
  if (by_node.empty()) return moves;
  const size_t total = [&] {
    size_t n = 0;
    for (const auto& [node, vs] : by_node) n += vs.size();
    return n;
  }();
  const size_t share = total / (by_node.size() + 1);
  while (moves.size() < share) {
    auto richest = by_node.begin();
    for (auto it = by_node.begin(); it != by_node.end(); ++it) {
      if (it->second.size() > richest->second.size()) richest = it;
    }
    moves.emplace_back(richest->second.back(), new_node);
    richest->second.pop_back();
  }
  return moves;
}

bool ParseVShardKey(const std::string& key, uint32_t* vshard) {
  if (key.rfind("vshard.", 0) != 0 || key.size() == 7) return false;
  const char* b = key.data() + 7;
  const char* e = key.data() + key.size();
  auto [p, ec] = std::from_chars(b, e, *vshard);
  return ec == std::errc() && p == e;
}

Result<std::unique_ptr<ShardMap>> ShardMap::Open(const ShardMapOptions& options) {
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<NatsConnection> conn, NatsConnection::Connect(options.servers, options.timeout_ms));
  kvStore* kv = nullptr;
  natsStatus s = js_KeyValue(&kv, conn->js(), options.bucket.c_str());
  if (s != NATS_OK) {
    Status st = NatsStatus(s, jsErrCode(0), "shard map bucket " + options.bucket);
    if (st.code() == StatusCode::kNotFound) {
      return Status::NotFound("no shard map bucket " + options.bucket + " (run `attest cluster init`)");
    }
    return st;
  }
  return std::unique_ptr<ShardMap>(new NatsShardMap(std::move(conn), kv));
}

Result<std::unique_ptr<ShardMap>> ShardMap::Init(const ShardMapOptions& options, const ClusterConfig& config,
                                                 const std::vector<std::string>& nodes) {
  if (config.vshards < 64 || config.vshards > 256) return Status::InvalidArgument("vshards must be 64..256");
  if (config.replicas < 1 || config.replicas > 5) return Status::InvalidArgument("replicas must be 1..5");
  if (config.stream.empty()) return Status::InvalidArgument("the stream name is empty");
  if (nodes.empty()) return Status::InvalidArgument("at least one node is needed");
  for (const std::string& n : nodes) ATTEST_RETURN_IF_ERROR(CheckNodeId(n));
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<NatsConnection> conn, NatsConnection::Connect(options.servers, options.timeout_ms));
  kvConfig kc;
  kvConfig_Init(&kc);
  kc.Bucket = options.bucket.c_str();
  kc.History = 8;
  kc.StorageType = js_FileStorage;
  kc.Replicas = config.replicas;
  kvStore* kv = nullptr;
  natsStatus s = js_CreateKeyValue(&kv, conn->js(), &kc);
  if (s != NATS_OK) return NatsStatus(s, jsErrCode(0), "create the shard map bucket " + options.bucket);
  auto map = std::make_unique<NatsShardMap>(std::move(conn), kv);
  const std::string value = json{{"v", 1}, {"vshards", config.vshards}, {"stream", config.stream},
                                 {"replicas", config.replicas}}.dump();
  ATTEST_RETURN_IF_ERROR(map->Create("config", value));
  for (const std::string& n : nodes) {
    Status added = map->AddNode(n);
    if (!added.ok() && added.code() != StatusCode::kAlreadyExists) return added;
  }
  for (uint32_t v = 0; v < config.vshards; ++v) {
    ATTEST_RETURN_IF_ERROR(map->Create(VShardKey(v), nodes[v % nodes.size()]));
  }
  return std::unique_ptr<ShardMap>(std::move(map));
}

}  // namespace attest
