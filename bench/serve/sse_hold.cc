// sse_hold: does `/v1/search` stay fast while N streamed answers are held open by slow clients?
// (issue 5, bar 2: 256 streams; issue 16: 2,000 streams; search p95 within 2x its unloaded value,
// RSS reported). A bench tool, not part of attest; run by bench/serve/run.sh against a running
// `attest serve`. It raises its own soft open-file limit to fit the streams.
//
// Per round (rounds alternate so machine noise hits both phases):
//   unloaded: SEARCHES sequential POST /v1/search, nothing else open.
//   loaded:   STREAMS concurrent POST /v1/answer with `Accept: text/event-stream`, each a slow client
//             (SO_RCVBUF set before connect; one thread reads at most READ_BYTES from every stream
//             every READ_INTERVAL_MS). Searches start at once and are split into two windows:
//               ramp: issued before every stream had received its `sources` event (the server is
//                     still computing answers: searches share the interactive queue with them);
//               held: issued after that, while the streams are open and being read slowly; the
//                     round collects SEARCHES of them (the bar's figure).
//             A stream counts as completed when its `done` event arrived before the connection
//             closed, as dropped otherwise (EOF or reset without `done`, non-200, or the timeout).
// Searches use one keep-alive connection per phase (--fresh: a new connection per request).
// The server's VmRSS / Threads are sampled every 100 ms from /proc/PID/status (--pid): the peak of
// the unloaded phase ("idle"), the peak of the loaded phase, and the peak while the held searches
// ran; per stream = (loaded or held - idle) / streams opened, with the first round's idle RSS (the
// allocator keeps what a round freed, so a later round's idle RSS already includes the streams). The kernel's TCP buffer memory (all
// sockets, /proc/net/sockstat) while held shows the share of the unsent bytes the kernel keeps.
// Percentiles are nearest-rank. Output: a human table, then one JSON line (prefix "JSON ").
//
// Usage: sse_hold --port P --key K --queries queries.jsonl [--pid PID] [--streams 256]
//          [--searches 500] [--rounds 3] [--rcvbuf 2048] [--read-bytes 256] [--read-interval-ms 100]
//          [--warm] [--fresh] [--hold-first] [--timeout-s 90]
// --hold-first: a stream is not read past its `sources` event until every stream has it (the ramp
// then holds every stream, unread, in the server and the kernel; the held phase reads them slowly).
// Every loop is bounded in count and time; a failed search is counted, never retried.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
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
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;
using json = nlohmann::json;
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Args {
  int port = 0;
  std::string key, queries;
  long pid = 0;
  int streams = 256, searches = 500, rounds = 3, rcvbuf = 2048, read_bytes = 256, read_interval_ms = 100;
  bool warm = false, fresh = false, hold_first = false;
  int timeout_s = 90;
};

int Connect(int port, int rcvbuf) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  if (rcvbuf > 0) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));  // before connect
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, std::string_view s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

std::string Post(const std::string& path, const std::string& key, const std::string& body, bool sse, bool close) {
  std::string r = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  r += "Authorization: Bearer " + key + "\r\n";
  if (sse) r += "Accept: text/event-stream\r\n";
  if (close) r += "Connection: close\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  return r;
}

