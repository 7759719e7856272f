// Load client for the HTTP stack benchmark (bench/http_stack/README.md). Not part of attest.
//
// Launches a server binary (fork/exec), then on 127.0.0.1 only:
//   1. opens STREAMS concurrent GET /stream connections (epoll, one thread) and waits for their first event;
//   2. while they stream, sends SHORTS sequential GET /short requests (a new connection each, Connection:
//      close, 5 s timeout) from a second thread and records their latency (p50/p95/p99/max, failures);
//   3. samples the server's VmRSS/VmHWM and thread count from /proc while all streams are open;
//   4. waits for the streams to end and reports events received and the largest gap between two events of
//      one stream (expected 50 ms);
//   5. opens STREAMS new streams, sends SIGTERM after 1 s and reports how many got the final
//      `event: shutdown`, how long until all streams were closed and how long until the process exited
//      (bound 10 s, then SIGKILL).
// Every loop is bounded in count and time. Prints a human summary and one JSON line.
//
// Usage: stream_load PORT STREAMS SHORTS -- SERVER_BINARY [ARGS...]
// Env STREAM_CONNECT_GAP_US=N paces the stream connects N microseconds apart (default: one burst).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

int Connect(int port, bool nonblock) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  if (nonblock) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
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

struct Stream {
  int fd = -1;
  bool open = false;
  int events = 0;
  bool got_shutdown = false, got_end = false, headers_ok = false;
  Clock::time_point last{};
  double max_gap_ms = 0;
  std::string tail, head;
};

// Opens n streams; runs the epoll loop until all are closed or `deadline`; `on_tick` is called every ~10 ms.
class StreamSet {
 public:
  StreamSet(int port, int n) : streams_(n) {
    ep_ = epoll_create1(0);
    const std::string req = "GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n";
    const char* gap = std::getenv("STREAM_CONNECT_GAP_US");  // optional pacing between stream connects
    const int gap_us = gap ? std::atoi(gap) : 0;
    for (int i = 0; i < n; ++i) {
      if (gap_us > 0 && i > 0) std::this_thread::sleep_for(std::chrono::microseconds(gap_us));
      Stream& s = streams_[i];
      s.fd = Connect(port, false);
      if (s.fd < 0 || !SendAll(s.fd, req)) continue;
      fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_NONBLOCK);
      s.open = true;
      ++open_;
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u32 = static_cast<uint32_t>(i);
      epoll_ctl(ep_, EPOLL_CTL_ADD, s.fd, &ev);
    }
    opened_ = open_;
  }
  ~StreamSet() {
    for (auto& s : streams_)
      if (s.fd >= 0) close(s.fd);
    close(ep_);
  }
  template <class Tick>
  void Run(Clock::time_point deadline, Tick on_tick) {
    std::vector<epoll_event> evs(512);
    char buf[16384];
    while (open_ > 0 && Clock::now() < deadline) {
      int n = epoll_wait(ep_, evs.data(), static_cast<int>(evs.size()), 10);
      const auto now = Clock::now();
      for (int k = 0; k < n; ++k) {
        Stream& s = streams_[evs[k].data.u32];
        for (;;) {
          ssize_t r = recv(s.fd, buf, sizeof(buf), 0);
          if (r > 0) {
            Consume(s, std::string_view(buf, static_cast<size_t>(r)), now);
            continue;
          }
          if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
          epoll_ctl(ep_, EPOLL_CTL_DEL, s.fd, nullptr);
          s.open = false;
          --open_;
          break;
        }
      }
      if (!on_tick(now)) break;
    }
  }
  std::vector<Stream>& streams() { return streams_; }
  int open() const { return open_; }
  int opened() const { return opened_; }
  int WithEvents() const {
    return static_cast<int>(std::count_if(streams_.begin(), streams_.end(), [](auto& s) { return s.events > 0; }));
  }

 private:
  static void Consume(Stream& s, std::string_view data, Clock::time_point now) {
    if (s.head.size() < 1024) s.head.append(data.substr(0, 1024 - s.head.size()));
    std::string w = s.tail + std::string(data);
    size_t pos = 0;
    while ((pos = w.find("data: ", pos)) != std::string::npos) {
      if (s.events > 0) s.max_gap_ms = std::max(s.max_gap_ms, Ms(now - s.last));
      ++s.events;
      s.last = now;
      pos += 6;
    }
    if (w.find("event: shutdown") != std::string::npos) s.got_shutdown = true;
    if (w.find("event: end") != std::string::npos) s.got_end = true;
    s.tail = w.size() > 16 ? w.substr(w.size() - 16) : w;
    // Avoid double-counting a "data: " that lies wholly inside the carried tail.
    const size_t cut = s.tail.rfind("data: ");
    if (cut != std::string::npos) s.tail = s.tail.substr(cut + 1);
  }
  std::vector<Stream> streams_;
  int ep_ = -1, open_ = 0, opened_ = 0;
};

