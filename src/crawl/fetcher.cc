#include "crawl/fetcher.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>

namespace attest {
namespace {

struct CurlUrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using CurlUrl = std::unique_ptr<CURLU, CurlUrlDeleter>;

struct CurlStringDeleter {
  void operator()(char* p) const { curl_free(p); }
};

std::optional<std::string> GetPart(CURLU* u, CURLUPart part, unsigned flags = 0) {
  char* raw = nullptr;
  if (curl_url_get(u, part, &raw, flags) != CURLUE_OK || raw == nullptr) return std::nullopt;
  std::unique_ptr<char, CurlStringDeleter> owned(raw);
  return std::string(raw);
}

Status Refuse(std::string_view reason, std::string_view url, std::string_view detail = {}) {
  std::string m(reason);
  m += ": ";
  m += RedactUrl(url);
  if (!detail.empty()) {
    m += ": ";
    m += detail;
  }
  return Status::InvalidArgument(std::move(m));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The scheme of an absolute reference (RFC 3986 §3.1), or empty when `ref` has none.
std::string_view SchemeOf(std::string_view ref) {
  if (ref.empty() || !std::isalpha(static_cast<unsigned char>(ref[0]))) return {};
  for (size_t i = 1; i < ref.size(); ++i) {
    const char c = ref[i];
    if (c == ':') return ref.substr(0, i);
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') return {};
  }
  return {};
}

bool HasControlOrSpace(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

bool IsLocalhostName(std::string_view host) {
  return host == "localhost" || (host.size() > 10 && host.ends_with(".localhost"));
}

bool IsRedirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Status TransportError(HttpFailure failure, const std::string& blocked, const Status& error, bool before_deadline) {
  std::string_view reason = "fetch_failed";
  StatusCode code = StatusCode::kUnavailable;
  switch (failure) {
    case HttpFailure::kBlocked:
      return Status::InvalidArgument(blocked + ": " + error.message());
    case HttpFailure::kDns: reason = "dns_failure"; break;
    case HttpFailure::kConnect: reason = "connect_failed"; break;
    case HttpFailure::kTimeout:
      // libcurl reports the low-speed abort as a timeout too; it is the one that fires early.
      reason = before_deadline ? "too_slow" : "timeout";
      code = StatusCode::kDeadlineExceeded;
      break;
    case HttpFailure::kTls: reason = "tls_failure"; break;
    case HttpFailure::kTransfer: reason = "transfer_failed"; break;
    case HttpFailure::kBodyTooLarge: reason = "body_too_large"; code = StatusCode::kResourceExhausted; break;
    case HttpFailure::kInvalidRequest: reason = "invalid_url"; code = StatusCode::kInvalidArgument; break;
    default: break;
  }
  return Status(code, std::string(reason) + ": " + error.message());
}

}  // namespace

std::optional<std::string_view> FetchResponse::Header(std::string_view name) const {
  for (const HttpHeader& h : headers) {
    if (h.name.size() == name.size() &&
        std::equal(h.name.begin(), h.name.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        })) {
      return std::string_view(h.value);
    }
  }
  return std::nullopt;
}

std::string_view FetchErrorReason(const Status& status) {
  if (status.ok()) return {};
  std::string_view m = status.message();
  const size_t sep = m.find(": ");
  return sep == std::string_view::npos ? m : m.substr(0, sep);
}

Fetcher::Fetcher(FetcherOptions options) : options_(std::move(options)), policy_(options_.policy) {
  HttpClientOptions http;
  http.max_response_bytes = options_.max_body_bytes;
  http.user_agent = options_.user_agent;
  http.use_environment_proxy = false;
  const AddressPolicy* policy = &policy_;
  http.connect_guard = [policy](const HttpPeer& peer) {
    const IpAddress address = peer.v6 ? IpAddress::V6(peer.bytes)
                                      : IpAddress::V4((uint32_t{peer.bytes[0]} << 24) | (uint32_t{peer.bytes[1]} << 16) |
                                                      (uint32_t{peer.bytes[2]} << 8) | uint32_t{peer.bytes[3]});
    return policy->CheckPeer(address, peer.port);
  };
  http_ = std::make_unique<HttpClient>(std::move(http));
}

Fetcher::~Fetcher() = default;

Result<CheckedUrl> Fetcher::CheckUrl(std::string_view url) const {
  if (url.empty() || url.size() > 8192 || HasControlOrSpace(url)) return Refuse("invalid_url", url);
  const std::string_view scheme = SchemeOf(url);
  if (scheme.empty()) return Refuse("invalid_url", url, "not an absolute URL");
  if (!AddressPolicy::SchemeAllowed(scheme)) return Refuse("scheme_not_allowed", url, scheme);
  CurlUrl u(curl_url());
  if (u == nullptr) return Status::Internal("curl_url failed");
  const std::string text(url);
  const CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, text.c_str(), 0);
  if (rc == CURLUE_BAD_PORT_NUMBER) return Refuse("port_not_allowed", url, "not a port number");
  if (rc != CURLUE_OK) return Refuse("invalid_url", url, curl_url_strerror(rc));
  CheckedUrl out;
  const auto port = GetPart(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  const auto host = GetPart(u.get(), CURLUPART_HOST);
  const auto normalized = GetPart(u.get(), CURLUPART_URL);
  if (!port || !host || !normalized || host->empty()) return Refuse("invalid_url", url, "no host");
  out.port = std::atoi(port->c_str());
  if (!policy_.PortAllowed(out.port)) return Refuse("port_not_allowed", url, *port);
  std::string h = Lower(*host);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  while (!h.empty() && h.back() == '.') h.pop_back();
  if (h.empty()) return Refuse("invalid_url", url, "empty host");
  if (const auto literal = ParseIpAddress(h)) {
    std::string reason = policy_.CheckAddress(*literal);
    if (!reason.empty()) return Refuse(reason, url, literal->ToString());
  } else if (IsLocalhostName(h)) {
    // RFC 6761 §6.3: localhost names always mean the loopback range, whatever a resolver says.
    // The allow-list names addresses, not names, so it does not exempt these.
    return Refuse("address_not_global:loopback", url, h);
  }
  if (GetPart(u.get(), CURLUPART_USER) || GetPart(u.get(), CURLUPART_PASSWORD)) {
    return Refuse("userinfo_not_allowed", url);
  }
  out.host = std::move(h);
  out.url = *normalized;
  return out;
}

Result<FetchResponse> Fetcher::Fetch(const FetchRequest& request) const {
  const int64_t budget = request.timeout_ms > 0 ? request.timeout_ms : options_.timeout_ms;
  const int64_t deadline = NowMs() + budget;
  FetchResponse out;
  out.url = request.url;
  std::vector<std::string> seen;
  std::string current = request.url;
  for (int hop = 0;; ++hop) {
    ATTEST_ASSIGN_OR_RETURN(CheckedUrl checked, CheckUrl(current));
    if (std::find(seen.begin(), seen.end(), checked.url) != seen.end()) {
      return Status::UpstreamError("redirect_loop: " + RedactUrl(request.url) + ": back to " + RedactUrl(checked.url));
    }
    seen.push_back(checked.url);
    const int64_t remaining = deadline - NowMs();
    if (remaining <= 0) {
      return Status::DeadlineExceeded("timeout: " + RedactUrl(request.url) + ": " + std::to_string(budget) + " ms");
    }
    HttpRequest http;
    http.url = checked.url;
    http.timeout_ms = remaining;
    http.connect_timeout_ms = std::min(options_.connect_timeout_ms, remaining);
    http.low_speed_bytes_per_s = options_.low_speed_bytes_per_s;
    http.low_speed_seconds = options_.low_speed_seconds;
    http.headers.push_back({"Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"});
    if (!request.if_none_match.empty()) http.headers.push_back({"If-None-Match", request.if_none_match});
    if (!request.if_modified_since.empty()) http.headers.push_back({"If-Modified-Since", request.if_modified_since});
    if (options_.resolve) {
      const std::vector<std::string> addresses = options_.resolve(checked.host, checked.port);
      if (!addresses.empty()) {
        // "+": the entry ages out of the handle's DNS cache like an ordinary answer.
        std::string entry = "+" + checked.host + ":" + std::to_string(checked.port) + ":";
        for (size_t i = 0; i < addresses.size(); ++i) {
          if (i > 0) entry += ',';
          entry += addresses[i].find(':') != std::string::npos ? "[" + addresses[i] + "]" : addresses[i];
        }
        http.resolve.push_back(std::move(entry));
      }
    }
    HttpFailure failure = HttpFailure::kNone;
    std::string blocked;
    Result<HttpResponse> response = http_->Send(http, &failure, &blocked);
    if (!response.ok()) return TransportError(failure, blocked, response.status(), NowMs() < deadline - 50);
    if (IsRedirect(response->status)) {
      const std::optional<std::string_view> location = response->Header("Location");
      if (!location || location->empty()) {
        return Status::UpstreamError("bad_redirect: " + RedactUrl(checked.url) + ": no Location");
      }
      if (hop >= options_.max_redirects) {
        return Status::UpstreamError("too_many_redirects: " + RedactUrl(request.url) + ": more than " +
                                     std::to_string(options_.max_redirects));
      }
      const std::string_view scheme = SchemeOf(*location);
      if (!scheme.empty() && !AddressPolicy::SchemeAllowed(scheme)) {
        return Refuse("scheme_not_allowed", *location, "redirect from " + RedactUrl(checked.url));
      }
      CurlUrl base(curl_url());
      const std::string loc(*location);
      if (base == nullptr || curl_url_set(base.get(), CURLUPART_URL, checked.url.c_str(), 0) != CURLUE_OK) {
        return Status::Internal("cannot re-parse " + RedactUrl(checked.url));
      }
      const CURLUcode rc = curl_url_set(base.get(), CURLUPART_URL, loc.c_str(), 0);
      if (rc == CURLUE_BAD_PORT_NUMBER) return Refuse("port_not_allowed", loc, "redirect target");
      if (rc != CURLUE_OK) {
        return Status::UpstreamError("bad_redirect: " + RedactUrl(checked.url) + ": " + curl_url_strerror(rc));
      }
      std::optional<std::string> next = GetPart(base.get(), CURLUPART_URL);
      if (!next) return Status::UpstreamError("bad_redirect: " + RedactUrl(checked.url));
      out.redirects.push_back(*next);
      current = std::move(*next);
      continue;
    }
    out.final_url = checked.url;
    out.status = response->status;
    out.not_modified = response->status == 304;
    out.headers = std::move(response->headers);
    out.body = std::move(response->body);
    out.remote_address = std::move(response->remote_address);
    return out;
  }
}

}  // namespace attest
