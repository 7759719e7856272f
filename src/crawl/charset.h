// The character set of a fetched text page and its decoding to UTF-8 (ICU converters), chosen the
// way the HTML standard's encoding sniffing does (§13.2.3.2): a byte order mark, then the charset
// parameter of the HTTP Content-Type, then (HTML only) a prescan of the first 1024 bytes for
// <meta charset> / <meta http-equiv=Content-Type content="...; charset=...">. Labels are mapped
// to encodings by the WHATWG Encoding Standard's label table (so latin1, iso-8859-1 and us-ascii
// mean windows-1252). Differences from the standard, on purpose:
//   - an unknown label (or one ICU cannot decode) is refused ("unsupported_charset:<label>")
//     instead of being ignored: guessed text would be indexed silently, a refusal is counted;
//   - with nothing declared, a body that is valid UTF-8 is read as UTF-8, anything else as
//     windows-1252 (the standard's default for most locales);
//   - bytes invalid in the chosen encoding become U+FFFD only while they are at most 1 in 100 of
//     the decoded characters; a page with more is refused ("invalid_utf8" / "invalid_charset_bytes").
//
// Thread-safety: pure functions (each call opens its own ICU converter).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "attest/status.h"

namespace attest {

// The WHATWG name of the encoding a label means ("latin1" -> "windows-1252", " UTF8 " -> "UTF-8"),
// or "" when the label is not in the table.
std::string EncodingForLabel(std::string_view label);

// The charset parameter of a Content-Type value (quotes removed), or nullopt.
std::optional<std::string> ContentTypeCharset(std::string_view content_type);

// The label a <meta> element in the first 1024 bytes of `html` declares (the standard's prescan:
// comments and other tags are skipped, http-equiv needs content-type), or nullopt.
std::optional<std::string> PrescanMetaCharset(std::string_view html);

enum class CharsetSource { kBom, kHeader, kMeta, kDefault };

struct DecodedText {
  std::string text;      // UTF-8 without a byte order mark
  std::string encoding;  // WHATWG name
  CharsetSource source = CharsetSource::kDefault;
  size_t replaced = 0;   // invalid byte sequences replaced by U+FFFD
};

// Decodes a text body. `html` enables the <meta> prescan. kInvalidArgument with a reason word
// first: "unsupported_charset:<label>", "invalid_utf8: ...", "invalid_charset_bytes: ...".
Result<DecodedText> DecodeToUtf8(std::string_view body, std::string_view content_type, bool html);

}  // namespace attest
