// Sitemaps (https://www.sitemaps.org/protocol.html): the XML <urlset> and <sitemapindex> files,
// gzip-compressed or not, and plain-text sitemaps (one URL per line), read into a result value.
//
// - XML: <url> entries with <loc>, <lastmod> (W3C Datetime), <changefreq>, <priority>; <sitemap>
//   entries of an index with <loc> and <lastmod>. Elements are matched by local name in the
//   sitemap namespace (http://www.sitemaps.org/schemas/sitemap/0.9) or in no namespace; elements of
//   any other namespace (image:, news:, video:, xhtml: extensions) and unknown elements are skipped.
// - Limits (the protocol's, configurable): at most 50,000 entries and 50 MB (52,428,800 bytes) of
//   uncompressed input per file. Entries beyond the count are counted and dropped, bytes beyond the
//   size are not read (a gzip bomb is inflated only up to the cap); both are reported.
// - gzip: detected by its magic bytes (1f 8b), whatever the name; a ".gz" name without the magic is
//   read as is (the HTTP layer may have decoded it already) and noted.
// - URLs are returned as written, trimmed and entity-decoded; resolving, normalising and scoping
//   them (same host, path below the sitemap's) is the crawler's business, not this parser's.
// - Malformed input gives an error naming line, column and byte offset; the entries read before it
//   are kept. Invalid fields are dropped with a note (the entry is kept when <loc> is usable).
// Pure function; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "crawl/seed_date.h"
#include "crawl/xml_stream.h"

namespace attest {

enum class ChangeFreq { kUnspecified, kAlways, kHourly, kDaily, kWeekly, kMonthly, kYearly, kNever };
std::string_view ChangeFreqName(ChangeFreq f);

struct SitemapUrl {
  std::string loc;
  std::optional<SeedDate> lastmod;
  ChangeFreq changefreq = ChangeFreq::kUnspecified;
  std::optional<double> priority;  // 0.0 .. 1.0 when given (the protocol's default is 0.5)
};

// A child sitemap named by a sitemap index.
struct SitemapRef {
  std::string loc;
  std::optional<SeedDate> lastmod;
};

enum class SitemapFormat { kUnknown, kUrlset, kIndex, kText };

struct SitemapLimits {
  uint64_t max_entries = 50000;          // <url> or <sitemap> entries (or text lines) per file
  uint64_t max_bytes = 50ull * 1024 * 1024;  // uncompressed bytes read per file
  size_t max_loc_chars = 2048;           // the protocol: URLs must be shorter than 2,048 characters
};

struct SitemapResult {
  SitemapFormat format = SitemapFormat::kUnknown;
  bool gzip = false;
  std::vector<SitemapUrl> urls;        // of a <urlset> or a text sitemap
  std::vector<SitemapRef> sitemaps;    // of a <sitemapindex>
  uint64_t decoded_bytes = 0;          // uncompressed bytes read
  uint64_t entries_over_limit = 0;     // entries dropped beyond max_entries
  bool truncated_at_size = false;      // input went on beyond max_bytes
  SeedNotes ignored;                   // what was skipped and why
  std::optional<SeedError> error;      // malformed input; the entries above are those before it
};

// `source_url` (may be empty) is only used for the ".gz" name check and in messages.
SitemapResult ParseSitemap(std::string_view bytes, std::string_view source_url, const SitemapLimits& limits = {});

}  // namespace attest
