#include "ingest/html_block_walker.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest::ingest {
namespace {

bool IsTag(const GumboNode* n, GumboTag tag) { return IsElement(n, tag); }

// Rows of a table: <tr> elements below it, not descending into nested tables.
void CollectRows(const GumboNode* table, std::vector<const GumboNode*>* rows) {
  std::vector<const GumboNode*> stack;
  const GumboVector& top = table->v.element.children;
  for (unsigned i = top.length; i > 0; --i) stack.push_back(static_cast<const GumboNode*>(top.data[i - 1]));
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n->type != GUMBO_NODE_ELEMENT || IsTag(n, GUMBO_TAG_TABLE)) continue;
    if (IsTag(n, GUMBO_TAG_TR)) {
      rows->push_back(n);
      continue;
    }
    const GumboVector& c = n->v.element.children;
    for (unsigned i = c.length; i > 0; --i) stack.push_back(static_cast<const GumboNode*>(c.data[i - 1]));
  }
}

struct TableCell {
  std::string text;
  uint32_t column = 0;  // first column it occupies (colspan counted)
};

struct TableRow {
  std::vector<TableCell> cells;
  bool all_th = true;
  bool any_text = false;
  int row_header = -1;  // index in cells of the row's header: th scope=row, else its first th
};

TableRow ReadRow(const GumboNode* tr, const DropRules& rules) {
  TableRow row;
  uint32_t column = 0;
  int first_th = -1;
  const GumboVector& cells = tr->v.element.children;
  for (unsigned i = 0; i < cells.length; ++i) {
    const auto* cell = static_cast<const GumboNode*>(cells.data[i]);
    const bool th = IsTag(cell, GUMBO_TAG_TH);
    if ((!th && !IsTag(cell, GUMBO_TAG_TD)) || IsDropped(cell, rules)) continue;
    TableCell c{CollectText(cell, rules), column};
    const char* span = Attr(cell, "colspan");
    const long width = span != nullptr ? std::strtol(span, nullptr, 10) : 1;
    column += static_cast<uint32_t>(std::clamp<long>(width, 1, 1000));
    row.all_th = row.all_th && th;
    row.any_text = row.any_text || !c.text.empty();
    const int index = static_cast<int>(row.cells.size());
    if (th && first_th < 0) first_th = index;
    const char* scope = Attr(cell, "scope");
    if (th && row.row_header < 0 && scope != nullptr && AsciiLower(scope) == "row") row.row_header = index;
    row.cells.push_back(std::move(c));
  }
  if (row.row_header < 0 && !row.all_th) row.row_header = first_th;
  return row;
}

// The header row's text for `column`: the cell that covers it.
const std::string* ColumnHeader(const TableRow& header, uint32_t column) {
  const std::string* found = nullptr;
  for (const TableCell& c : header.cells) {
    if (c.column > column) break;
    found = &c.text;
  }
  return found;
}

}  // namespace

std::vector<Block> HtmlBlockWalker::Walk(const GumboNode* root) {
  blocks_.clear();
  contexts_.assign(1, Context{BlockKind::kParagraph, 0});
  buf_.clear();
  pending_space_ = false;
  pre_depth_ = 0;
  pending_terms_.clear();
  // (node, exiting) pairs; an element is pushed twice: to enter, then to exit after its children.
  std::vector<std::pair<const GumboNode*, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [node, exiting] = stack.back();
    stack.pop_back();
    if (exiting) {
      Exit(node);
      continue;
    }
    if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_CDATA || node->type == GUMBO_NODE_WHITESPACE) {
      AppendText(node->v.text.text);
      continue;
    }
    if (node->type != GUMBO_NODE_ELEMENT || IsDropped(node, rules_)) continue;
    if (IsTag(node, GUMBO_TAG_TABLE) && pre_depth_ == 0) {
      EmitTable(node);
      continue;
    }
    if (IsTag(node, GUMBO_TAG_DT) && pre_depth_ == 0) {
      AddTerm(node);
      continue;
    }
    Enter(node);
    stack.emplace_back(node, true);
    const GumboVector& c = node->v.element.children;
    for (unsigned i = c.length; i > 0; --i) stack.emplace_back(static_cast<const GumboNode*>(c.data[i - 1]), false);
  }
  Flush();
  EmitPendingTerms();
  return std::move(blocks_);
}

