// URL identity for the crawler: a strict parser for http and https URLs, reference resolution
// (RFC 3986 §5.2) for links found in pages, and the canonical form that names a fetched page.
//
// ParseUrl applies the syntax- and scheme-based normalizations of RFC 3986 §6.2.2–6.2.3 while it
// parses, so two spellings of one URL give equal `Url` values:
//   - scheme and host lowercased; percent-encoding hex digits uppercased;
//   - percent-encoded unreserved characters (ALPHA DIGIT - . _ ~) decoded;
//   - dot segments removed (§5.2.4, after that decoding, so "%2E%2E" is a ".." segment);
//   - the default port (80 for http, 443 for https) and an empty port dropped; empty path -> "/";
//   - a non-ASCII (or percent-encoded UTF-8) host converted to its IDNA ASCII form (UTS #46,
//     nontransitional, via ICU); an IPv6 literal printed in the RFC 5952 form.
// Characters outside the RFC 3986 sets but unambiguous inside path, query and fragment (space,
// non-ASCII bytes, " < > ^ ` { | } [ ]) are percent-encoded, as RFC 3987 §3.1 maps an IRI to a URI,
// so every parsed URL serializes to a valid URI. Anything structural is refused with a named
// error: control characters, backslashes, malformed percent triplets, %00, userinfo (credentials
// have no place in a crawl frontier; RFC 3986 §7.5), bad ports, empty or malformed hosts, and hosts
// that look numeric but are not a dotted-decimal IPv4 address ("127.1", "0x7f.1", "2130706433":
// other parsers read these as addresses, RFC 3986 §7.4).
//
// CanonicalUrl then names the page: the fragment is dropped and tracking parameters are removed
// from the query (utm_*, gclid, fbclid, mc_cid, mc_eid and a configurable list). The remaining
// parameters keep their order: servers may read them positionally, so sorting could name a
// different resource.
//
// Thread-safety: all functions are pure and may be called from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attest {

enum class UrlErrorCode {
  kEmpty,
  kTooLong,             // longer than kMaxUrlBytes
  kControlCharacter,    // C0 control or DEL anywhere
  kBackslash,           // read as "/" by browsers, as data by RFC 3986: ambiguous
  kMissingScheme,       // a relative reference where an absolute URL is needed
  kBadScheme,           // not ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
  kUnsupportedScheme,   // a valid scheme other than http and https
  kMissingHost,         // no authority ("http:g") or an empty host
  kUserinfo,            // "user:pass@" in the authority: refused for crawling
  kBadHost,             // a character or label a host name cannot have
  kBadIdn,              // IDNA conversion to ASCII failed
  kAmbiguousIpv4,       // numeric-looking host that is not strict dotted-decimal IPv4
  kBadIpv6,             // malformed IP literal, zone ids, IPvFuture
  kBadPort,             // not digits, zero, or above 65535
  kBadPercentEncoding,  // "%" not followed by two hex digits
  kNulByte,             // "%00" (RFC 3986 §7.3)
};
std::string_view UrlErrorName(UrlErrorCode code);

struct UrlError {
  UrlErrorCode code = UrlErrorCode::kEmpty;
  size_t offset = 0;   // byte offset in the input where the problem was found
  std::string detail;  // human-readable: what was wrong
  std::string ToString() const;  // "BadPort at 18: port 99999 is above 65535"
};

inline constexpr size_t kMaxUrlBytes = 8192;

enum class HostKind { kName, kIpv4, kIpv6 };

struct Url {
  std::string scheme;  // "http" or "https"
  std::string host;    // lowercase ASCII; an IPv6 address without its brackets
  HostKind host_kind = HostKind::kName;
  std::optional<uint16_t> port;  // only when not the scheme's default
  std::string path = "/";        // normalized, always starts with "/"
  std::optional<std::string> query;     // without "?"; present-but-empty differs from absent
  std::optional<std::string> fragment;  // without "#"

  uint16_t EffectivePort() const;  // port, or 80 / 443
  std::string Authority() const;   // host (bracketed when IPv6) and ":port" when not default
  std::string Spec() const;        // the whole normalized URL, fragment included
  bool operator==(const Url&) const = default;
};

// Either a Url or the error naming what is wrong.
struct UrlParse {
  std::optional<Url> url;
  UrlError error;
  bool ok() const { return url.has_value(); }
};

// Parses an absolute http(s) URL (no surrounding whitespace allowed) and normalizes it.
UrlParse ParseUrl(std::string_view input);

// Resolves a link found in a page against the page's URL (RFC 3986 §5.2.2, strict: "http:g" is
// not rewritten to a relative reference) and parses the result. Leading and trailing ASCII
// whitespace is removed first, as HTML does for attribute URLs.
UrlParse ResolveUrl(const Url& base, std::string_view reference);

// The five components of a generic URI reference (RFC 3986 Appendix B), undefined kept apart
// from empty. No validation: this is the shape §5.2 resolution works on.
struct UriReference {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;
};
UriReference SplitUriReference(std::string_view text);
std::string RecomposeUri(const UriReference& ref);          // §5.3
UriReference ResolveReference(const UriReference& base, const UriReference& ref);  // §5.2.2
std::string RemoveDotSegments(std::string_view path);      // §5.2.4
// Convenience over the three above, for any scheme: ResolveUriString("http://a/b/c/d;p?q", "../g").
std::string ResolveUriString(std::string_view base, std::string_view reference);

struct CanonicalOptions {
  bool drop_fragment = true;
  bool drop_tracking_parameters = true;
  // Dropped besides the built-in list (utm_* by prefix; gclid, fbclid, mc_cid, mc_eid exactly).
  // Compared case-insensitively with the parameter name (the text before "=").
  std::vector<std::string> extra_tracking_parameters;
};

// The page's identity: Spec() without fragment and tracking parameters. If every query parameter
// was a tracking parameter the "?" goes too; a query that was empty to begin with ("/?") stays.
std::string CanonicalUrl(const Url& url, const CanonicalOptions& options = {});
// Whether a query parameter name is dropped by CanonicalUrl under `options`.
bool IsTrackingParameter(std::string_view name, const CanonicalOptions& options = {});

// Same registrable host, for accepting rel=canonical and similar claims: the hosts are equal after
// removing one leading "www." label. Deliberately not public-suffix aware: "docs.example.org" and
// "example.org" are different sites here, which errs on the side of refusing a canonical claim.
bool SameSite(const Url& a, const Url& b);

// A path segment naming a moving version ("current", "latest", "stable", ASCII case-insensitive):
// the crawler records the URL as an alias of the version it served at fetch time.
struct VersionAlias {
  size_t segment_index = 0;  // 0-based among the path's segments ("/docs/current/x": 1)
  std::string word;          // lowercase
  bool operator==(const VersionAlias&) const = default;
};
std::vector<VersionAlias> FindVersionAliases(const Url& url);

}  // namespace attest