// One search client: a keep-alive connection (reopened after an error) or a fresh one per request.
class SearchClient {
 public:
  SearchClient(const Args& a) : a_(a) {}
  ~SearchClient() { Reset(); }
  // Latency in ms, or a negative value on failure (non-200, I/O error, timeout). `cached` is set
  // from the body's "cached" field.
  double Run(const std::string& body, bool* cached) {
    const auto t0 = Clock::now();
    if (fd_ < 0) fd_ = Connect(a_.port, 0);
    if (fd_ < 0 || !SendAll(fd_, Post("/v1/search", a_.key, body, false, a_.fresh))) return Fail();
    std::string buf;
    size_t header_end = std::string::npos, content_length = 0;
    char tmp[65536];
    for (;;) {
      if (header_end != std::string::npos && buf.size() >= header_end + 4 + content_length) break;
      ssize_t n = recv(fd_, tmp, sizeof(tmp), 0);
      if (n <= 0) return Fail();
      buf.append(tmp, static_cast<size_t>(n));
      if (header_end == std::string::npos && (header_end = buf.find("\r\n\r\n")) != std::string::npos) {
        const std::string head = buf.substr(0, header_end);
        size_t cl = head.find("Content-Length: ");
        if (cl == std::string::npos) return Fail();
        content_length = std::strtoul(head.c_str() + cl + 16, nullptr, 10);
      }
    }
    const double ms = Ms(Clock::now() - t0);
    if (buf.rfind("HTTP/1.1 200", 0) != 0) return Fail();
    *cached = buf.find("\"cached\":true", header_end) != std::string::npos;
    if (a_.fresh) Reset();
    return ms;
  }

 private:
  double Fail() {
    Reset();
    return -1;
  }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  const Args& a_;
  int fd_ = -1;
};

struct Stream {
  int fd = -1;
  bool open = false, status_ok = false, got_head = false, got_sources = false, got_done = false;
  size_t bytes = 0;
  std::string tail;  // last bytes, to find an event name split across reads
  double done_ms = -1, closed_ms = -1;
};

struct ProcPeak {
  long rss_kb = 0, threads = 0, tcp_kb = 0;  // tcp_kb: the kernel's TCP buffer memory (/proc/net/sockstat)
};
// The kernel's memory for all TCP sockets ("TCP: ... mem PAGES"): the bytes queued in socket
// buffers, which a slow reader keeps out of the server's own memory.
void SampleTcp(ProcPeak* p) {
  std::ifstream f("/proc/net/sockstat");
  std::string k;
  long v = 0;
  bool tcp = false;
  while (f >> k) {
    if (k == "TCP:") tcp = true;
    else if (k == "UDP:") tcp = false;
    else if (tcp && k == "mem" && f >> v) p->tcp_kb = std::max(p->tcp_kb, v * (sysconf(_SC_PAGESIZE) / 1024));
  }
}
void SampleProc(long pid, ProcPeak* p) {
  if (pid <= 0) return;
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string k;
  long v = 0;
  while (f >> k) {
    if (k == "VmRSS:" && f >> v) p->rss_kb = std::max(p->rss_kb, v);
    else if (k == "Threads:" && f >> v) p->threads = std::max(p->threads, v);
  }
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}
double Median(std::vector<double> v) { return Pct(std::move(v), 0.5); }

struct Lat {
  std::vector<double> ms;
  int failed = 0, cached = 0;
  json Json() const {
    return {{"n", ms.size()}, {"failed", failed}, {"cached", cached}, {"p50_ms", Pct(ms, .5)},
            {"p95_ms", Pct(ms, .95)}, {"p99_ms", Pct(ms, .99)}, {"max_ms", Pct(ms, 1)}};
  }
};

struct Round {
  Lat unloaded, ramp, held;
  int opened = 0, completed = 0, dropped = 0, non200 = 0, min_open_held = 0;
  double open_ms = 0, sources_ms = -1, all_closed_ms = -1, stream_p50_ms = -1, stream_max_ms = -1, close_p50_ms = -1,
         close_max_ms = -1;
  ProcPeak proc_unloaded, proc_loaded, proc_held;  // held: sampled while the held searches ran
};

class Bench {
 public:
  Bench(Args a, std::vector<std::string> q) : a_(std::move(a)), queries_(std::move(q)) {}

  std::string SearchBody() { return "{\"query\":" + queries_[next_search_++ % queries_.size()] + ",\"top_k\":10}"; }
  std::string AnswerBody() {
    return "{\"query\":" + queries_[next_answer_++ % queries_.size()] + ",\"writer\":\"extractive\"}";
  }

