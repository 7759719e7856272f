// A page fetched by live fetch, turned back into the document it refreshes (docs/answer.md,
// "Live fetch"): the stored document's identity and access (id, tenant, ACL groups, access label,
// feed kind, URL, title, site, version, source type, language) with the page's text, parsed by the
// response's content type, and its dates.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "attest/engine.h"
#include "attest/status.h"
#include "crawl/fetcher.h"
#include "store/records.h"

namespace attest {

// The DocumentSpec content type ("html", "markdown", "text") for a response's Content-Type and
// body. RSS and Atom feeds (a release list served as a feed) become "text": one paragraph per
// entry, its title and date ("PostgreSQL 18.1 released (2026-11-13)"), so that version resolution
// reads them like any release list. kInvalidArgument "unsupported_content_type: <type>" otherwise
// (PDF and office bodies are the crawler's; live fetch refreshes pages).
struct PageText {
  std::string content_type;
  std::string text;
};
Result<PageText> PageTextOf(const FetchResponse& page);

// The spec that puts `page` back as a new version of `stored` (docs/answer.md, "Live fetch"):
// identity and access from the stored row, never from the page; `published` is the page's own
// date (<meta>, <time>) else the stored one; `updated` is the page's own date, else its
// Last-Modified header (an HTTP-date), else the stored one. kInvalidArgument "<code>: <detail>"
// when the body cannot be used (unsupported_content_type, unparseable_feed, unparseable_page:
// invalid UTF-8 or a NUL byte, empty_page: no text): the stored document stays as it is.
Result<DocumentSpec> RefreshSpec(const DocumentRecord& stored, const FetchResponse& page);

}  // namespace attest
