// A three-server NATS cluster with JetStream on loopback for the cluster tests (Debian's
// nats-server, started on free ports; docs/cluster.md, "Running a loopback cluster").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/process.h"

namespace attest::testing_support {

inline constexpr const char* kNatsServer = "/usr/sbin/nats-server";

// True when kNatsServer can run (tests GTEST_SKIP with a clear message otherwise).
bool NatsServerAvailable();

// A free TCP port on 127.0.0.1 (bound and released).
uint16_t FreeLoopbackPort();

// Three nats-server processes with JetStream, routed to each other, on 127.0.0.1, their stores
// under `dir`. Killed on destruction.
class NatsCluster {
 public:
  explicit NatsCluster(const TempDir& dir);
  std::vector<std::string> urls() const;
  std::string urls_csv() const;  // "nats://..,nats://..,nats://.."
  void Kill(int i);              // SIGKILL, then wait
  void Restart(int i);           // starts server i again (same ports and store)

 private:
  uint16_t client_[3], route_[3];
  std::string conf_[3];
  std::unique_ptr<ChildProcess> servers_[3];
};

// Retries `attempt` (which returns true on success) every 250 ms for up to `seconds`: the cluster
// elects its JetStream leader within seconds of starting.
bool RetryFor(double seconds, const std::function<bool()>& attempt);

}  // namespace attest::testing_support
