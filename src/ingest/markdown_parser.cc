#include "ingest/markdown_parser.h"

#include <string>
#include <vector>

#include "common/strings.h"
#include "ingest/markdown_inline.h"
#include "ingest/text_util.h"

namespace attest {
namespace {


std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// Leading indentation in columns (tab = up to the next multiple of 4) and the byte offset after it.
size_t Indent(std::string_view line, size_t* bytes) {
  size_t col = 0, i = 0;
  for (; i < line.size(); ++i) {
    if (line[i] == ' ') {
      ++col;
    } else if (line[i] == '\t') {
      col = (col / 4 + 1) * 4;
    } else {
      break;
    }
  }
  if (bytes) *bytes = i;
  return col;
}

// Removes up to `cols` columns of indentation.
std::string_view Dedent(std::string_view line, size_t cols) {
  size_t col = 0, i = 0;
  while (i < line.size() && col < cols && (line[i] == ' ' || line[i] == '\t')) {
    col = line[i] == '\t' ? (col / 4 + 1) * 4 : col + 1;
    ++i;
  }
  return line.substr(i);
}

bool IsRunOf(std::string_view s, char c, size_t min) {
  size_t n = 0;
  for (char x : s) {
    if (x == c) {
      ++n;
    } else if (x != ' ' && x != '\t') {
      return false;
    }
  }
  return n >= min;
}

bool IsThematicBreak(std::string_view s) { return IsRunOf(s, '*', 3) || IsRunOf(s, '-', 3) || IsRunOf(s, '_', 3); }

bool IsSetextUnderline(std::string_view s, int* level) {
  s = Trim(s);
  if (s.empty()) return false;
  if (s.find_first_not_of('=') == std::string_view::npos) {
    *level = 1;
    return true;
  }
  if (s.find_first_not_of('-') == std::string_view::npos) {
    *level = 2;
    return true;
  }
  return false;
}

// "## Title ##" -> level 2, "Title".
bool ParseAtx(std::string_view s, int* level, std::string_view* text) {
  size_t n = 0;
  while (n < s.size() && s[n] == '#') ++n;
  if (n == 0 || n > 6 || (n < s.size() && s[n] != ' ' && s[n] != '\t')) return false;
  std::string_view rest = Trim(s.substr(n));
  size_t close = rest.size();
  while (close > 0 && rest[close - 1] == '#') --close;
  if (close == 0) {
    rest = {};
  } else if (close < rest.size() && (rest[close - 1] == ' ' || rest[close - 1] == '\t')) {
    rest = Trim(rest.substr(0, close));
  }
  *level = static_cast<int>(n);
  *text = rest;
  return true;
}

// "- x", "* x", "+ x", "12. x", "3) x": returns the marker width including the following space.
size_t ListMarker(std::string_view s) {
  if (s.empty()) return 0;
  size_t i = 0;
  if (s[0] == '-' || s[0] == '*' || s[0] == '+') {
    i = 1;
  } else {
    while (i < s.size() && i < 9 && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == 0 || i >= s.size() || (s[i] != '.' && s[i] != ')')) return 0;
    ++i;
  }
  if (i == s.size()) return i;  // an empty item
  if (s[i] != ' ' && s[i] != '\t') return 0;
  return i + 1;
}

bool IsFenceOpen(std::string_view s, char* fence_char, size_t* fence_len) {
  if (s.size() < 3 || (s[0] != '`' && s[0] != '~')) return false;
  size_t n = 0;
  while (n < s.size() && s[n] == s[0]) ++n;
  if (n < 3) return false;
  if (s[0] == '`' && s.substr(n).find('`') != std::string_view::npos) return false;
  *fence_char = s[0];
  *fence_len = n;
  return true;
}

bool IsTableDelimiterRow(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s.find('-') == std::string_view::npos) return false;
  bool has_pipe = s.find('|') != std::string_view::npos;
  for (char c : s) {
    if (c != '|' && c != '-' && c != ':' && c != ' ' && c != '\t') return false;
  }
  return has_pipe || s.find(':') != std::string_view::npos;
}

// The cells of a pipe-table row, inline markup stripped.
std::vector<std::string> TableCells(std::string_view s) {
  s = Trim(s);
  if (!s.empty() && s.front() == '|') s.remove_prefix(1);
  if (!s.empty() && s.back() == '|' && (s.size() < 2 || s[s.size() - 2] != '\\')) s.remove_suffix(1);
  std::vector<std::string> row;
  std::string cell;
  auto flush = [&] {
    row.push_back(StripMarkdownInline(cell));
    cell.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size() && s[i + 1] == '|') {
      cell.push_back('|');
      ++i;
    } else if (s[i] == '|') {
      flush();
    } else {
      cell.push_back(s[i]);
    }
  }
  flush();
  return row;
}

