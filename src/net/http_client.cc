#include "net/http_client.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <mutex>

#include "common/strings.h"

namespace attest {
namespace {

std::once_flag g_curl_init_once;
CURLcode g_curl_init_result = CURLE_OK;

void InitCurlOnce() {
  std::call_once(g_curl_init_once, [] { g_curl_init_result = curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// A header line as libcurl hands it over: optional whitespace around the value, CR LF at the end.
constexpr std::string_view kHeaderTrim = " \t\r\n";

bool HasAllowedScheme(std::string_view url) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos) return false;
  const std::string_view scheme = url.substr(0, sep);
  return EqualsIgnoreCase(scheme, "http") || EqualsIgnoreCase(scheme, "https");
}

bool ValidToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

bool HasLineBreak(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// Per-transfer state shared with libcurl's callbacks.
struct Transfer {
  CURL* curl = nullptr;
  size_t cap = 0;
  const HttpChunkCallback* on_chunk = nullptr;
  HttpResponse* response = nullptr;
  size_t received = 0;       // body bytes, streamed or stored
  size_t header_bytes = 0;
  bool too_large = false;
  bool aborted = false;
  const std::function<std::string(const HttpPeer&)>* guard = nullptr;
  std::string blocked_reason;  // the guard's first refusal
};

// Called by libcurl instead of socket(2) for every address it is about to connect to: this is the
// address the connection will use, so a check here cannot be raced by a second DNS answer.
curl_socket_t OnOpenSocket(void* user, curlsocktype purpose, struct curl_sockaddr* address) {
  auto* t = static_cast<Transfer*>(user);
  if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
  if (t->guard != nullptr && *t->guard) {
    HttpPeer peer;
    std::string reason;
    if (address->family == AF_INET && address->addrlen >= sizeof(sockaddr_in)) {
      sockaddr_in in;
      std::memcpy(&in, &address->addr, sizeof in);
      std::memcpy(peer.bytes.data(), &in.sin_addr, 4);
      peer.port = ntohs(in.sin_port);
      reason = (*t->guard)(peer);
    } else if (address->family == AF_INET6 && address->addrlen >= sizeof(sockaddr_in6)) {
      sockaddr_in6 in6;
      std::memcpy(&in6, &address->addr, sizeof in6);
      peer.v6 = true;
      std::memcpy(peer.bytes.data(), &in6.sin6_addr, 16);
      peer.port = ntohs(in6.sin6_port);
      reason = (*t->guard)(peer);
    } else {
      reason = "address_family_not_allowed";
    }
    if (!reason.empty()) {
      if (t->blocked_reason.empty()) t->blocked_reason = std::move(reason);
      return CURL_SOCKET_BAD;
    }
  }
  return socket(address->family, address->socktype, address->protocol);
}

size_t OnBody(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  if (n > t->cap - std::min(t->cap, t->received)) {
    t->too_large = true;
    return 0;  // makes libcurl fail with CURLE_WRITE_ERROR
  }
  t->received += n;
  long status = 0;
  curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
  if (t->on_chunk != nullptr && status >= 200 && status < 300) {
    if (!(*t->on_chunk)(std::string_view(data, n))) {
      t->aborted = true;
      return 0;
    }
    return n;
  }
  t->response->body.append(data, n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * nmemb;
  t->header_bytes += n;
  if (t->header_bytes > t->cap) {
    t->too_large = true;
    return 0;
  }
  const std::string_view line(data, n);
  if (line.starts_with("HTTP/")) {
    t->response->headers.clear();  // a new response (after 1xx): keep only the final one's headers
    return n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return n;  // blank line ending the header block
  t->response->headers.push_back(
      {std::string(Trim(line.substr(0, colon), kHeaderTrim)), std::string(Trim(line.substr(colon + 1), kHeaderTrim))});
  return n;
}

struct CurlSlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

HttpFailure ClassifyCurlError(CURLcode code) {
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      return HttpFailure::kInvalidRequest;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return HttpFailure::kDns;
    case CURLE_COULDNT_CONNECT:
      return HttpFailure::kConnect;
    case CURLE_OPERATION_TIMEDOUT:
      return HttpFailure::kTimeout;
    case CURLE_FILESIZE_EXCEEDED:
      return HttpFailure::kBodyTooLarge;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
      return HttpFailure::kTls;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return HttpFailure::kTransfer;
    default:
      return HttpFailure::kOther;
  }
}

std::string_view FailureCause(HttpFailure failure) {
  switch (failure) {
    case HttpFailure::kDns: return "could not resolve host";
    case HttpFailure::kConnect: return "connection failed";
    case HttpFailure::kTimeout: return "timed out";
    case HttpFailure::kTls: return "TLS failure";
    case HttpFailure::kTransfer: return "transfer failed";
    case HttpFailure::kInvalidRequest: return "invalid request";
    case HttpFailure::kBlocked: return "every address refused by the connect guard";
    case HttpFailure::kBodyTooLarge: return "response too large";
    default: return "request failed";
  }
}

}  // namespace

std::optional<std::string_view> HttpResponse::Header(std::string_view name) const {
  for (const HttpHeader& h : headers) {
    if (EqualsIgnoreCase(h.name, name)) return std::string_view(h.value);
  }
  return std::nullopt;
}

bool IsTransientHttpFailure(HttpFailure failure) {
  return failure == HttpFailure::kConnect || failure == HttpFailure::kTimeout ||
         failure == HttpFailure::kTransfer;
}

std::string RedactUrl(std::string_view url) {
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos) return std::string(url);
  const size_t authority = sep + 3;
  const size_t end = url.find_first_of("/?#", authority);
  const std::string_view host_part = url.substr(authority, end == std::string_view::npos ? url.npos : end - authority);
  const size_t at = host_part.rfind('@');
  if (at == std::string_view::npos) return std::string(url);
  std::string out(url.substr(0, authority));
  out += "***@";
  out += url.substr(authority + at + 1);
  return out;
}

HttpClient::HttpClient(HttpClientOptions options) : options_(std::move(options)) { InitCurlOnce(); }

HttpClient::~HttpClient() {
  for (void* h : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::AcquireHandle() const {
  {
    MutexLock lock(mu_);
    if (!idle_handles_.empty()) {
      void* h = idle_handles_.back();
      idle_handles_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void HttpClient::ReleaseHandle(void* handle) const {
  CURL* curl = static_cast<CURL*>(handle);
  curl_easy_reset(curl);  // drops options, keeps live connections and caches
  MutexLock lock(mu_);
  if (idle_handles_.size() < options_.max_idle_handles) {
    idle_handles_.push_back(curl);
    return;
  }
  curl_easy_cleanup(curl);
}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request, HttpFailure* failure,
                                      std::string* blocked_reason) const {
  return Perform(request, nullptr, failure, blocked_reason);
}

Result<HttpResponse> HttpClient::SendStreaming(const HttpRequest& request, const HttpChunkCallback& on_chunk,
                                               HttpFailure* failure) const {
  return Perform(request, &on_chunk, failure, nullptr);
}

Result<HttpResponse> HttpClient::Perform(const HttpRequest& request, const HttpChunkCallback* on_chunk,
                                         HttpFailure* failure, std::string* blocked_reason) const {
  if (blocked_reason != nullptr) blocked_reason->clear();
  HttpFailure local_failure = HttpFailure::kNone;
  HttpFailure& kind = failure != nullptr ? *failure : local_failure;
  kind = HttpFailure::kNone;
  const std::string where = request.method + " " + RedactUrl(request.url);
  auto invalid = [&](const std::string& why) -> Status {
    kind = HttpFailure::kInvalidRequest;
    return Status::InvalidArgument(where + ": " + why);
  };
  if (!HasAllowedScheme(request.url)) return invalid("URL must start with http:// or https://");
  if (HasLineBreak(request.url)) return invalid("URL contains a line break");
  if (!ValidToken(request.method)) return invalid("invalid HTTP method");
  for (const HttpHeader& h : request.headers) {
    if (!ValidToken(h.name) || HasLineBreak(h.value)) return invalid("invalid header \"" + h.name + "\"");
  }
  if (request.timeout_ms < 0 || request.connect_timeout_ms < 0) return invalid("negative timeout");
  for (const std::string& entry : request.resolve) {
    if (HasLineBreak(entry)) return invalid("resolve entry contains a line break");
  }
  if (g_curl_init_result != CURLE_OK) {
    kind = HttpFailure::kOther;
    return Status::Internal(where + ": curl_global_init failed: " + curl_easy_strerror(g_curl_init_result));
  }

  CURL* curl = static_cast<CURL*>(AcquireHandle());
  if (curl == nullptr) {
    kind = HttpFailure::kOther;
    return Status::Internal(where + ": curl_easy_init failed");
  }
  struct HandleReturner {
    const HttpClient* client;
    CURL* curl;
    ~HandleReturner() { client->ReleaseHandle(curl); }
  } returner{this, curl};

  std::unique_ptr<curl_slist, CurlSlistDeleter> headers;
  auto add_header = [&headers](const std::string& line) {
    curl_slist* next = curl_slist_append(headers.get(), line.c_str());
    if (next != nullptr) {
      (void)headers.release();
      headers.reset(next);
    }
    return next != nullptr;
  };
  for (const HttpHeader& h : request.headers) {
    // "Name;" is libcurl's spelling of a header with an empty value.
    if (!add_header(h.value.empty() ? h.name + ";" : h.name + ": " + h.value)) {
      kind = HttpFailure::kOther;
      return Status::Internal(where + ": out of memory building headers");
    }
  }
  add_header("Expect:");  // no 100-continue round trip for large POST bodies

  HttpResponse response;
  Transfer transfer;
  transfer.curl = curl;
  transfer.cap = options_.max_response_bytes;
  transfer.on_chunk = on_chunk;
  transfer.response = &response;
  transfer.guard = &options_.connect_guard;
  char error_buffer[CURL_ERROR_SIZE] = {0};

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_ms));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_ms));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, &OnOpenSocket);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &transfer);
  // libcurl 7.88 applies this only when the length is announced; OnBody counts the rest.
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options_.max_response_bytes));
  if (!options_.use_environment_proxy) {
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
  }
  if (request.low_speed_bytes_per_s > 0 && request.low_speed_seconds > 0) {
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(request.low_speed_bytes_per_s));
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(request.low_speed_seconds));
  }
  std::unique_ptr<curl_slist, CurlSlistDeleter> resolve;
  for (const std::string& entry : request.resolve) {
    curl_slist* next = curl_slist_append(resolve.get(), entry.c_str());
    if (next == nullptr) {
      kind = HttpFailure::kOther;
      return Status::Internal(where + ": out of memory building resolve overrides");
    }
    (void)resolve.release();
    resolve.reset(next);
  }
  if (resolve != nullptr) curl_easy_setopt(curl, CURLOPT_RESOLVE, resolve.get());
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "POST" || !request.body.empty()) {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  }
  // CURLOPT_POST turned any method with a body into POST; name the real one when it differs.
  const bool plain = request.method == "POST" || request.method == "HEAD" ||
                     (request.method == "GET" && request.body.empty());
  if (!plain) curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());

  const CURLcode rc = curl_easy_perform(curl);
  if (transfer.too_large) {
    kind = HttpFailure::kBodyTooLarge;
    return Status::ResourceExhausted(where + ": response larger than the " +
                                     std::to_string(options_.max_response_bytes) + "-byte limit");
  }
  if (transfer.aborted) {
    kind = HttpFailure::kAborted;
    return Status::Cancelled(where + ": transfer aborted by the response consumer");
  }
  if (rc != CURLE_OK && !transfer.blocked_reason.empty()) {
    kind = HttpFailure::kBlocked;
    if (blocked_reason != nullptr) *blocked_reason = transfer.blocked_reason;
    return Status::IOError(where + ": " + std::string(FailureCause(kind)) + " (" + transfer.blocked_reason + ")");
  }
  if (rc == CURLE_FILESIZE_EXCEEDED) {
    kind = HttpFailure::kBodyTooLarge;
    return Status::ResourceExhausted(where + ": response larger than the " +
                                     std::to_string(options_.max_response_bytes) + "-byte limit");
  }
  if (rc != CURLE_OK) {
    kind = ClassifyCurlError(rc);
    std::string detail = error_buffer[0] != '\0' ? std::string(error_buffer) : curl_easy_strerror(rc);
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) detail.pop_back();
    std::string message = where + ": " + std::string(FailureCause(kind)) + " (" + detail + ")";
    if (kind == HttpFailure::kTimeout) {
      message += "; timeout " + std::to_string(request.timeout_ms) + " ms, connect timeout " +
                 std::to_string(request.connect_timeout_ms) + " ms";
    }
    if (kind == HttpFailure::kInvalidRequest) return Status::InvalidArgument(std::move(message));
    return Status::IOError(std::move(message));
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  response.status = static_cast<int>(status);
  char* primary_ip = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_PRIMARY_IP, &primary_ip) == CURLE_OK && primary_ip != nullptr) {
    response.remote_address = primary_ip;
  }
  return response;
}

}  // namespace attest
