// ParseSitemap: one pass over the decoded input, either through XmlStream (the first significant
// byte is '<') or line by line (a text sitemap).
#include "crawl/sitemap.h"

#include <charconv>

#include "common/strings.h"
#include "crawl/seed_input.h"

namespace attest {
namespace {

constexpr size_t kMaxFieldBytes = 64 * 1024;  // text kept per field; the rest is dropped

bool IsSitemapNamespace(std::string_view ns) {
  // No namespace, the protocol's (http or https spelling), or Google's pre-sitemaps.org schemas.
  return ns.empty() || ns.find("sitemaps.org/schemas/sitemap/") != std::string_view::npos ||
         ns.find("google.com/schemas/sitemap/") != std::string_view::npos;
}

std::optional<ChangeFreq> ParseChangeFreq(std::string_view text) {
  const std::string v = AsciiLower(Trim(text));
  static constexpr std::pair<std::string_view, ChangeFreq> kNames[] = {
      {"always", ChangeFreq::kAlways},   {"hourly", ChangeFreq::kHourly}, {"daily", ChangeFreq::kDaily},
      {"weekly", ChangeFreq::kWeekly},   {"monthly", ChangeFreq::kMonthly}, {"yearly", ChangeFreq::kYearly},
      {"never", ChangeFreq::kNever}};
  for (const auto& [name, f] : kNames) {
    if (v == name) return f;
  }
  return std::nullopt;
}

std::optional<double> ParsePriority(std::string_view text) {
  text = Trim(text);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, std::chars_format::fixed);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= 0.0 && v <= 1.0)) return std::nullopt;
  return v;
}

enum class Field { kNone, kLoc, kLastmod, kChangefreq, kPriority, kOther };

class SitemapXmlReader final : public XmlHandler {
 public:
  SitemapXmlReader(SitemapResult& out, const SitemapLimits& limits, const LeadingSkipper& skip)
      : out_(out), limits_(limits), skip_(skip) {}
  void Bind(XmlStream& stream) { stream_ = &stream; }

  void StartElement(std::string_view ns, std::string_view local, const std::vector<XmlAttribute>&) override {
    ++depth_;
    const bool ours = IsSitemapNamespace(ns);
    if (depth_ == 1) {
      if (ours && local == "urlset") {
        out_.format = SitemapFormat::kUrlset;
      } else if (ours && local == "sitemapindex") {
        out_.format = SitemapFormat::kIndex;
      } else {
        const bool feed = local == "rss" || local == "feed" || local == "RDF";
        stream_->Fail("not a sitemap: the root element is <" + std::string(local) + ">" +
                      (feed ? " (a feed)" : ""));
      }
      return;
    }
    if (depth_ == 2) {
      in_entry_ = ours && local == (out_.format == SitemapFormat::kIndex ? "sitemap" : "url");
      if (in_entry_) entry_ = SitemapUrl{};
      return;
    }
    if (depth_ == 3 && in_entry_ && ours) {
      field_ = local == "loc"        ? Field::kLoc
               : local == "lastmod"  ? Field::kLastmod
               : local == "changefreq" && out_.format == SitemapFormat::kUrlset ? Field::kChangefreq
               : local == "priority" && out_.format == SitemapFormat::kUrlset   ? Field::kPriority
                                                                                : Field::kOther;
      text_.clear();
      overflow_ = false;
    }
  }

  void Text(std::string_view text) override {
    if (field_ == Field::kNone || field_ == Field::kOther) return;
    const size_t room = kMaxFieldBytes - text_.size();
    if (text.size() > room) overflow_ = true;
    text_.append(text.substr(0, room));
  }

  void EndElement(std::string_view, std::string_view) override {
    if (depth_ == 3 && field_ != Field::kNone) EndField();
    if (depth_ == 2 && in_entry_) EndEntry();
    if (depth_ == 3) field_ = Field::kNone;
    if (depth_ == 2) in_entry_ = false;
    --depth_;
  }

 private:
  void Note(std::string reason) { out_.ignored.Add(std::move(reason), skip_.Absolute(stream_->Position())); }

  void EndField() {
    const std::string_view value = Trim(text_);
    switch (field_) {
      case Field::kLoc:
        if (!entry_.loc.empty()) {
          Note("a second <loc> in one entry ignored");
        } else if (overflow_ || value.size() >= limits_.max_loc_chars) {
          Note("<loc> longer than " + std::to_string(limits_.max_loc_chars) + " characters; entry skipped");
          loc_too_long_ = true;
        } else {
          entry_.loc = std::string(value);
        }
        break;
      case Field::kLastmod:
        if (auto d = ParseW3cDatetime(value)) {
          entry_.lastmod = d;
        } else if (auto r = ParseRfc3339(value)) {
          entry_.lastmod = r;
        } else if (!value.empty()) {
          Note("<lastmod> " + QuoteForNote(value) + " is not a W3C Datetime; dropped");
        }
        break;
      case Field::kChangefreq:
        if (auto f = ParseChangeFreq(value)) {
          entry_.changefreq = *f;
        } else {
          Note("<changefreq> " + QuoteForNote(value) + " is not one of the protocol's values; dropped");
        }
        break;
      case Field::kPriority:
        if (auto p = ParsePriority(value)) {
          entry_.priority = p;
        } else {
          Note("<priority> " + QuoteForNote(value) + " is not a number from 0.0 to 1.0; dropped");
        }
        break;
      default:
        break;
    }
  }

