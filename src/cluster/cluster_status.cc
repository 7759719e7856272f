#include "cluster/cluster_status.h"

#include "cluster/nats_connection.h"
#include "cluster/shard_node.h"

namespace attest {

Result<ClusterStatus> ReadClusterStatus(const ShardMapOptions& options) {
  ATTEST_ASSIGN_OR_RETURN(std::unique_ptr<ShardMap> map, ShardMap::Open(options));
  ClusterStatus out;
  ATTEST_ASSIGN_OR_RETURN(out.config, map->Config());
  ATTEST_ASSIGN_OR_RETURN(out.nodes, map->Nodes());
  ATTEST_ASSIGN_OR_RETURN(auto assignments, map->Assignments());
  ATTEST_ASSIGN_OR_RETURN(auto conn, NatsConnection::Connect(options.servers, options.timeout_ms));
  jsStreamInfo* si = nullptr;
  jsErrCode jerr = jsErrCode(0);
  natsStatus s = js_GetStreamInfo(&si, conn->js(), out.config.stream.c_str(), nullptr, &jerr);
  if (s != NATS_OK) return NatsStatus(s, jerr, "stream " + out.config.stream);
  out.stream_last_sequence = si->State.LastSeq;
  out.stream_messages = si->State.Msgs;
  jsStreamInfo_Destroy(si);
  for (uint32_t v = 0; v < out.config.vshards; ++v) {
    VShardStatus st;
    st.vshard = v;
    auto a = assignments.find(v);
    if (a != assignments.end()) st.node = a->second.node;
    if (!st.node.empty()) {
      jsConsumerInfo* ci = nullptr;
      jerr = jsErrCode(0);
      s = js_GetConsumerInfo(&ci, conn->js(), out.config.stream.c_str(), ConsumerName(st.node, v).c_str(), nullptr,
                             &jerr);
      if (s == NATS_OK) {
        st.consuming = true;
        st.acknowledged = ci->AckFloor.Stream;
        st.pending = ci->NumPending;
        st.unacknowledged = uint64_t(std::max<int64_t>(ci->NumAckPending, 0));
        jsConsumerInfo_Destroy(ci);
      } else if (NatsStatus(s, jerr, "").code() != StatusCode::kNotFound) {
        return NatsStatus(s, jerr, "consumer of vshard " + std::to_string(v));
      }
    }
    out.vshards.push_back(std::move(st));
  }
  return out;
}

}  // namespace attest
