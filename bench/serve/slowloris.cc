// slowloris: does `/v1/search` from one address stay fast while another address holds thousands of
// half-open connections? (issue 10 bar: 4,200 half-open connections from 127.0.0.1, /v1/search
// from 127.0.0.2 with p95 within 2x its unloaded value.) A bench tool, not part of attest; run by
// bench/serve/slowloris.sh against a running `attest serve`. Both addresses are loopback.
//
// Per round (odd rounds run the loaded phase first, so drift in machine load hits both):
//   unloaded: SEARCHES sequential POST /v1/search from --search-from, nothing else open.
//   loaded:   HALF_OPEN non-blocking connections from --attack-from; every second one sends the
//             first line of a request and a Host header and then nothing more, the others send
//             nothing at all. Once every connect has finished (accepted, refused or failed) and
//             --settle-ms passed, the same SEARCHES run from --search-from while the attack holds.
//             With --reconnect-ms D >= 0, an attack connection the server closes is opened again
//             D ms later (a slowloris tool's loop), so the pressure stays at HALF_OPEN throughout.
// The attack side counts what the server did with its connections: answered 429 (per-address cap),
// 503 (server full), 408 (header timeout), closed silently, or still open at the end of the phase.
// Searches use a new connection each (--keep-alive: one connection per phase). Queries rotate
// through a BEIR queries.jsonl and never repeat within a run, so a cache cannot flatter the loaded
// phase. Percentiles are nearest-rank; the summary gives the per-round ratio (median and range) and
// the ratio of the p95s pooled over all rounds. Output: a table, then one JSON line (prefix "JSON ").
//
// Usage: slowloris --port P --key K --queries queries.jsonl [--half-open 4200] [--searches 300]
//          [--rounds 3] [--attack-from 127.0.0.1] [--search-from 127.0.0.2] [--settle-ms 500]
//          [--reconnect-ms -1] [--keep-alive]
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Args {
  int port = 0;
  std::string key, queries, attack_from = "127.0.0.1", search_from = "127.0.0.2";
  int half_open = 4200, searches = 300, rounds = 3, settle_ms = 500, reconnect_ms = -1;
  bool keep_alive = false;
};

// A socket bound to `from` (port chosen at connect), connecting to 127.0.0.1:port.
int Open(const std::string& from, int port, bool nonblocking) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  inet_pton(AF_INET, from.c_str(), &local.sin_addr);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0 ||
      (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS)) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

// ---- the attack ---------------------------------------------------------------------------------

class Attack {
 public:
  struct Stats {
    int opened = 0, connect_failed = 0, refused_429 = 0, full_503 = 0, timeout_408 = 0, closed_silent = 0,
        closed_other = 0, open_at_end = 0, reopened = 0;
    double all_connected_ms = 0;
    json Json() const {
      return {{"opened", opened},         {"connect_failed", connect_failed}, {"refused_429", refused_429},
              {"full_503", full_503},     {"timeout_408", timeout_408},       {"closed_silent", closed_silent},
              {"closed_other", closed_other}, {"open_at_end", open_at_end},   {"reopened", reopened},
              {"all_connected_ms", all_connected_ms}};
    }
  };

  explicit Attack(const Args& a) : a_(a), ep_(epoll_create1(EPOLL_CLOEXEC)) {}
  ~Attack() { close(ep_); }

  // Opens every connection and returns once each first connect has finished (or 30 s passed);
  // reconnecting starts after that.
  void Start() {
    stats_ = Stats{};
    conns_.assign(static_cast<size_t>(a_.half_open), Conn{});
    pending_ = 0;
    reopen_ = false;
    const auto t0 = Clock::now();
    for (size_t i = 0; i < conns_.size(); ++i) OpenSlot(i);
    while (pending_ > 0 && Ms(Clock::now() - t0) < 30000) Poll(50);
    stats_.all_connected_ms = Ms(Clock::now() - t0);
    reopen_ = true;
    stop_ = false;
    thread_ = std::thread([this] {
      while (!stop_.load()) Poll(20);
    });
  }

