#include "common/proc_status.h"

#include <fstream>
#include <string>

namespace attest::bench {

ProcMemory ReadProcMemory() {
  ProcMemory m;
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") in >> m.vm_hwm_kb;
    else if (key == "VmRSS:") in >> m.vm_rss_kb;
    std::string rest;
    std::getline(in, rest);
  }
  return m;
}

}  // namespace attest::bench
