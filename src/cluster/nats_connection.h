// One connection to a NATS cluster with its JetStream context, shared by the shard map and the
// shard node (src/cluster/). The connection reconnects to any of the given servers forever.
//
// Thread-safety: the NATS connection and JetStream context are thread-safe; this class only owns them.
#pragma once

#include <nats/nats.h>

#include <memory>
#include <string>
#include <vector>

#include "attest/status.h"

namespace attest {

class NatsConnection {
 public:
  // kInvalidArgument without servers; kUnavailable when none answers within timeout_ms.
  static Result<std::unique_ptr<NatsConnection>> Connect(const std::vector<std::string>& servers, int64_t timeout_ms);
  ~NatsConnection();
  NatsConnection(const NatsConnection&) = delete;
  NatsConnection& operator=(const NatsConnection&) = delete;

  natsConnection* nc() const { return nc_; }
  jsCtx* js() const { return js_; }

 private:
  NatsConnection(natsConnection* nc, jsCtx* js) : nc_(nc), js_(js) {}
  natsConnection* nc_;
  jsCtx* js_;
};

// A NATS or JetStream failure as a Status naming `what`: kDeadlineExceeded for a timeout,
// kNotFound for a missing message, key or consumer, kUnavailable otherwise.
Status NatsStatus(natsStatus s, jsErrCode jerr, const std::string& what);

// A node id usable as a key token and a consumer name: 1..64 of [A-Za-z0-9_-].
Status CheckNodeId(const std::string& id);

}  // namespace attest
