// A pragmatic Markdown (CommonMark + GFM tables) block parser for indexing, not rendering.
//
// Recognises: YAML-style front matter between "---" lines (flat "key: value" pairs: title,
// date/published, updated/lastmod, version, url, site, source_type, language; other keys go to
// ParsedDocument::metadata); ATX (# .. ######) and setext (=== / ---) headings; paragraphs;
// bullet and ordered list items (one block per item); fenced (``` / ~~~) and indented code, kept
// verbatim; GFM pipe tables (one block, rows as "cell | cell" lines); block quotes (as paragraphs).
// Thematic breaks, link reference definitions and HTML comments are dropped; inline markup is
// stripped with StripMarkdownInline. Thread-safe (no shared state).
#pragma once

#include <string_view>

#include "attest/status.h"
#include "ingest/document.h"

namespace attest {

// Fills doc->blocks, and from the front matter title/dates/version/url/site/source_type/language/
// metadata. doc->title is the front matter title, else the first level-1 heading, else empty.
// Fails only on a front matter date that cannot be parsed (naming the key).
Status ParseMarkdown(std::string_view text, ParsedDocument* doc);

}  // namespace attest