// A body row with its column headers: "Name: a | Value: 1" (a cell without a header stays bare).
std::string HeadedRow(const std::vector<std::string>& header, const std::vector<std::string>& cells) {
  std::string out;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].empty()) continue;
    if (!out.empty()) out += " | ";
    if (i < header.size() && !header[i].empty() && header[i] != cells[i]) out += header[i] + ": ";
    out += cells[i];
  }
  return out;
}

// A list item that names its subject first: "`--force`: ...", "**timeout** - ...", "**timeout:**
// ...". Returns the term ("" when the item does not start that way).
std::string LeadingTerm(std::string_view item) {
  item = Trim(item);
  std::string_view open;
  if (item.substr(0, 2) == "**" || item.substr(0, 2) == "__") {
    open = item.substr(0, 2);
  } else if (!item.empty() && item[0] == '`') {
    open = item.substr(0, 1);
  } else {
    return {};
  }
  const size_t close = item.find(open, open.size());
  if (close == std::string_view::npos || close == open.size() || close > 120) return {};
  std::string_view term = item.substr(open.size(), close - open.size());
  std::string_view rest = Trim(item.substr(close + open.size()));
  bool separated = false;
  if (!term.empty() && term.back() == ':' && open[0] != '`') {  // "**timeout:** ..."
    term.remove_suffix(1);
    separated = true;
  }
  for (std::string_view sep : {":", "-", "\xE2\x80\x93", "\xE2\x80\x94"}) {  // ':', '-', en dash, em dash
    if (!separated && rest.substr(0, sep.size()) == sep) separated = true;
  }
  if (!separated || term.find('\n') != std::string_view::npos) return {};
  return StripMarkdownInline(term);
}

// Lines of a paragraph that can be definition terms ("Term" lines before ": definition"): at most
// three, none long. Returns them joined with ", ", or "".
std::string TermsOf(std::string_view paragraph) {
  std::string out;
  size_t lines = 0, start = 0;
  while (start <= paragraph.size()) {
    size_t nl = paragraph.find('\n', start);
    if (nl == std::string_view::npos) nl = paragraph.size();
    const std::string_view line = Trim(paragraph.substr(start, nl - start));
    if (line.empty() || line.size() > 100 || ++lines > 3) return {};
    if (!out.empty()) out += ", ";
    out += line;
    start = nl + 1;
  }
  return out;
}

std::string Unquote(std::string_view v) {
  v = Trim(v);
  if (v.size() >= 2 && ((v.front() == '"' && v.back() == '"') || (v.front() == '\'' && v.back() == '\''))) {
    v = v.substr(1, v.size() - 2);
  }
  return std::string(v);
}

Status FrontMatterDate(std::string_view key, const std::string& value, std::optional<DayNumber>* out) {
  if (value.empty()) return Status::Ok();
  auto day = ParseDate(value);
  if (!day) {
    return Status::InvalidArgument("front matter \"" + std::string(key) + "\" is not a recognised date: \"" +
                                   value + "\"");
  }
  *out = day;
  return Status::Ok();
}

