// Fuzz target: the sitemap and feed readers (src/crawl/sitemap.h, feed.h), seed kind detection and
// the seed date parsers on arbitrary bytes, with small limits so the limit paths are reached.
// Invariants: no result exceeds its limits (entries, decoded bytes, notes); a sitemap index has no
// URLs and a urlset no child sitemaps; every <loc> is non-empty, trimmed and under the length cap;
// the same input gzip-compressed reads to the same entries (the decoder is transparent); a parsed
// date's instant lies within a day and a half of its written calendar date; a resolved reference
// has a scheme.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "crawl/feed.h"
#include "crawl/seed_date.h"
#include "crawl/seed_kind.h"
#include "crawl/sitemap.h"
#include "crawl/uri_reference.h"
#include "fuzz_check.h"

namespace {

std::string Gzip(std::string_view in) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(rc == Z_STREAM_END ? z.total_out : 0);
  deflateEnd(&z);
  return out;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

void CheckDate(const std::optional<attest::SeedDate>& d) {
  if (!d || !d->unix_seconds) return;
  const int64_t utc_day = *d->unix_seconds / 86400 - (*d->unix_seconds % 86400 < 0 ? 1 : 0);
  FUZZ_CHECK(utc_day - d->day >= -2 && utc_day - d->day <= 2);  // zones are within a day
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  attest::SitemapLimits limits;
  limits.max_entries = 20;
  limits.max_bytes = 4096;
  limits.max_loc_chars = 200;

  const attest::SitemapResult s = attest::ParseSitemap(input, "https://f.example/sitemap.xml.gz", limits);
  FUZZ_CHECK(s.urls.size() + s.sitemaps.size() <= limits.max_entries);
  FUZZ_CHECK(s.entries_over_limit == 0 || s.urls.size() + s.sitemaps.size() == limits.max_entries);
  FUZZ_CHECK(s.decoded_bytes <= limits.max_bytes);
  FUZZ_CHECK(s.ignored.notes.size() <= attest::SeedNotes::kMaxNotes);
  FUZZ_CHECK(s.format != attest::SitemapFormat::kIndex || s.urls.empty());
  FUZZ_CHECK(s.format == attest::SitemapFormat::kIndex || s.sitemaps.empty());
  for (const attest::SitemapUrl& u : s.urls) {
    FUZZ_CHECK(!u.loc.empty() && u.loc.size() < limits.max_loc_chars);
    FUZZ_CHECK(!IsSpace(u.loc.front()) && !IsSpace(u.loc.back()));
    FUZZ_CHECK(!u.priority || (*u.priority >= 0.0 && *u.priority <= 1.0));
    CheckDate(u.lastmod);
  }
  for (const attest::SitemapRef& r : s.sitemaps) FUZZ_CHECK(!r.loc.empty());

  if (!attest::HasGzipMagic(input) && size <= limits.max_bytes) {
    const attest::SitemapResult z = attest::ParseSitemap(Gzip(input), "", limits);
    FUZZ_CHECK(z.gzip);
    FUZZ_CHECK(z.urls.size() == s.urls.size() && z.sitemaps.size() == s.sitemaps.size());
    for (size_t i = 0; i < s.urls.size(); ++i) FUZZ_CHECK(z.urls[i].loc == s.urls[i].loc);
    FUZZ_CHECK(z.error.has_value() == s.error.has_value());
  }

  attest::FeedLimits feed_limits;
  feed_limits.max_entries = 10;
  feed_limits.max_bytes = 4096;
  const attest::FeedResult f = attest::ParseFeed(input, "https://f.example/feed/", feed_limits);
  FUZZ_CHECK(f.entries.size() <= feed_limits.max_entries);
  FUZZ_CHECK(f.decoded_bytes <= feed_limits.max_bytes);
  FUZZ_CHECK(f.ignored.notes.size() <= attest::SeedNotes::kMaxNotes);
  for (const attest::FeedEntry& e : f.entries) {
    CheckDate(e.published);
    CheckDate(e.updated);
  }

  (void)attest::DetectSeedKind(input, input.substr(0, 24));
  CheckDate(attest::ParseW3cDatetime(input));
  CheckDate(attest::ParseRfc3339(input));
  CheckDate(attest::ParseRfc822Datetime(input));
  const size_t cut = size > 0 ? data[0] % (size + 1) : 0;
  if (auto r = attest::ResolveUriReference(input.substr(0, cut), input.substr(cut))) {
    FUZZ_CHECK(r->find(':') != std::string::npos);
  }
  return 0;
}
