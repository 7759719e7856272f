// Turning one fetched 200 response into what the crawler records and indexes: the document (a
// DocumentSpec for Engine::PutDocuments), the page's links, rel=canonical and robots directives,
// the SimHash of its extracted text and the version a /current/, /latest/ or /stable/ URL served.
// Also the small pure rules of the crawl loop: the adaptive revisit interval and the media type.
//
// Thread-safety: pure functions over their arguments (the Analyzer is used read-only).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attest/engine.h"
#include "attest/status.h"
#include "crawl/fetcher.h"

namespace attest {

class Analyzer;

// What every document of a crawl source carries (CrawlOptions).
struct DocumentDefaults {
  std::string tenant;
  std::vector<std::string> acl_groups;
  std::string access_label;
  std::string source_type;
  std::string version;
  std::string site;      // "" = the page's host
  std::string license;   // DocumentSpec::license of every page ("" = none)
};

// The lowercased media type of a Content-Type value, without parameters ("text/html").
std::string MediaType(std::string_view content_type);
// The DocumentSpec content type for a media type and URL path: "html", "text", "markdown", or ""
// when the crawler does not index it.
std::string IndexableContentType(std::string_view media_type, std::string_view path);

struct PreparedPage {
  std::string content_type;        // html | text | markdown
  std::string sha256;              // of the body
  uint64_t simhash = 0;            // of the extracted text (0 when it has no terms)
  std::vector<std::string> links;  // canonical, absolute (HTML only; empty when nofollow)
  std::string canonical;           // same-site rel=canonical (canonical form) or ""
  bool noindex = false;
  bool nofollow = false;
  bool page_has_date = false;      // the page states published / updated itself
  std::string page_version;        // a version the extractor found (release notes), or ""
  std::string body;                // UTF-8 text, BOM removed (decoded from its charset; converted for PDF, DOCX, ODT, gzip)
  std::string title;               // the converted document's title ("" = the extractor's)
};

// Checks and analyses a 200 body; a text body is decoded to UTF-8 from its character set first
// (crawl/charset.h). kInvalidArgument with a reason word first ("unsupported_content_type:
// application/pdf", "unsupported_charset:koi8-x", "invalid_utf8: ...", "html: ...") when the page
// cannot be indexed.
Result<PreparedPage> PreparePage(const FetchResponse& response, std::string_view page_url,
                                 const Analyzer& analyzer);

// The document for a prepared page, indexed under `doc_id` (its canonical URL).
DocumentSpec MakeDocumentSpec(const PreparedPage& page, const std::string& doc_id, const DocumentDefaults& defaults,
                              std::string_view last_modified, int64_t fetched_at_ms);

// The version a URL with a version alias served: the segment at the alias's place in the URL it
// was redirected to or in its canonical (when that differs from the alias word), else
// `fallback` (the document's version). "" when the URL has no alias.
struct AliasRecord {
  std::string word;
  std::string version;
};
AliasRecord ResolveVersionAlias(std::string_view url, std::string_view redirected_to, std::string_view canonical,
                                std::string_view fallback);

struct RevisitBounds {
  std::chrono::seconds min{3600};
  std::chrono::seconds max{30 * 86400};
  std::chrono::seconds initial{86400};
};
// The next revisit interval: halved when the content changed, doubled when not, within bounds;
// `previous` 0 = first visit (initial).
std::chrono::seconds NextRevisitInterval(std::chrono::seconds previous, bool changed, const RevisitBounds& bounds);

// Unix milliseconds -> "YYYY-MM-DDThh:mm:ssZ".
std::string FormatUnixMillis(int64_t ms);

}  // namespace attest
