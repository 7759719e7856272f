// The HTTP Link header field (RFC 8288 §3): "<https://a.example/p>; rel="canonical", </next>; rel=next".
//
//   Link       = #link-value
//   link-value = "<" URI-Reference ">" *( OWS ";" OWS link-param )
//   link-param = token BWS [ "=" BWS ( token / quoted-string ) ]
//
// Several Link field lines may be passed joined by ", " or by line breaks (RFC 9110 §5.3). A
// link-value that does not follow the grammar is skipped up to the next comma outside quotes and
// angle brackets; the others are kept. Parameter names are lowercased; quoted-string values are
// unescaped (RFC 9110 §5.6.4). Targets are returned as written (the caller resolves them against
// the request URL, §3.1). Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attest {

struct LinkValue {
  std::string target;  // the URI-Reference between "<" and ">", trimmed
  std::vector<std::pair<std::string, std::string>> params;  // in order; names lowercase

  // The first occurrence of a parameter (later ones are ignored, §3.3 for rel), or nullopt.
  std::optional<std::string_view> Param(std::string_view name) const;
  // Whether the rel parameter lists `relation` (space-separated, ASCII case-insensitive, §3.3).
  bool HasRel(std::string_view relation) const;
};

// At most `max_links` values are returned (a header is untrusted input).
std::vector<LinkValue> ParseLinkHeader(std::string_view field_value, size_t max_links = 1000);

}  // namespace attest
