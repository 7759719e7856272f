#include "support/loopback_test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attest::testing_support {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

const char* Reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 404: return "Not Found";
    default: return "Status";
  }
}

}  // namespace

std::string LoopbackRequest::Header(std::string_view name) const {
  const std::string want = Lower(name);
  for (const auto& [k, v] : headers) {
    if (Lower(k) == want) return v;
  }
  return {};
}

bool LoopbackConnection::Write(std::string_view bytes) {
  while (!bytes.empty()) {
    if (stopping_->load()) return false;
    pollfd p{fd_, POLLOUT, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0) return false;
    if (ready == 0) continue;
    const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

LoopbackTestServer::LoopbackTestServer(std::string address, int port) : address_(std::move(address)) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  const int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address_.c_str(), &sa.sin_addr) != 1 ||
      bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(listen_fd_, 64) != 0) {
    std::fprintf(stderr, "LoopbackTestServer: cannot listen on %s:%d: %s\n", address_.c_str(), port,
                 std::strerror(errno));
    std::abort();
  }
  socklen_t len = sizeof sa;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  port_ = ntohs(sa.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

LoopbackTestServer::~LoopbackTestServer() {
  stopping_ = true;
  acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
  close(listen_fd_);
}

void LoopbackTestServer::Route(const std::string& path, LoopbackHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_[path] = std::move(handler);
}

std::vector<LoopbackRequest> LoopbackTestServer::recorded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return recorded_;
}

std::string LoopbackTestServer::Response(int status, const std::vector<std::pair<std::string, std::string>>& headers,
                                         std::string_view body) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + Reason(status) + "\r\n";
  for (const auto& [k, v] : headers) out += k + ": " + v + "\r\n";
  out += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  out += body;
  return out;
}

void LoopbackTestServer::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    ++accepted_;
    std::lock_guard<std::mutex> lock(mu_);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

void LoopbackTestServer::Serve(int fd) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536 && !stopping_.load()) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0) break;
    if (ready == 0) continue;
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  const size_t end = head.find("\r\n\r\n");
  if (end != std::string::npos) {
    LoopbackRequest req;
    std::string_view rest(head.data(), end);
    const size_t eol = rest.find("\r\n");
    const std::string_view first = rest.substr(0, eol);
    const size_t sp1 = first.find(' ');
    const size_t sp2 = first.find(' ', sp1 + 1);
    req.method = std::string(first.substr(0, sp1));
    req.target = std::string(first.substr(sp1 + 1, sp2 - sp1 - 1));
    req.path = req.target.substr(0, req.target.find('?'));
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 2);
    while (!rest.empty()) {
      const size_t e = rest.find("\r\n");
      const std::string_view line = rest.substr(0, e);
      const size_t colon = line.find(':');
      if (colon != std::string_view::npos) {
        req.headers.emplace_back(std::string(Trim(line.substr(0, colon))), std::string(Trim(line.substr(colon + 1))));
      }
      rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
    }
    ++requests_;
    LoopbackHandler handler;
    {
      std::lock_guard<std::mutex> lock(mu_);
      recorded_.push_back(req);
      const auto it = routes_.find(req.path);
      if (it != routes_.end()) handler = it->second;
    }
    LoopbackConnection conn(fd, &stopping_);
    if (handler) {
      handler(req, conn);
    } else {
      conn.Write(Response(404, {{"Content-Type", "text/plain"}}, "not found"));
    }
  }
  shutdown(fd, SHUT_RDWR);
  close(fd);
}

}  // namespace attest::testing_support
