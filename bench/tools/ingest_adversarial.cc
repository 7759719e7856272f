// ingest_adversarial: time the ingest parsers on hostile inputs, and measure the shape of real
// documentation trees (what the HTML limits must accept).
//
//   ingest_adversarial [--repeat 5] [--case REGEX]      adversarial table: median and range per case
//   ingest_adversarial --measure DIR...                  HTML shape of every page under the DIRs
//
// Each case is generated in memory and run through the same entry point as `attest ingest` and
// POST /v1/documents (ExtractHtml, ParseMarkdown, ParseJsonlLine) with the default limits; the
// outcome is "ok N blocks" or the error (which names its limit). Figures are wall-clock ms.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "common/file_util.h"
#include "ingest/html_extractor.h"
#include "ingest/html_limits.h"
#include "ingest/jsonl_reader.h"
#include "ingest/markdown_parser.h"

namespace {

using namespace attest;

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

struct Case {
  std::string name;
  std::string format;  // html, markdown, jsonl
  std::function<std::string()> make;
};

std::vector<Case> Cases() {
  std::vector<Case> c;
  for (const char* tag : {"span", "b", "i", "em", "strong", "code"}) {
    c.push_back({std::string("html: <p> + 300,000 x <") + tag + "> + x</p>", "html",
                 [tag] { return "<p>" + Repeat("<" + std::string(tag) + ">", 300000) + "x</p>"; }});
  }
  c.push_back({"html: 40,000 unclosed <div> (200 KB)", "html", [] { return Repeat("<div>", 40000); }});
  c.push_back({"html: 100,000 nested <div>x</div>", "html",
               [] { return Repeat("<div>", 100000) + "x" + Repeat("</div>", 100000); }});
  c.push_back({"html: 60,000 attributes on one element", "html", [] {
                 std::string s = "<p";
                 for (int i = 0; i < 60000; ++i) s += " a" + std::to_string(i) + "=1";
                 return s + ">x</p>";
               }});
  c.push_back({"html: 20 MB of tags with 256 attributes each", "html", [] {
                 std::string tag = "<p";
                 for (int i = 0; i < 256; ++i) tag += " a" + std::to_string(i) + "=1";
                 return Repeat(tag + ">x</p>", (20 << 20) / (tag.size() + 6));
               }});
  c.push_back({"html: 2 MB attribute value", "html",
               [] { return "<p title=\"" + std::string(2 << 20, 'x') + "\">x</p>"; }});
  c.push_back({"html: 300 distinct <b> reopened in 10,000 paragraphs", "html", [] {
                 std::string s = "<p>";
                 for (int i = 0; i < 300; ++i) s += "<b id=" + std::to_string(i) + ">";
                 return s + "</p>" + Repeat("<p>x</p>", 10000);
               }});
  c.push_back({"html: 500 nested <div>, <b>, 8 MB of text", "html",
               [] { return Repeat("<div>", 500) + "<b>" + std::string(8 << 20, 'x'); }});
  c.push_back({"html: 500 nested <div>, 1,000,000 x <p></p>", "html",
               [] { return Repeat("<div>", 500) + Repeat("<p></p>", 1000000); }});
  c.push_back({"html: 500 nested <div>, 990,000 x <p></p> (within limits)", "html",
               [] { return Repeat("<div>", 500) + Repeat("<p></p>", 990000); }});
  c.push_back({"html: 20 MB of ordinary paragraphs", "html",
               [] { return Repeat("<p>Some <b>ordinary</b> text with a <a href=\"x.html\">link</a>.</p>\n", 300000); }});
  c.push_back({"markdown: 100,000 nested > on one line", "markdown", [] { return Repeat(">", 100000) + " x\n"; }});
  c.push_back({"markdown: 100,000 lines of > > > quoting", "markdown", [] { return Repeat("> > > > > quoted text\n", 100000); }});
  c.push_back({"markdown: list nested 2,000 levels", "markdown", [] {
                 std::string s;
                 for (int i = 0; i < 2000; ++i) s += std::string(2 * i, ' ') + "- item\n";
                 return s;
               }});
  c.push_back({"markdown: backtick runs of length 1..2,000 (no closers)", "markdown", [] {
                 std::string s;
                 for (int i = 1; i <= 2000; ++i) s += std::string(i, '`') + " a ";
                 return s;
               }});
  c.push_back({"markdown: 1,000,000 x '*a' emphasis", "markdown", [] { return Repeat("*a", 1000000); }});
  c.push_back({"markdown: 200,000 x '[' then 200,000 x ']'", "markdown",
               [] { return Repeat("[", 200000) + "x" + Repeat("]", 200000); }});
  c.push_back({"markdown: 200,000 x '[a](' unclosed", "markdown", [] { return Repeat("[a](", 200000); }});
  c.push_back({"markdown: 200,000 x '![[' ", "markdown", [] { return Repeat("![[", 200000); }});
  c.push_back({"markdown: 500,000 x '<a ' unclosed tags", "markdown", [] { return Repeat("<a ", 500000); }});
  c.push_back({"markdown: 500,000 x '<!--' unclosed", "markdown", [] { return Repeat("<!-- x ", 500000); }});
  c.push_back({"markdown: 100,000 table rows", "markdown", [] { return "a | b\n--|--\n" + Repeat("1 | 2\n", 100000); }});
  c.push_back({"markdown: 100,000 lines of '|' without table", "markdown", [] { return Repeat("a | b\n", 100000); }});
  c.push_back({"jsonl: 40 MB text field", "jsonl",
               [] { return R"({"_id":"d","text":")" + Repeat("word ", 8 << 20) + "\"}"; }});
  c.push_back({"jsonl: 100,000 nested [", "jsonl", [] { return Repeat("[", 100000) + Repeat("]", 100000); }});
  c.push_back({"jsonl: 1,000,000 metadata fields", "jsonl", [] {
                 std::string s = R"({"_id":"d","text":"t","metadata":{)";
                 for (int i = 0; i < 1000000; ++i) s += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":1";
                 return s + "}}";
               }});
  c.push_back({"jsonl: 1,000,000 top-level fields", "jsonl", [] {
                 std::string s = R"({"_id":"d","text":"t")";
                 for (int i = 0; i < 1000000; ++i) s += ",\"k" + std::to_string(i) + "\":1";
                 return s + "}";
               }});
  c.push_back({"jsonl: 1 MB _id", "jsonl", [] { return R"({"_id":")" + std::string(1 << 20, 'x') + R"(","text":"t"})"; }});
  return c;
}

