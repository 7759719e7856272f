// One walk over the gumbo tree collects the raw hrefs, the <base href>, the <head>'s canonical
// claims and the robots <meta> elements; resolution happens after the walk because the first
// <base href> applies to the whole document, links before it included (HTML "frozen base URL").
#include "crawl/page_links.h"

#include <gumbo.h>

#include <optional>
#include <unordered_set>

#include "common/strings.h"
#include "crawl/link_header.h"
#include "ingest/html_dom.h"
#include "ingest/html_tree.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

using ingest::Attr;
using ingest::EqualsIgnoreCase;
using ingest::RelHasToken;

struct RawPage {
  const char* base_href = nullptr;
  std::vector<const char*> hrefs;            // a, area, link rel=next/prev, document order
  std::vector<const char*> canonical_hrefs;  // <link rel=canonical> of the head
  RobotsDirectives meta;
};

void ApplyDirective(std::string_view word, RobotsDirectives* out) {
  if (EqualsIgnoreCase(word, "noindex")) out->noindex = true;
  if (EqualsIgnoreCase(word, "nofollow")) out->nofollow = true;
  if (EqualsIgnoreCase(word, "none")) out->noindex = out->nofollow = true;
}

// Words of a directive list: separated by commas and ASCII whitespace.
void ApplyDirectiveList(std::string_view list, RobotsDirectives* out) {
  size_t i = 0;
  while (i < list.size()) {
    while (i < list.size() && (list[i] == ',' || ingest::IsAsciiSpace(list[i]))) ++i;
    size_t j = i;
    while (j < list.size() && list[j] != ',' && !ingest::IsAsciiSpace(list[j])) ++j;
    if (j > i) ApplyDirective(list.substr(i, j - i), out);
    i = j;
  }
}

bool HasHeadAncestor(const GumboNode* n) {
  for (const GumboNode* p = n->parent; p != nullptr; p = p->parent) {
    if (ingest::IsElement(p, GUMBO_TAG_HEAD)) return true;
  }
  return false;
}

void ReadMetaRobots(const GumboNode* n, std::string_view token, RobotsDirectives* out) {
  const char* name = Attr(n, "name");
  const char* content = Attr(n, "content");
  if (name == nullptr || content == nullptr) return;
  const std::string_view k = Trim(name);
  if (EqualsIgnoreCase(k, "robots") || EqualsIgnoreCase(k, token)) ApplyDirectiveList(content, out);
}

RawPage Walk(const GumboNode* root, std::string_view token) {
  RawPage page;
  std::vector<const GumboNode*> stack{root};
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT) continue;  // text, comments; GUMBO_NODE_TEMPLATE is inert content
    const char* href = nullptr;
    switch (n->v.element.tag) {
      case GUMBO_TAG_SVG: case GUMBO_TAG_MATH: case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE:
        continue;
      case GUMBO_TAG_BASE:
        if (page.base_href == nullptr) page.base_href = Attr(n, "href");
        continue;
      case GUMBO_TAG_A: case GUMBO_TAG_AREA:
        href = Attr(n, "href");
        if (href != nullptr && !RelHasToken(Attr(n, "rel"), "nofollow")) page.hrefs.push_back(href);
        break;
      case GUMBO_TAG_LINK: {
        const char* rel = Attr(n, "rel");
        href = Attr(n, "href");
        if (href == nullptr) continue;
        if (RelHasToken(rel, "next") || RelHasToken(rel, "prev") || RelHasToken(rel, "previous")) {
          page.hrefs.push_back(href);
        }
        if (RelHasToken(rel, "canonical") && HasHeadAncestor(n)) page.canonical_hrefs.push_back(href);
        continue;
      }
      case GUMBO_TAG_META:
        ReadMetaRobots(n, token, &page.meta);
        continue;
      default:
        break;
    }
    const GumboVector& c = n->v.element.children;
    for (unsigned i = c.length; i > 0; --i) stack.push_back(static_cast<const GumboNode*>(c.data[i - 1]));
  }
  return page;
}

// The canonical claims agree and are on the page's site: that claim, else "".
std::string AcceptCanonical(const std::vector<Url>& claims, const Url& page, const CanonicalOptions& options) {
  std::optional<std::string> agreed;
  for (const Url& claim : claims) {
    if (!SameSite(claim, page)) return "";
    std::string c = CanonicalUrl(claim, options);
    if (agreed && *agreed != c) return "";
    agreed = std::move(c);
  }
  return agreed.value_or("");
}

}  // namespace

