// ParseFeed: one streaming pass over the decoded input through XmlStream. Depths locate the
// channel/feed level and the item/entry level; a field's text is captured from its start tag to
// its end tag (descendants included, for Atom xhtml titles). xml:base values are kept on a stack
// of (depth, resolved base) pairs.
#include "crawl/feed.h"

#include "common/strings.h"
#include "crawl/seed_input.h"
#include "crawl/uri_reference.h"

namespace attest {
namespace {

constexpr std::string_view kAtomNs = "http://www.w3.org/2005/Atom";
constexpr std::string_view kRss1Ns = "http://purl.org/rss/1.0/";
constexpr std::string_view kRdfNs = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
constexpr std::string_view kDcNs = "http://purl.org/dc/elements/1.1/";
constexpr std::string_view kXmlNs = "http://www.w3.org/XML/1998/namespace";
constexpr size_t kMaxFieldBytes = 64 * 1024;

enum class Field { kNone, kTitle, kLink, kGuid, kId, kPubDate, kDcDate, kUpdated, kPublished, kLastBuildDate };

std::string_view Attr(const std::vector<XmlAttribute>& attrs, std::string_view ns, std::string_view local) {
  for (const XmlAttribute& a : attrs) {
    if (a.ns == ns && a.local == local) return a.value;
  }
  return {};
}

bool IsHtmlType(std::string_view type) {
  const std::string t = AsciiLower(Trim(type));
  return t.empty() || t == "text/html" || t == "application/xhtml+xml";
}

class FeedReader final : public XmlHandler {
 public:
  FeedReader(FeedResult& out, const FeedLimits& limits, const LeadingSkipper& skip, std::string_view source_url)
      : out_(out), limits_(limits), skip_(skip) {
    bases_.push_back({0, std::string(source_url)});
  }
  void Bind(XmlStream& stream) { stream_ = &stream; }

  void StartElement(std::string_view ns, std::string_view local, const std::vector<XmlAttribute>& attrs) override {
    ++depth_;
    if (const std::string_view base = Attr(attrs, kXmlNs, "base"); !base.empty()) PushBase(base);
    if (field_ != Field::kNone) return;  // inside a captured field (xhtml markup)
    if (depth_ == 1) return Root(ns, local);
    const bool atom = out_.format == FeedFormat::kAtom;
    const bool core = atom ? ns == kAtomNs : (ns.empty() || ns == kRss1Ns);
    if (!atom && core && local == "channel" && depth_ == 2) {
      channel_depth_ = depth_;
      return;
    }
    const int item_depth = atom || rdf_ ? 2 : channel_depth_ + 1;
    if (entry_depth_ == 0 && core && depth_ == item_depth && local == (atom ? "entry" : "item") &&
        (atom || rdf_ || channel_depth_ > 0)) {
      entry_depth_ = depth_;
      entry_ = FeedEntry{};
      guid_link_.clear();
      dc_date_.reset();
      entry_link_html_ = false;
      return;
    }
    const bool entry_level = entry_depth_ > 0 && depth_ == entry_depth_ + 1;
    const bool feed_level = entry_depth_ == 0 && depth_ == (atom ? 2 : channel_depth_ + 1) && (atom || channel_depth_ > 0);
    if (!entry_level && !feed_level) return;
    if (atom && core && local == "link") return AtomLink(attrs, entry_level);
    Field f = Field::kNone;
    if (ns == kDcNs && local == "date") {
      f = Field::kDcDate;
    } else if (core) {
      if (local == "title") f = Field::kTitle;
      else if (local == "link" && !atom) f = Field::kLink;
      else if (local == "guid" && !atom) f = Field::kGuid;
      else if (local == "id" && atom) f = Field::kId;
      else if (local == "pubDate" && !atom) f = Field::kPubDate;
      else if (local == "lastBuildDate" && !atom) f = Field::kLastBuildDate;
      else if (local == "updated" && atom) f = Field::kUpdated;
      else if (local == "published" && atom) f = Field::kPublished;
    }
    if (f == Field::kNone) return;
    field_ = f;
    field_depth_ = depth_;
    field_in_entry_ = entry_level;
    text_.clear();
    permalink_ = f != Field::kGuid || AsciiLower(Trim(Attr(attrs, {}, "isPermaLink"))) != "false";
  }

  void Text(std::string_view text) override {
    if (field_ == Field::kNone) return;
    text_.append(text.substr(0, kMaxFieldBytes - text_.size()));
  }

  void EndElement(std::string_view, std::string_view) override {
    if (field_ != Field::kNone && depth_ == field_depth_) {
      EndField();
      field_ = Field::kNone;
    }
    if (entry_depth_ == depth_) {
      EndEntry();
      entry_depth_ = 0;
    }
    if (channel_depth_ == depth_) channel_depth_ = 0;
    if (bases_.back().first == depth_) bases_.pop_back();
    --depth_;
  }

 private:
  void Note(std::string reason) { out_.ignored.Add(std::move(reason), skip_.Absolute(stream_->Position())); }

  void Root(std::string_view ns, std::string_view local) {
    if (ns.empty() && local == "rss") {
      out_.format = FeedFormat::kRss;
    } else if (ns == kRdfNs && local == "RDF") {
      out_.format = FeedFormat::kRss;
      rdf_ = true;
    } else if (ns == kAtomNs && local == "feed") {
      out_.format = FeedFormat::kAtom;
    } else {
      const bool sitemap = local == "urlset" || local == "sitemapindex";
      stream_->Fail("not an RSS or Atom feed: the root element is <" + std::string(local) + ">" +
                    (sitemap ? " (a sitemap)" : ""));
    }
  }

