// attest_test_site: the test site server as a standalone program, for benches, the kill test and
// by hand (docs/testing.md, "The test site server").
//
//   attest_test_site --root DIR [--address 127.0.0.1] [--port 0] [--base /docs/]
//                    [--robots FILE] [--robots-status N] [--latency-ms N]
//
// Prints "listening http://ADDR:PORT/BASE/" on stdout once it accepts connections, serves until
// SIGINT or SIGTERM, then prints a summary of the requests it answered on stderr.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "support/test_site_server.h"

namespace {

int Usage(const std::string& why) {
  std::cerr << "attest_test_site: " << why << "\n"
            << "usage: attest_test_site --root DIR [--address 127.0.0.1] [--port 0] [--base /] "
               "[--robots FILE] [--robots-status N] [--latency-ms N]\n";
  return 2;
}

bool ParseInt(const std::string& text, long min, long max, long* out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < min || v > max) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using attest::testing_support::TestSiteOptions;
  using attest::testing_support::TestSiteServer;
  TestSiteOptions options;
  std::string robots_file;
  long robots_status = 200;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      Usage("serves a directory tree over HTTP/1.1 on loopback");
      return 0;
    }
    if (i + 1 >= argc) return Usage(flag + " needs a value");
    const std::string value = argv[++i];
    long n = 0;
    if (flag == "--root") {
      options.root = value;
    } else if (flag == "--address") {
      options.address = value;
    } else if (flag == "--port") {
      if (!ParseInt(value, 0, 65535, &n)) return Usage("--port must be 0..65535, got \"" + value + "\"");
      options.port = static_cast<int>(n);
    } else if (flag == "--base") {
      options.base_path = value;
    } else if (flag == "--robots") {
      robots_file = value;
    } else if (flag == "--robots-status") {
      if (!ParseInt(value, 100, 599, &n)) return Usage("--robots-status must be 100..599, got \"" + value + "\"");
      robots_status = n;
    } else if (flag == "--latency-ms") {
      if (!ParseInt(value, 0, 600000, &n)) return Usage("--latency-ms must be 0..600000, got \"" + value + "\"");
      options.latency = std::chrono::milliseconds(n);
    } else {
      return Usage("unknown flag " + flag);
    }
  }
  if (options.root.empty()) return Usage("--root is required");
  if (!std::filesystem::is_directory(options.root)) return Usage("--root " + options.root.string() + " is not a directory");

  // The signals are blocked before any thread starts, so sigwait below is the one that takes them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  TestSiteServer server(options);
  if (!robots_file.empty()) {
    std::ifstream in(robots_file, std::ios::binary);
    if (!in) return Usage("cannot read --robots " + robots_file);
    std::ostringstream s;
    s << in.rdbuf();
    server.SetRobots(static_cast<int>(robots_status), s.str());
  } else if (robots_status != 200) {
    server.SetRobots(static_cast<int>(robots_status), "");
  }
  if (attest::Status st = server.Start(); !st.ok()) {
    std::cerr << "attest_test_site: " << st.ToString() << "\n";
    return 1;
  }
  std::cout << "listening " << server.base_url() << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  server.Stop();
  std::cerr << "attest_test_site: " << server.RequestCount() << " requests on " << server.ConnectionsAccepted()
            << " connections\n";
  return 0;
}
