#include "crawl/uri_reference.h"

namespace attest {
namespace {

struct Parts {
  std::optional<std::string_view> scheme, authority, query, fragment;
  std::string_view path;
};

bool IsSchemeChar(char c, bool first) {
  const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  if (first) return alpha;
  return alpha || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// RFC 3986 Appendix B, written as a scan.
Parts Split(std::string_view s) {
  Parts p;
  const size_t colon = s.find(':');
  if (colon != std::string_view::npos && colon > 0 && s.find_first_of("/?#") > colon) {
    bool ok = true;
    for (size_t i = 0; i < colon && ok; ++i) ok = IsSchemeChar(s[i], i == 0);
    if (ok) {
      p.scheme = s.substr(0, colon);
      s.remove_prefix(colon + 1);
    }
  }
  if (const size_t hash = s.find('#'); hash != std::string_view::npos) {
    p.fragment = s.substr(hash + 1);
    s = s.substr(0, hash);
  }
  if (const size_t q = s.find('?'); q != std::string_view::npos) {
    p.query = s.substr(q + 1);
    s = s.substr(0, q);
  }
  if (s.substr(0, 2) == "//") {
    const size_t end = s.find('/', 2);
    p.authority = s.substr(2, end == std::string_view::npos ? std::string_view::npos : end - 2);
    s = end == std::string_view::npos ? std::string_view() : s.substr(end);
  }
  p.path = s;
  return p;
}

// RFC 3986 §5.2.4.
std::string RemoveDotSegments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.substr(0, 3) == "../") {
      in.remove_prefix(3);
    } else if (in.substr(0, 2) == "./") {
      in.remove_prefix(2);
    } else if (in.substr(0, 3) == "/./") {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.substr(0, 4) == "/../" || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      const size_t cut = out.rfind('/');
      out.erase(cut == std::string::npos ? 0 : cut);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      const size_t next = in.find('/', in[0] == '/' ? 1 : 0);
      out.append(in.substr(0, next));
      in = next == std::string_view::npos ? std::string_view() : in.substr(next);
    }
  }
  return out;
}

// RFC 3986 §5.2.3.
std::string Merge(const Parts& base, std::string_view ref_path) {
  if (base.authority && base.path.empty()) return "/" + std::string(ref_path);
  const size_t slash = base.path.rfind('/');
  if (slash == std::string_view::npos) return std::string(ref_path);
  return std::string(base.path.substr(0, slash + 1)) + std::string(ref_path);
}

}  // namespace

std::optional<std::string> ResolveReference(std::string_view base_text, std::string_view ref_text) {
  const Parts r = Split(ref_text);
  const Parts b = Split(base_text);
  Parts t;
  std::string path;
  if (r.scheme) {
    t.scheme = r.scheme;
    t.authority = r.authority;
    path = RemoveDotSegments(r.path);
    t.query = r.query;
  } else {
    if (!b.scheme) return std::nullopt;
    t.scheme = b.scheme;
    if (r.authority) {
      t.authority = r.authority;
      path = RemoveDotSegments(r.path);
      t.query = r.query;
    } else {
      t.authority = b.authority;
      if (r.path.empty()) {
        path = std::string(b.path);
        t.query = r.query ? r.query : b.query;
      } else {
        path = RemoveDotSegments(r.path[0] == '/' ? std::string(r.path) : Merge(b, r.path));
        t.query = r.query;
      }
    }
  }
  // §5.3 recomposition.
  std::string out(*t.scheme);
  out += ':';
  if (t.authority) {
    out += "//";
    out += *t.authority;
  }
  out += path;
  if (t.query) {
    out += '?';
    out += *t.query;
  }
  if (r.fragment) {
    out += '#';
    out += *r.fragment;
  }
  return out;
}

}  // namespace attest