  void PushBase(std::string_view value) {
    const std::string& current = bases_.back().second;
    std::optional<std::string> resolved = ResolveUriReference(current, Trim(value));
    bases_.push_back({depth_, resolved ? std::move(*resolved) : std::string(Trim(value))});
  }

  std::string ResolveHref(std::string_view href) {
    href = Trim(href);
    if (std::optional<std::string> r = ResolveUriReference(bases_.back().second, href)) return std::move(*r);
    Note("relative link " + QuoteForNote(href) + " has no absolute base; returned as written");
    return std::string(href);
  }

  // RFC 4287 §4.2.7.2: no rel means "alternate"; the IANA URI form is the same relation.
  void AtomLink(const std::vector<XmlAttribute>& attrs, bool entry_level) {
    const std::string rel = std::string(Trim(Attr(attrs, {}, "rel")));
    if (!rel.empty() && rel != "alternate" && rel != "http://www.iana.org/assignments/relation/alternate") return;
    const std::string_view href = Attr(attrs, {}, "href");
    if (Trim(href).empty()) return;
    const bool html = IsHtmlType(Attr(attrs, {}, "type"));
    std::string& target = entry_level ? entry_.link : out_.link;
    bool& target_html = entry_level ? entry_link_html_ : feed_link_html_;
    if (!target.empty() && (target_html || !html)) return;
    target = ResolveHref(href);
    target_html = html;
  }

  std::optional<SeedDate> ParseDateField(std::string_view value, bool rss) {
    if (value.empty()) return std::nullopt;
    if (rss) {
      if (auto d = ParseRfc822Datetime(value)) return d;
    }
    if (auto d = ParseRfc3339(value)) return d;
    if (auto d = ParseW3cDatetime(value)) return d;
    Note("date " + QuoteForNote(value) + " not understood; dropped");
    return std::nullopt;
  }

  void EndField() {
    const std::string_view value = Trim(text_);
    if (field_ == Field::kTitle) {
      (field_in_entry_ ? entry_.title : out_.title) = CollapseWhitespace(value, Nbsp::kAsSpace);
      return;
    }
    if (!field_in_entry_) {
      if (field_ == Field::kLink && out_.link.empty()) out_.link = std::string(value);
      if (field_ == Field::kUpdated || field_ == Field::kLastBuildDate) out_.updated = ParseDateField(value, !IsAtom());
      if ((field_ == Field::kPubDate || field_ == Field::kDcDate) && !out_.updated) {
        out_.updated = ParseDateField(value, field_ == Field::kPubDate);
      }
      return;
    }
    switch (field_) {
      case Field::kLink: entry_.link = std::string(value); break;
      case Field::kGuid:
        entry_.id = std::string(value);
        if (permalink_) guid_link_ = entry_.id;
        break;
      case Field::kId: entry_.id = std::string(value); break;
      case Field::kPubDate: entry_.published = ParseDateField(value, true); break;
      case Field::kDcDate: dc_date_ = ParseDateField(value, false); break;
      case Field::kUpdated: entry_.updated = ParseDateField(value, false); break;
      case Field::kPublished: entry_.published = ParseDateField(value, false); break;
      default: break;
    }
  }

  void EndEntry() {
    if (entry_.link.empty()) entry_.link = std::move(guid_link_);
    if (!entry_.published && !IsAtom()) entry_.published = dc_date_;
    if (entry_.link.empty()) Note("an entry without a link (kept)");
    if (out_.entries.size() >= limits_.max_entries) {
      if (out_.entries_over_limit++ == 0) {
        Note("entries beyond the limit of " + std::to_string(limits_.max_entries) + " ignored");
      }
      return;
    }
    out_.entries.push_back(std::move(entry_));
  }

  bool IsAtom() const { return out_.format == FeedFormat::kAtom; }

  FeedResult& out_;
  const FeedLimits& limits_;
  const LeadingSkipper& skip_;
  XmlStream* stream_ = nullptr;
  std::vector<std::pair<int, std::string>> bases_;  // (depth that set it, resolved base)
  int depth_ = 0;
  int channel_depth_ = 0;
  int entry_depth_ = 0;
  bool rdf_ = false;
  Field field_ = Field::kNone;
  int field_depth_ = 0;
  bool field_in_entry_ = false;
  bool permalink_ = true;
  bool entry_link_html_ = false;
  bool feed_link_html_ = false;
  std::string text_;
  FeedEntry entry_;
  std::string guid_link_;
  std::optional<SeedDate> dc_date_;
};

}  // namespace

FeedResult ParseFeed(std::string_view bytes, std::string_view source_url, const FeedLimits& limits) {
  FeedResult out;
  LeadingSkipper skip;
  FeedReader reader(out, limits, skip, source_url);
  XmlStream stream(reader);
  reader.Bind(stream);
  bool not_xml = false;
  const DecodeReport decoded = DecodeCapped(bytes, limits.max_bytes, [&](std::string_view chunk) {
    chunk = skip.Consume(chunk);
    if (chunk.empty()) return true;
    if (!skip.xml()) {
      not_xml = true;
      return false;
    }
    return stream.Feed(chunk, false);
  });
  out.gzip = decoded.gzip;
  out.decoded_bytes = decoded.decoded_bytes;
  out.truncated_at_size = decoded.truncated;
  if (decoded.truncated) {
    out.ignored.Add("input beyond " + std::to_string(limits.max_bytes) + " uncompressed bytes not read",
                    SeedPosition{0, 0, decoded.decoded_bytes});
  }
  if (!skip.started() || not_xml) {
    if (!decoded.error) out.error = SeedError{skip.started() ? "not XML: a feed must start with '<'" : "empty feed", {}};
  } else if (!decoded.truncated && !decoded.error) {
    stream.Feed({}, true);
  }
  FinishSeedRead(stream, skip, decoded, &out.error, &out.ignored);
  return out;
}

}  // namespace attest
