// Fuzz target: links, canonical claims and robots directives of a page (crawl/page_links.h), the
// Link header parser and the HTTP-date reader, on arbitrary bytes. The input is split at the
// first two NUL bytes into HTML, a Link header and an X-Robots-Tag value.
// Invariants: every link is an absolute http(s) URL in canonical form (it re-parses to itself),
// unique, at most max_links of them; an accepted canonical is canonical and on the page's site;
// Link values are capped and their targets hold no ">"; a parsed HTTP date formats and re-parses to
// the same second; a Retry-After is between 0 and its cap.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "crawl/http_dates.h"
#include "crawl/link_header.h"
#include "crawl/page_links.h"
#include "fuzz_check.h"

namespace {

void CheckCanonical(const std::string& url) {
  const attest::UrlParse p = attest::ParseUrl(url);
  FUZZ_CHECK(p.ok());
  FUZZ_CHECK(p.url->scheme == "http" || p.url->scheme == "https");
  FUZZ_CHECK(attest::CanonicalUrl(*p.url) == url);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t a = input.find('\0');
  const size_t b = a == std::string_view::npos ? a : input.find('\0', a + 1);
  const std::string_view html = input.substr(0, a);
  const std::string_view link = a == std::string_view::npos ? "" : input.substr(a + 1, b - a - 1);
  const std::string_view robots = b == std::string_view::npos ? "" : input.substr(b + 1);

  static const std::string kPage = "https://docs.example.org/15/a/b.html?x=1";
  attest::PageLinksOptions options;
  options.max_links = 50;
  const attest::Result<attest::PageLinks> r = attest::ExtractPageLinks(html, kPage, link, robots, options);
  if (r.ok()) {
    FUZZ_CHECK(r->links.size() <= options.max_links);
    std::set<std::string> seen;
    for (const std::string& l : r->links) {
      CheckCanonical(l);
      FUZZ_CHECK(seen.insert(l).second);
    }
    if (!r->canonical.empty()) {
      CheckCanonical(r->canonical);
      FUZZ_CHECK(attest::SameSite(*attest::ParseUrl(r->canonical).url, *attest::ParseUrl(kPage).url));
    }
  } else {
    FUZZ_CHECK(r.status().code() == attest::StatusCode::kResourceExhausted);
  }

  const std::vector<attest::LinkValue> values = attest::ParseLinkHeader(input, 20);
  FUZZ_CHECK(values.size() <= 20);
  for (const attest::LinkValue& v : values) FUZZ_CHECK(v.target.find('>') == std::string::npos);

  const auto now = attest::SystemTime(std::chrono::seconds(1780000000));
  if (const auto t = attest::ParseHttpDate(link, now)) {
    const std::string text = attest::FormatHttpDate(*t);
    const auto again = attest::ParseHttpDate(text, now);
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(*again == std::chrono::floor<std::chrono::seconds>(*t));
  }
  if (const auto wait = attest::ParseRetryAfter(link, now)) {
    FUZZ_CHECK(wait->count() >= 0 && *wait <= attest::kMaxRetryAfter);
  }
  return 0;
}