  void Warm() {
    SearchClient c(a_);
    bool cached = false;
    for (size_t i = 0; i < queries_.size(); ++i) c.Run(SearchBody(), &cached);
  }

  void Unloaded(Round* r) {
    SearchClient c(a_);
    SampleProc(a_.pid, &r->proc_unloaded);
    auto last = Clock::now();
    for (int i = 0; i < a_.searches; ++i) {
      Record(&r->unloaded, c.Run(SearchBody(), &cached_));
      if (Clock::now() - last > std::chrono::milliseconds(100)) {
        SampleProc(a_.pid, &r->proc_unloaded);
        SampleTcp(&r->proc_unloaded);
        last = Clock::now();
      }
    }
  }

  void Loaded(Round* r) {
    std::vector<Stream> ss(a_.streams);
    const auto t0 = Clock::now();
    for (auto& s : ss) {
      s.fd = Connect(a_.port, a_.rcvbuf);
      if (s.fd < 0 || !SendAll(s.fd, Post("/v1/answer", a_.key, AnswerBody(), true, true))) {
        if (s.fd >= 0) close(s.fd);
        s.fd = -1;
        continue;
      }
      fcntl(s.fd, F_SETFL, fcntl(s.fd, F_GETFL) | O_NONBLOCK);
      s.open = true;
      ++r->opened;
    }
    r->open_ms = Ms(Clock::now() - t0);
    std::atomic<bool> all_sources{false}, stop{false}, searched{false};
    std::atomic<int> open_now{r->opened};
    std::thread searcher([&] {
      SearchClient c(a_);
      int min_open = a_.streams;
      while (!stop.load() && static_cast<int>(r->held.ms.size()) + r->held.failed < a_.searches) {
        const bool held = all_sources.load();
        if (held) min_open = std::min(min_open, open_now.load());
        const double ms = c.Run(SearchBody(), &cached_);
        Record(held ? &r->held : &r->ramp, ms);
      }
      r->min_open_held = min_open;
      searched.store(true);
    });
    // The slow reader: every interval, at most read_bytes from each open stream.
    const auto deadline = t0 + std::chrono::seconds(a_.timeout_s);
    std::vector<char> buf(static_cast<size_t>(std::max(a_.read_bytes, 1)));
    auto last_sample = Clock::now();
    while (open_now.load() > 0 && Clock::now() < deadline) {
      const auto tick = Clock::now();
      int with_sources = 0;
      const bool all = all_sources.load();
      for (auto& s : ss) {
        // --hold-first: a stream that has its `sources` is not read again until every stream has
        // them, so all are open when the held searches start, however long the answers take.
        if (s.open && (!a_.hold_first || all || !s.got_sources)) ReadSome(&s, buf, t0, &open_now);
        with_sources += s.got_sources || (!s.open && s.fd >= 0) || s.fd < 0;
      }
      if (!all_sources.load() && with_sources == a_.streams) {
        all_sources.store(true);
        r->sources_ms = Ms(Clock::now() - t0);
      }
      if (Clock::now() - last_sample >= std::chrono::milliseconds(100)) {
        SampleProc(a_.pid, &r->proc_loaded);
        if (all_sources.load() && !searched.load()) {
          SampleProc(a_.pid, &r->proc_held);
          SampleTcp(&r->proc_held);
        }
        last_sample = Clock::now();
      }
      std::this_thread::sleep_until(tick + std::chrono::milliseconds(a_.read_interval_ms));
    }
    if (open_now.load() == 0) r->all_closed_ms = Ms(Clock::now() - t0);
    stop.store(true);
    searcher.join();
    std::vector<double> durations, closes;
    for (auto& s : ss) {
      if (s.fd < 0) continue;
      if (s.open) close(s.fd);  // timed out
      if (!s.status_ok && s.got_head) ++r->non200;
      if (s.got_done && s.status_ok) {
        ++r->completed;
        durations.push_back(s.done_ms);
        closes.push_back(s.closed_ms);
      } else {
        ++r->dropped;
      }
    }
    r->dropped += a_.streams - r->opened;
    r->stream_p50_ms = Median(durations);
    r->stream_max_ms = Pct(durations, 1);
    r->close_p50_ms = Median(closes);
    r->close_max_ms = Pct(closes, 1);
  }

