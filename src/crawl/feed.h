// RSS 2.0 (https://www.rssboard.org/rss-specification) and Atom 1.0 (RFC 4287) feeds, read into a
// result value: per item/entry its link, title, id and dates, plus the feed's own title, link and
// update date. Used as crawl seeds (a feed names the newest pages of a site) and as the
// authoritative "what changed" list.
//
// - RSS: <rss><channel><item> (no namespace); link = <link>, or <guid> when it is a permalink
//   (isPermaLink absent or "true") and <link> is missing; dates: <pubDate> in the RFC 822/1123 forms
//   (ISO 8601 accepted too, as feeds in the wild use it) and Dublin Core <dc:date> (W3C Datetime)
//   when <pubDate> is absent. RSS 1.0 (<rdf:RDF> with items beside the channel) is read the same
//   way. RSS links are returned as written.
// - Atom (namespace http://www.w3.org/2005/Atom): link = href of the first <link> whose rel is
//   absent or "alternate" (RFC 4287 §4.2.7.2), preferring an HTML type; dates: <updated> and
//   <published> in RFC 3339. Relative hrefs are resolved against xml:base (on the link or any
//   ancestor, each resolved against the one above) and then the document's own URL (`source_url`)
//   per RFC 3986 §5; a relative href with no absolute base is returned as written, with a note.
// - Titles: the text of <title> (and of its descendants for Atom type="xhtml"), whitespace collapsed;
//   Atom type="html" titles are returned as their escaped markup's text, unrendered.
// - Elements of other namespaces (media:, content:, itunes:) are skipped; DTDs and entities are
//   handled as in xml_stream.h (external ones never loaded, expansion bounded).
// - Limits: max_entries items kept (the rest counted), max_bytes of decoded input read (gzip is
//   inflated up to that cap). Malformed XML gives an error with line, column and byte offset, and
//   the entries complete before it are kept.
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

enum class FeedFormat { kUnknown, kRss, kAtom };

struct FeedEntry {
  std::string link;   // empty when the entry gives none
  std::string title;
  std::string id;     // RSS <guid>, Atom <id>
  std::optional<SeedDate> published;  // RSS <pubDate> / <dc:date>, Atom <published>
  std::optional<SeedDate> updated;    // Atom <updated>
};

struct FeedLimits {
  uint64_t max_entries = 10000;
  uint64_t max_bytes = 50ull * 1024 * 1024;
};

struct FeedResult {
  FeedFormat format = FeedFormat::kUnknown;
  bool gzip = false;
  std::string title;                 // the channel's / feed's title
  std::string link;                  // the site the feed belongs to
  std::optional<SeedDate> updated;   // Atom <updated>, RSS <lastBuildDate> or else <pubDate>
  std::vector<FeedEntry> entries;
  uint64_t decoded_bytes = 0;
  uint64_t entries_over_limit = 0;
  bool truncated_at_size = false;
  SeedNotes ignored;
  std::optional<SeedError> error;
};

// `source_url`: the URL the feed was fetched from (the base of relative Atom links; may be empty).
FeedResult ParseFeed(std::string_view bytes, std::string_view source_url, const FeedLimits& limits = {});

}  // namespace attest