void HtmlBlockWalker::Enter(const GumboNode* node) {
  if (const int level = HeadingLevel(node)) {
    Flush();
    contexts_.push_back({BlockKind::kHeading, level});
  } else if (IsTag(node, GUMBO_TAG_PRE)) {
    Flush();
    contexts_.push_back({BlockKind::kCode, 0, Current().subject});
    ++pre_depth_;
  } else if (IsTag(node, GUMBO_TAG_LI)) {
    Flush();
    contexts_.push_back({BlockKind::kListItem, 0, Current().subject});
  } else if (IsTag(node, GUMBO_TAG_DD) && pre_depth_ == 0) {
    EnterDescription();
  } else if (IsTag(node, GUMBO_TAG_BR)) {
    buf_.push_back('\n');
    pending_space_ = false;
  } else if (IsBlockLevel(node)) {
    Boundary();
  }
}

void HtmlBlockWalker::Exit(const GumboNode* node) {
  const bool dd = IsTag(node, GUMBO_TAG_DD) && pre_depth_ == 0;
  if (HeadingLevel(node) || IsTag(node, GUMBO_TAG_PRE) || IsTag(node, GUMBO_TAG_LI) || dd) {
    Flush();
    if (IsTag(node, GUMBO_TAG_PRE)) --pre_depth_;
    if (contexts_.size() > 1) contexts_.pop_back();
  } else if (IsTag(node, GUMBO_TAG_DL) && pre_depth_ == 0) {
    Flush();
    EmitPendingTerms();
  } else if (IsBlockLevel(node) && !IsTag(node, GUMBO_TAG_BR)) {
    Boundary();
  }
}

void HtmlBlockWalker::AppendText(std::string_view text) {
  if (pre_depth_ > 0) {
    buf_.append(text);
    return;
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool nbsp = static_cast<uint8_t>(c) == 0xC2 && i + 1 < text.size() && static_cast<uint8_t>(text[i + 1]) == 0xA0;
    if (IsAsciiSpace(c) || nbsp) {
      if (nbsp) ++i;
      pending_space_ = true;
      continue;
    }
    if (pending_space_ && !buf_.empty() && buf_.back() != '\n') buf_.push_back(' ');
    pending_space_ = false;
    buf_.push_back(c);
  }
}

// A block-level element starts or ends: inside a heading it is a space, inside a list item a
// line break (the item stays one block), elsewhere the end of a block.
void HtmlBlockWalker::Boundary() {
  switch (Current().kind) {
    case BlockKind::kHeading:
      pending_space_ = true;
      break;
    case BlockKind::kCode:
      break;
    case BlockKind::kListItem:
      if (!buf_.empty() && buf_.back() != '\n') buf_.push_back('\n');
      pending_space_ = false;
      break;
    default:
      Flush();
  }
}

void HtmlBlockWalker::Flush() {
  const Context ctx = Current();
  std::string text;
  if (ctx.kind == BlockKind::kCode) {
    size_t begin = 0, end = buf_.size();
    while (end > begin && IsAsciiSpace(buf_[end - 1])) --end;
    while (begin < end && (buf_[begin] == '\n' || buf_[begin] == '\r')) ++begin;
    text = buf_.substr(begin, end - begin);
  } else {
    size_t start = 0;
    while (start < buf_.size()) {
      size_t nl = buf_.find('\n', start);
      if (nl == std::string::npos) nl = buf_.size();
      const std::string_view line = Trim(std::string_view(buf_).substr(start, nl - start));
      if (!line.empty()) {
        if (!text.empty()) text.push_back(ctx.kind == BlockKind::kHeading ? ' ' : '\n');
        text.append(line);
      }
      start = nl + 1;
    }
  }
  buf_.clear();
  pending_space_ = false;
  if (!text.empty()) blocks_.push_back(Block{ctx.kind, ctx.level, std::move(text), ctx.subject});
}

// A <dt>: its text waits for the <dd> it names (several <dt> in a row name the same <dd>).
void HtmlBlockWalker::AddTerm(const GumboNode* dt) {
  Flush();
  std::string term = CollectText(dt, rules_);
  if (!term.empty()) pending_terms_.push_back(std::move(term));
}

namespace {
// Aliases of one description are few and short ("-i", "--interactive"); a longer run of <dt> is a
// list of bare terms (a book index: "wal_level configuration parameter, Settings" ... "WHILE")
// whose last one alone has a description.
constexpr size_t kMaxAliasTerms = 4;
constexpr size_t kMaxAliasBytes = 160;
}  // namespace