Status ApplyFrontMatter(const std::vector<std::string_view>& lines, size_t begin, size_t end, ParsedDocument* doc) {
  for (size_t i = begin; i < end; ++i) {
    std::string_view line = lines[i];
    if (line.empty() || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '-') continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string key = AsciiLower(Trim(line.substr(0, colon)));
    const std::string value = Unquote(line.substr(colon + 1));
    if (key.empty()) continue;
    if (key == "title") {
      doc->title = CollapseWhitespace(value, Nbsp::kAsSpace);
    } else if (key == "date" || key == "published" || key == "pubdate" || key == "publishdate") {
      ATTEST_RETURN_IF_ERROR(FrontMatterDate(key, value, &doc->published));
    } else if (key == "updated" || key == "lastmod" || key == "last_modified" || key == "modified") {
      ATTEST_RETURN_IF_ERROR(FrontMatterDate(key, value, &doc->updated));
    } else if (key == "version") {
      doc->version = value;
    } else if (key == "url" || key == "canonical" || key == "canonical_url") {
      doc->url = value;
    } else if (key == "site") {
      doc->site = value;
    } else if (key == "source_type") {
      doc->source_type = value;
    } else if (key == "language" || key == "lang") {
      if (!value.empty()) doc->language = AsciiLower(value);
    } else if (!value.empty()) {
      doc->metadata[key] = value;
    }
  }
  return Status::Ok();
}

class BlockParser {
 public:
  explicit BlockParser(ParsedDocument* doc) : doc_(doc) {}

  void Parse(const std::vector<std::string_view>& lines, size_t begin) {
    for (size_t i = begin; i < lines.size(); ++i) i = Line(lines, i);
    Close();
  }

 private:
  enum class Open { kNone, kParagraph, kListItem, kDefinition };

  // Handles lines[i]; returns the index of the last line consumed.
  size_t Line(const std::vector<std::string_view>& lines, size_t i) {
    std::string_view raw = lines[i];
    if (Trim(raw).empty()) {
      Close();
      return i;
    }
    size_t ibytes = 0;
    size_t indent = Indent(raw, &ibytes);
    // Inside a list, lines indented to the item's content column belong to the list.
    if (in_list_ && indent >= list_indent_) {
      raw = Dedent(raw, list_indent_);
      indent = Indent(raw, &ibytes);
    } else if (in_list_ && open_ != Open::kListItem) {
      in_list_ = false;
    }
    const std::string_view s = raw.substr(ibytes);

    const bool colon = s.size() >= 2 && s[0] == ':' && (s[1] == ' ' || s[1] == '\t');
    if (!term_.empty() && open_ == Open::kNone && !in_list_ && !colon) {
      // After a definition's blank line: an indented paragraph continues it (indented code and
      // fences stay code about the term); anything unindented ends it.
      char fc = 0;
      size_t fl = 0;
      if (indent < 2) {
        term_.clear();
      } else if (indent < 8 && !ListMarker(s) && !IsFenceOpen(s, &fc, &fl)) {
        open_ = Open::kDefinition;
        return Append(s, i);
      }
    }
    if (indent < 4 && colon && StartDefinition()) return Append(s.substr(2), i);
    if (indent >= 4 && open_ == Open::kNone) return IndentedCode(lines, i);
    if (indent >= 4) return Append(s, i);  // lazy continuation of a paragraph or item

    char fence_char = 0;
    size_t fence_len = 0;
    if (IsFenceOpen(s, &fence_char, &fence_len)) return FencedCode(lines, i, indent, fence_char, fence_len);
    int level = 0;
    std::string_view heading;
    if (ParseAtx(s, &level, &heading)) {
      Close();
      in_list_ = false;
      Emit(BlockKind::kHeading, level, StripMarkdownInline(heading));
      return i;
    }
    if (open_ == Open::kParagraph && !para_from_quote_ && IsSetextUnderline(s, &level)) {
      Emit(BlockKind::kHeading, level, StripMarkdownInline(text_));
      Reset();
      return i;
    }
    if (IsThematicBreak(s)) {
      Close();
      in_list_ = false;
      return i;
    }
    if (s.substr(0, 4) == "<!--") return Comment(lines, i);
    if (open_ != Open::kParagraph && s[0] == '[' && s.find("]:") != std::string_view::npos) {
      return i;  // link reference definition
    }
    if (s[0] == '>') {
      std::string_view q = s;
      while (!q.empty() && (q[0] == '>' || q[0] == ' ' || q[0] == '\t')) q.remove_prefix(1);
      if (open_ != Open::kNone && !para_from_quote_) Close();
      if (q.empty()) {
        Close();
        return i;
      }
      open_ = Open::kParagraph;
      para_from_quote_ = true;
      return Append(q, i);
    }
    if (const size_t marker = ListMarker(s)) {
      Close();
      in_list_ = true;
      list_indent_ = indent + marker;
      open_ = Open::kListItem;
      std::string_view item = s.substr(std::min(marker, s.size()));
      if (item.size() >= 3 && item[0] == '[' && item[2] == ']' && (item[1] == ' ' || item[1] == 'x' || item[1] == 'X')) {
        item.remove_prefix(3);
      }
      return Append(item, i);
    }
    if (s.find('|') != std::string_view::npos && i + 1 < lines.size() && IsTableDelimiterRow(lines[i + 1])) {
      return Table(lines, i);
    }
    if (open_ == Open::kNone) open_ = Open::kParagraph;
    if (para_from_quote_) {
      Close();
      open_ = Open::kParagraph;
    }
    return Append(s, i);
  }

