#include "support/test_site_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/checksum.h"
#include "common/strings.h"
#include "crawl/http_dates.h"

namespace attest::testing_support {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kMaxRequestBody = 1 << 20;
constexpr auto kIdleTimeout = std::chrono::seconds(30);

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && AsciiLower(a) == AsciiLower(b);
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
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

SiteResponse Plain(int status, std::string body) {
  SiteResponse r;
  r.status = status;
  r.headers = {{"Content-Type", "text/plain; charset=utf-8"}};
  r.body = std::move(body);
  r.validators = false;
  return r;
}

// Percent-decodes a path; nullopt for a malformed triplet or a NUL byte.
std::optional<std::string> DecodePath(std::string_view path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out.push_back(path[i]);
      continue;
    }
    if (i + 2 >= path.size()) return std::nullopt;
    const int hi = HexDigitValue(path[i + 1]), lo = HexDigitValue(path[i + 2]);
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  if (out.find('\0') != std::string::npos) return std::nullopt;
  return out;
}

bool HasDotDotSegment(std::string_view path) {
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (path.substr(i, j - i) == "..") return true;
    i = j + 1;
  }
  return false;
}

// If-None-Match (RFC 9110 §13.1.2): "*" or a list of entity tags, compared weakly.
bool EtagListMatches(std::string_view list, std::string_view etag) {
  auto opaque = [](std::string_view t) {
    t = Trim(t);
    if (t.starts_with("W/")) t.remove_prefix(2);
    return t;
  };
  if (Trim(list) == "*") return true;
  size_t i = 0;
  while (i <= list.size()) {
    size_t j = list.find(',', i);
    if (j == std::string_view::npos) j = list.size();
    if (!opaque(list.substr(i, j - i)).empty() && opaque(list.substr(i, j - i)) == opaque(etag)) return true;
    i = j + 1;
  }
  return false;
}

// Adds the validators and turns a 200 into a 304 when the request's preconditions say so.
void ApplyValidators(const SiteRequest& request, SiteResponse* r) {
  if (!r->validators || r->status != 200) return;
  const std::string etag = TestSiteServer::ETagFor(r->body);
  Headers validators = {{"ETag", etag}};
  if (r->last_modified) validators.emplace_back("Last-Modified", FormatHttpDate(*r->last_modified));
  r->headers.insert(r->headers.end(), validators.begin(), validators.end());
  bool not_modified = false;
  const std::string inm = request.Header("If-None-Match");
  if (!inm.empty()) {
    not_modified = EtagListMatches(inm, etag);
  } else if (r->last_modified) {
    const std::string ims = request.Header("If-Modified-Since");
    if (const auto since = ParseHttpDate(ims)) {
      not_modified = std::chrono::floor<std::chrono::seconds>(*r->last_modified) <= *since;
    }
  }
  if (not_modified) {
    r->status = 304;
    r->body.clear();
    r->headers = std::move(validators);
  }
}

// Sleeps `d` in slices, returning early when `stopping` is set.
void SleepUnlessStopping(milliseconds d, const std::atomic<bool>& stopping) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!stopping.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        milliseconds(20), until - std::chrono::steady_clock::now()));
  }
}

bool WriteAll(int fd, std::string_view bytes, const std::atomic<bool>& stopping) {
  while (!bytes.empty()) {
    if (stopping.load()) return false;
    pollfd p{fd, POLLOUT, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0) return false;
    if (ready == 0) continue;
    const ssize_t n = send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads more bytes into `buf`; false on close, error, stop or idle timeout.
bool ReadMore(int fd, std::string* buf, const std::atomic<bool>& stopping, SteadyTime idle_deadline) {
  char chunk[16384];
  while (!stopping.load()) {
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0) return false;
    if (ready == 0) {
      if (std::chrono::steady_clock::now() > idle_deadline) return false;
      continue;
    }
    const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf->append(chunk, static_cast<size_t>(n));
    return true;
  }
  return false;
}

}  // namespace

std::string SiteRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (EqualsNoCase(k, name)) return v;
  }
  return {};
}

TestSiteServer::TestSiteServer(TestSiteOptions options) : options_(std::move(options)) {
  std::string& base = options_.base_path;
  if (base.empty() || base.front() != '/') base.insert(base.begin(), '/');
  if (base.back() != '/') base.push_back('/');
  routes_["/robots.txt"] = [](const SiteRequest&) { return Plain(404, "no robots.txt"); };
}

TestSiteServer::~TestSiteServer() { Stop(); }

