// Plain text: paragraphs split on blank lines; the title is the first non-empty line when it is
// shorter than 120 bytes (that line then becomes a level-1 heading block if it stands alone as a
// paragraph), else `fallback_title` (normally the file name). Thread-safe.
#pragma once

#include <string_view>

#include "ingest/document.h"

namespace attest {

void ParsePlainText(std::string_view text, std::string_view fallback_title, ParsedDocument* doc);

}  // namespace attest