 private:
  void Record(Lat* l, double ms) {
    if (ms < 0) {
      ++l->failed;
      return;
    }
    l->ms.push_back(ms);
    l->cached += cached_;
  }

  void ReadSome(Stream* s, std::vector<char>& buf, Clock::time_point t0, std::atomic<int>* open_now) {
    ssize_t n = recv(s->fd, buf.data(), buf.size(), 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {  // EOF or reset
      s->closed_ms = Ms(Clock::now() - t0);
      close(s->fd);
      s->open = false;
      open_now->fetch_sub(1);
      return;
    }
    std::string w = s->tail;
    w.append(buf.data(), static_cast<size_t>(n));
    if (!s->got_head && s->bytes == 0) {
      s->got_head = true;
      s->status_ok = w.rfind("HTTP/1.1 200", 0) == 0;
    }
    s->bytes += static_cast<size_t>(n);
    if (w.find("event: sources") != std::string::npos) s->got_sources = true;
    if (!s->got_done && w.find("event: done") != std::string::npos) {
      s->got_done = true;
      s->done_ms = Ms(Clock::now() - t0);
    }
    s->tail = w.size() > 16 ? w.substr(w.size() - 16) : w;
  }

  const Args a_;
  const std::vector<std::string> queries_;
  size_t next_search_ = 0, next_answer_ = 0;
  bool cached_ = false;
};

bool ParseArgs(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto val = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    auto num = [&](int* out) {
      const char* v = val();
      if (!v) return false;
      char* end = nullptr;
      long x = std::strtol(v, &end, 10);
      if (*end != '\0' || x < 0 || x > 1000000) return false;
      *out = static_cast<int>(x);
      return true;
    };
    bool ok = true;
    if (k == "--port") ok = num(&a->port);
    else if (k == "--key") ok = (a->key = val() ? argv[i] : "", !a->key.empty());
    else if (k == "--queries") ok = (a->queries = val() ? argv[i] : "", !a->queries.empty());
    else if (k == "--pid") {
      int p = 0;
      ok = num(&p);
      a->pid = p;
    } else if (k == "--streams") ok = num(&a->streams);
    else if (k == "--searches") ok = num(&a->searches);
    else if (k == "--rounds") ok = num(&a->rounds);
    else if (k == "--rcvbuf") ok = num(&a->rcvbuf);
    else if (k == "--read-bytes") ok = num(&a->read_bytes);
    else if (k == "--read-interval-ms") ok = num(&a->read_interval_ms);
    else if (k == "--timeout-s") ok = num(&a->timeout_s);
    else if (k == "--warm") a->warm = true;
    else if (k == "--fresh") a->fresh = true;
    else if (k == "--hold-first") a->hold_first = true;
    else ok = false;
    if (!ok) {
      std::fprintf(stderr, "sse_hold: bad or unknown argument '%s'\n", k.c_str());
      return false;
    }
  }
  if (a->port <= 0 || a->key.empty() || a->queries.empty() || a->rounds < 1 || a->searches < 1) {
    std::fprintf(stderr,
                 "usage: sse_hold --port P --key K --queries queries.jsonl [--pid PID] [--streams 256] "
                 "[--searches 500] [--rounds 3] [--rcvbuf 2048] [--read-bytes 256] [--read-interval-ms 100] "
                 "[--warm] [--fresh] [--hold-first] [--timeout-s 90]\n");
    return false;
  }
  return true;
}