  void EndEntry() {
    const bool too_long = loc_too_long_;
    loc_too_long_ = false;
    if (entry_.loc.empty()) {
      if (!too_long) Note("an entry without <loc> skipped");
      return;
    }
    if (out_.urls.size() + out_.sitemaps.size() >= limits_.max_entries) {
      if (out_.entries_over_limit++ == 0) {
        Note("entries beyond the limit of " + std::to_string(limits_.max_entries) + " per file ignored");
      }
      return;
    }
    if (out_.format == SitemapFormat::kIndex) {
      out_.sitemaps.push_back(SitemapRef{std::move(entry_.loc), entry_.lastmod});
    } else {
      out_.urls.push_back(std::move(entry_));
    }
  }

  SitemapResult& out_;
  const SitemapLimits& limits_;
  const LeadingSkipper& skip_;
  XmlStream* stream_ = nullptr;
  int depth_ = 0;
  bool in_entry_ = false;
  bool loc_too_long_ = false;
  Field field_ = Field::kNone;
  SitemapUrl entry_;
  std::string text_;
  bool overflow_ = false;
};

bool StartsWithHttp(std::string_view s) {
  const std::string head = AsciiLower(s.substr(0, 8));
  return head.rfind("http://", 0) == 0 || head.rfind("https://", 0) == 0;
}

// A text sitemap: one URL per line (the protocol asks for fully specified URLs).
class TextReader {
 public:
  TextReader(SitemapResult& out, const SitemapLimits& limits) : out_(out), limits_(limits) {}

  void Feed(std::string_view chunk) {
    for (const char c : chunk) {
      ++offset_;
      if (c == '\n') {
        EndLine();
      } else if (line_.size() <= limits_.max_loc_chars) {
        line_.push_back(c);
      }
    }
  }
  void Finish() {
    if (!line_.empty()) EndLine();
  }

 private:
  void EndLine() {
    ++line_no_;
    const std::string_view url = Trim(line_);
    const SeedPosition where{line_no_, 1, line_start_};
    line_start_ = offset_;
    if (url.empty()) {
      line_.clear();
      return;
    }
    if (url.size() >= limits_.max_loc_chars) {
      out_.ignored.Add("line longer than " + std::to_string(limits_.max_loc_chars) + " characters skipped", where);
    } else if (!StartsWithHttp(url)) {
      out_.ignored.Add("line " + QuoteForNote(url) + " is not an absolute http(s) URL; skipped", where);
    } else if (out_.urls.size() >= limits_.max_entries) {
      if (out_.entries_over_limit++ == 0) {
        out_.ignored.Add("URLs beyond the limit of " + std::to_string(limits_.max_entries) + " per file ignored",
                         where);
      }
    } else {
      out_.urls.push_back(SitemapUrl{std::string(url), std::nullopt, ChangeFreq::kUnspecified, std::nullopt});
    }
    line_.clear();
  }

  SitemapResult& out_;
  const SitemapLimits& limits_;
  std::string line_;
  uint64_t line_no_ = 0;
  uint64_t offset_ = 0;
  uint64_t line_start_ = 0;
};

}  // namespace

std::string_view ChangeFreqName(ChangeFreq f) {
  switch (f) {
    case ChangeFreq::kAlways: return "always";
    case ChangeFreq::kHourly: return "hourly";
    case ChangeFreq::kDaily: return "daily";
    case ChangeFreq::kWeekly: return "weekly";
    case ChangeFreq::kMonthly: return "monthly";
    case ChangeFreq::kYearly: return "yearly";
    case ChangeFreq::kNever: return "never";
    case ChangeFreq::kUnspecified: break;
  }
  return "";
}

SitemapResult ParseSitemap(std::string_view bytes, std::string_view source_url, const SitemapLimits& limits) {
  SitemapResult out;
  LeadingSkipper skip;
  SitemapXmlReader xml_reader(out, limits, skip);
  XmlStream stream(xml_reader);
  xml_reader.Bind(stream);
  TextReader text_reader(out, limits);

  const DecodeReport decoded = DecodeCapped(bytes, limits.max_bytes, [&](std::string_view chunk) {
    chunk = skip.Consume(chunk);
    if (chunk.empty()) return true;
    if (!skip.xml()) {
      text_reader.Feed(chunk);
      return true;
    }
    return stream.Feed(chunk, false);
  });
  out.gzip = decoded.gzip;
  out.decoded_bytes = decoded.decoded_bytes;
  out.truncated_at_size = decoded.truncated;

  const std::string name = AsciiLower(source_url.substr(0, source_url.find_first_of("?#")));
  if (!decoded.gzip && name.size() >= 3 && name.compare(name.size() - 3, 3, ".gz") == 0) {
    out.ignored.Add("named .gz but not gzip-compressed; read as is", {});
  }
  if (decoded.truncated) {
    out.ignored.Add("input beyond " + std::to_string(limits.max_bytes) + " uncompressed bytes not read",
                    SeedPosition{0, 0, decoded.decoded_bytes});
  }
  if (!skip.started()) {
    if (!decoded.error) out.error = SeedError{"empty sitemap", {}};
  } else if (!skip.xml()) {
    out.format = SitemapFormat::kText;
    text_reader.Finish();
  } else if (!decoded.truncated && !decoded.error) {
    stream.Feed({}, true);
  }
  FinishSeedRead(stream, skip, decoded, &out.error, &out.ignored);
  return out;
}

}  // namespace attest