struct ProcStat {
  long rss_kb = 0, hwm_kb = 0, threads = 0;
};
ProcStat ReadProc(pid_t pid) {
  ProcStat p;
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string k;
  while (f >> k) {
    if (k == "VmRSS:") f >> p.rss_kb;
    else if (k == "VmHWM:") f >> p.hwm_kb;
    else if (k == "Threads:") f >> p.threads;
  }
  return p;
}

pid_t Launch(char** argv) {
  pid_t pid = fork();
  if (pid == 0) {
    execv(argv[0], argv);
    std::perror("execv");
    _exit(127);
  }
  return pid;
}

bool WaitReady(int port) {
  for (int i = 0; i < 100; ++i) {
    int fd = Connect(port, false);
    if (fd >= 0) {
      close(fd);
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6 || std::string(argv[4]) != "--") {
    std::fprintf(stderr, "usage: %s PORT STREAMS SHORTS -- SERVER_BINARY [ARGS...]\n", argv[0]);
    return 2;
  }
  const int port = std::atoi(argv[1]);
  const int nstreams = std::atoi(argv[2]);
  const int nshorts = std::atoi(argv[3]);
  signal(SIGPIPE, SIG_IGN);
  const pid_t pid = Launch(argv + 5);
  if (!WaitReady(port)) {
    std::fprintf(stderr, "server did not accept on port %d\n", port);
    kill(pid, SIGKILL);
    return 1;
  }

  // ---- phase 1-4: streams + short requests ----
  const auto t0 = Clock::now();
  StreamSet set(port, nstreams);
  const double connect_ms = Ms(Clock::now() - t0);
  std::atomic<bool> go_short{false}, short_done{false};
  std::vector<double> lat;
  int short_fail = 0;
  std::thread shorts([&] {
    while (!go_short.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto stop_at = Clock::now() + std::chrono::seconds(8);
    for (int i = 0; i < nshorts && Clock::now() < stop_at; ++i) {
      const auto a = Clock::now();
      int fd = Connect(port, false);
      bool ok = fd >= 0 && SendAll(fd, "GET /short HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      std::string resp;
      char b[4096];
      while (ok) {
        ssize_t r = recv(fd, b, sizeof(b), 0);
        if (r > 0) resp.append(b, static_cast<size_t>(r));
        else { ok = r == 0; break; }
      }
      if (fd >= 0) close(fd);
      ok = ok && resp.rfind("HTTP/1.1 200", 0) == 0 && resp.find("\"ok\":true") != std::string::npos;
      if (ok) lat.push_back(Ms(Clock::now() - a));
      else ++short_fail;
    }
    short_done.store(true);
  });
  ProcStat peak;
  auto sample = [&] {
    ProcStat p = ReadProc(pid);
    peak.rss_kb = std::max(peak.rss_kb, p.rss_kb);
    peak.hwm_kb = std::max(peak.hwm_kb, p.hwm_kb);
    peak.threads = std::max(peak.threads, p.threads);
  };
  double first_event_ms = -1;
  auto last_sample = Clock::now();
  set.Run(Clock::now() + std::chrono::seconds(25), [&](Clock::time_point now) {
    if (!go_short.load() && (set.WithEvents() == set.opened() || now - t0 > std::chrono::seconds(3))) {
      first_event_ms = Ms(now - t0);
      go_short.store(true);
    }
    if (now - last_sample > std::chrono::milliseconds(200)) {
      sample();
      last_sample = now;
    }
    return true;
  });
  go_short.store(true);
  shorts.join();
  int with_end = 0, total_events = 0, min_events = 1 << 30;
  double max_gap = 0;
  for (auto& s : set.streams()) {
    with_end += s.got_end;
    total_events += s.events;
    min_events = std::min(min_events, s.events);
    max_gap = std::max(max_gap, s.max_gap_ms);
  }
  const std::string& h = set.streams()[0].head;
  const bool hdr_ok = h.find("text/event-stream") != std::string::npos &&
                      h.find("X-Accel-Buffering: no") != std::string::npos &&
                      h.find("no-cache") != std::string::npos;

  // ---- phase 5: graceful shutdown ----
  StreamSet sd(port, nstreams);
  double close_ms = -1, exit_ms = -1;
  int exit_status = -1;
  bool killed = false;
  const auto sd0 = Clock::now();
  Clock::time_point term_at{};
  sd.Run(Clock::now() + std::chrono::seconds(15), [&](Clock::time_point now) {
    if (term_at == Clock::time_point{} && now - sd0 > std::chrono::seconds(1)) {
      term_at = now;
      kill(pid, SIGTERM);
    }
    return true;
  });
  if (term_at != Clock::time_point{}) close_ms = Ms(Clock::now() - term_at);
  for (;;) {
    int st = 0;
    if (waitpid(pid, &st, WNOHANG) == pid) {
      exit_ms = Ms(Clock::now() - term_at);
      exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      break;
    }
    if (Clock::now() - term_at > std::chrono::seconds(10)) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      killed = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  int sd_got = 0;
  for (auto& s : sd.streams()) sd_got += s.got_shutdown;

  std::printf("streams opened %d/%d (connect %.0f ms, all had first event after %.0f ms), SSE headers %s\n",
              set.opened(), nstreams, connect_ms, first_event_ms, hdr_ok ? "ok" : "MISSING");
  std::printf("short: %zu ok, %d failed; p50 %.2f ms p95 %.2f ms p99 %.2f ms max %.2f ms\n", lat.size(),
              short_fail, Pct(lat, 0.50), Pct(lat, 0.95), Pct(lat, 0.99), Pct(lat, 1.0));
  std::printf("streams: %d/%d got 'event: end'; events total %d, min per stream %d (expect 201: 200 + end); max gap %.1f ms\n",
              with_end, set.opened(), total_events, min_events, max_gap);
  std::printf("server: peak RSS %ld KiB (HWM %ld KiB), peak threads %ld\n", peak.rss_kb, peak.hwm_kb,
              peak.threads);
  std::printf("shutdown: %d/%d streams got 'event: shutdown'; all closed %.0f ms after SIGTERM; exit %s %.0f ms "
              "(status %d)\n",
              sd_got, sd.opened(), close_ms, killed ? "KILLED after" : "after", killed ? 10000.0 : exit_ms,
              exit_status);
  std::printf("{\"streams\":%d,\"short_ok\":%zu,\"short_fail\":%d,\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"p99_ms\":%.3f,"
              "\"max_ms\":%.3f,\"streams_completed\":%d,\"min_events\":%d,\"max_gap_ms\":%.1f,\"rss_kb\":%ld,"
              "\"threads\":%ld,\"shutdown_final_events\":%d,\"shutdown_close_ms\":%.0f,\"shutdown_exit_ms\":%.0f,"
              "\"killed\":%s}\n",
              set.opened(), lat.size(), short_fail, Pct(lat, 0.5), Pct(lat, 0.95), Pct(lat, 0.99), Pct(lat, 1.0),
              with_end, min_events, max_gap, peak.rss_kb, peak.threads, sd_got, close_ms, exit_ms,
              killed ? "true" : "false");
  return 0;
}