// The subject of the <dd> that follows the pending terms; terms that are not its aliases become
// entries of their own (a block each, about itself).
std::string HtmlBlockWalker::TakeSubject() {
  size_t first = 0, bytes = 0;
  if (pending_terms_.size() > kMaxAliasTerms) {
    first = pending_terms_.size() - 1;  // a run of bare terms: the last one names the <dd>
  } else {
    for (size_t i = pending_terms_.size(); i > 0; --i) {
      bytes += pending_terms_[i - 1].size() + 2;
      if (bytes > kMaxAliasBytes) {
        first = std::min(i, pending_terms_.size() - 1);  // one overlong term is still a term
        break;
      }
    }
  }
  for (size_t i = 0; i < first; ++i) {
    blocks_.push_back(Block{BlockKind::kDefinition, 0, pending_terms_[i], pending_terms_[i]});
  }
  std::string subject;
  for (size_t i = first; i < pending_terms_.size(); ++i) {
    if (!subject.empty()) subject += ", ";
    subject += pending_terms_[i];
  }
  pending_terms_.clear();
  return subject;
}

// A <dd> starts a definition: the pending terms become its subject and its first block. A <dd>
// without a <dt> keeps the enclosing subject.
void HtmlBlockWalker::EnterDescription() {
  Flush();
  std::string subject = Current().subject;
  if (!pending_terms_.empty()) {
    subject = TakeSubject();
    blocks_.push_back(Block{BlockKind::kDefinition, 0, subject, subject});
  }
  const BlockKind kind = subject.empty() ? BlockKind::kParagraph : BlockKind::kDefinition;
  contexts_.push_back({kind, 0, std::move(subject)});
}

// Terms left without a description when their list ends are ordinary paragraphs.
void HtmlBlockWalker::EmitPendingTerms() {
  if (pending_terms_.empty()) return;
  if (pending_terms_.size() > kMaxAliasTerms) {  // a list of bare terms: each its own line
    for (std::string& t : pending_terms_) {
      blocks_.push_back(Block{BlockKind::kParagraph, 0, std::move(t), Current().subject});
    }
    pending_terms_.clear();
    return;
  }
  std::string joined;
  for (const std::string& t : pending_terms_) joined += (joined.empty() ? "" : ", ") + t;
  blocks_.push_back(Block{Current().kind == BlockKind::kDefinition ? BlockKind::kDefinition : BlockKind::kParagraph,
                          0, std::move(joined), Current().subject});
  pending_terms_.clear();
}

void HtmlBlockWalker::EmitTable(const GumboNode* table) {
  Flush();
  std::vector<const GumboNode*> tr_nodes;
  CollectRows(table, &tr_nodes);
  std::vector<TableRow> rows;
  for (const GumboNode* tr : tr_nodes) {
    TableRow row = ReadRow(tr, rules_);
    if (row.any_text) rows.push_back(std::move(row));
  }
  std::string caption;
  const GumboVector& c = table->v.element.children;
  for (unsigned i = 0; i < c.length; ++i) {
    const auto* n = static_cast<const GumboNode*>(c.data[i]);
    if (IsTag(n, GUMBO_TAG_CAPTION)) caption = CollectText(n, rules_);
  }
  const bool header_row = !rows.empty() && rows.front().all_th && rows.size() > 1;
  bool row_headers = false;
  for (size_t r = header_row ? 1 : 0; r < rows.size(); ++r) row_headers = row_headers || rows[r].row_header >= 0;
  if (!header_row && !row_headers) {
    // Without headers a table stays one block of "cell | cell" lines, caption first.
    std::string out = caption;
    for (const TableRow& row : rows) {
      if (!out.empty()) out.push_back('\n');
      for (size_t i = 0; i < row.cells.size(); ++i) out += (i ? " | " : "") + row.cells[i].text;
    }
    if (!out.empty()) blocks_.push_back(Block{BlockKind::kTable, 0, std::move(out), Current().subject});
    return;
  }
  if (!caption.empty()) blocks_.push_back(Block{BlockKind::kParagraph, 0, caption, Current().subject});
  for (size_t r = header_row ? 1 : 0; r < rows.size(); ++r) {
    const TableRow& row = rows[r];
    std::string text;
    for (const TableCell& cell : row.cells) {
      if (header_row && cell.text.empty()) continue;
      if (!text.empty()) text += " | ";
      const std::string* column = header_row ? ColumnHeader(rows.front(), cell.column) : nullptr;
      if (column != nullptr && !column->empty() && *column != cell.text) text += *column + ": ";
      text += cell.text;
    }
    const int header = row.row_header >= 0 ? row.row_header : 0;
    std::string subject = row.cells.empty() ? std::string() : row.cells[header].text;
    if (subject.empty()) subject = Current().subject;  // a row without a header is about the enclosing term
    blocks_.push_back(Block{BlockKind::kTableRow, 0, std::move(text), std::move(subject)});
  }
}

}  // namespace attest::ingest
