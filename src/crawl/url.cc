#include "crawl/url.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/strings.h"
#include "crawl/url_host.h"

namespace attest {
namespace {

using url_internal::IsHexDigit;
using url_internal::IsUnreserved;

UrlParse Fail(UrlErrorCode code, size_t offset, std::string detail) {
  UrlParse p;
  p.error = UrlError{code, offset, std::move(detail)};
  return p;
}

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSubDelim(char c) { return c != '\0' && std::strchr("!$&'()*+,;=", c) != nullptr; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), Lower);
  return out;
}

enum class Component { kPath, kQuery, kFragment };

void AppendPercent(std::string* out, unsigned char b) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  out->push_back('%');
  out->push_back(kHex[b >> 4]);
  out->push_back(kHex[b & 15]);
}

// Normalizes the percent-encoding of one component (§6.2.2.1–6.2.2.2) and percent-encodes the
// characters the grammar does not allow there but that cannot be misread (RFC 3987 §3.1).
// `base` is the component's offset in the input, for error positions.
std::optional<UrlError> NormalizeComponent(std::string_view text, Component kind, size_t base, std::string* out) {
  out->clear();
  out->reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '%') {
      if (i + 2 >= text.size() || !IsHexDigit(text[i + 1]) || !IsHexDigit(text[i + 2])) {
        return UrlError{UrlErrorCode::kBadPercentEncoding, base + i, "'%' not followed by two hex digits"};
      }
      const auto b = static_cast<unsigned char>(HexDigitValue(text[i + 1]) * 16 + HexDigitValue(text[i + 2]));
      if (b == 0) return UrlError{UrlErrorCode::kNulByte, base + i, "%00 is refused"};
      if (IsUnreserved(static_cast<char>(b))) {
        out->push_back(static_cast<char>(b));
      } else {
        AppendPercent(out, b);
      }
      i += 2;
      continue;
    }
    const bool allowed = u < 0x80 && (IsUnreserved(c) || IsSubDelim(c) || c == ':' || c == '@' || c == '/' ||
                                      (c == '?' && kind != Component::kPath));
    if (allowed) {
      out->push_back(c);
    } else {
      AppendPercent(out, u);
    }
  }
  return std::nullopt;
}

std::optional<UrlError> ParsePort(std::string_view text, size_t base, std::optional<uint16_t>* port) {
  port->reset();
  if (text.empty()) return std::nullopt;  // "host:" = no port (§6.2.3)
  uint32_t v = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsDigit(text[i])) return UrlError{UrlErrorCode::kBadPort, base + i, "port is not a decimal number"};
    v = v * 10 + static_cast<uint32_t>(text[i] - '0');
    if (v > 65535) return UrlError{UrlErrorCode::kBadPort, base, "port is above 65535"};
  }
  if (v == 0) return UrlError{UrlErrorCode::kBadPort, base, "port 0"};
  *port = static_cast<uint16_t>(v);
  return std::nullopt;
}

uint16_t DefaultPort(std::string_view scheme) { return scheme == "https" ? 443 : 80; }

constexpr std::array<std::string_view, 4> kTrackingExact = {"gclid", "fbclid", "mc_cid", "mc_eid"};
constexpr std::array<std::string_view, 3> kVersionWords = {"current", "latest", "stable"};

}  // namespace

std::string_view UrlErrorName(UrlErrorCode code) {
  switch (code) {
    case UrlErrorCode::kEmpty: return "Empty";
    case UrlErrorCode::kTooLong: return "TooLong";
    case UrlErrorCode::kControlCharacter: return "ControlCharacter";
    case UrlErrorCode::kBackslash: return "Backslash";
    case UrlErrorCode::kMissingScheme: return "MissingScheme";
    case UrlErrorCode::kBadScheme: return "BadScheme";
    case UrlErrorCode::kUnsupportedScheme: return "UnsupportedScheme";
    case UrlErrorCode::kMissingHost: return "MissingHost";
    case UrlErrorCode::kUserinfo: return "Userinfo";
    case UrlErrorCode::kBadHost: return "BadHost";
    case UrlErrorCode::kBadIdn: return "BadIdn";
    case UrlErrorCode::kAmbiguousIpv4: return "AmbiguousIpv4";
    case UrlErrorCode::kBadIpv6: return "BadIpv6";
    case UrlErrorCode::kBadPort: return "BadPort";
    case UrlErrorCode::kBadPercentEncoding: return "BadPercentEncoding";
    case UrlErrorCode::kNulByte: return "NulByte";
  }
  return "Unknown";
}

