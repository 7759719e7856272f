#include "ingest/html_extractor.h"

#include <gumbo.h>

#include <vector>

#include "common/strings.h"
#include "ingest/html_block_walker.h"
#include "ingest/html_dom.h"
#include "ingest/html_tree.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

using ingest::Attr;
using ingest::EqualsIgnoreCase;

struct HeadInfo {
  std::string title;
  std::string first_h1;
  std::string canonical;
  std::string site_name;
  std::string language;
  std::optional<DayNumber> published;
  std::optional<DayNumber> updated;
  std::optional<DayNumber> first_time;  // first <time datetime>
  const GumboNode* body = nullptr;
};

void ReadMeta(const GumboNode* meta, HeadInfo* info) {
  const char* key = Attr(meta, "property");
  if (key == nullptr) key = Attr(meta, "name");
  if (key == nullptr) key = Attr(meta, "http-equiv");
  if (key == nullptr) key = Attr(meta, "itemprop");
  const char* content = Attr(meta, "content");
  if (key == nullptr || content == nullptr) return;
  const std::string k = AsciiLower(Trim(key));
  if (k == "og:site_name") {
    info->site_name = CollapseWhitespace(content, Nbsp::kAsSpace);
    return;
  }
  static constexpr std::string_view kPublished[] = {"article:published_time", "date", "dc.date", "dc.date.issued",
                                                    "dcterms.created", "dcterms.issued", "datepublished"};
  static constexpr std::string_view kUpdated[] = {"article:modified_time", "og:updated_time", "dcterms.modified",
                                                  "last-modified", "datemodified"};
  for (std::string_view p : kPublished) {
    if (k == p && !info->published) info->published = ParseDate(content);
  }
  for (std::string_view u : kUpdated) {
    if (k == u && !info->updated) info->updated = ParseDate(content);
  }
}

// One pass over the whole tree for the metadata that can live anywhere.
HeadInfo ReadHead(const GumboNode* root) {
  HeadInfo info;
  const ingest::DropRules rules;
  if (const char* lang = Attr(root, "lang")) {
    std::string l = AsciiLower(Trim(lang));
    info.language = l.substr(0, l.find_first_of("-_"));
  }
  std::vector<const GumboNode*> stack{root};
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT) continue;
    switch (n->v.element.tag) {
      case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_TEMPLATE: case GUMBO_TAG_SVG:
        continue;
      case GUMBO_TAG_BODY:
        if (info.body == nullptr) info.body = n;
        break;
      case GUMBO_TAG_TITLE:
        if (info.title.empty()) info.title = ingest::CollectText(n, rules);
        continue;
      case GUMBO_TAG_H1:
        if (info.first_h1.empty()) info.first_h1 = ingest::CollectText(n, rules);
        continue;
      case GUMBO_TAG_LINK:
        if (info.canonical.empty() && ingest::RelHasToken(Attr(n, "rel"), "canonical")) {
          const char* href = Attr(n, "href");
          if (href && !ingest::UrlHost(href).empty()) info.canonical = std::string(Trim(href));
        }
        continue;
      case GUMBO_TAG_META:
        ReadMeta(n, &info);
        continue;
      case GUMBO_TAG_TIME:
        if (!info.first_time) {
          if (const char* dt = Attr(n, "datetime")) info.first_time = ParseDate(dt);
        }
        break;
      default:
        break;
    }
    const GumboVector& c = n->v.element.children;
    for (unsigned i = c.length; i > 0; --i) stack.push_back(static_cast<const GumboNode*>(c.data[i - 1]));
  }
  return info;
}

// "Guide - Example Docs" -> "Guide" when og:site_name is "Example Docs".
std::string TrimSiteSuffix(const std::string& title, const std::string& site_name) {
  if (site_name.empty() || title.size() <= site_name.size()) return title;
  if (title.compare(title.size() - site_name.size(), site_name.size(), site_name) != 0) return title;
  std::string_view head = std::string_view(title).substr(0, title.size() - site_name.size());
  head = Trim(head);
  for (std::string_view sep : {"|", "-", "\xE2\x80\x94", "\xE2\x80\x93", "\xC2\xB7", "::", ":"}) {
    if (head.size() > sep.size() && head.substr(head.size() - sep.size()) == sep) {
      return std::string(Trim(head.substr(0, head.size() - sep.size())));
    }
  }
  return title;
}

