// What a fetched HTML page tells the crawler besides its text: the links to follow, the URL it
// claims as canonical, and whether it may be indexed and its links followed.
//
// Links come from <a href>, <area href> and <link rel="next|prev|previous" href>, in document
// order. Each is resolved against the document's base URL (the href of the first <base href>,
// itself resolved against the page URL; else the page URL) with ResolveUrl, named by its
// CanonicalUrl (no fragment, no tracking parameters), kept only when it is http or https, and
// kept once. Left out: links that do not resolve (javascript:, mailto:, malformed), the page
// itself (a "#section" link), <a>/<area> marked rel="nofollow", links inside <template> and <svg>,
// and every link past `max_links` (`truncated` is then set). The links are returned whatever the
// robots directives say: the crawler honours `nofollow` by not following them.
//
// The canonical claim (rel=canonical) comes from <link rel="canonical"> elements of the <head>,
// resolved against the base URL, and from the HTTP Link header (RFC 8288; see crawl/link_header.h),
// resolved against the page URL (a link-value with an "anchor" naming another resource is not
// about this page and is ignored). It is accepted only when it parses, is on the same site as the
// page (SameSite of crawl/url.h) and all the claims agree; otherwise `canonical` is "" (a page
// that claims two canonicals gets neither, as search engines do).
//
// Robots directives: <meta name="robots" content="..."> and <meta name="<crawler token>"> (name
// matched without case), and the X-Robots-Tag header ("noindex, nofollow", or scoped to a user
// agent: "AttestBot: noindex"; a scope runs until the next one or the end of the field line, so
// several field lines should be passed joined by line breaks). "noindex", "nofollow" and "none"
// (both) are read, case-insensitively; other directives are ignored.
//
// Errors: an unparseable page URL (InvalidArgument naming it) and HTML over the limits of
// ingest's HtmlLimits (ResourceExhausted naming the limit). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "attest/status.h"
#include "crawl/url.h"
#include "ingest/html_limits.h"

namespace attest {

struct PageLinksOptions {
  size_t max_links = 10000;
  std::string crawler_token = "AttestBot";  // the <meta name> and X-Robots-Tag scope that address us
  HtmlLimits html_limits;
  CanonicalOptions canonical;
};

struct PageLinks {
  std::vector<std::string> links;  // canonical URLs, document order, unique
  bool truncated = false;          // links beyond max_links were dropped
  std::string canonical;           // the accepted rel=canonical claim (canonical form), or ""
  bool noindex = false;
  bool nofollow = false;
};

Result<PageLinks> ExtractPageLinks(std::string_view html, std::string_view page_url, std::string_view link_header,
                                   std::string_view x_robots_tag, const PageLinksOptions& options = {});

// The robots directives of one X-Robots-Tag value (field lines joined by "\n") for `crawler_token`.
struct RobotsDirectives {
  bool noindex = false;
  bool nofollow = false;
};
RobotsDirectives ParseXRobotsTag(std::string_view value, std::string_view crawler_token);

}  // namespace attest