std::string UrlError::ToString() const {
  return std::string(UrlErrorName(code)) + " at " + std::to_string(offset) + ": " + detail;
}

uint16_t Url::EffectivePort() const { return port ? *port : DefaultPort(scheme); }

std::string Url::Authority() const {
  std::string out = host_kind == HostKind::kIpv6 ? "[" + host + "]" : host;
  if (port) out += ":" + std::to_string(*port);
  return out;
}

std::string Url::Spec() const {
  std::string out = scheme + "://" + Authority() + path;
  if (query) out += "?" + *query;
  if (fragment) out += "#" + *fragment;
  return out;
}

UrlParse ParseUrl(std::string_view input) {
  if (input.empty()) return Fail(UrlErrorCode::kEmpty, 0, "empty URL");
  if (input.size() > kMaxUrlBytes) {
    return Fail(UrlErrorCode::kTooLong, kMaxUrlBytes, "URL longer than " + std::to_string(kMaxUrlBytes) + " bytes");
  }
  for (size_t i = 0; i < input.size(); ++i) {
    const auto u = static_cast<unsigned char>(input[i]);
    if (u < 0x20 || u == 0x7F) return Fail(UrlErrorCode::kControlCharacter, i, "control character in URL");
    if (input[i] == '\\') return Fail(UrlErrorCode::kBackslash, i, "backslash in URL");
  }
  // Scheme (§3.1).
  const size_t colon = input.find(':');
  const size_t first_delim = input.find_first_of("/?#");
  if (colon == std::string_view::npos || colon == 0 || (first_delim != std::string_view::npos && first_delim < colon)) {
    return Fail(UrlErrorCode::kMissingScheme, 0, "no scheme: a relative reference");
  }
  const std::string_view scheme_text = input.substr(0, colon);
  if (!IsAlpha(scheme_text[0])) return Fail(UrlErrorCode::kBadScheme, 0, "scheme must start with a letter");
  for (size_t i = 0; i < scheme_text.size(); ++i) {
    const char c = scheme_text[i];
    if (!(IsAlpha(c) || IsDigit(c) || c == '+' || c == '-' || c == '.')) {
      return Fail(UrlErrorCode::kBadScheme, i, "character not allowed in scheme");
    }
  }
  Url url;
  url.scheme = LowerAscii(scheme_text);
  if (url.scheme != "http" && url.scheme != "https") {
    return Fail(UrlErrorCode::kUnsupportedScheme, 0, "scheme '" + url.scheme + "' is not http or https");
  }
  size_t pos = colon + 1;
  if (input.substr(pos, 2) != "//") return Fail(UrlErrorCode::kMissingHost, pos, "no authority after the scheme");
  pos += 2;
  // Authority (§3.2).
  size_t auth_end = input.find_first_of("/?#", pos);
  if (auth_end == std::string_view::npos) auth_end = input.size();
  const std::string_view authority = input.substr(pos, auth_end - pos);
  if (authority.find('@') != std::string_view::npos) {
    return Fail(UrlErrorCode::kUserinfo, pos, "userinfo (credentials) in the authority");
  }
  std::string_view host_text = authority;
  std::string_view port_text;
  size_t port_offset = pos;
  if (!authority.empty() && authority[0] == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Fail(UrlErrorCode::kBadIpv6, pos, "IP literal without closing ']'");
    host_text = authority.substr(0, close + 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return Fail(UrlErrorCode::kBadIpv6, pos + close + 1, "text after the IP literal");
      port_text = rest.substr(1);
      port_offset = pos + close + 2;
    }
  } else if (const size_t c = authority.rfind(':'); c != std::string_view::npos) {
    host_text = authority.substr(0, c);
    port_text = authority.substr(c + 1);
    port_offset = pos + c + 1;
  }
  url_internal::HostParse host = url_internal::ParseHost(host_text);
  if (!host.ok) return Fail(host.error, pos, host.detail);
  url.host = std::move(host.host);
  url.host_kind = host.kind;
  if (auto e = ParsePort(port_text, port_offset, &url.port)) {
    UrlParse p;
    p.error = std::move(*e);
    return p;
  }
  if (url.port && *url.port == DefaultPort(url.scheme)) url.port.reset();
  // Path, query, fragment (§3.3–3.5).
  pos = auth_end;
  size_t path_end = input.find_first_of("?#", pos);
  if (path_end == std::string_view::npos) path_end = input.size();
  std::string normalized;
  if (auto e = NormalizeComponent(input.substr(pos, path_end - pos), Component::kPath, pos, &normalized)) {
    UrlParse p;
    p.error = std::move(*e);
    return p;
  }
  url.path = RemoveDotSegments(normalized);
  if (url.path.empty()) url.path = "/";
  pos = path_end;
  if (pos < input.size() && input[pos] == '?') {
    size_t query_end = input.find('#', pos);
    if (query_end == std::string_view::npos) query_end = input.size();
    if (auto e = NormalizeComponent(input.substr(pos + 1, query_end - pos - 1), Component::kQuery, pos + 1, &normalized)) {
      UrlParse p;
      p.error = std::move(*e);
      return p;
    }
    url.query = normalized;
    pos = query_end;
  }
  if (pos < input.size() && input[pos] == '#') {
    if (auto e = NormalizeComponent(input.substr(pos + 1), Component::kFragment, pos + 1, &normalized)) {
      UrlParse p;
      p.error = std::move(*e);
      return p;
    }
    url.fragment = normalized;
  }
  // Percent-encoding can triple a byte: the limit holds for the normalized form too, so that a
  // parsed URL always parses again from its Spec().
  if (url.Spec().size() > kMaxUrlBytes) {
    return Fail(UrlErrorCode::kTooLong, input.size(), "normalized URL longer than " + std::to_string(kMaxUrlBytes) + " bytes");
  }
  UrlParse p;
  p.url = std::move(url);
  return p;
}