  // Stops the attack, closes what is still open, returns the counts.
  Stats Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (auto& c : conns_) {
      if (c.fd >= 0) {
        ++stats_.open_at_end;
        close(c.fd);
        c.fd = -1;
      }
    }
    return stats_;
  }

 private:
  struct Conn {
    int fd = -1;
    bool connecting = false;
    std::string got;
    Clock::time_point reopen_at = Clock::time_point::max();
  };

  void OpenSlot(size_t i) {
    Conn& c = conns_[i];
    c = Conn{};
    c.fd = Open(a_.attack_from, a_.port, true);
    if (c.fd < 0) {
      ++stats_.connect_failed;
      return;
    }
    ++stats_.opened;
    c.connecting = true;
    ++pending_;
    epoll_event ev{};
    ev.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = i;
    epoll_ctl(ep_, EPOLL_CTL_ADD, c.fd, &ev);
  }

  void Closed(size_t i) {
    Conn& c = conns_[i];
    const int status = c.got.size() >= 12 ? std::atoi(c.got.c_str() + 9) : 0;
    if (c.got.empty()) {
      ++stats_.closed_silent;
    } else if (status == 429) {
      ++stats_.refused_429;
    } else if (status == 503) {
      ++stats_.full_503;
    } else if (status == 408) {
      ++stats_.timeout_408;
    } else {
      ++stats_.closed_other;
    }
    if (c.connecting) --pending_;
    epoll_ctl(ep_, EPOLL_CTL_DEL, c.fd, nullptr);
    close(c.fd);
    c.fd = -1;
    c.connecting = false;
    if (a_.reconnect_ms >= 0) c.reopen_at = Clock::now() + std::chrono::milliseconds(a_.reconnect_ms);
  }

  void Poll(int timeout_ms) {
    epoll_event events[256];
    int n = epoll_wait(ep_, events, 256, timeout_ms);
    for (int k = 0; k < n; ++k) {
      const size_t i = events[k].data.u64;
      Conn& c = conns_[i];
      if (c.fd < 0) continue;
      if (c.connecting && (events[k].events & EPOLLOUT)) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
        c.connecting = false;
        --pending_;
        if (err != 0) {
          ++stats_.connect_failed;
          Closed(i);
          continue;
        }
        if (i % 2 == 0) SendAll(c.fd, "POST /v1/search HTTP/1.1\r\nHost: attack\r\n");
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP;
        ev.data.u64 = i;
        epoll_ctl(ep_, EPOLL_CTL_MOD, c.fd, &ev);
      }
      if (events[k].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        char buf[4096];
        ssize_t r;
        while ((r = recv(c.fd, buf, sizeof buf, 0)) > 0) c.got.append(buf, static_cast<size_t>(r));
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) Closed(i);
      }
    }
    if (a_.reconnect_ms >= 0 && reopen_) {
      const auto now = Clock::now();
      for (size_t i = 0; i < conns_.size(); ++i) {
        if (conns_[i].fd < 0 && conns_[i].reopen_at <= now) {
          ++stats_.reopened;
          OpenSlot(i);
        }
      }
    }
  }

  const Args& a_;
  int ep_;
  std::vector<Conn> conns_;  // owned by Start() until the thread runs, then by the thread
  int pending_ = 0;          // connects not finished yet
  bool reopen_ = false;      // reconnecting closed slots (after the first connects)
  Stats stats_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// ---- the searches -------------------------------------------------------------------------------

struct Phase {
  std::vector<double> ms;
  int failed = 0;
  std::map<int, int> statuses;
};

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::max(1.0, std::ceil(p * static_cast<double>(v.size()))));
  return v[std::min(rank, v.size()) - 1];
}
double Median(std::vector<double> v) { return Pct(std::move(v), 0.5); }

class Searcher {
 public:
  Searcher(const Args& a, std::vector<std::string> queries) : a_(a), queries_(std::move(queries)) {}

