// Extracts the readable content of an HTML page into structural blocks, with its metadata.
//
// Kept: headings h1-h6 (with level), paragraphs, list items (one block per <li>, its inner
// paragraphs joined by newlines), definition lists (a <dd>'s paragraphs, lists and code are blocks
// whose subject is the term: the preceding <dt> texts joined with ", ", also emitted first as a
// kDefinition block of their own; a list nested in a <dd> has its own subjects and the outer term
// resumes after it; a <dt> without a <dd> stays a paragraph), blockquote, pre (whitespace
// preserved, as code), tables (with a header row or row headers: one kTableRow block per body
// row, subject = its row header (th scope=row, else its first th, else its first cell), text =
// "Column: cell | Column: cell" when there is a header row; otherwise one kTable block per table,
// rows as "cell | cell" lines), and loose text in divs. Dropped: see
// ingest::IsDropped (scripts, chrome, hidden elements, tables of contents, permalink anchors).
// A page that is nothing but a table of contents keeps it rather than coming out empty.
//
// Metadata: title from <title> (a trailing " - <og:site_name>" is trimmed), else the first h1;
// canonical URL from <link rel="canonical"> (absolute http(s) only) into doc->url; published /
// updated from <meta> (article:published_time, date, dc.date, dcterms.created/issued;
// article:modified_time, og:updated_time, dcterms.modified, last-modified) then <time datetime>;
// language from <html lang>. Release notes (PostgreSQL and alike): a title ending in
// "Release X.Y" (or "Release X") sets version and source_type "release_notes"; a "Release date:
// ..." paragraph among the first blocks sets `published` when no <meta> / <time> did.
//
// Before gumbo sees the bytes, CheckHtmlShape (html_limits.h) refuses a document over any of
// `limits`; gumbo then runs under the time budget, with its memory owned by HtmlTree (freed
// without recursion); the tree it built is checked against the depth and element limits again
// (exactly, in case the estimate fell short), and walked iteratively. Never throws. Thread-safe.
#pragma once

#include <string_view>

#include "attest/status.h"
#include "ingest/document.h"
#include "ingest/html_limits.h"

namespace attest {

// Fills blocks, title, url (canonical or empty), published, updated, version, source_type and
// language of `doc`. Does not set id or site. `html` should be valid UTF-8. A document over one of
// `limits` is refused with ResourceExhausted naming the limit ("... (limit html.max_depth)") and
// `doc` is left untouched.
Status ExtractHtml(std::string_view html, ParsedDocument* doc, const HtmlLimits& limits = {});

}  // namespace attest
