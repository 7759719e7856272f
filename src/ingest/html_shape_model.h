// The pre-scan's model of HTML5 tree construction (the parts that decide how deep the tree gets
// and how many elements it has), fed tag by tag by the tokenizer in html_limits.cc.
//
// It keeps the stack of open elements (indexed per tag and per scope category, so every question
// the algorithm asks - "is a p in button scope?", "is there a special element above?" - is O(1))
// and the list of active formatting elements (a linked list in a pool, indexed per tag and per
// (tag, attributes, marker) for the three-copies rule). It replays implied end tags (p, li, dt, dd,
// option, ruby parts, table parts and the tbody / tr / colgroup they imply), scope boundaries,
// formatting elements reconstructed after a block closed them, the adoption agency (as far as
// depth and element count go), select, column groups, forms, and SVG / MathML content with its
// integration points. Where it must simplify it keeps elements open, so its depth is an upper
// estimate of gumbo's; ingest_html_limits_test.cc checks that on random tag soup against the tree
// gumbo builds (gumbo 0.10.1: it matches unknown HTML tags by enum, checks applet / marquee / object
// end tags against table scope, and so does the model).
// Not thread-safe; one per scan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ingest/html_limits.h"
#include "ingest/html_tag_set.h"

namespace attest::ingest {

// Which limit stopped a scan.
enum class HtmlLimitHit { kNone, kDepth, kElements, kAttributes, kAttributeBytes };

class HtmlShapeModel {
 public:
  // What the tokenizer reads after a start tag.
  enum class Next { kMarkup, kRawText, kText };

  // `limits` may be null (measure only).
  explicit HtmlShapeModel(const HtmlLimits* limits);

  // Tags and text in document order; `at` is the byte offset, for errors.
  Next StartTag(TagId t, std::string_view name, uint64_t attr_hash, bool self_closing, size_t at);
  void EndTag(TagId t, std::string_view name, size_t at) { EndTagAt(t, name, at); }
  void Text(std::string_view text, size_t at) { TextAt(text, at); }

  // The current node is an SVG or MathML element that is not an integration point: tags are read
  // as foreign elements (and CDATA sections are sections).
  bool ForeignContent() const { return InForeignContent(); }

  // The first limit exceeded (then the model stops counting), where, and the shape so far.
  HtmlLimitHit exceeded() const { return exceeded_; }
  size_t stopped_at() const { return stopped_at_; }
  HtmlShape shape() const {
    HtmlShape s = shape_;
    s.elements = elements_;
    return s;
  }

 private:
  struct Entry {
    TagId tag;
    int32_t afl;   // index in afl_ while this is an active formatting element, else -1
    Namespace ns;
  };
  struct Active {
    TagId tag = 0;
    uint64_t key = 0;   // tag, attributes and marker: the three-copies rule
    int32_t prev = -1, next = -1;
    int32_t stack_pos = -1;  // -1: not on the stack (reconstructed on the next text or inline tag)
    bool marker = false;
    bool alive = true;
  };

  void Stop(HtmlLimitHit why, size_t at);
  void Count(size_t n, size_t at);
  void NoteDepth(size_t at);
  const std::vector<int32_t>& InCategory(uint32_t category) const;
  int32_t Top(uint32_t category) const;
  int32_t Topmost(TagId t) const { return positions_[t].empty() ? -1 : positions_[t].back(); }
  int32_t TopmostForeign(TagId t) const {
    return foreign_positions_[t].empty() ? -1 : foreign_positions_[t].back();
  }
  bool InScope(int32_t pos, uint32_t scope) const { return pos >= 0 && pos >= Top(scope); }
  bool Current(TagId t) const { return !stack_.empty() && stack_.back().tag == t && stack_.back().ns == kHtml; }
  TagId ForeignId(TagId tag, std::string_view name);
  void Push(TagId t, size_t at, Namespace ns = kHtml);
  void Pop();
  void PopTo(int32_t pos);
  static constexpr TagId kNoTag = GUMBO_TAG_LAST;
  void PopImplied(TagId except);
  void ClosePInButtonScope();
  int32_t AppendActive(Active a);
  void RemoveActive(int32_t idx);
  void PushMarker();
  void ClearToMarker();
  int32_t LastActive(TagId t);
  void PushFormatting(TagId t, uint64_t attr_hash, size_t at);
  void Reconstruct(size_t at);
  void Adopt(TagId t, size_t at);
  void AnyOtherEnd(TagId t);
  void TextAt(std::string_view text, size_t at);
  bool InSelect() const;
  bool SelectTag(TagId t, bool end, size_t at);
  void EndTagAt(TagId t, std::string_view name, size_t at);
  void StartTagAt(TagId t, std::string_view name, uint64_t attr_hash, bool self_closing, size_t at);
  bool InForeignContent() const;
  bool InTableMode(int32_t table) const;
  void TablePart(TagId t, size_t at);

  const HtmlLimits* limits_;
  HtmlShape shape_;
  size_t elements_ = 3;  // html, head, body
  HtmlLimitHit exceeded_ = HtmlLimitHit::kNone;
  Next next_ = Next::kMarkup;
  size_t stopped_at_ = 0;
  bool form_open_ = false;  // gumbo's form element pointer is set

  std::vector<Entry> stack_;
  std::vector<std::vector<int32_t>> positions_;  // per HTML tag: stack positions, bottom to top
  std::vector<std::vector<int32_t>> foreign_positions_;  // the same for SVG and MathML elements
  std::vector<int32_t> by_cat_[kCategoryStacks];
  std::unordered_map<std::string, TagId> unknown_;

  std::vector<Active> afl_;  // the list of active formatting elements (a linked list in a pool)
  int32_t afl_tail_ = -1;
  size_t off_stack_ = 0;     // active elements not on the stack
  std::vector<int32_t> markers_;
  std::vector<std::vector<int32_t>> afl_by_tag_;
  std::unordered_map<uint64_t, std::pair<uint32_t, std::deque<int32_t>>> copies_;
};

}  // namespace attest::ingest
