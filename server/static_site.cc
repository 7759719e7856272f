// The page's files over HTTP (docs/web.md, "Embedding and serving"; docs/http_api.md, "The page").
#include "server/static_site.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>

#include "common/checksum.h"
#include "common/file_util.h"

namespace attest::server {
namespace {

// Deflate with the gzip wrapper at level 9. zlib writes a header with no name and mtime 0, so the
// bytes depend only on the input.
std::string Gzip(std::string_view in) {
  z_stream z{};
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return rc == Z_STREAM_END ? out : "";
}

std::string EtagOf(std::string_view bytes) { return "\"" + Sha256Hex(bytes).substr(0, 32) + "\""; }

// RFC 9110 §13.1.2: If-None-Match is "*" or a list of entity tags, possibly weak (W/"...").
bool EtagMatches(const std::string& header, const std::string& etag) {
  if (header.empty()) return false;
  size_t pos = 0;
  while (pos < header.size()) {
    size_t comma = header.find(',', pos);
    if (comma == std::string::npos) comma = header.size();
    std::string_view tag(header.data() + pos, comma - pos);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag == "*") return true;
    if (tag.substr(0, 2) == "W/") tag.remove_prefix(2);
    if (tag == etag) return true;
    pos = comma + 1;
  }
  return false;
}

// Whether the client accepts gzip (RFC 9110 §12.5.3), honouring an explicit "gzip;q=0".
bool AcceptsGzip(const std::string& header) {
  size_t pos = 0;
  while (pos < header.size()) {
    size_t comma = header.find(',', pos);
    if (comma == std::string::npos) comma = header.size();
    std::string item = header.substr(pos, comma - pos);
    pos = comma + 1;
    item.erase(std::remove_if(item.begin(), item.end(), [](char c) { return c == ' ' || c == '\t'; }), item.end());
    std::transform(item.begin(), item.end(), item.begin(), [](unsigned char c) { return std::tolower(c); });
    const size_t semi = item.find(';');
    const std::string coding = item.substr(0, semi);
    if (coding != "gzip" && coding != "x-gzip" && coding != "*") continue;
    if (semi != std::string::npos) {
      const std::string params = item.substr(semi + 1);
      if (params.rfind("q=", 0) == 0 && std::strtod(params.c_str() + 2, nullptr) <= 0) return false;
    }
    return true;
  }
  return false;
}

// A name the folder mode may open: "index.html" or "assets/<one segment of [A-Za-z0-9._-]>", no
// dot files (so never "..").
bool SafeName(std::string_view name) {
  if (name == "index.html") return true;
  if (name.substr(0, 7) != "assets/") return false;
  std::string_view file = name.substr(7);
  if (file.empty() || file.front() == '.' || file.size() > 200) return false;
  return std::all_of(file.begin(), file.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-';
  });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> PageSecurityHeaders() {
  return {
      // Only this origin's scripts, styles, images (and data: images), and API calls; no inline
      // script or style, no plugins, no framing, no form posts elsewhere.
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; manifest-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"Referrer-Policy", "no-referrer"},
      {"X-Frame-Options", "DENY"},
      {"Cross-Origin-Opener-Policy", "same-origin"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
}

std::string_view WebContentType(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".html")) return "text/html; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".json")) return "application/json";
  if (ends(".txt")) return "text/plain; charset=utf-8";
  return "";
}

bool IsHashedWebName(std::string_view name) {
  // "<stem>-<12 hex>.<ext>" as web/build.mjs names its outputs.
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot < 13) return false;
  if (name[dot - 13] != '-') return false;
  for (size_t i = dot - 12; i < dot; ++i) {
    const char c = name[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Result<std::unique_ptr<StaticSite>> StaticSite::Embedded() {
  std::unique_ptr<StaticSite> site(new StaticSite());
  for (const EmbeddedWebFile& e : EmbeddedWebFiles()) {
    const std::string_view type = WebContentType(e.name);
    if (type.empty()) return Status::Internal("embedded web file '" + std::string(e.name) + "' has an unknown type");
    File f{std::string(e.name), std::string(type), EtagOf(e.bytes), e.bytes, Gzip(e.bytes)};
    if (f.gzip.size() >= f.bytes.size()) f.gzip.clear();
    site->files_.push_back(std::move(f));
  }
  std::sort(site->files_.begin(), site->files_.end(), [](const File& a, const File& b) { return a.name < b.name; });
  if (!site->Find("index.html")) return Status::Internal("the embedded web bundle has no index.html");
  return site;
}

Result<std::unique_ptr<StaticSite>> StaticSite::FromFolder(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::path(dir) / "index.html", ec)) {
    return Status::InvalidArgument("--web-dir " + dir + " has no index.html (build it: cd web && npm run build)");
  }
  std::unique_ptr<StaticSite> site(new StaticSite());
  site->folder_ = dir;
  return site;
}

const StaticSite::File* StaticSite::Find(std::string_view name) const {
  auto it = std::lower_bound(files_.begin(), files_.end(), name,
                             [](const File& f, std::string_view n) { return f.name < n; });
  return it != files_.end() && it->name == name ? &*it : nullptr;
}

std::optional<http::Response> StaticSite::Serve(std::string_view name, const http::Request& request) const {
  if (folder_.empty()) {
    const File* f = Find(name);
    if (!f) return std::nullopt;
    return Build(*f, request, false);
  }
  if (!SafeName(name) || WebContentType(name).empty()) return std::nullopt;
  auto bytes = ReadFileToString(std::filesystem::path(folder_) / std::string(name), 16u << 20);
  if (!bytes.ok()) return std::nullopt;
  File f{std::string(name), std::string(WebContentType(name)), EtagOf(bytes.value()), bytes.value(), ""};
  return Build(f, request, true);
}

http::Response StaticSite::Build(const File& f, const http::Request& request, bool folder) const {
  http::Response r;
  r.headers = PageSecurityHeaders();
  r.headers.emplace_back("ETag", f.etag);
  r.headers.emplace_back("Cache-Control", !folder && IsHashedWebName(f.name) ? "public, max-age=31536000, immutable"
                                                                              : "no-cache");
  if (!f.gzip.empty()) r.headers.emplace_back("Vary", "Accept-Encoding");
  if (EtagMatches(request.Header("if-none-match"), f.etag)) {
    r.status = 304;
    return r;
  }
  r.content_type = f.content_type;
  if (!f.gzip.empty() && AcceptsGzip(request.Header("accept-encoding"))) {
    r.headers.emplace_back("Content-Encoding", "gzip");
    r.body = f.gzip;
  } else {
    r.body = std::string(f.bytes);
  }
  return r;
}

std::vector<StaticSite::FileInfo> StaticSite::Files() const {
  std::vector<FileInfo> out;
  for (const File& f : files_) out.push_back({f.name, f.bytes.size(), f.gzip.empty() ? f.bytes.size() : f.gzip.size()});
  return out;
}

}  // namespace attest::server