  size_t Append(std::string_view s, size_t i) {
    if (open_ == Open::kNone) open_ = Open::kParagraph;
    if (!text_.empty()) text_.push_back('\n');
    text_.append(Trim(s));
    return i;
  }

  size_t IndentedCode(const std::vector<std::string_view>& lines, size_t i) {
    std::string code;
    size_t last = i;
    size_t pending_blank = 0;
    for (size_t j = i; j < lines.size(); ++j) {
      std::string_view l = in_list_ ? Dedent(lines[j], list_indent_) : lines[j];
      if (Trim(l).empty()) {
        ++pending_blank;
        continue;
      }
      if (Indent(l, nullptr) < 4) break;
      for (; pending_blank > 0; --pending_blank) code.push_back('\n');
      code.append(Dedent(l, 4));
      code.push_back('\n');
      last = j;
    }
    EmitCode(code);
    return last;
  }

  size_t FencedCode(const std::vector<std::string_view>& lines, size_t i, size_t indent, char fence_char,
                    size_t fence_len) {
    Close();
    std::string code;
    size_t j = i + 1;
    for (; j < lines.size(); ++j) {
      std::string_view l = in_list_ ? Dedent(lines[j], list_indent_) : lines[j];
      size_t b = 0;
      if (Indent(l, &b) < 4) {
        const std::string_view t = Trim(l.substr(b));
        if (t.size() >= fence_len && t.find_first_not_of(fence_char) == std::string_view::npos) break;
      }
      code.append(Dedent(l, indent));
      code.push_back('\n');
    }
    EmitCode(code);
    return j < lines.size() ? j : lines.size() - 1;
  }

  size_t Comment(const std::vector<std::string_view>& lines, size_t i) {
    Close();
    for (size_t j = i; j < lines.size(); ++j) {
      if (lines[j].find("-->") != std::string_view::npos) return j;
    }
    return lines.size() - 1;
  }

  // A pipe table always has a header row: one kTableRow block per body row, its first cell the
  // subject, each cell with its column header.
  size_t Table(const std::vector<std::string_view>& lines, size_t i) {
    Close();
    term_.clear();
    const std::vector<std::string> header = TableCells(lines[i]);
    size_t j = i + 2;
    for (; j < lines.size(); ++j) {
      const std::string_view l = Trim(lines[j]);
      if (l.empty() || l.find('|') == std::string_view::npos) break;
      const std::vector<std::string> cells = TableCells(l);
      Emit(BlockKind::kTableRow, 0, HeadedRow(header, cells), cells.empty() ? std::string() : cells[0]);
    }
    if (j == i + 2) {  // a header without a body is an ordinary table
      std::string text;
      for (const std::string& h : header) text += (text.empty() ? "" : " | ") + h;
      Emit(BlockKind::kTable, 0, std::move(text));
    }
    return j - 1;
  }

