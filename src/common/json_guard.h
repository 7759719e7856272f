// Guards for parsing untrusted JSON with nlohmann::json (whose parser recurses): a depth check
// run before parsing, and the text of its exceptions without the library's tag. Used by every
// reader of JSON from outside: JSONL documents, model servers' responses, model drafts.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace attest {

// True when `body` nests arrays/objects deeper than `max_depth` (string contents are skipped).
bool JsonNestingExceeds(std::string_view body, int max_depth);

// An nlohmann::json exception message without its "[json.exception.parse_error.101] " tag.
std::string CleanJsonErrorMessage(std::string_view what);

}  // namespace attest
