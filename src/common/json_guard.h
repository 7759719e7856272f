// Guards for parsing untrusted JSON with nlohmann::json (whose parser recurses): a depth check
// run before parsing, and the text of its exceptions without the library's tag. Used by every
// reader of JSON from outside: JSONL documents, model servers' responses, model drafts.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attest {

// One pass over JSON text before nlohmann::json sees it: the first place where arrays/objects nest
// deeper than `max_depth`, or where the count of values (one more than the ',' outside strings,
// plus one per '{' / '[') passes `max_values`. String contents are skipped.
struct JsonShapeScan {
  enum class Problem { kNone, kTooDeep, kTooManyValues } problem = Problem::kNone;
  size_t offset = 0;  // byte offset of the character that crossed the limit
};
JsonShapeScan ScanJsonShape(std::string_view body, int max_depth, size_t max_values);

// True when `body` nests arrays/objects deeper than `max_depth` (string contents are skipped).
bool JsonNestingExceeds(std::string_view body, int max_depth);

// An nlohmann::json exception message without its "[json.exception.parse_error.101] " tag.
std::string CleanJsonErrorMessage(std::string_view what);

// JSON text safe inside a delimited data block of a prompt: every '<' becomes "\u003c", so passage
// text cannot close the block (`</evidence>`); decoding gives back the exact text.
std::string EscapeForDataBlock(std::string_view json_text);

}  // namespace attest