RobotsDirectives ParseXRobotsTag(std::string_view value, std::string_view crawler_token) {
  // Directives whose own syntax is "name: value" (not a user-agent scope).
  static constexpr std::string_view kValued[] = {"unavailable_after", "max-snippet", "max-image-preview",
                                                 "max-video-preview", "indexifembedded"};
  RobotsDirectives out;
  size_t line_start = 0;
  while (line_start <= value.size()) {
    size_t line_end = value.find_first_of("\r\n", line_start);
    if (line_end == std::string_view::npos) line_end = value.size();
    const std::string_view line = value.substr(line_start, line_end - line_start);
    bool ours = true;  // no scope yet: the directives address every crawler
    size_t i = 0;
    while (i <= line.size()) {
      size_t comma = line.find(',', i);
      if (comma == std::string_view::npos) comma = line.size();
      std::string_view item = Trim(line.substr(i, comma - i));
      const size_t colon = item.find(':');
      if (colon != std::string_view::npos) {
        const std::string_view before = Trim(item.substr(0, colon));
        bool valued = false;
        for (std::string_view v : kValued) valued = valued || EqualsIgnoreCase(before, v);
        if (!valued) {
          ours = EqualsIgnoreCase(before, crawler_token);
          item = Trim(item.substr(colon + 1));
        }
      }
      if (ours) ApplyDirectiveList(item, &out);
      i = comma + 1;
    }
    line_start = line_end + 1;
  }
  return out;
}

Result<PageLinks> ExtractPageLinks(std::string_view html, std::string_view page_url, std::string_view link_header,
                                   std::string_view x_robots_tag, const PageLinksOptions& options) {
  const UrlParse page = ParseUrl(page_url);
  if (!page.ok()) {
    return Status::InvalidArgument("page links: the page URL \"" + std::string(page_url.substr(0, 200)) +
                                   "\" is not an absolute http(s) URL: " + page.error.ToString());
  }
  ATTEST_RETURN_IF_ERROR(CheckHtmlShape(html, options.html_limits));
  ingest::HtmlTree tree;
  ATTEST_RETURN_IF_ERROR(tree.Parse(html, HtmlParseBudgetMs(options.html_limits, html.size())));
  const RawPage raw = Walk(tree.output()->root, options.crawler_token);

  const Url& page_url_parsed = *page.url;
  Url base = page_url_parsed;
  if (raw.base_href != nullptr) {
    UrlParse b = ResolveUrl(page_url_parsed, raw.base_href);
    if (b.ok()) base = std::move(*b.url);
  }
  const std::string self = CanonicalUrl(page_url_parsed, options.canonical);

  PageLinks out;
  std::unordered_set<std::string> seen;
  for (const char* href : raw.hrefs) {
    const UrlParse link = ResolveUrl(base, href);
    if (!link.ok()) continue;
    std::string c = CanonicalUrl(*link.url, options.canonical);
    if (c == self || seen.count(c) != 0) continue;
    if (out.links.size() >= options.max_links) {
      out.truncated = true;
      break;
    }
    seen.insert(c);
    out.links.push_back(std::move(c));
  }

  std::vector<Url> claims;
  for (const char* href : raw.canonical_hrefs) {
    UrlParse c = ResolveUrl(base, href);
    if (c.ok()) claims.push_back(std::move(*c.url));
  }
  for (const LinkValue& v : ParseLinkHeader(link_header)) {
    if (!v.HasRel("canonical")) continue;
    if (const std::optional<std::string_view> anchor = v.Param("anchor")) {
      const UrlParse a = ResolveUrl(page_url_parsed, *anchor);
      if (!a.ok() || CanonicalUrl(*a.url, options.canonical) != self) continue;
    }
    UrlParse c = ResolveUrl(page_url_parsed, v.target);
    if (c.ok()) claims.push_back(std::move(*c.url));
  }
  out.canonical = AcceptCanonical(claims, page_url_parsed, options.canonical);

  const RobotsDirectives header = ParseXRobotsTag(x_robots_tag, options.crawler_token);
  out.noindex = raw.meta.noindex || header.noindex;
  out.nofollow = raw.meta.nofollow || header.nofollow;
  return out;
}

}  // namespace attest
