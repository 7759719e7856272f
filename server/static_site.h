// The page at `/` (docs/web.md): the files of web/dist, embedded in the binary at build time
// (cmake/embed_web.cmake) or read from a folder while developing (`attest serve --web-dir DIR`).
// Served with the page's security headers (a Content-Security-Policy that allows no inline script
// and no other origin), an ETag (304 on If-None-Match), gzip when the client accepts it, a
// long-lived immutable cache for content-hashed asset names and no-cache for index.html.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "server/http_server.h"

namespace attest::server {

// One file of the embedded bundle; `name` is relative to web/dist ("index.html", "assets/x.js").
struct EmbeddedWebFile {
  std::string_view name;
  std::string_view bytes;
};
// The files embedded by the build (the generated web_assets.cc).
std::span<const EmbeddedWebFile> EmbeddedWebFiles();

// The headers every response of the page carries (also 304s and 404s of asset paths).
std::vector<std::pair<std::string, std::string>> PageSecurityHeaders();

// "text/html; charset=utf-8", "text/javascript; charset=utf-8", ... by extension; "" for an
// extension the page does not use (such files are not served).
std::string_view WebContentType(std::string_view name);

// True when `name` carries a content hash ("assets/app-0123456789ab.js"): such a response never
// changes and may be cached for a year.
bool IsHashedWebName(std::string_view name);

class StaticSite {
 public:
  // The embedded bundle: each file is compressed and hashed once, here.
  static Result<std::unique_ptr<StaticSite>> Embedded();
  // A folder laid out like web/dist, read on every request (no compression, no-cache everywhere),
  // so a rebuilt bundle shows on reload. kInvalidArgument when it has no index.html.
  static Result<std::unique_ptr<StaticSite>> FromFolder(const std::string& dir);

  // GET `name` ("index.html" for `/`, "assets/<file>" for `/assets/<file>`): 200 or 304; nullopt
  // when there is no such file (the route answers 404 through the one error table).
  std::optional<http::Response> Serve(std::string_view name, const http::Request& request) const;

  // Names and sizes (raw and gzip) of the embedded files, for `attest serve` to log.
  struct FileInfo {
    std::string name;
    size_t bytes = 0, gzip_bytes = 0;
  };
  std::vector<FileInfo> Files() const;

 private:
  struct File {
    std::string name, content_type, etag;
    std::string_view bytes;  // embedded: static storage
    std::string gzip;        // "" when compression does not help
  };
  StaticSite() = default;
  const File* Find(std::string_view name) const;
  http::Response Build(const File& f, const http::Request& request, bool folder) const;

  std::vector<File> files_;  // sorted by name
  std::string folder_;       // non-empty: read from here on every request
};

}  // namespace attest::server
