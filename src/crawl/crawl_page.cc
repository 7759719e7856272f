#include "crawl/crawl_page.h"

#include <algorithm>
#include <ctime>

#include "common/checksum.h"
#include "crawl/charset.h"
#include "crawl/crawl_binary.h"
#include "common/date.h"
#include "crawl/http_dates.h"
#include "crawl/page_links.h"
#include "crawl/url.h"
#include "ingest/document.h"
#include "ingest/html_extractor.h"
#include "ingest/text_util.h"
#include "text/simhash.h"

namespace attest {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && Lower(s.substr(s.size() - suffix.size())) == suffix;
}

std::vector<std::string_view> PathSegments(std::string_view path) {
  std::vector<std::string_view> out;
  if (!path.empty() && path[0] == '/') path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

// The segment at `index` of `url`'s path when it is not the alias word itself.
std::string SegmentAt(std::string_view url, size_t index, std::string_view word) {
  if (url.empty()) return "";
  UrlParse parsed = ParseUrl(url);
  if (!parsed.ok()) return "";
  std::vector<std::string_view> segments = PathSegments(parsed.url->path);
  if (index >= segments.size()) return "";
  std::string seg(segments[index]);
  if (seg.empty() || Lower(seg) == word) return "";
  return seg;
}

}  // namespace

// Text extracted from a PDF, office document or gzip body (the ingestion's per-document cap).
constexpr uint64_t kMaxConvertedTextBytes = 50ull << 20;

std::string MediaType(std::string_view content_type) {
  std::string_view t = content_type.substr(0, content_type.find(';'));
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  return Lower(t);
}

std::string IndexableContentType(std::string_view media_type, std::string_view path) {
  if (media_type == "text/html" || media_type == "application/xhtml+xml") return "html";
  if (media_type == "text/markdown" || media_type == "text/x-markdown") return "markdown";
  if (media_type == "text/plain" || media_type.empty()) {
    if (EndsWith(path, ".md") || EndsWith(path, ".markdown")) return "markdown";
    if (media_type.empty() && (EndsWith(path, ".html") || EndsWith(path, ".htm"))) return "html";
    return "text";
  }
  return "";
}

Result<PreparedPage> PreparePage(const FetchResponse& response, std::string_view page_url, const Analyzer& analyzer) {
  PreparedPage page;
  UrlParse parsed = ParseUrl(page_url);
  const std::string path = parsed.ok() ? parsed.url->path : std::string();
  const std::string media = MediaType(response.content_type());
  page.content_type = IndexableContentType(media, path);
  std::string_view body;
  std::string converted;
  if (!page.content_type.empty()) {
    ATTEST_ASSIGN_OR_RETURN(DecodedText decoded,
                            DecodeToUtf8(response.body, response.content_type(), page.content_type == "html"));
    converted = std::move(decoded.text);
    body = converted;
  } else {
    ATTEST_ASSIGN_OR_RETURN(std::optional<ConvertedBody> c,
                            ConvertBinaryBody(media, path, response.body, kMaxConvertedTextBytes));
    if (!c) return Status::InvalidArgument("unsupported_content_type:" + media);
    page.content_type = c->content_type;
    page.title = c->title;
    converted = std::move(c->text);
    body = ingest::StripBom(converted);
  }
  if (auto bad = ingest::FindInvalidUtf8(body)) {
    return Status::InvalidArgument("invalid_utf8: at byte " + std::to_string(*bad) + " of the converted text");
  }
  if (ingest::FindNul(body)) return Status::InvalidArgument("binary_body: a NUL byte in a text page");
  page.body = std::string(body);
  page.sha256 = Sha256Hex(response.body);
  std::string text_for_hash;
  if (page.content_type == "html") {
    const std::string_view robots_tag = response.Header("X-Robots-Tag").value_or("");
    ATTEST_ASSIGN_OR_RETURN(PageLinks links, ExtractPageLinks(page.body, page_url, response.link(), robots_tag));
    page.canonical = links.canonical;
    page.noindex = links.noindex;
    page.nofollow = links.nofollow;
    if (!links.nofollow) page.links = std::move(links.links);
    ParsedDocument doc;
    Status extracted = ExtractHtml(page.body, &doc);
    if (!extracted.ok()) return Status::InvalidArgument("html: " + extracted.message());
    page.page_has_date = doc.published.has_value() || doc.updated.has_value();
    page.page_version = doc.version;
    for (const Block& b : doc.blocks) {
      text_for_hash += b.text;
      text_for_hash += '\n';
    }
  } else {
    text_for_hash = page.body;
  }
  page.simhash = SimHashText(analyzer, text_for_hash);
  return page;
}

DocumentSpec MakeDocumentSpec(const PreparedPage& page, const std::string& doc_id, const DocumentDefaults& defaults,
                              std::string_view last_modified, int64_t fetched_at_ms) {
  DocumentSpec spec;
  spec.id = doc_id;
  spec.url = doc_id;
  spec.tenant = defaults.tenant;
  spec.text = page.body;
  spec.title = page.title;
  spec.content_type = page.content_type;
  spec.acl_groups = defaults.acl_groups;
  spec.access_label = defaults.access_label;
  spec.source_type = defaults.source_type;
  spec.version = defaults.version;
  spec.site = defaults.site;
  if (spec.site.empty()) {
    UrlParse parsed = ParseUrl(doc_id);
    if (parsed.ok()) spec.site = parsed.url->host;
  }
  if (!page.page_has_date && !last_modified.empty()) {
    if (std::optional<SystemTime> t = ParseHttpDate(last_modified)) {
      const int64_t days = std::chrono::floor<std::chrono::days>(t->time_since_epoch()).count();
      spec.updated = FormatDate(static_cast<DayNumber>(days));
    }
  }
  // Both become metadata "fetched_at" and "license" (ParseDocumentSpec), as before they had fields,
  // so documents crawled before keep their digests.
  spec.fetched_at = FormatUnixMillis(fetched_at_ms);
  spec.license = defaults.license;
  return spec;
}

AliasRecord ResolveVersionAlias(std::string_view url, std::string_view redirected_to, std::string_view canonical,
                                std::string_view fallback) {
  UrlParse parsed = ParseUrl(url);
  if (!parsed.ok()) return {};
  std::vector<VersionAlias> aliases = FindVersionAliases(*parsed.url);
  if (aliases.empty()) return {};
  AliasRecord out;
  out.word = aliases.front().word;
  const size_t index = aliases.front().segment_index;
  out.version = SegmentAt(redirected_to, index, out.word);
  if (out.version.empty()) out.version = SegmentAt(canonical, index, out.word);
  if (out.version.empty()) out.version = std::string(fallback);
  return out;
}

std::chrono::seconds NextRevisitInterval(std::chrono::seconds previous, bool changed, const RevisitBounds& bounds) {
  std::chrono::seconds next = previous.count() <= 0 ? bounds.initial : (changed ? previous / 2 : previous * 2);
  return std::clamp(next, bounds.min, std::max(bounds.min, bounds.max));
}

std::string FormatUnixMillis(int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace attest