  // ": definition" after a paragraph of one to three short lines: those lines are the term(s).
  // Also after a blank line, and as a further definition of the same term.
  bool StartDefinition() {
    if (in_list_ || para_from_quote_) return false;
    std::string terms;
    if (open_ == Open::kParagraph) {
      terms = TermsOf(text_);
      if (terms.empty()) return false;
      Reset();
    } else if (open_ == Open::kDefinition) {
      Close();
      terms = term_;
    } else if (open_ == Open::kNone && !term_.empty()) {
      terms = term_;
    } else if (open_ == Open::kNone && !doc_->blocks.empty() && doc_->blocks.back().kind == BlockKind::kParagraph &&
               doc_->blocks.back().subject.empty() && last_raw_paragraph_ == doc_->blocks.size()) {
      terms = TermsOf(last_raw_text_);
      if (terms.empty()) return false;
      doc_->blocks.pop_back();
    } else {
      return false;
    }
    terms = StripMarkdownInline(terms);
    if (terms.empty()) return false;
    if (terms != term_) Emit(BlockKind::kDefinition, 0, terms, terms);
    term_ = std::move(terms);
    open_ = Open::kDefinition;
    return true;
  }

  void EmitCode(const std::string& code) {
    size_t end = code.size();
    while (end > 0 && ingest::IsAsciiSpace(code[end - 1])) --end;
    size_t begin = 0;
    while (begin < end && code[begin] == '\n') ++begin;
    if (end > begin) Emit(BlockKind::kCode, 0, code.substr(begin, end - begin), term_);
  }

  void Close() {
    switch (open_) {
      case Open::kNone: break;
      case Open::kParagraph:
        Emit(BlockKind::kParagraph, 0, StripMarkdownInline(text_));
        if (!para_from_quote_) {
          last_raw_text_ = text_;
          last_raw_paragraph_ = doc_->blocks.size();
        }
        break;
      case Open::kListItem: Emit(BlockKind::kListItem, 0, StripMarkdownInline(text_), LeadingTerm(text_)); break;
      case Open::kDefinition: Emit(BlockKind::kDefinition, 0, StripMarkdownInline(text_), term_); break;
    }
    Reset();
  }

  void Reset() {
    open_ = Open::kNone;
    para_from_quote_ = false;
    text_.clear();
  }

  void Emit(BlockKind kind, int level, std::string text, std::string subject = {}) {
    if (Trim(text).empty()) return;
    if (kind == BlockKind::kHeading) term_.clear();
    if (kind == BlockKind::kHeading && level == 1 && first_h1_.empty()) first_h1_ = text;
    doc_->blocks.push_back(Block{kind, level, std::move(text), std::move(subject)});
  }

 public:
  std::string first_h1_;

 private:
  ParsedDocument* doc_;
  Open open_ = Open::kNone;
  bool para_from_quote_ = false;
  bool in_list_ = false;
  size_t list_indent_ = 0;
  std::string text_;
  std::string term_;               // the definition term in force ("" = none)
  std::string last_raw_text_;      // markup of the last paragraph emitted, before stripping
  size_t last_raw_paragraph_ = 0;  // blocks.size() right after it was emitted
};

}  // namespace

Status ParseMarkdown(std::string_view text, ParsedDocument* doc) {
  const std::vector<std::string_view> lines = SplitLines(text);
  size_t begin = 0;
  if (!lines.empty() && Trim(lines[0]) == "---") {
    for (size_t i = 1; i < lines.size(); ++i) {
      const std::string_view t = Trim(lines[i]);
      if (t == "---" || t == "...") {
        ATTEST_RETURN_IF_ERROR(ApplyFrontMatter(lines, 1, i, doc));
        begin = i + 1;
        break;
      }
    }
  }
  BlockParser parser(doc);
  parser.Parse(lines, begin);
  if (doc->title.empty()) doc->title = parser.first_h1_;
  return Status::Ok();
}

}  // namespace attest
