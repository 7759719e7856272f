// Resolving a URI reference against a base URI, RFC 3986 §5.2 (the generic resolver of crawl/url.h, with §5.2.4's
// remove_dot_segments), for Atom's xml:base (RFC 4287 §2, XML Base). Only resolution: no case,
// percent-encoding or port normalisation, which is the URL identity's business. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attest {

// The target URI of `reference` against `base`. A reference with a scheme is returned as is
// (dot segments removed); nullopt when the reference is relative and the base has no scheme.
std::optional<std::string> ResolveUriReference(std::string_view base, std::string_view reference);

}  // namespace attest
