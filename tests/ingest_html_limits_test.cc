// The HTML limits: the pre-scan's estimate against the tree gumbo really builds (its oracle), the
// time budget, the memory of a parse, and the limits as options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ingest/html_extractor.h"
#include "ingest/html_limits.h"
#include "ingest/html_tree.h"
#include "ingest/gzip_reader.h"
#include "ingest/source_reader.h"

namespace attest {
namespace {

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

struct TreeFigures {
  size_t depth = 0;
  size_t elements = 0;
};

// Depth (html = 1) and element count of the tree gumbo builds, measured without recursion.
TreeFigures Measure(const GumboNode* root) {
  TreeFigures f;
  std::vector<std::pair<const GumboNode*, size_t>> stack{{root, 1}};
  while (!stack.empty()) {
    auto [n, depth] = stack.back();
    stack.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_TEMPLATE) continue;
    ++f.elements;
    f.depth = std::max(f.depth, depth);
    const GumboVector& c = n->v.element.children;
    for (unsigned i = 0; i < c.length; ++i) stack.emplace_back(static_cast<const GumboNode*>(c.data[i]), depth + 1);
  }
  return f;
}

// The tree gumbo builds; nullopt when gumbo fails one of its assertions on the soup.
std::optional<TreeFigures> Actual(const std::string& html) {
  ingest::HtmlTree tree;
  if (!tree.Parse(html, 0).ok()) return std::nullopt;
  return Measure(tree.output()->root);
}

// Random tag soup: misnested formatting, unclosed blocks, tables with and without their implied
// parts, lists, raw text, comments. `exotic` adds what real documentation hardly uses and the
// estimate models only roughly: template contents, select, SVG and MathML, frameset, isindex.
std::string Soup(std::mt19937& rng, bool exotic) {
  static const std::vector<std::string> kTags = {
      "div", "p", "span", "b", "i", "em", "strong", "code", "a", "font", "nobr", "u", "li", "ul", "ol", "dl",
      "dt", "dd", "table", "tr", "td", "th", "tbody", "thead", "caption", "colgroup", "h1", "h2", "pre", "form",
      "button", "blockquote", "section", "object", "marquee", "applet", "ruby", "rt", "rp", "foo", "center",
      "address", "html", "body", "head", "option", "optgroup"};
  static const std::vector<std::string> kExoticTags = {"svg", "math", "template", "select", "frameset", "foreignObject",
                                                       "desc", "mi"};
  static const std::vector<std::string> kLeaves = {
      "<br>", "<img src=x>", "<hr>", "<input>", "<col>", "<script>if (a<b) x('<div>')</script>",
      "<style>p>b{}</style>", "<textarea><b>t</textarea>", "<title>t</title>", "<!-- c -->", "<!doctype html>",
      "</br>", "</p>", "text", " ", "x y", "&amp;", "<image>", "<xmp><i></xmp>"};
  static const std::vector<std::string> kExoticLeaves = {"<isindex>", "<path d=1/>", "<circle/>",
                                                         "<![CDATA[ <b> ]]>"};
  std::uniform_int_distribution<int> len(0, 400);
  std::string out;
  const int n = len(rng);
  for (int k = 0; k < n; ++k) {
    const int kind = static_cast<int>(rng() % 10);
    const bool odd = exotic && rng() % 4 == 0;
    const std::string& tag = odd ? kExoticTags[rng() % kExoticTags.size()] : kTags[rng() % kTags.size()];
    if (kind < 5) {
      out += "<" + tag;
      if (rng() % 3 == 0) out += " id=" + std::to_string(rng() % 3);
      if (rng() % 4 == 0) out += " class='c'";
      out += (rng() % 8 == 0) ? "/>" : ">";
    } else if (kind < 8) {
      out += "</" + tag + ">";
    } else {
      out += odd ? kExoticLeaves[rng() % kExoticLeaves.size()] : kLeaves[rng() % kLeaves.size()];
    }
  }
  return out;
}

// On the markup of documents (however broken) the depth estimate is an upper bound of the tree
// gumbo builds; the element estimate misses at most a few elements that gumbo re-creates around
// misnested tables and formatting (a quarter, plus a few).
TEST(IngestHtmlLimits, EstimateBoundsTheTreeGumboBuildsOnRandomTagSoup) {
  std::mt19937 rng(20240610);
  int failures = 0;
  for (int i = 0; i < 3000 && failures < 5; ++i) {
    const std::string html = Soup(rng, /*exotic=*/false);
    const HtmlShape est = MeasureHtmlShape(html);
    const std::optional<TreeFigures> real = Actual(html);
    ASSERT_TRUE(real.has_value()) << html;
    const size_t element_bound = est.elements + est.elements / 4 + 8;
    EXPECT_GE(est.depth, real->depth) << html;
    EXPECT_GE(element_bound, real->elements) << html;
    failures += est.depth < real->depth || element_bound < real->elements;
  }
}

// With template contents, select, SVG and MathML mixed in, it stays within a factor of two (the
// tree is checked exactly after parsing, so a document never gets past a limit this way).
TEST(IngestHtmlLimits, EstimateStaysCloseWithExoticMarkup) {
  std::mt19937 rng(7);
  int failures = 0, asserted = 0;
  for (int i = 0; i < 3000 && failures < 5; ++i) {
    const std::string html = Soup(rng, /*exotic=*/true);
    const HtmlShape est = MeasureHtmlShape(html);
    const std::optional<TreeFigures> real = Actual(html);
    if (!real) {
      ++asserted;
      continue;
    }
    EXPECT_GE(2 * est.depth + 8, real->depth) << html;
    EXPECT_GE(2 * est.elements + 8, real->elements) << html;
    failures += 2 * est.depth + 8 < real->depth || 2 * est.elements + 8 < real->elements;
  }
  EXPECT_LT(asserted, 30);  // soups that trip a gumbo assertion are refused, not measured
}

TEST(IngestHtmlLimits, EstimateIsCloseOnWellFormedAndCommonlyUnclosedMarkup) {
  const std::string cases[] = {
      "<html><body><div><p>a <b>b</b></p></div></body></html>",
      "<ul><li>one<li>two<li>three</ul><p>a<p>b<p>c",
      "<table><tr><td>a<td>b<tr><td>c</table>",
      "<dl><dt>t<dd>d<dt>t<dd>d</dl><select><option>a<option>b</select>",
      "<p><b>bold<p>still bold<p>and again",
  };
  for (const std::string& html : cases) {
    const HtmlShape est = MeasureHtmlShape(html);
    const std::optional<TreeFigures> real = Actual(html);
    ASSERT_TRUE(real.has_value());
    EXPECT_GE(est.depth, real->depth) << html;
    EXPECT_LE(est.depth, real->depth + 2) << html;
  }
}

TEST(IngestHtmlLimits, EachLimitIsAnOptionAndNamedWhenExceeded) {
  HtmlLimits small;
  small.max_depth = 10;
  small.max_elements = 50;
  small.max_attributes = 3;
  small.max_attribute_bytes = 20;
  small.max_bytes = 1000;
  const std::pair<std::string, std::string> cases[] = {
      {Repeat("<div>", 11), "html.max_depth"},
      {Repeat("<p>x</p>", 60), "html.max_elements"},
      {"<p a b c d>x</p>", "html.max_attributes"},
      {"<p title='" + std::string(30, 'x') + "'>x</p>", "html.max_attribute_bytes"},
      {std::string(1001, 'x'), "html.max_bytes"},
  };
  for (const auto& [html, limit] : cases) {
    ParsedDocument doc;
    const Status st = ExtractHtml(html, &doc, small);
    EXPECT_EQ(st.code(), StatusCode::kResourceExhausted) << limit;
    EXPECT_NE(st.message().find("(limit " + limit + ")"), std::string::npos) << st.message();
    EXPECT_TRUE(doc.blocks.empty());
  }
  // Just under each limit parses.
  ParsedDocument doc;
  EXPECT_TRUE(ExtractHtml(Repeat("<div>", 6) + "<p a b c>x", &doc, small).ok());
  EXPECT_EQ(doc.blocks.size(), 1u);
}

TEST(IngestHtmlLimits, TheTimeBudgetStopsAParseAndFreesWhatItBuilt) {
  HtmlLimits limits;
  limits.parse_ms_base = 0;
  limits.parse_ms_per_mib = 1;  // 4 ms for 4 MiB: far too little for gumbo
  const std::string html = Repeat("<p>some <b>text</b></p>", 4 << 20 >> 5);
  ParsedDocument doc;
  const Status st = ExtractHtml(html, &doc, limits);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(st.message().find("(limit html.parse_ms)"), std::string::npos) << st.message();

  ingest::HtmlTree tree;
  EXPECT_FALSE(tree.Parse(html, 1).ok());
  EXPECT_EQ(tree.live_blocks(), 0u);
  ingest::HtmlTree whole;
  ASSERT_TRUE(whole.Parse(html, 0).ok());
  EXPECT_GT(whole.live_blocks(), 0u);
}

// The crash itself: gumbo's destructor recursed once per level. With the pre-scan out of the way
// (limits raised), the tree is built, walked and freed without recursion.
TEST(IngestHtmlLimits, Regression_AThreeHundredThousandDeepTreeIsWalkedAndFreedWithoutRecursion) {
  HtmlLimits raised;
  raised.max_depth = 1'000'000;
  raised.parse_ms_base = 0;
  raised.parse_ms_per_mib = 0;
  ParsedDocument doc;
  const Status st = ExtractHtml("<p>" + Repeat("<span>", 300000) + "x</p>", &doc, raised);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(doc.blocks.size(), 1u);
  EXPECT_EQ(doc.blocks[0].text, "x");
}

// The defaults must accept real documentation: every page of the PostgreSQL, Git and SQLite
// documentation trees that Debian installs (postgresql-doc-15, git-doc, sqlite3-doc) parses, and
// stays well inside each limit.
TEST(IngestHtmlLimits, RealDocumentationTreesParseCompletelyWellInsideTheLimits) {
  size_t trees = 0;
  for (const char* dir : {"/usr/share/doc/postgresql-doc-15/html", "/usr/share/doc/git-doc", "/usr/share/doc/sqlite3"}) {
    std::vector<SourceFile> files;
    std::vector<SourceError> errors;
    if (!std::filesystem::is_directory(dir)) continue;
    ListSources({dir}, &files, &errors);
    size_t pages = 0;
    HtmlShape most;
    for (const SourceFile& f : files) {
      if (f.format != SourceFormat::kHtml) continue;
      ++pages;
      ParseSource(
          f, SourceOptions{}, [](ParsedDocument&&, uint64_t) {},
          [&](SourceError&& e) { ADD_FAILURE() << dir << ": " << e.ToString(); });
      std::string html;
      if (f.gzip) {  // a compressed page (changelog.html.gz) is measured decoded
        Result<std::string> decoded = ingest::ReadGzipFile(f.path, SourceOptions{}.max_document_bytes);
        ASSERT_TRUE(decoded.ok()) << f.relative << ": " << decoded.status().message();
        html = std::move(*decoded);
      } else {
        std::ifstream in(f.path, std::ios::binary);
        html.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      }
      const HtmlShape shape = MeasureHtmlShape(html);
      most.depth = std::max(most.depth, shape.depth);
      most.elements = std::max(most.elements, shape.elements);
      most.max_attributes = std::max(most.max_attributes, shape.max_attributes);
    }
    if (pages < 100) continue;  // not the documentation tree (e.g. only a changelog)
    ++trees;
    const HtmlLimits defaults;
    EXPECT_LT(most.depth * 10, defaults.max_depth) << dir;
    EXPECT_LT(most.elements * 10, defaults.max_elements) << dir;
    EXPECT_LT(most.max_attributes * 10, defaults.max_attributes) << dir;
  }
  if (trees == 0) GTEST_SKIP() << "no documentation tree installed (postgresql-doc-15, git-doc, sqlite3-doc)";
}

}  // namespace
}  // namespace attest