std::string RunOnce(const Case& c, const std::string& input) {
  ParsedDocument doc;
  Status st;
  if (c.format == "html") {
    st = ExtractHtml(input, &doc);
  } else if (c.format == "markdown") {
    st = ParseMarkdown(input, &doc);
  } else {
    st = ParseJsonlLine(input, SourceOptions{}, &doc);
  }
  if (!st.ok()) return "refused: " + st.message();
  return "ok, " + std::to_string(doc.blocks.size()) + " blocks";
}

int Table(int repeat, const std::string& filter) {
  const std::regex re(filter.empty() ? ".*" : filter);
  std::printf("%-58s %9s %9s %9s  %s\n", "case", "median", "min", "max", "outcome");
  for (const Case& c : Cases()) {
    if (!std::regex_search(c.name, re)) continue;
    const std::string input = c.make();
    std::vector<double> ms;
    std::string outcome;
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      outcome = RunOnce(c, input);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    if (outcome.size() > 90) outcome = outcome.substr(0, 90) + "...";
    std::printf("%-58s %9.1f %9.1f %9.1f  %s (%zu bytes)\n", c.name.c_str(), ms[ms.size() / 2], ms.front(),
                ms.back(), outcome.c_str(), input.size());
    std::fflush(stdout);
  }
  return 0;
}

int Measure(const std::vector<std::string>& dirs) {
  namespace fs = std::filesystem;
  for (const std::string& dir : dirs) {
    HtmlShape most;
    std::string deepest, most_elements, most_attributes, longest_attribute;
    size_t pages = 0, refused = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".html" && ext != ".htm")) continue;
      Result<std::string> html = ReadFileToString(e.path());
      if (!html.ok()) continue;
      ++pages;
      const HtmlShape s = MeasureHtmlShape(*html);
      const std::string name = e.path().lexically_relative(dir).string();
      if (s.depth > most.depth) most.depth = s.depth, deepest = name;
      if (s.elements > most.elements) most.elements = s.elements, most_elements = name;
      if (s.max_attributes > most.max_attributes) most.max_attributes = s.max_attributes, most_attributes = name;
      if (s.max_attribute_bytes > most.max_attribute_bytes) {
        most.max_attribute_bytes = s.max_attribute_bytes;
        longest_attribute = name;
      }
      ParsedDocument doc;
      if (Status st = ExtractHtml(*html, &doc); !st.ok()) {
        ++refused;
        std::printf("  refused %s: %s\n", name.c_str(), st.message().c_str());
      }
    }
    std::printf("%s: %zu pages, %zu refused\n", dir.c_str(), pages, refused);
    std::printf("  depth (estimate)     %6zu  %s\n", most.depth, deepest.c_str());
    std::printf("  elements (estimate)  %6zu  %s\n", most.elements, most_elements.c_str());
    std::printf("  attributes on a tag  %6zu  %s\n", most.max_attributes, most_attributes.c_str());
    std::printf("  longest attribute    %6zu  %s\n", most.max_attribute_bytes, longest_attribute.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  std::string filter;
  std::vector<std::string> measure;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--case" && i + 1 < argc) {
      filter = argv[++i];
    } else if (a == "--measure") {
      while (i + 1 < argc && argv[i + 1][0] != '-') measure.push_back(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: ingest_adversarial [--repeat N] [--case REGEX] | --measure DIR...\n");
      return 2;
    }
  }
  if (!measure.empty()) return Measure(measure);
  return Table(repeat, filter);
}
