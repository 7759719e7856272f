// Resident memory of the current process, read from /proc/self/status (Linux).
#pragma once

#include <cstdint>

namespace attest::bench {

struct ProcMemory {
  uint64_t vm_hwm_kb = 0;  // peak resident set size ("VmHWM")
  uint64_t vm_rss_kb = 0;  // current resident set size ("VmRSS")
};

// Zeros when /proc is unavailable.
ProcMemory ReadProcMemory();

}  // namespace attest::bench
