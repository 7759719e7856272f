#include "server/http_wire.h"

#include <algorithm>
#include <cctype>

#include <boost/beast/http/status.hpp>

#include <charconv>

#include "common/strings.h"

namespace attest::http::wire {
namespace {

bool Decode(std::string_view in, bool plus_is_space, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = HexDigitValue(in[i + 1]), lo = HexDigitValue(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return true;
}

void AppendClean(std::string_view s, std::string& out) {
  for (char c : s) {
    if (c != '\r' && c != '\n') out.push_back(c);
  }
}

void AppendNumber(size_t n, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, n);
  out.append(buf, r.ptr);
}

void AppendHex(size_t n, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, n, 16);
  out.append(buf, r.ptr);
}

size_t HexDigits(size_t n) {
  size_t d = 1;
  while (n >= 16) {
    n /= 16;
    ++d;
  }
  return d;
}

void AppendStatusLine(int status, unsigned version, std::string& out) {
  out += version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  AppendNumber(static_cast<size_t>(status), out);
  out += ' ';
  auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
  out.append(reason.data(), reason.size());
  out += "\r\n";
}

void AppendHeader(std::string_view name, std::string_view value, std::string& out) {
  AppendClean(name, out);
  out += ": ";
  AppendClean(value, out);
  out += "\r\n";
}

// Size of the SSE payload (without chunk framing).
size_t PayloadSize(std::string_view event, std::string_view data) {
  size_t n = 0;
  if (!event.empty()) {
    n += 8;  // "event: " + "\n"
    for (char c : event) n += (c != '\r' && c != '\n');
  }
  size_t lines = 1, dropped = 0;
  for (char c : data) {
    lines += (c == '\n');
    dropped += (c == '\r' || c == '\n');
  }
  n += lines * 7 + data.size() - dropped;  // "data: " + "\n" per line
  return n + 1;                            // blank line ends the event
}

}  // namespace

std::string_view RawPath(std::string_view target) {
  if (target.substr(0, 7) == "http://" || target.substr(0, 8) == "https://") {
    size_t authority = target.find("//") + 2;
    size_t slash = target.find_first_of("/?", authority);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  return target.substr(0, std::min(target.find('?'), target.find('#')));
}

bool DecodeSegment(std::string_view in, std::string& out) {
  out.clear();
  return Decode(in, false, out) && out.find('\0') == std::string::npos;
}

TargetParse ParseTarget(std::string_view target, std::string& path, std::map<std::string, std::string>& query,
                        std::string& repeated) {
  constexpr TargetParse kBad = TargetParse::kMalformed;
  query.clear();
  repeated.clear();
  if (target.substr(0, 7) == "http://" || target.substr(0, 8) == "https://") {
    size_t authority = target.find("//") + 2;
    size_t slash = target.find_first_of("/?", authority);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    if (!target.empty() && target.front() == '?') return kBad;
  }
  if (target.empty() || target.front() != '/') return kBad;
  size_t q = target.find('?');
  if (!Decode(target.substr(0, q), false, path)) return kBad;
  if (path.find('\0') != std::string::npos) return kBad;
  if (q == std::string_view::npos) return TargetParse::kOk;
  std::string_view rest = target.substr(q + 1);
  size_t hash = rest.find('#');
  if (hash != std::string_view::npos) rest = rest.substr(0, hash);
  std::string key, value;
  while (!rest.empty()) {
    size_t amp = rest.find('&');
    std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (pair.empty()) continue;
    size_t eq = pair.find('=');
    if (!Decode(pair.substr(0, eq), true, key)) return kBad;
    if (eq == std::string_view::npos) {
      value.clear();
    } else if (!Decode(pair.substr(eq + 1), true, value)) {
      return kBad;
    }
    if (!query.emplace(key, value).second) {
      repeated = key;
      return TargetParse::kRepeatedKey;
    }
  }
  return TargetParse::kOk;
}

FramingVerdict CheckTransferEncoding(const std::vector<std::string_view>& values, unsigned version) {
  if (values.empty()) return {};
  if (version < 11) {
    return {400, "Transfer-Encoding is not allowed in an HTTP/1.0 request (its framing cannot be trusted)"};
  }
  std::vector<std::string_view> codings;
  for (std::string_view list : values) {
    while (true) {
      size_t comma = list.find(',');
      std::string_view item = list.substr(0, comma);
      while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
      while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
      if (!item.empty()) codings.push_back(item);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
  }
  auto is_chunked = [](std::string_view c) {
    static constexpr std::string_view kChunked = "chunked";
    if (c.size() != kChunked.size()) return false;
    for (size_t i = 0; i < c.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(c[i])) != kChunked[i]) return false;
    }
    return true;
  };
  if (codings.empty()) return {400, "Transfer-Encoding is empty"};
  const size_t chunked = static_cast<size_t>(std::count_if(codings.begin(), codings.end(), is_chunked));
  if (chunked > 1) return {400, "Transfer-Encoding applies chunked more than once"};
  if (!is_chunked(codings.back()) && chunked == 1) {
    return {400, "Transfer-Encoding: chunked is not the final coding, so the body length is unknown"};
  }
  for (std::string_view c : codings) {
    if (!is_chunked(c)) {
      return {501, "transfer coding '" + std::string(c.substr(0, 64)) + "' is not implemented (only chunked is)"};
    }
  }
  return {};
}

void AppendResponse(const Response& response, unsigned version, bool keep_alive, std::string& out) {
  out.reserve(out.size() + 160 + response.body.size());
  AppendStatusLine(response.status, version, out);
  const bool no_body = response.status == 204 || response.status == 304 || response.status < 200;
  if (!response.content_type.empty() && !no_body) AppendHeader("Content-Type", response.content_type, out);
  for (const auto& [name, value] : response.headers) AppendHeader(name, value, out);
  if (!no_body) {
    out += "Content-Length: ";
    AppendNumber(response.body.size(), out);
    out += "\r\n";
  }
  if (!keep_alive) {
    out += "Connection: close\r\n";
  } else if (version == 10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  if (!no_body) out += response.body;
}

void AppendStreamHead(const std::vector<std::pair<std::string, std::string>>& headers, unsigned version,
                      bool chunked, bool keep_alive, std::string& out) {
  AppendStatusLine(200, version, out);
  out += "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\nX-Accel-Buffering: no\r\n";
  for (const auto& [name, value] : headers) AppendHeader(name, value, out);
  if (chunked) out += "Transfer-Encoding: chunked\r\n";
  if (!keep_alive) out += "Connection: close\r\n";
  out += "\r\n";
}

size_t EventSize(std::string_view event, std::string_view data, bool chunked) {
  size_t n = PayloadSize(event, data);
  return chunked ? HexDigits(n) + 2 + n + 2 : n;
}

void AppendEvent(std::string_view event, std::string_view data, bool chunked, std::string& out) {
  size_t n = PayloadSize(event, data);
  if (chunked) {
    AppendHex(n, out);
    out += "\r\n";
  }
  if (!event.empty()) {
    out += "event: ";
    AppendClean(event, out);
    out += '\n';
  }
  out += "data: ";
  for (char c : data) {
    if (c == '\n') {
      out += "\ndata: ";
    } else if (c != '\r') {
      out.push_back(c);
    }
  }
  out += "\n\n";
  if (chunked) out += "\r\n";
}

void AppendLastChunk(std::string& out) { out += "0\r\n\r\n"; }

}  // namespace attest::http::wire