UriReference SplitUriReference(std::string_view text) {
  // ^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?   (Appendix B)
  UriReference r;
  size_t pos = 0;
  const size_t colon = text.find(':');
  const size_t delim = text.find_first_of("/?#");
  if (colon != std::string_view::npos && colon > 0 && (delim == std::string_view::npos || colon < delim)) {
    r.scheme = std::string(text.substr(0, colon));
    pos = colon + 1;
  }
  if (text.substr(pos, 2) == "//") {
    size_t end = text.find_first_of("/?#", pos + 2);
    if (end == std::string_view::npos) end = text.size();
    r.authority = std::string(text.substr(pos + 2, end - pos - 2));
    pos = end;
  }
  size_t path_end = text.find_first_of("?#", pos);
  if (path_end == std::string_view::npos) path_end = text.size();
  r.path = std::string(text.substr(pos, path_end - pos));
  pos = path_end;
  if (pos < text.size() && text[pos] == '?') {
    size_t end = text.find('#', pos);
    if (end == std::string_view::npos) end = text.size();
    r.query = std::string(text.substr(pos + 1, end - pos - 1));
    pos = end;
  }
  if (pos < text.size() && text[pos] == '#') r.fragment = std::string(text.substr(pos + 1));
  return r;
}

std::string RecomposeUri(const UriReference& ref) {
  std::string out;
  if (ref.scheme) out += *ref.scheme + ":";
  if (ref.authority) out += "//" + *ref.authority;
  out += ref.path;
  if (ref.query) out += "?" + *ref.query;
  if (ref.fragment) out += "#" + *ref.fragment;
  return out;
}

std::string RemoveDotSegments(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  auto pop_last_segment = [&out] {
    const size_t slash = out.rfind('/');
    out.erase(slash == std::string::npos ? 0 : slash);
  };
  while (!in.empty()) {
    if (in.starts_with("../")) {
      in.remove_prefix(3);  // A
    } else if (in.starts_with("./")) {
      in.remove_prefix(2);  // A
    } else if (in.starts_with("/./")) {
      in.remove_prefix(2);  // B: "/./" -> "/"
    } else if (in == "/.") {
      in = "/";  // B
    } else if (in.starts_with("/../")) {
      in.remove_prefix(3);  // C: "/../" -> "/"
      pop_last_segment();
    } else if (in == "/..") {
      in = "/";  // C
      pop_last_segment();
    } else if (in == "." || in == "..") {
      in = {};  // D
    } else {
      // E: move the first segment, with its leading "/" if any.
      const size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      const size_t n = next == std::string_view::npos ? in.size() : next;
      out.append(in.substr(0, n));
      in.remove_prefix(n);
    }
  }
  return out;
}

