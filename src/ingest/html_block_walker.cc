#include "ingest/html_block_walker.h"

#include <cstdint>

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

}  // namespace

std::vector<Block> HtmlBlockWalker::Walk(const GumboNode* root) {
  blocks_.clear();
  contexts_.assign(1, Context{BlockKind::kParagraph, 0});
  buf_.clear();
  pending_space_ = false;
  pre_depth_ = 0;
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
    Enter(node);
    stack.emplace_back(node, true);
    const GumboVector& c = node->v.element.children;
    for (unsigned i = c.length; i > 0; --i) stack.emplace_back(static_cast<const GumboNode*>(c.data[i - 1]), false);
  }
  Flush();
  return std::move(blocks_);
}

void HtmlBlockWalker::Enter(const GumboNode* node) {
  if (const int level = HeadingLevel(node)) {
    Flush();
    contexts_.push_back({BlockKind::kHeading, level});
  } else if (IsTag(node, GUMBO_TAG_PRE)) {
    Flush();
    contexts_.push_back({BlockKind::kCode, 0});
    ++pre_depth_;
  } else if (IsTag(node, GUMBO_TAG_LI)) {
    Flush();
    contexts_.push_back({BlockKind::kListItem, 0});
  } else if (IsTag(node, GUMBO_TAG_BR)) {
    buf_.push_back('\n');
    pending_space_ = false;
  } else if (IsBlockLevel(node)) {
    Boundary();
  }
}

void HtmlBlockWalker::Exit(const GumboNode* node) {
  if (HeadingLevel(node) || IsTag(node, GUMBO_TAG_PRE) || IsTag(node, GUMBO_TAG_LI)) {
    Flush();
    if (IsTag(node, GUMBO_TAG_PRE)) --pre_depth_;
    if (contexts_.size() > 1) contexts_.pop_back();
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
  if (!text.empty()) blocks_.push_back(Block{ctx.kind, ctx.level, std::move(text)});
}

void HtmlBlockWalker::EmitTable(const GumboNode* table) {
  Flush();
  std::vector<const GumboNode*> rows;
  CollectRows(table, &rows);
  std::string out;
  for (const GumboNode* tr : rows) {
    std::string line;
    bool any_text = false;
    bool first = true;
    const GumboVector& cells = tr->v.element.children;
    for (unsigned i = 0; i < cells.length; ++i) {
      const auto* cell = static_cast<const GumboNode*>(cells.data[i]);
      if (!IsTag(cell, GUMBO_TAG_TD) && !IsTag(cell, GUMBO_TAG_TH)) continue;
      if (IsDropped(cell, rules_)) continue;
      const std::string text = CollectText(cell, rules_);
      if (!first) line += " | ";
      first = false;
      line += text;
      any_text = any_text || !text.empty();
    }
    if (!any_text) continue;
    if (!out.empty()) out.push_back('\n');
    out += line;
  }
  // A caption is part of the table.
  const GumboVector& c = table->v.element.children;
  for (unsigned i = 0; i < c.length; ++i) {
    const auto* n = static_cast<const GumboNode*>(c.data[i]);
    if (IsTag(n, GUMBO_TAG_CAPTION)) {
      const std::string caption = CollectText(n, rules_);
      if (!caption.empty()) out = caption + (out.empty() ? "" : "\n") + out;
    }
  }
  if (!out.empty()) blocks_.push_back(Block{BlockKind::kTable, 0, std::move(out)});
}

}  // namespace attest::ingest
