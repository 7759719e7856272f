// Router and Request helpers of the HTTP transport (server/http_server.h).
//
// Matching: the raw (still %-encoded) path is split on '/', then each segment is decoded, so an
// encoded "%2F" stays inside its segment (document ids may contain '/'); a literal segment must be equal, a "{name}" segment matches
// any non-empty segment and binds it. When several routes match a path, the one with the most
// literal segments wins (so "/v1/documents/batch" beats "/v1/documents/{id}"), ties go to the route
// added first. The route table is built before the server starts and only read afterwards, so
// Find() is safe from any number of threads.
#include <algorithm>
#include <cctype>

#include "server/http_server.h"
#include "server/http_wire.h"

namespace attest::http {
namespace {

// Splits "/a/b/c" into {"a","b","c"}; "/" gives {""}; a trailing slash gives a trailing "".
template <typename Out>
void SplitPath(std::string_view path, Out& out) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    out.emplace_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
}

bool IsParam(const std::string& segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

std::string Request::Header(std::string_view lower_name) const {
  auto it = headers.find(std::string(lower_name));
  return it == headers.end() ? std::string() : it->second;
}

void Router::Add(std::string method, std::string pattern, Pool pool, Handler handler) {
  Route route;
  route.method = std::move(method);
  SplitPath(pattern, route.segments);
  route.pattern = std::move(pattern);
  route.pool = pool;
  route.handler = std::move(handler);
  routes_.push_back(std::move(route));
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  // At most a few dozen routes and a handful of segments: a linear scan over string_views does not
  // allocate except for the bound parameters of the winner.
  thread_local std::vector<std::string_view> raw;
  thread_local std::vector<std::string> parts;
  raw.clear();
  SplitPath(path, raw);
  parts.resize(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    if (!wire::DecodeSegment(raw[i], parts[i])) return Match{};
  }

  Match match;
  const Route* best = nullptr;
  int best_literals = -1;
  for (const Route& route : routes_) {
    if (route.segments.size() != parts.size()) continue;
    int literals = 0;
    bool ok = true;
    for (size_t i = 0; i < parts.size() && ok; ++i) {
      if (IsParam(route.segments[i])) {
        ok = !parts[i].empty();
      } else {
        ok = route.segments[i] == parts[i];
        ++literals;
      }
    }
    if (!ok) continue;
    if (route.method != method) {
      // The path exists under another method: remember it for the Allow header.
      std::string_view m = route.method;
      bool listed = false;
      for (size_t pos = 0; pos < match.allow.size();) {
        size_t end = match.allow.find(", ", pos);
        if (end == std::string::npos) end = match.allow.size();
        if (std::string_view(match.allow).substr(pos, end - pos) == m) listed = true;
        pos = end + 2;
      }
      if (!listed) {
        if (!match.allow.empty()) match.allow += ", ";
        match.allow += m;
      }
      continue;
    }
    if (literals > best_literals) {
      best = &route;
      best_literals = literals;
    }
  }
  if (best == nullptr) return match;
  match.allow.clear();
  match.handler = &best->handler;
  match.pool = best->pool;
  match.pattern = best->pattern;
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& seg = best->segments[i];
    if (IsParam(seg)) match.params.emplace(seg.substr(1, seg.size() - 2), parts[i]);
  }
  return match;
}

std::vector<std::pair<std::string, std::string>> Router::Routes() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Route& r : routes_) out.emplace_back(r.method, r.pattern);
  return out;
}

}  // namespace attest::http