// The "text" of every line, re-encoded as a JSON string literal.
bool LoadQueries(const std::string& path, std::vector<std::string>* out) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "sse_hold: cannot open %s\n", path.c_str());
    return false;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("text") || !j["text"].is_string()) {
      std::fprintf(stderr, "sse_hold: %s:%d: not a JSON object with a string \"text\"\n", path.c_str(), lineno);
      return false;
    }
    out->push_back(j["text"].dump());
  }
  if (out->empty()) std::fprintf(stderr, "sse_hold: no queries in %s\n", path.c_str());
  return !out->empty();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) return 2;
  std::vector<std::string> queries;
  if (!LoadQueries(a.queries, &queries)) return 2;
  signal(SIGPIPE, SIG_IGN);
  // One descriptor per stream plus a few: raise the soft open-file limit to the hard one if needed.
  rlimit lim{};
  const rlim_t need = static_cast<rlim_t>(a.streams) + 64;
  if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < need) {
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY ? need : std::min(need, lim.rlim_max);
    setrlimit(RLIMIT_NOFILE, &lim);
    if (lim.rlim_cur < need) {
      std::fprintf(stderr, "sse_hold: open-file limit %lu is below the %lu that %d streams need (ulimit -Hn)\n",
                   static_cast<unsigned long>(lim.rlim_cur), static_cast<unsigned long>(need), a.streams);
      return 2;
    }
  }
  Bench bench(a, queries);
  if (a.warm) bench.Warm();
  std::vector<Round> rounds(static_cast<size_t>(a.rounds));
  std::printf("%d streams (SO_RCVBUF %d, %d B every %d ms), %d searches per phase on %s\n", a.streams, a.rcvbuf,
              a.read_bytes, a.read_interval_ms, a.searches, a.fresh ? "a new connection each" : "one keep-alive connection");
  std::printf("round | unloaded p50/p95/p99 ms (cached) | held p50/p95/p99 ms (cached) | ratio p95 | ramp n p50/p95/max ms"
               " | streams done/dropped/non200, min open while held | all sources / all closed ms, 'done' seen p50/max,"
              " closed p50/max ms"
              " | RSS MiB unl/peak/held, KiB per stream peak/held, kernel TCP MiB held, threads\n");
  std::vector<double> ratios, unl_p95, held_p95, per_stream_peak, per_stream_held, peak_mib;
  json jr = json::array();
  for (int i = 0; i < a.rounds; ++i) {
    Round& r = rounds[static_cast<size_t>(i)];
    bench.Unloaded(&r);
    bench.Loaded(&r);
    const double u95 = Pct(r.unloaded.ms, .95), h95 = Pct(r.held.ms, .95);
    const double ratio = u95 > 0 && h95 > 0 ? h95 / u95 : -1;
    ratios.push_back(ratio);
    unl_p95.push_back(u95);
    held_p95.push_back(h95);
    // Against the first round's idle RSS: the allocator keeps what a round freed, so a later
    // round's idle RSS already includes the streams before it.
    const double opened = std::max(r.opened, 1);
    const long idle_kb = rounds[0].proc_unloaded.rss_kb;
    const double kib_peak = (r.proc_loaded.rss_kb - idle_kb) / opened;
    const double kib_held = (r.proc_held.rss_kb - idle_kb) / opened;
    per_stream_peak.push_back(kib_peak);
    per_stream_held.push_back(r.proc_held.rss_kb > 0 ? kib_held : -1);
    peak_mib.push_back(r.proc_loaded.rss_kb / 1024.0);
    std::printf("%5d | %.2f/%.2f/%.2f (%d/%zu, %d failed) | %.2f/%.2f/%.2f (%d/%zu, %d failed) | %.2f | %zu %.1f/%.1f/%.1f"
                 " | %d/%d/%d, %d | %.0f / %.0f, %.0f/%.0f, %.0f/%.0f | %.1f/%.1f/%.1f, %.1f/%.1f, %.1f, %ld\n",
                i + 1, Pct(r.unloaded.ms, .5), u95, Pct(r.unloaded.ms, .99), r.unloaded.cached, r.unloaded.ms.size(),
                r.unloaded.failed, Pct(r.held.ms, .5), h95, Pct(r.held.ms, .99), r.held.cached, r.held.ms.size(),
                r.held.failed, ratio, r.ramp.ms.size(), Pct(r.ramp.ms, .5), Pct(r.ramp.ms, .95), Pct(r.ramp.ms, 1),
                r.completed, r.dropped, r.non200, r.min_open_held, r.sources_ms, r.all_closed_ms, r.stream_p50_ms,
                r.stream_max_ms, r.close_p50_ms, r.close_max_ms, r.proc_unloaded.rss_kb / 1024.0, r.proc_loaded.rss_kb / 1024.0,
                r.proc_held.rss_kb / 1024.0, kib_peak, kib_held, r.proc_held.tcp_kb / 1024.0, r.proc_loaded.threads);
    std::fflush(stdout);
    jr.push_back({{"unloaded", r.unloaded.Json()}, {"ramp", r.ramp.Json()}, {"held", r.held.Json()},
                  {"p95_ratio", ratio}, {"opened", r.opened}, {"completed", r.completed}, {"dropped", r.dropped},
                  {"non200", r.non200}, {"min_open_while_held", r.min_open_held}, {"open_ms", r.open_ms},
                  {"all_sources_ms", r.sources_ms}, {"all_closed_ms", r.all_closed_ms},
                  {"stream_p50_ms", r.stream_p50_ms}, {"stream_max_ms", r.stream_max_ms}, {"closed_p50_ms", r.close_p50_ms}, {"closed_max_ms", r.close_max_ms},
                  {"rss_kb_unloaded", r.proc_unloaded.rss_kb}, {"rss_kb_loaded", r.proc_loaded.rss_kb},
                  {"rss_kb_held", r.proc_held.rss_kb}, {"kib_per_stream_peak", kib_peak},
                  {"kib_per_stream_held", r.proc_held.rss_kb > 0 ? kib_held : -1},
                  {"kernel_tcp_kb_held", r.proc_held.tcp_kb}, {"threads_loaded", r.proc_loaded.threads}});
  }
  std::printf("median: unloaded p95 %.2f ms, held p95 %.2f ms, ratio %.2f [%.2f-%.2f] (bar: <= 2)\n", Median(unl_p95),
              Median(held_p95), Median(ratios), *std::min_element(ratios.begin(), ratios.end()),
              *std::max_element(ratios.begin(), ratios.end()));
  if (a.pid > 0) {
    std::printf("median: RSS peak %.1f MiB [%.1f-%.1f], per stream %.1f KiB at peak [%.1f-%.1f], %.1f KiB while held "
                "[%.1f-%.1f]\n",
                Median(peak_mib), *std::min_element(peak_mib.begin(), peak_mib.end()),
                *std::max_element(peak_mib.begin(), peak_mib.end()), Median(per_stream_peak),
                *std::min_element(per_stream_peak.begin(), per_stream_peak.end()),
                *std::max_element(per_stream_peak.begin(), per_stream_peak.end()), Median(per_stream_held),
                *std::min_element(per_stream_held.begin(), per_stream_held.end()),
                *std::max_element(per_stream_held.begin(), per_stream_held.end()));
  }
  json out = {{"streams", a.streams}, {"searches", a.searches}, {"rcvbuf", a.rcvbuf}, {"read_bytes", a.read_bytes},
              {"read_interval_ms", a.read_interval_ms}, {"keep_alive", !a.fresh}, {"rounds", jr},
              {"median_ratio", Median(ratios)}, {"median_unloaded_p95_ms", Median(unl_p95)},
              {"median_held_p95_ms", Median(held_p95)}, {"median_rss_mib_peak", Median(peak_mib)},
              {"median_kib_per_stream_peak", Median(per_stream_peak)},
              {"median_kib_per_stream_held", Median(per_stream_held)}};
  std::printf("JSON %s\n", out.dump().c_str());
  return 0;
}