  Phase Run() {
    Phase p;
    int fd = -1;
    for (int i = 0; i < a_.searches; ++i) {
      const std::string& q = queries_[next_++ % queries_.size()];
      const std::string body = json{{"query", q}, {"top_k", 10}}.dump();
      const std::string req = "POST /v1/search HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer " + a_.key +
                              "\r\nContent-Type: application/json\r\nContent-Length: " +
                              std::to_string(body.size()) + (a_.keep_alive ? "" : "\r\nConnection: close") +
                              "\r\n\r\n" + body;
      const auto t0 = Clock::now();
      if (fd < 0) fd = Open(a_.search_from, a_.port, false);
      int status = fd >= 0 && SendAll(fd, req) ? ReadResponse(fd) : 0;
      const double ms = Ms(Clock::now() - t0);
      ++p.statuses[status];
      if (status == 200) {
        p.ms.push_back(ms);
      } else {
        ++p.failed;
      }
      if (!a_.keep_alive || status != 200) {
        if (fd >= 0) close(fd);
        fd = -1;
      }
    }
    if (fd >= 0) close(fd);
    return p;
  }

 private:
  // Reads one response with a Content-Length body (10 s limit); its status or 0.
  static int ReadResponse(int fd) {
    std::string buf;
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    size_t head = std::string::npos, want = 0;
    while (true) {
      if (head == std::string::npos && (head = buf.find("\r\n\r\n")) != std::string::npos) {
        size_t cl = buf.find("Content-Length: ");
        want = cl != std::string::npos && cl < head ? std::strtoul(buf.c_str() + cl + 16, nullptr, 10) : 0;
      }
      if (head != std::string::npos && buf.size() >= head + 4 + want) break;
      const int left = static_cast<int>(Ms(deadline - Clock::now()));
      pollfd p{fd, POLLIN, 0};
      if (left <= 0 || poll(&p, 1, left) <= 0) return 0;
      char tmp[16384];
      ssize_t n = recv(fd, tmp, sizeof tmp, 0);
      if (n <= 0) return 0;
      buf.append(tmp, static_cast<size_t>(n));
    }
    return buf.size() > 12 ? std::atoi(buf.c_str() + 9) : 0;
  }

  const Args& a_;
  std::vector<std::string> queries_;
  size_t next_ = 0;
};