Status TestSiteServer::Start() {
  if (listen_fd_ >= 0) return Status::InvalidArgument("test site: already started");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(options_.port));
  if (inet_pton(AF_INET, options_.address.c_str(), &sa.sin_addr) != 1) {
    return Status::InvalidArgument("test site: \"" + options_.address + "\" is not an IPv4 address");
  }
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Status::IOError(std::string("test site: socket: ") + std::strerror(errno));
  const int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(listen_fd_, 128) != 0) {
    const std::string why = std::strerror(errno);
    close(listen_fd_);
    listen_fd_ = -1;
    return Status::IOError("test site: cannot listen on " + options_.address + ":" + std::to_string(options_.port) +
                           ": " + why);
  }
  socklen_t len = sizeof sa;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len);
  port_ = ntohs(sa.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
  return Status::Ok();
}

void TestSiteServer::Stop() {
  if (listen_fd_ < 0) return;
  stopping_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) shutdown(fd, SHUT_RDWR);
  }
  ReapWorkers(true);
  close(listen_fd_);
  listen_fd_ = -1;
}

std::string TestSiteServer::origin() const { return "http://" + options_.address + ":" + std::to_string(port_); }
std::string TestSiteServer::base_url() const { return origin() + options_.base_path; }

void TestSiteServer::SetRobots(int status, std::string body) {
  SiteResponse r = Plain(status, std::move(body));
  SetRoute("/robots.txt", std::move(r));
}

void TestSiteServer::SetRoute(const std::string& target, SiteResponse response) {
  SetHandler(target, [response = std::move(response)](const SiteRequest&) { return response; });
}

void TestSiteServer::SetHandler(const std::string& target, SiteHandler handler) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_[target] = std::move(handler);
}

void TestSiteServer::SetRedirect(const std::string& target, int status, std::string location) {
  SiteResponse r = Plain(status, "moved to " + location);
  r.headers.emplace_back("Location", std::move(location));
  SetRoute(target, std::move(r));
}

void TestSiteServer::RemoveRoute(const std::string& target) {
  std::lock_guard<std::mutex> lock(mu_);
  routes_.erase(target);
}

void TestSiteServer::FailNext(const std::string& path, int count, int status, std::string retry_after) {
  if (count <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  faults_.push_back({path, count, status, std::move(retry_after)});
}

std::vector<LoggedRequest> TestSiteServer::Log() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_;
}

void TestSiteServer::ClearLog() {
  std::lock_guard<std::mutex> lock(mu_);
  log_base_ += log_.size();
  log_.clear();
}

size_t TestSiteServer::RequestCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_.size();
}

size_t TestSiteServer::CountWithPrefix(std::string_view prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(
      std::count_if(log_.begin(), log_.end(), [&](const LoggedRequest& r) { return r.target.starts_with(prefix); }));
}

size_t TestSiteServer::MaxRequestsInWindow(std::chrono::nanoseconds window, std::string_view prefix) const {
  std::vector<SteadyTime> times;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const LoggedRequest& r : log_) {
      if (r.target.starts_with(prefix)) times.push_back(r.arrived);
    }
  }
  std::sort(times.begin(), times.end());
  size_t best = 0, first = 0;
  for (size_t last = 0; last < times.size(); ++last) {
    while (times[last] - times[first] >= window) ++first;
    best = std::max(best, last - first + 1);
  }
  return best;
}

std::string TestSiteServer::ContentTypeFor(const fs::path& file) {
  static const std::map<std::string, std::string> kTypes = {
      {".html", "text/html; charset=utf-8"}, {".htm", "text/html; charset=utf-8"},
      {".css", "text/css"},                  {".js", "text/javascript"},
      {".svg", "image/svg+xml"},             {".png", "image/png"},
      {".jpg", "image/jpeg"},                {".jpeg", "image/jpeg"},
      {".gif", "image/gif"},                 {".txt", "text/plain; charset=utf-8"},
      {".md", "text/markdown; charset=utf-8"}, {".xml", "application/xml"},
      {".json", "application/json"},         {".pdf", "application/pdf"},
      {".gz", "application/gzip"},           {".rss", "application/rss+xml"},
      {".atom", "application/atom+xml"},
  };
  const auto it = kTypes.find(AsciiLower(file.extension().string()));
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

std::string TestSiteServer::ETagFor(std::string_view body) { return "\"" + Sha256Hex(body).substr(0, 32) + "\""; }

void TestSiteServer::ReapWorkers(bool all) {
  std::list<Worker> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      if (all || it->done->load()) {
        finished.splice(finished.end(), workers_, it++);
      } else {
        ++it;
      }
    }
  }
  for (Worker& w : finished) w.thread.join();
}

