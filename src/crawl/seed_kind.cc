#include "crawl/seed_kind.h"

#include <string>

#include "common/strings.h"
#include "crawl/seed_input.h"
#include "crawl/xml_stream.h"

namespace attest {
namespace {

constexpr uint64_t kSniffBytes = 64 * 1024;

// Stops the parse at the root element and remembers its name.
class RootProbe final : public XmlHandler {
 public:
  void Bind(XmlStream& s) { stream_ = &s; }
  void StartElement(std::string_view ns, std::string_view local, const std::vector<XmlAttribute>&) override {
    ns_ = std::string(ns);
    local_ = std::string(local);
    found_ = true;
    stream_->Stop();
  }
  void EndElement(std::string_view, std::string_view) override {}
  void Text(std::string_view) override {}

  bool found_ = false;
  std::string ns_, local_;

 private:
  XmlStream* stream_ = nullptr;
};

SeedKind FromRoot(std::string_view ns, std::string_view local) {
  const std::string name = AsciiLower(local);
  if (name == "sitemapindex") return SeedKind::kSitemapIndex;
  if (name == "urlset") return SeedKind::kUrlset;
  if (name == "rss" || name == "rdf") return SeedKind::kRss;
  if (name == "feed" && ns == "http://www.w3.org/2005/Atom") return SeedKind::kAtom;  // Atom 1.0 only, as ParseFeed
  if (name == "html") return SeedKind::kHtml;
  return SeedKind::kUnknown;
}

SeedKind FromContentType(std::string_view content_type) {
  const std::string t = AsciiLower(content_type);
  if (t.find("html") != std::string::npos) return SeedKind::kHtml;
  if (t.find("rss") != std::string::npos) return SeedKind::kRss;
  if (t.find("atom") != std::string::npos) return SeedKind::kAtom;
  if (t.find("text/plain") != std::string::npos) return SeedKind::kTextSitemap;
  return SeedKind::kUnknown;
}

}  // namespace

std::string_view SeedKindName(SeedKind kind) {
  switch (kind) {
    case SeedKind::kSitemapIndex: return "sitemap index";
    case SeedKind::kUrlset: return "sitemap";
    case SeedKind::kTextSitemap: return "text sitemap";
    case SeedKind::kRss: return "rss";
    case SeedKind::kAtom: return "atom";
    case SeedKind::kHtml: return "html";
    case SeedKind::kUnknown: break;
  }
  return "unknown";
}

SeedKind DetectSeedKind(std::string_view bytes, std::string_view content_type) {
  std::string head;
  LeadingSkipper skip;
  DecodeCapped(bytes, kSniffBytes, [&](std::string_view chunk) {
    head.append(skip.Consume(chunk));
    return true;
  });
  SeedKind kind = SeedKind::kUnknown;
  if (skip.xml()) {
    RootProbe probe;
    XmlStream stream(probe);
    probe.Bind(stream);
    stream.Feed(head, false);
    if (probe.found_) kind = FromRoot(probe.ns_, probe.local_);
    if (kind == SeedKind::kUnknown) {
      const std::string lower = AsciiLower(head);
      if (lower.find("<html") != std::string::npos || lower.find("<!doctype html") != std::string::npos) {
        kind = SeedKind::kHtml;
      }
    }
  } else if (!head.empty()) {
    const std::string_view first_line = Trim(std::string_view(head).substr(0, head.find('\n')));
    const std::string lower = AsciiLower(first_line.substr(0, 8));
    if (lower.rfind("http://", 0) == 0 || lower.rfind("https://", 0) == 0) kind = SeedKind::kTextSitemap;
  }
  return kind != SeedKind::kUnknown ? kind : FromContentType(content_type);
}

}  // namespace attest
