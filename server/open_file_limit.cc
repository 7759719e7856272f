#include "server/open_file_limit.h"

#include <sys/resource.h>

namespace attest::http {

OpenFileLimit RaiseOpenFileLimit(size_t max_connections) {
  OpenFileLimit out;
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    out.warning = "cannot read the open-file limit (RLIMIT_NOFILE)";
    return out;
  }
  const uint64_t need = static_cast<uint64_t>(max_connections) + kReservedDescriptors;
  out.before = out.soft = lim.rlim_cur;
  out.hard = lim.rlim_max;
  if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need) {
    rlimit want = lim;
    want.rlim_cur = lim.rlim_max == RLIM_INFINITY ? need : lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &want) == 0) {
      out.soft = want.rlim_cur;
      out.raised = true;
    }
  }
  if (out.soft != RLIM_INFINITY && out.soft < need) {
    out.warning = "the open-file limit is " + std::to_string(out.soft) + " (hard limit " +
                  (out.hard == RLIM_INFINITY ? std::string("unlimited") : std::to_string(out.hard)) + "), below the " +
                  std::to_string(need) + " that --max-connections " + std::to_string(max_connections) + " needs (" +
                  std::to_string(kReservedDescriptors) +
                  " kept for files); connections beyond it fail at accept. Raise the hard limit (ulimit -Hn, "
                  "LimitNOFILE= in a systemd unit) or lower --max-connections";
  }
  return out;
}

}  // namespace attest::http