void TestSiteServer::AcceptLoop() {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    char addr[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &peer.sin_addr, addr, sizeof addr);
    const std::string peer_text = std::string(addr) + ":" + std::to_string(ntohs(peer.sin_port));
    const uint64_t id = ++connections_;
    auto done = std::make_shared<std::atomic<bool>>(false);
    {
      std::lock_guard<std::mutex> lock(mu_);
      open_fds_.push_back(fd);
      workers_.push_back({std::thread([this, fd, id, peer_text, done] {
                            Serve(fd, id, peer_text);
                            done->store(true);
                          }),
                          done});
    }
    ReapWorkers(false);
  }
}

void TestSiteServer::Serve(int fd, uint64_t connection_id, std::string peer) {
  std::string buf;
  bool keep_alive = true;
  while (keep_alive && !stopping_.load()) {
    size_t end;
    const SteadyTime idle_deadline = std::chrono::steady_clock::now() + kIdleTimeout;
    bool too_large = false;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (buf.size() > kMaxHeadBytes) {
        too_large = true;
        break;
      }
      if (!ReadMore(fd, &buf, stopping_, idle_deadline)) {
        end = std::string::npos;
        break;
      }
    }
    if (too_large) {
      const SiteResponse r = Plain(431, "request head too large");
      WriteAll(fd, "HTTP/1.1 431 " + std::string(Reason(431)) + "\r\nContent-Length: " + std::to_string(r.body.size()) +
                       "\r\nConnection: close\r\n\r\n" + r.body, stopping_);
      break;
    }
    if (end == std::string::npos) break;
    LoggedRequest entry;
    entry.arrived = std::chrono::steady_clock::now();
    entry.connection_id = connection_id;
    entry.peer = peer;

    SiteRequest req;
    req.connection_id = connection_id;
    std::string_view head(buf.data(), end);
    const size_t eol = head.find("\r\n");
    const std::string_view first = head.substr(0, eol);
    const size_t sp1 = first.find(' ');
    const size_t sp2 = sp1 == std::string_view::npos ? sp1 : first.find(' ', sp1 + 1);
    std::string version;
    bool bad = sp1 == std::string_view::npos || sp2 == std::string_view::npos;
    if (!bad) {
      req.method = std::string(first.substr(0, sp1));
      req.target = std::string(first.substr(sp1 + 1, sp2 - sp1 - 1));
      version = std::string(first.substr(sp2 + 1));
      req.path = req.target.substr(0, req.target.find('?'));
      bad = req.target.empty() || req.target.front() != '/' || !version.starts_with("HTTP/1.");
    }
    std::string_view rest = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
    while (!rest.empty()) {
      const size_t e = rest.find("\r\n");
      const std::string_view line = rest.substr(0, e);
      const size_t colon = line.find(':');
      if (colon == std::string_view::npos) {
        bad = true;
      } else {
        req.headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                                 std::string(Trim(line.substr(colon + 1), kHttpWhitespace)));
      }
      rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
    }
    buf.erase(0, end + 4);
    // A request body is read and ignored; chunked bodies are not supported.
    size_t body_length = 0;
    if (const std::string cl = req.Header("Content-Length"); !cl.empty()) {
      body_length = static_cast<size_t>(std::strtoull(cl.c_str(), nullptr, 10));
    }
    const bool chunked = !req.Header("Transfer-Encoding").empty();
    bool body_ok = !chunked && body_length <= kMaxRequestBody;
    while (body_ok && buf.size() < body_length) body_ok = ReadMore(fd, &buf, stopping_, idle_deadline);
    if (body_ok) buf.erase(0, body_length);

    SiteResponse resp;
    if (bad) {
      resp = Plain(400, "bad request");
      resp.close = true;
    } else if (!body_ok) {
      resp = Plain(chunked ? 501 : 400, "request body not supported");
      resp.close = true;
    } else if (req.method != "GET" && req.method != "HEAD") {
      resp = Plain(405, "GET and HEAD only");
      resp.headers.emplace_back("Allow", "GET, HEAD");
    } else {
      resp = Respond(req);
    }
    SleepUnlessStopping(options_.latency + resp.delay, stopping_);

    keep_alive = version == "HTTP/1.1" && !EqualsNoCase(req.Header("Connection"), "close") && !resp.close;
    const bool with_body = req.method != "HEAD" && resp.status != 304 && resp.status != 204;
    std::string out = "HTTP/1.1 " + std::to_string(resp.status) + " " + Reason(resp.status) + "\r\n";
    out += "Date: " + FormatHttpDate(std::chrono::system_clock::now()) + "\r\n";
    for (const auto& [k, v] : resp.headers) out += k + ": " + v + "\r\n";
    if (resp.status != 304 && resp.status != 204) out += "Content-Length: " + std::to_string(resp.body.size()) + "\r\n";
    out += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
    // The entry is logged before the response is written, so a client that has the response
    // finds its request in the log; the completion time is filled in after the last byte.
    entry.method = req.method;
    entry.target = req.target;
    entry.status = resp.status;
    entry.if_none_match = req.Header("If-None-Match");
    entry.if_modified_since = req.Header("If-Modified-Since");
    entry.user_agent = req.Header("User-Agent");
    entry.body_bytes = with_body ? resp.body.size() : 0;
    entry.completed = entry.arrived;
    size_t index;
    {
      std::lock_guard<std::mutex> lock(mu_);
      index = log_.size() + log_base_;
      log_.push_back(std::move(entry));
    }
    bool written;
    if (!with_body) {
      written = WriteAll(fd, out, stopping_);
    } else if (resp.drip_bytes == 0) {
      out += resp.body;
      written = WriteAll(fd, out, stopping_);
    } else {
      written = WriteAll(fd, out, stopping_);
      for (size_t at = 0; written && at < resp.body.size(); at += resp.drip_bytes) {
        if (at > 0) SleepUnlessStopping(resp.drip_interval, stopping_);
        written = WriteAll(fd, std::string_view(resp.body).substr(at, resp.drip_bytes), stopping_);
      }
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (index >= log_base_ && index - log_base_ < log_.size()) {
        LoggedRequest& e = log_[index - log_base_];
        e.completed = std::chrono::steady_clock::now();
        e.complete = written;
      }
    }
    if (!written) break;
  }
  std::lock_guard<std::mutex> lock(mu_);
  open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  shutdown(fd, SHUT_RDWR);
  close(fd);
}

