// Host parsing for src/crawl/url.cc (internal): IP literals, dotted IPv4, registered names with IDNA.
#pragma once

#include <string>
#include <string_view>

#include "crawl/url.h"

namespace attest::url_internal {

struct HostParse {
  bool ok = false;
  std::string host;  // normalized (IPv6 without brackets)
  HostKind kind = HostKind::kName;
  UrlErrorCode error = UrlErrorCode::kBadHost;
  std::string detail;
};

// `text` is the host subcomponent as written (brackets included for an IP literal).
HostParse ParseHost(std::string_view text);

bool IsHexDigit(char c);
bool IsUnreserved(char c);

}  // namespace attest::url_internal