UriReference ResolveReference(const UriReference& base, const UriReference& ref) {
  UriReference t;
  if (ref.scheme) {
    t.scheme = ref.scheme;
    t.authority = ref.authority;
    t.path = RemoveDotSegments(ref.path);
    t.query = ref.query;
  } else {
    if (ref.authority) {
      t.authority = ref.authority;
      t.path = RemoveDotSegments(ref.path);
      t.query = ref.query;
    } else {
      if (ref.path.empty()) {
        t.path = base.path;
        t.query = ref.query ? ref.query : base.query;
      } else {
        if (ref.path[0] == '/') {
          t.path = RemoveDotSegments(ref.path);
        } else {
          std::string merged;  // §5.2.3
          if (base.authority && base.path.empty()) {
            merged = "/" + ref.path;
          } else {
            const size_t slash = base.path.rfind('/');
            merged = (slash == std::string::npos ? std::string() : base.path.substr(0, slash + 1)) + ref.path;
          }
          t.path = RemoveDotSegments(merged);
        }
        t.query = ref.query;
      }
      t.authority = base.authority;
    }
    t.scheme = base.scheme;
  }
  t.fragment = ref.fragment;
  return t;
}

std::string ResolveUriString(std::string_view base, std::string_view reference) {
  return RecomposeUri(ResolveReference(SplitUriReference(base), SplitUriReference(reference)));
}

UrlParse ResolveUrl(const Url& base, std::string_view reference) {
  // HTML strips leading and trailing ASCII whitespace from attribute URLs and the URL standard
  // removes tabs and newlines inside; both are unambiguous, so do the same before resolving.
  constexpr std::string_view kSpace = " \t\n\r\f";
  const size_t b = reference.find_first_not_of(kSpace);
  if (b == std::string_view::npos) reference = {};
  else reference = reference.substr(b, reference.find_last_not_of(kSpace) - b + 1);
  std::string cleaned;
  cleaned.reserve(reference.size());
  for (char c : reference) {
    if (c != '\t' && c != '\n' && c != '\r') cleaned.push_back(c);
  }
  if (cleaned.size() > kMaxUrlBytes) return Fail(UrlErrorCode::kTooLong, kMaxUrlBytes, "reference too long");
  UriReference base_ref;
  base_ref.scheme = base.scheme;
  base_ref.authority = base.Authority();
  base_ref.path = base.path;
  base_ref.query = base.query;
  return ParseUrl(RecomposeUri(ResolveReference(base_ref, SplitUriReference(cleaned))));
}

bool IsTrackingParameter(std::string_view name, const CanonicalOptions& options) {
  const std::string lower = LowerAscii(name);
  if (lower.starts_with("utm_")) return true;
  for (std::string_view t : kTrackingExact) {
    if (lower == t) return true;
  }
  for (const std::string& extra : options.extra_tracking_parameters) {
    if (lower == LowerAscii(extra)) return true;
  }
  return false;
}

std::string CanonicalUrl(const Url& url, const CanonicalOptions& options) {
  std::string out = url.scheme + "://" + url.Authority() + url.path;
  if (url.query) {
    if (!options.drop_tracking_parameters || url.query->empty()) {
      out += "?" + *url.query;
    } else {
      std::string kept;
      std::string_view q = *url.query;
      while (true) {
        const size_t amp = q.find('&');
        const std::string_view param = q.substr(0, amp);
        const std::string_view name = param.substr(0, param.find('='));
        if (!IsTrackingParameter(name, options)) {
          if (!kept.empty()) kept += '&';
          kept.append(param);
        }
        if (amp == std::string_view::npos) break;
        q.remove_prefix(amp + 1);
      }
      if (!kept.empty()) out += "?" + kept;
    }
  }
  if (!options.drop_fragment && url.fragment) out += "#" + *url.fragment;
  return out;
}

bool SameSite(const Url& a, const Url& b) {
  auto site = [](const Url& u) -> std::string_view {
    std::string_view h = u.host;
    if (u.host_kind == HostKind::kName && h.starts_with("www.") && h.size() > 4) h.remove_prefix(4);
    return h;
  };
  return site(a) == site(b);
}

std::vector<VersionAlias> FindVersionAliases(const Url& url) {
  std::vector<VersionAlias> out;
  std::string_view path = url.path;
  size_t index = 0;
  size_t start = 1;  // the path starts with "/"
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string segment = LowerAscii(path.substr(start, end - start));
    for (std::string_view w : kVersionWords) {
      if (segment == w) out.push_back(VersionAlias{index, segment});
    }
    ++index;
    start = end + 1;
  }
  return out;
}

}  // namespace attest
