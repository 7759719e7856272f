#include "ingest/text_parser.h"

#include <vector>

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest {
namespace {

struct Line {
  std::string text;   // whitespace collapsed
  size_t indent = 0;  // leading columns (a tab advances to the next multiple of 8)
};
using Paragraph = std::vector<Line>;

// Paragraphs split on blank lines (lines with nothing but whitespace).
std::vector<Paragraph> SplitLines(std::string_view text) {
  std::vector<Paragraph> out(1);
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view raw = text.substr(start, end - start);
    Line line{CollapseWhitespace(raw, Nbsp::kAsSpace), 0};
    if (line.text.empty()) {
      if (!out.back().empty()) out.emplace_back();
    } else {
      for (char c : raw) {
        if (c == ' ') {
          ++line.indent;
        } else if (c == '\t') {
          line.indent = (line.indent / 8 + 1) * 8;
        } else {
          break;
        }
      }
      out.back().push_back(std::move(line));
    }
    start = end + 1;
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

std::string Join(const Paragraph& p, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i) {
    if (!out.empty()) out.push_back(' ');
    out += p[i].text;
  }
  return out;
}

bool IsOptionChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

// A man-page option line: "-x", "--long", "-x, --long[=<arg>]", "--onto <newbase>": every
// comma-separated part starts with '-' and an option character and has at most three words.
bool IsOptionLine(const Line& line) {
  const std::string_view t = line.text;
  if (t.size() < 2 || t.size() > 80 || t.back() == '.' || t.back() == ':') return false;
  size_t start = 0;
  while (start < t.size()) {
    size_t comma = t.find(", ", start);
    if (comma == std::string_view::npos) comma = t.size();
    const std::string_view part = t.substr(start, comma - start);
    if (part.size() < 2 || part[0] != '-' || !IsOptionChar(part[1]) ||
        (part[1] == '-' && (part.size() < 3 || !IsOptionChar(part[2]) || part[2] == '-'))) {
      return false;
    }
    size_t words = 1;
    for (char c : part) words += c == ' ';
    if (words > 3) return false;
    start = comma + 2;
  }
  return true;
}

// An asciidoc labelled-list term: "term::" at the start of a line, the term at most 100 bytes.
bool IsAsciidocTerm(const Line& line, std::string_view* term) {
  const std::string_view t = line.text;
  if (line.indent != 0 || t.size() < 3 || t.size() > 102 || t.substr(t.size() - 2) != "::") return false;
  *term = Trim(t.substr(0, t.size() - 2));
  return !term->empty() && term->back() != ':';
}

// Turns paragraphs into blocks, recognising labelled lists conservatively: a term needs its
// description (asciidoc: the lines after "term::"; man pages: lines indented deeper than the
// option line); later paragraphs indented deeper than the term continue its entry.
class TextBlocks {
 public:
  explicit TextBlocks(ParsedDocument* doc) : doc_(doc) {}

  void Add(const Paragraph& p, const Paragraph* next) {
    size_t body = 0;
    std::string terms;
    std::string_view term;
    while (body < p.size() && IsAsciidocTerm(p[body], &term)) {
      terms += (terms.empty() ? "" : ", ") + std::string(term);
      ++body;
    }
    const bool described = body < p.size() || (next != nullptr && !next->empty() && (*next)[0].indent > 0);
    if (body > 0 && described) return Entry(p, body, std::move(terms), 0);
    // An option line opens the paragraph, or follows a less indented line ("OPTIONS" then the
    // first option, as man prints them).
    for (size_t k = 0; k < p.size(); ++k) {
      if (!IsOptionLine(p[k]) || (k > 0 && p[k].indent <= p[k - 1].indent)) continue;
      const size_t indent = p[k].indent;
      const bool deeper = k + 1 < p.size() ? p[k + 1].indent > indent
                                           : next != nullptr && !next->empty() && (*next)[0].indent > indent;
      if (!deeper) continue;
      if (k > 0) Plain(p, k);
      return Entry(p, k + 1, p[k].text, indent);
    }
    if (!subject_.empty() && p[0].indent > term_indent_) return Description(p, 0);
    Plain(p, p.size());
  }

  void Emit(BlockKind kind, std::string text, const std::string& subject) {
    if (!text.empty()) doc_->blocks.push_back(Block{kind, kind == BlockKind::kHeading ? 1 : 0, std::move(text), subject});
  }

 private:
  // Lines [0, end) of `p` as an ordinary paragraph, which ends any entry.
  void Plain(const Paragraph& p, size_t end) {
    subject_.clear();
    Emit(BlockKind::kParagraph, Join(p, 0, end), "");
  }

  void Entry(const Paragraph& p, size_t body, std::string terms, size_t indent) {
    subject_ = std::move(terms);
    term_indent_ = indent;
    Emit(BlockKind::kDefinition, subject_, subject_);
    Description(p, body);
  }

  // Lines of an entry's description; an asciidoc continuation line "+" separates paragraphs.
  void Description(const Paragraph& p, size_t from) {
    size_t start = from;
    for (size_t i = from; i <= p.size(); ++i) {
      if (i < p.size() && p[i].text != "+") continue;
      Emit(BlockKind::kDefinition, Join(p, start, i), subject_);
      start = i + 1;
    }
  }

  ParsedDocument* doc_;
  std::string subject_;     // the entry in force ("" = none)
  size_t term_indent_ = 0;  // indentation of its term line
};

}  // namespace

void ParsePlainText(std::string_view text, std::string_view fallback_title, ParsedDocument* doc) {
  constexpr size_t kMaxTitleBytes = 120;
  const std::vector<Paragraph> paragraphs = SplitLines(text);
  std::string first_line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    first_line = CollapseWhitespace(text.substr(start, end - start), Nbsp::kAsSpace);
    if (!first_line.empty()) break;
    start = end + 1;
  }
  const bool short_title = !first_line.empty() && first_line.size() < kMaxTitleBytes;
  doc->title = short_title ? first_line : std::string(fallback_title);
  TextBlocks blocks(doc);
  for (size_t i = 0; i < paragraphs.size(); ++i) {
    const bool heading = i == 0 && short_title && paragraphs.size() > 1 && paragraphs[0].size() == 1 &&
                         paragraphs[0][0].text == first_line;
    if (heading) {
      blocks.Emit(BlockKind::kHeading, first_line, "");
      continue;
    }
    blocks.Add(paragraphs[i], i + 1 < paragraphs.size() ? &paragraphs[i + 1] : nullptr);
  }
}

}  // namespace attest