SiteResponse TestSiteServer::Respond(const SiteRequest& request) {
  SiteHandler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = faults_.begin(); it != faults_.end(); ++it) {
      if (!it->path.empty() && it->path != request.path) continue;
      SiteResponse r = Plain(it->status, "fault injected by the test");
      if (!it->retry_after.empty()) r.headers.emplace_back("Retry-After", it->retry_after);
      if (--it->remaining <= 0) faults_.erase(it);
      return r;
    }
    auto route = routes_.find(request.target);
    if (route == routes_.end()) route = routes_.find(request.path);
    if (route != routes_.end()) handler = route->second;
  }
  if (handler) {
    SiteResponse r = handler(request);
    ApplyValidators(request, &r);
    return r;
  }
  const std::optional<std::string> decoded = DecodePath(request.path);
  if (!decoded || HasDotDotSegment(*decoded)) return Plain(400, "bad path");
  const std::string& base = options_.base_path;
  if (!options_.root.empty()) {
    if (*decoded + "/" == base) {
      SiteResponse r = Plain(301, "moved");
      r.headers.emplace_back("Location", base);
      return r;
    }
    if (decoded->starts_with(base)) return ServeFile(request, std::string_view(*decoded).substr(base.size()));
  }
  return Plain(404, "not found");
}

SiteResponse TestSiteServer::ServeFile(const SiteRequest& request, std::string_view relative) {
  fs::path file = options_.root / fs::path(std::string(relative));
  if (relative.empty() || relative.back() == '/') file /= "index.html";
  struct stat st {};
  if (stat(file.c_str(), &st) != 0) return Plain(404, "not found");
  if (S_ISDIR(st.st_mode)) {
    file /= "index.html";
    if (stat(file.c_str(), &st) != 0) return Plain(404, "not found");
  }
  if (!S_ISREG(st.st_mode)) return Plain(404, "not found");
  const int64_t mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  SiteResponse r;
  bool cached = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = files_.find(file.string());
    if (it != files_.end() && it->second.mtime_ns == mtime_ns && it->second.size == static_cast<uint64_t>(st.st_size)) {
      r.body = it->second.body;
      cached = true;
    }
  }
  if (!cached) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!in.good() && !in.eof()) return Plain(500, "cannot read the file");
    r.body = s.str();
    std::lock_guard<std::mutex> lock(mu_);
    files_[file.string()] = CachedFile{mtime_ns, static_cast<uint64_t>(st.st_size), r.body};
  }
  r.headers = {{"Content-Type", ContentTypeFor(file)}};
  r.last_modified = options_.last_modified
                        ? *options_.last_modified
                        : std::chrono::system_clock::time_point(std::chrono::seconds(st.st_mtim.tv_sec));
  ApplyValidators(request, &r);
  return r;
}

}  // namespace attest::testing_support
