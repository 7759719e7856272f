// base64url without padding (RFC 4648 §5, as used by JWS compact serialization, RFC 7515 §2),
// for JWTs and API key secrets.
//
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace attest::service {

std::string Base64UrlEncode(std::string_view bytes);

// Strict decoding: only [A-Za-z0-9_-], no padding, no whitespace, a length that is not 1 mod 4,
// and zero bits after the last full byte (so every byte string has exactly one accepted encoding).
// nullopt for anything else.
std::optional<std::string> Base64UrlDecode(std::string_view text);

}  // namespace attest::service
