#include "answer/live_page.h"

#include <algorithm>
#include <cctype>

#include "crawl/feed.h"
#include "crawl/seed_date.h"
#include "crawl/seed_kind.h"
#include "index/document_api.h"

namespace attest {
namespace {

// The media type without parameters, lowercase ("text/html; charset=utf-8" -> "text/html").
std::string MediaType(std::string_view content_type) {
  std::string t(content_type.substr(0, content_type.find(';')));
  t.erase(std::remove_if(t.begin(), t.end(), [](unsigned char c) { return std::isspace(c); }), t.end());
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  return t;
}

std::string FeedText(const FeedResult& feed) {
  std::string text;
  if (!feed.title.empty()) text = feed.title + "\n\n";
  for (const FeedEntry& e : feed.entries) {
    std::string line = e.title.empty() ? e.link : e.title;
    const std::optional<SeedDate>& date = e.published ? e.published : e.updated;
    if (date) line += " (" + date->Day() + ")";
    if (!line.empty()) text += line + "\n\n";
  }
  return text;
}

std::string DayOf(std::optional<DayNumber> day) { return day ? FormatDate(*day) : std::string(); }

}  // namespace

Result<PageText> PageTextOf(const FetchResponse& page) {
  const std::string type = MediaType(page.content_type());
  if (type == "text/html" || type == "application/xhtml+xml") return PageText{"html", page.body};
  if (type == "text/markdown" || type == "text/x-markdown") return PageText{"markdown", page.body};
  if (type == "application/rss+xml" || type == "application/atom+xml" || type == "application/xml" ||
      type == "text/xml") {
    const SeedKind kind = DetectSeedKind(page.body, page.content_type());
    if (kind == SeedKind::kRss || kind == SeedKind::kAtom) {
      FeedResult feed = ParseFeed(page.body, page.final_url.empty() ? page.url : page.final_url);
      if (feed.error && feed.entries.empty()) {
        return Status::InvalidArgument("unparseable_feed: " + feed.error->message);
      }
      return PageText{"text", FeedText(feed)};
    }
    if (kind == SeedKind::kHtml) return PageText{"html", page.body};
  }
  if (type == "text/plain") return PageText{"text", page.body};
  return Status::InvalidArgument("unsupported_content_type: " + (type.empty() ? std::string("(none)") : type));
}

Result<DocumentSpec> RefreshSpec(const DocumentRecord& stored, const FetchResponse& page) {
  ATTEST_ASSIGN_OR_RETURN(PageText body, PageTextOf(page));
  DocumentSpec spec;
  spec.id = stored.id;
  spec.tenant = stored.tenant;
  spec.title = stored.title;
  spec.text = std::move(body.text);
  spec.content_type = body.content_type;
  spec.url = stored.url;
  spec.site = stored.site;
  spec.version = stored.version;
  spec.source_type = stored.source_type;
  spec.language = stored.language;
  spec.acl_groups = stored.acl_groups;
  spec.access_label = stored.access_label;
  spec.feed = stored.feed;
  spec.license = stored.license;
  // The page's own dates first: parse it once without dates to see what it says.
  auto parsed = ParseDocumentSpec(spec);
  if (!parsed.ok()) return Status::InvalidArgument("unparseable_page: " + parsed.status().message());
  // A page that lost its text (an error page served as 200, a script-only shell) would leave a
  // title-only document behind: the stored text is kept instead.
  const bool has_text = std::any_of(parsed->blocks.begin(), parsed->blocks.end(), [](const Block& b) {
    return std::any_of(b.text.begin(), b.text.end(), [](unsigned char c) { return !std::isspace(c); });
  });
  if (!has_text) return Status::InvalidArgument("empty_page: no text after extraction");
  spec.published = parsed->published ? FormatDate(*parsed->published) : DayOf(stored.published);
  if (parsed->updated) {
    spec.updated = FormatDate(*parsed->updated);
  } else if (auto lm = ParseRfc822Datetime(page.last_modified()); lm && !page.last_modified().empty()) {
    spec.updated = lm->Day();
  } else {
    spec.updated = DayOf(stored.updated);
  }
  return spec;
}

}  // namespace attest