// "E.17. Release 15.4" -> "15.4"; "Release 15" -> "15"; otherwise "".
std::string ReleaseVersion(std::string_view title) {
  title = Trim(title);
  size_t end = title.size();
  size_t begin = end;
  while (begin > 0 && ((title[begin - 1] >= '0' && title[begin - 1] <= '9') || title[begin - 1] == '.')) --begin;
  std::string_view version = title.substr(begin, end - begin);
  if (version.empty() || version.front() == '.' || version.back() == '.' ||
      version.find("..") != std::string_view::npos) {
    return "";
  }
  std::string_view before = title.substr(0, begin);
  if (before.size() < 8 || !EqualsIgnoreCase(before.substr(before.size() - 8), "release ")) return "";
  if (before.size() > 8 && !ingest::IsAsciiSpace(before[before.size() - 9])) return "";
  return std::string(version);
}

std::optional<DayNumber> ReleaseDate(const std::vector<Block>& blocks) {
  constexpr std::string_view kPrefix = "release date:";
  const size_t n = std::min<size_t>(blocks.size(), 12);
  for (size_t i = 0; i < n; ++i) {
    std::string_view t = Trim(blocks[i].text);
    if (ingest::StartsWithIgnoreCase(t, kPrefix)) return ParseDate(t.substr(kPrefix.size()));
  }
  return std::nullopt;
}

// The tree gumbo built against the depth and element limits, exactly (the pre-scan estimates).
Status CheckTree(const GumboNode* root, const HtmlLimits& limits) {
  size_t elements = 0;
  std::vector<std::pair<const GumboNode*, size_t>> stack{{root, 1}};
  while (!stack.empty()) {
    const GumboNode* n = stack.back().first;
    const size_t depth = stack.back().second;
    stack.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE) continue;
    auto at = [n] { return " at byte " + std::to_string(n->v.element.start_pos.offset); };
    if (depth > limits.max_depth) {
      return Status::ResourceExhausted("html: elements nest deeper than " + std::to_string(limits.max_depth) + at() +
                                       " (limit html.max_depth)");
    }
    if (++elements > limits.max_elements) {
      return Status::ResourceExhausted("html: more than " + std::to_string(limits.max_elements) + " elements" + at() +
                                       " (limit html.max_elements)");
    }
    const GumboVector& c = n->v.element.children;
    for (unsigned i = 0; i < c.length; ++i) stack.emplace_back(static_cast<const GumboNode*>(c.data[i]), depth + 1);
  }
  return Status::Ok();
}

}  // namespace

Status ExtractHtml(std::string_view html, ParsedDocument* doc, const HtmlLimits& limits) {
  ATTEST_RETURN_IF_ERROR(CheckHtmlShape(html, limits));
  ingest::HtmlTree tree;
  ATTEST_RETURN_IF_ERROR(tree.Parse(html, HtmlParseBudgetMs(limits, html.size())));
  const GumboOutput* out = tree.output();
  ATTEST_RETURN_IF_ERROR(CheckTree(out->root, limits));
  const HeadInfo info = ReadHead(out->root);
  if (info.body != nullptr) {
    doc->blocks = ingest::HtmlBlockWalker(ingest::DropRules{true}).Walk(info.body);
    // A page made only of a table of contents (a DocBook part index) keeps it.
    if (doc->blocks.empty()) doc->blocks = ingest::HtmlBlockWalker(ingest::DropRules{false}).Walk(info.body);
  }
  doc->title = TrimSiteSuffix(info.title, info.site_name);
  if (doc->title.empty()) doc->title = info.first_h1;
  doc->url = info.canonical;
  if (!info.language.empty()) doc->language = info.language;
  doc->published = info.published ? info.published : info.first_time;
  doc->updated = info.updated;
  const std::string version = ReleaseVersion(doc->title);
  if (!version.empty()) {
    doc->version = version;
    doc->source_type = "release_notes";
  }
  if (!doc->published) doc->published = ReleaseDate(doc->blocks);
  // gumbo decodes an overflowing numeric character reference without ';' ("&#11111111111") into a
  // lone byte: whatever leaves the extractor is well-formed UTF-8.
  for (std::string* s : {&doc->title, &doc->url, &doc->language, &doc->version}) {
    if (ingest::FindInvalidUtf8(*s)) *s = ingest::ReplaceInvalidUtf8(*s);
  }
  for (Block& b : doc->blocks) {
    if (ingest::FindInvalidUtf8(b.text)) b.text = ingest::ReplaceInvalidUtf8(b.text);
    if (ingest::FindInvalidUtf8(b.subject)) b.subject = ingest::ReplaceInvalidUtf8(b.subject);
  }
  return Status::Ok();
}

}  // namespace attest
