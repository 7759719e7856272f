#include "support/nats_cluster.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

namespace attest::testing_support {

bool NatsServerAvailable() { return access(kNatsServer, X_OK) == 0; }

uint16_t FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

NatsCluster::NatsCluster(const TempDir& dir) {
  for (int i = 0; i < 3; ++i) {
    client_[i] = FreeLoopbackPort();
    route_[i] = FreeLoopbackPort();
  }
  for (int i = 0; i < 3; ++i) {
    const std::string conf = dir.str("n" + std::to_string(i) + ".conf");
    std::ofstream out(conf);
    out << "server_name: n" << i << "\nlisten: 127.0.0.1:" << client_[i] << "\njetstream { store_dir: \""
        << dir.str("store" + std::to_string(i)) << "\" }\ncluster {\n  name: attest\n  listen: 127.0.0.1:" << route_[i]
        << "\n  routes: [";
    for (int j = 0; j < 3; ++j) out << (j ? ", " : "") << "nats-route://127.0.0.1:" << route_[j];
    out << "]\n}\n";
    out.close();
    conf_[i] = conf;
    servers_[i] = std::make_unique<ChildProcess>(std::vector<std::string>{kNatsServer, "-c", conf});
  }
}

std::vector<std::string> NatsCluster::urls() const {
  std::vector<std::string> out;
  for (uint16_t p : client_) out.push_back("nats://127.0.0.1:" + std::to_string(p));
  return out;
}

std::string NatsCluster::urls_csv() const {
  std::string out;
  for (const std::string& u : urls()) out += (out.empty() ? "" : ",") + u;
  return out;
}

void NatsCluster::Kill(int i) {
  servers_[i]->Kill(SIGKILL);
  servers_[i]->Wait();
}

void NatsCluster::Restart(int i) {
  servers_[i] = std::make_unique<ChildProcess>(std::vector<std::string>{kNatsServer, "-c", conf_[i]});
}

bool RetryFor(double seconds, const std::function<bool()>& attempt) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(seconds * 1000));
  for (;;) {
    if (attempt()) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

}  // namespace attest::testing_support
