// Fetcher: the guarded HTTP fetcher of live fetch and the crawler. It fetches a URL that came from
// outside (a feed, a search result, a page's link) without letting that URL reach anything but
// the public web: the server-side request forgery (SSRF) guard.
//
// - Scheme, port and host are checked before anything is sent: http/https only, allowed ports
//   (80/443 by default), host literals against the AddressPolicy (URL hosts are parsed and
//   normalized by libcurl's own URL parser, the same one that connects, so "0x7f.1", "2130706433"
//   and "127.1" are 127.0.0.1 here too), localhost names (RFC 6761 §6.3) as loopback, no userinfo.
// - Every address the name resolves to is checked again just before the socket is opened (the
//   open-socket callback of the HTTP client), so a DNS answer that changes between a check and the
//   connect cannot slip through: the check is on the address connected to. No proxy from the
//   environment is used (the address checked must be the server's own).
// - Redirects (301, 302, 303, 307, 308) are followed by hand, at most max_redirects of them; each
//   Location is resolved against the current URL and re-checked like a new URL; a URL seen twice
//   in one chain is a loop.
// - The body is capped on its decoded size (gzip is accepted): the cap is counted as bytes arrive
//   from the decoder, so an endless chunked body or a compression bomb stops at the cap.
// - Connect and total timeouts (the total covers the whole redirect chain) and a low-speed limit.
// - If-None-Match / If-Modified-Since are passed through; a 304 is a response with not_modified.
//
// Errors are values: the Status message starts with a reason code, read back with
// FetchErrorReason(): scheme_not_allowed, port_not_allowed, address_not_global:<range>
// (range names in crawl/address_policy.h), userinfo_not_allowed, invalid_url, too_many_redirects,
// redirect_loop, bad_redirect, body_too_large, timeout, too_slow, dns_failure, connect_failed,
// tls_failure, transfer_failed, fetch_failed.
//
// Thread-safety: Fetch() may be called from any number of threads at once (the HTTP client pools
// its handles; the policy is immutable).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "crawl/address_policy.h"
#include "net/http_client.h"

namespace attest {

struct FetcherOptions {
  AddressPolicyOptions policy;
  std::string user_agent = "AttestBot/" ATTEST_VERSION " (grounded answers; fetches public pages only)";
  size_t max_body_bytes = size_t{8} << 20;  // decoded bytes
  int max_redirects = 5;
  int64_t connect_timeout_ms = 5000;
  int64_t timeout_ms = 20000;             // whole fetch, redirects included
  int64_t low_speed_bytes_per_s = 512;    // abort below this rate...
  int64_t low_speed_seconds = 5;          // ...sustained this long
  // Name-resolution override: addresses (numeric text) for a host and port, or empty to use the
  // system resolver. For tests and pinned deployments; the addresses still pass the connect check.
  std::function<std::vector<std::string>(std::string_view host, int port)> resolve;
};

struct FetchRequest {
  std::string url;
  std::string if_none_match = {};      // sent as If-None-Match when non-empty
  std::string if_modified_since = {};  // sent as If-Modified-Since when non-empty
  int64_t timeout_ms = 0;         // 0 = FetcherOptions::timeout_ms
};

enum class CacheUse { kNone, kHit, kRevalidated };

struct FetchResponse {
  std::string url;                     // as requested
  std::string final_url;               // after redirects (libcurl-normalized)
  std::vector<std::string> redirects;  // each URL redirected to, in order
  int status = 0;
  bool not_modified = false;           // status 304
  std::vector<HttpHeader> headers;     // of the final response
  std::string body;                    // decoded
  std::string remote_address;          // the address actually connected to
  CacheUse cache = CacheUse::kNone;    // set by CachedFetcher

  std::optional<std::string_view> Header(std::string_view name) const;
  std::string_view content_type() const { return Header("Content-Type").value_or(""); }
  std::string_view etag() const { return Header("ETag").value_or(""); }
  std::string_view last_modified() const { return Header("Last-Modified").value_or(""); }
  std::string_view retry_after() const { return Header("Retry-After").value_or(""); }
  std::string_view link() const { return Header("Link").value_or(""); }
};

// A URL that passed the pre-connect checks, as libcurl's parser understands it.
struct CheckedUrl {
  std::string url;   // normalized by libcurl
  std::string host;  // without brackets or trailing dot, lowercase
  int port = 0;
};

class Fetcher {
 public:
  explicit Fetcher(FetcherOptions options = {});
  ~Fetcher();
  Fetcher(const Fetcher&) = delete;
  Fetcher& operator=(const Fetcher&) = delete;

  Result<FetchResponse> Fetch(const FetchRequest& request) const;

  // The checks done before a request is sent (scheme, port, host literal, localhost, userinfo).
  Result<CheckedUrl> CheckUrl(std::string_view url) const;

  const AddressPolicy& policy() const { return policy_; }
  const FetcherOptions& options() const { return options_; }

 private:
  FetcherOptions options_;
  AddressPolicy policy_;
  std::unique_ptr<HttpClient> http_;
};

// The reason code a Fetcher error starts with ("address_not_global:loopback"); empty for OK.
std::string_view FetchErrorReason(const Status& status);

}  // namespace attest
