// The process's open-file limit (RLIMIT_NOFILE) against what the HTTP server may need: one
// descriptor per connection plus the store's files, logs and sockets to model servers. Many
// systems start processes with a soft limit of 1024, far below --max-connections; the soft limit
// may be raised to the hard limit without privileges, so `attest serve` does that at start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace attest::http {

// Descriptors kept free beyond the connections: the store's segment and catalog files, the audit
// and event logs, SQLite, model-server sockets, the listening socket.
inline constexpr size_t kReservedDescriptors = 256;

struct OpenFileLimit {
  uint64_t before = 0;  // soft limit found at start
  uint64_t soft = 0;    // soft limit now
  uint64_t hard = 0;
  bool raised = false;  // the soft limit was raised
  // "" when `soft` covers max_connections + kReservedDescriptors; otherwise what to do about it.
  std::string warning;
};

// Raises the soft RLIMIT_NOFILE to the hard limit when it is below max_connections +
// kReservedDescriptors (an unlimited hard limit: to exactly that need), and says whether the
// result still falls short. Process-wide; call once before the server starts.
OpenFileLimit RaiseOpenFileLimit(size_t max_connections);

}  // namespace attest::http
