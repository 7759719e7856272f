// What a fetched seed is: a sitemap index, a sitemap <urlset>, a text sitemap, an RSS or Atom feed,
// or an HTML page, so the crawler knows which parser to hand it to. Pure; thread-safe.
#pragma once

#include <string_view>

namespace attest {

enum class SeedKind { kUnknown, kSitemapIndex, kUrlset, kTextSitemap, kRss, kAtom, kHtml };
std::string_view SeedKindName(SeedKind kind);

// Decides from the bytes first (gzip inflated up to 64 KiB; a UTF-8 BOM and leading whitespace
// skipped): XML is classified by its root element (Atom: a <feed> in the Atom 1.0 namespace), read with the same guarded parser as the
// sitemap and feed readers (a DOCTYPE and comments may precede it); markup that is not well-formed
// XML but contains "<html" or "<!doctype html" is HTML. Bytes that do not start with '<' are a text
// sitemap when the first non-empty line is an absolute http(s) URL. The Content-Type
// (`content_type`, may be empty) decides only when the bytes do not: "html" in it gives kHtml,
// "rss" kRss, "atom" kAtom, "text/plain" kTextSitemap.
SeedKind DetectSeedKind(std::string_view bytes, std::string_view content_type);

}  // namespace attest
