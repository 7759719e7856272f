#include "support/http_test_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <thread>

namespace attest::testing_support {
namespace {

int Connect(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool SendAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// Reads more bytes into `buf`; false on close, error or timeout.
bool ReadMore(int fd, std::string* buf, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
  if (left <= 0) return false;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
  char tmp[16384];
  ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
  if (n <= 0) return false;
  buf->append(tmp, static_cast<size_t>(n));
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Serialize(const HttpCall& call) {
  std::string req = call.method + " " + call.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [k, v] : call.headers) req += k + ": " + v + "\r\n";
  if (!call.body.empty() || call.method == "POST") {
    if (!call.headers.count("Content-Type")) req += "Content-Type: application/json\r\n";
    req += "Content-Length: " + std::to_string(call.body.size()) + "\r\n";
  }
  return req + "\r\n" + call.body;
}

// Parses the status line and headers at the front of `buf`; returns the header length or 0.
size_t ParseHead(const std::string& buf, HttpReply* r) {
  size_t end = buf.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  size_t line_end = buf.find("\r\n");
  std::string status = buf.substr(0, line_end);
  size_t sp = status.find(' ');
  r->status = sp == std::string::npos ? 0 : std::atoi(status.c_str() + sp + 1);
  size_t pos = line_end + 2;
  while (pos < end) {
    size_t e = buf.find("\r\n", pos);
    std::string line = buf.substr(pos, e - pos);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string v = line.substr(colon + 1);
      while (!v.empty() && v.front() == ' ') v.erase(v.begin());
      r->headers[Lower(line.substr(0, colon))] = v;
    }
    pos = e + 2;
  }
  return end + 4;
}

// Decodes as much chunked body as `raw` holds into `out`; returns true at the last chunk.
bool Dechunk(std::string* raw, std::string* out) {
  while (true) {
    size_t e = raw->find("\r\n");
    if (e == std::string::npos) return false;
    size_t size = std::stoul(raw->substr(0, e), nullptr, 16);
    if (size == 0) return true;
    if (raw->size() < e + 2 + size + 2) return false;
    out->append(*raw, e + 2, size);
    raw->erase(0, e + 2 + size + 2);
  }
}

}  // namespace

HttpReply HttpRequest(uint16_t port, const HttpCall& call) {
  HttpReply r;
  int fd = Connect(port);
  if (fd < 0) {
    r.error = "connect failed";
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + call.timeout;
  if (!SendAll(fd, Serialize(call))) r.error = "send failed";
  std::string buf;
  size_t head = 0;
  while (!(head = ParseHead(buf, &r)) && ReadMore(fd, &buf, deadline)) {
  }
  if (!head) {
    ::close(fd);
    if (r.error.empty()) r.error = "no response head";
    return r;
  }
  std::string raw = buf.substr(head);
  if (r.Header("transfer-encoding") == "chunked") {
    while (!Dechunk(&raw, &r.body) && ReadMore(fd, &raw, deadline)) {
    }
  } else if (!r.Header("content-length").empty()) {
    const size_t want = std::stoul(r.Header("content-length"));
    while (raw.size() < want && ReadMore(fd, &raw, deadline)) {
    }
    r.body = raw.substr(0, want);
  } else {
    while (ReadMore(fd, &raw, deadline)) {
    }
    r.body = raw;
  }
  ::close(fd);
  return r;
}

HttpReply SseRequest(uint16_t port, const HttpCall& call, std::vector<SseEvent>* events,
                     const std::function<bool(const SseEvent&)>& on_event) {
  HttpReply r;
  int fd = Connect(port);
  if (fd < 0) {
    r.error = "connect failed";
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + call.timeout;
  SendAll(fd, Serialize(call));
  std::string buf;
  size_t head = 0;
  while (!(head = ParseHead(buf, &r)) && ReadMore(fd, &buf, deadline)) {
  }
  if (!head) {
    ::close(fd);
    r.error = "no response head";
    return r;
  }
  const bool chunked = r.Header("transfer-encoding") == "chunked";
  std::string raw = buf.substr(head), text;
  bool done = false, hung_up = false;
  while (!done && !hung_up) {
    if (chunked) {
      done = Dechunk(&raw, &text);
    } else {
      text += raw;
      raw.clear();
    }
    size_t end;
    while ((end = text.find("\n\n")) != std::string::npos) {
      std::string block = text.substr(0, end);
      text.erase(0, end + 2);
      SseEvent ev;
      size_t pos = 0;
      while (pos <= block.size()) {
        size_t nl = block.find('\n', pos);
        std::string line = block.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        if (line.rfind("event:", 0) == 0) ev.event = line.substr(line[6] == ' ' ? 7 : 6);
        if (line.rfind("data:", 0) == 0) ev.data += line.substr(line[5] == ' ' ? 6 : 5);
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      if (ev.event.empty() && ev.data.empty()) continue;  // a comment / keep-alive
      events->push_back(ev);
      if (on_event && !on_event(ev)) {
        hung_up = true;
        break;
      }
    }
    if (done || hung_up) break;
    if (r.status != 200 && !chunked && !r.Header("content-length").empty()) {
      const size_t want = std::stoul(r.Header("content-length"));
      while (text.size() < want && ReadMore(fd, &text, deadline)) {
      }
      r.body = text;
      break;
    }
    if (!ReadMore(fd, &raw, deadline)) break;
  }
  ::close(fd);
  return r;
}

std::string RawExchange(uint16_t port, const std::string& bytes, std::chrono::milliseconds timeout) {
  int fd = Connect(port);
  if (fd < 0) return "";
  SendAll(fd, bytes);
  ::shutdown(fd, SHUT_WR);
  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ReadMore(fd, &out, deadline)) {
  }
  ::close(fd);
  return out;
}

}  // namespace attest::testing_support

namespace attest::testing_support {

ServeProcess::ServeProcess(const std::string& data, const std::vector<std::string>& global,
                           const std::vector<std::string>& extra, const std::string& log_file) {
  std::vector<std::string> argv = {ATTEST_BINARY, "--data", data};
  argv.insert(argv.end(), global.begin(), global.end());
  argv.insert(argv.end(), {"serve", "--port", "0"});
  argv.insert(argv.end(), extra.begin(), extra.end());
  if (!log_file.empty()) {
    // The shell execs the server (the child's pid stays the server's) with stderr appended to the file.
    std::string command = "exec";
    for (const std::string& a : argv) command += " '" + a + "'";
    command += " 2>>'" + log_file + "'";
    argv = {"/bin/sh", "-c", command};
  }
  child_ = std::make_unique<ChildProcess>(argv);
  const std::string marker = "listening on http://127.0.0.1:";
  for (int i = 0; i < 600 && port_ == 0; ++i) {
    child_->Poll();
    const size_t at = child_->out().find(marker);
    if (at != std::string::npos) {
      port_ = static_cast<uint16_t>(std::atoi(child_->out().c_str() + at + marker.size()));
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace attest::testing_support