bool LoadQueries(const std::string& path, std::vector<std::string>* out) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.contains("text") && j["text"].is_string()) out->push_back(j["text"]);
  }
  if (out->empty()) std::fprintf(stderr, "slowloris: no queries in %s\n", path.c_str());
  return !out->empty();
}

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (k == "--keep-alive") {
      a->keep_alive = true;
      continue;
    }
    if ((v = next()) == nullptr) {
      std::fprintf(stderr, "slowloris: %s needs a value\n", k.c_str());
      return false;
    }
    if (k == "--port") a->port = std::atoi(v);
    else if (k == "--key") a->key = v;
    else if (k == "--queries") a->queries = v;
    else if (k == "--half-open") a->half_open = std::atoi(v);
    else if (k == "--searches") a->searches = std::atoi(v);
    else if (k == "--rounds") a->rounds = std::atoi(v);
    else if (k == "--attack-from") a->attack_from = v;
    else if (k == "--search-from") a->search_from = v;
    else if (k == "--settle-ms") a->settle_ms = std::atoi(v);
    else if (k == "--reconnect-ms") a->reconnect_ms = std::atoi(v);
    else {
      std::fprintf(stderr, "slowloris: unknown option %s\n", k.c_str());
      return false;
    }
  }
  if (a->port <= 0 || a->key.empty() || a->queries.empty() || a->searches <= 0 || a->rounds <= 0) {
    std::fprintf(stderr, "usage: slowloris --port P --key K --queries queries.jsonl [--half-open N] [--searches N] "
                         "[--rounds N] [--attack-from IP] [--search-from IP] [--settle-ms MS] "
                         "[--reconnect-ms MS] [--keep-alive]\n");
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) return 2;
  std::vector<std::string> queries;
  if (!LoadQueries(a.queries, &queries)) return 2;
  signal(SIGPIPE, SIG_IGN);
  Searcher searcher(a, queries);
  Attack attack(a);
  std::printf("%d half-open from %s (reconnect %s), %d searches per phase from %s on %s\n", a.half_open,
              a.attack_from.c_str(), a.reconnect_ms < 0 ? "off" : (std::to_string(a.reconnect_ms) + " ms").c_str(),
              a.searches, a.search_from.c_str(), a.keep_alive ? "one keep-alive connection" : "a new connection each");
  std::printf("round | unloaded p50/p95/p99 ms (failed) | loaded p50/p95/p99 ms (failed) | ratio p95 | attack: "
              "connected ms, 429/503/408/silent/other/open, reopened\n");
  std::vector<double> ratios, unl_p95, load_p95, all_unloaded, all_loaded;
  json jr = json::array();
  for (int r = 0; r < a.rounds; ++r) {
    // Odd rounds measure the loaded phase first, so a drift in machine load hits both phases.
    Phase unloaded, loaded;
    Attack::Stats s;
    for (int step = 0; step < 2; ++step) {
      if ((step == 0) == (r % 2 == 0)) {
        unloaded = searcher.Run();
        continue;
      }
      attack.Start();
      std::this_thread::sleep_for(std::chrono::milliseconds(a.settle_ms));
      loaded = searcher.Run();
      s = attack.Stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(500));  // let the server close its side
    }
    all_unloaded.insert(all_unloaded.end(), unloaded.ms.begin(), unloaded.ms.end());
    all_loaded.insert(all_loaded.end(), loaded.ms.begin(), loaded.ms.end());
    const double u95 = Pct(unloaded.ms, .95), l95 = Pct(loaded.ms, .95);
    const double ratio = u95 > 0 && l95 > 0 ? l95 / u95 : -1;
    ratios.push_back(ratio);
    unl_p95.push_back(u95);
    load_p95.push_back(l95);
    std::printf("%5d | %.2f/%.2f/%.2f (%d) | %.2f/%.2f/%.2f (%d) | %.2f | %.0f, %d/%d/%d/%d/%d/%d, %d\n", r + 1,
                Pct(unloaded.ms, .5), u95, Pct(unloaded.ms, .99), unloaded.failed, Pct(loaded.ms, .5), l95,
                Pct(loaded.ms, .99), loaded.failed, ratio, s.all_connected_ms, s.refused_429, s.full_503,
                s.timeout_408, s.closed_silent, s.closed_other, s.open_at_end, s.reopened);
    std::fflush(stdout);
    json statuses = json::object();
    for (auto& [code, n] : loaded.statuses) statuses[std::to_string(code)] = n;
    jr.push_back({{"unloaded_p50_ms", Pct(unloaded.ms, .5)}, {"unloaded_p95_ms", u95},
                  {"loaded_p50_ms", Pct(loaded.ms, .5)}, {"loaded_p95_ms", l95}, {"p95_ratio", ratio},
                  {"unloaded_failed", unloaded.failed}, {"loaded_failed", loaded.failed},
                  {"loaded_statuses", statuses}, {"attack", s.Json()}});
  }
  const double pooled_u = Pct(all_unloaded, .95), pooled_l = Pct(all_loaded, .95);
  std::printf("pooled over rounds: unloaded p95 %.2f ms, loaded p95 %.2f ms, ratio %.2f\n", pooled_u, pooled_l,
              pooled_u > 0 ? pooled_l / pooled_u : -1);
  std::printf("median: unloaded p95 %.2f ms [%.2f-%.2f], loaded p95 %.2f ms [%.2f-%.2f], ratio %.2f [%.2f-%.2f] "
              "(bar: <= 2)\n",
              Median(unl_p95), *std::min_element(unl_p95.begin(), unl_p95.end()),
              *std::max_element(unl_p95.begin(), unl_p95.end()), Median(load_p95),
              *std::min_element(load_p95.begin(), load_p95.end()), *std::max_element(load_p95.begin(), load_p95.end()),
              Median(ratios), *std::min_element(ratios.begin(), ratios.end()),
              *std::max_element(ratios.begin(), ratios.end()));
  json out = {{"half_open", a.half_open}, {"searches", a.searches}, {"reconnect_ms", a.reconnect_ms},
              {"keep_alive", a.keep_alive}, {"rounds", jr}, {"median_ratio", Median(ratios)},
              {"median_unloaded_p95_ms", Median(unl_p95)}, {"median_loaded_p95_ms", Median(load_p95)},
              {"pooled_unloaded_p95_ms", pooled_u}, {"pooled_loaded_p95_ms", pooled_l},
              {"pooled_ratio", pooled_u > 0 ? pooled_l / pooled_u : -1}};
  std::printf("JSON %s\n", out.dump().c_str());
  return 0;
}
