// Plain text: paragraphs split on blank lines; the title is the first non-empty line when it is
// shorter than 120 bytes (that line then becomes a level-1 heading block if it stands alone as a
// paragraph), else `fallback_title` (normally the file name).
//
// Labelled lists keep their terms as Block::subject, conservatively (ordinary prose never
// qualifies): asciidoc "term::" lines at the start of a line followed by their description (the
// next lines, or an indented paragraph; "+" lines separate its paragraphs), and man-page option
// lines ("-x, --long[=<arg>]" alone on a line) followed by lines indented deeper. Later paragraphs
// indented deeper than the term line continue the entry. Thread-safe.
#pragma once

#include <string_view>

#include "ingest/document.h"

namespace attest {

void ParsePlainText(std::string_view text, std::string_view fallback_title, ParsedDocument* doc);

}  // namespace attest
