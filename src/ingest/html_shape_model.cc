#include "ingest/html_shape_model.h"

#include <algorithm>

namespace attest::ingest {

HtmlShapeModel::HtmlShapeModel(const HtmlLimits* limits) : limits_(limits) {
  positions_.resize(GUMBO_TAG_LAST + 1);
  foreign_positions_.resize(GUMBO_TAG_LAST + 1);
  afl_by_tag_.resize(GUMBO_TAG_LAST + 1);
  shape_.depth = 3;  // html, body and a leaf
}

HtmlShapeModel::Next HtmlShapeModel::StartTag(TagId t, std::string_view name, uint64_t attr_hash, bool self_closing,
                                              size_t at) {
  next_ = Next::kMarkup;
  StartTagAt(t, name, attr_hash, self_closing, at);
  return next_;
}

// Foreign elements are matched by name: an unknown name gets an id of its own.
TagId HtmlShapeModel::ForeignId(TagId tag, std::string_view name) {
  if (tag != GUMBO_TAG_UNKNOWN) return tag;
  std::string lower(name);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  auto [it, inserted] = unknown_.try_emplace(std::move(lower), static_cast<TagId>(positions_.size()));
  if (inserted) {
    positions_.emplace_back();
    foreign_positions_.emplace_back();
    afl_by_tag_.emplace_back();
  }
  return it->second;
}

void HtmlShapeModel::Stop(HtmlLimitHit why, size_t at) {
  if (exceeded_ != HtmlLimitHit::kNone) return;
  exceeded_ = why;
  stopped_at_ = at;
}

void HtmlShapeModel::Count(size_t n, size_t at) {
  elements_ += n;
  if (limits_ && elements_ > limits_->max_elements) Stop(HtmlLimitHit::kElements, at);
}

void HtmlShapeModel::NoteDepth(size_t at) {
  // html and body, the open elements, the active elements off the stack, and a possible leaf.
  const size_t depth = 3 + stack_.size() + off_stack_;
  if (depth > shape_.depth) {
    shape_.depth = depth;
    shape_.deepest_at = at;
  }
  if (limits_ && depth > limits_->max_depth) Stop(HtmlLimitHit::kDepth, at);
}

// Stack positions of the open elements in `category`, bottom to top.
const std::vector<int32_t>& HtmlShapeModel::InCategory(uint32_t category) const {
  int k = 0;
  while (k + 1 < kCategoryStacks && kStackedCategories[k] != category) ++k;
  return by_cat_[k];
}
int32_t HtmlShapeModel::Top(uint32_t category) const {
  const std::vector<int32_t>& v = InCategory(category);
  return v.empty() ? -1 : v.back();
}

// Pushes an element of namespace `ns` (svg and math opened in HTML start their own).
void HtmlShapeModel::Push(TagId t, size_t at, Namespace ns) {
  if (ns == kHtml && t == GUMBO_TAG_SVG) ns = kSvg;
  if (ns == kHtml && t == GUMBO_TAG_MATH) ns = kMathMl;
  const auto pos = static_cast<int32_t>(stack_.size());
  stack_.push_back(Entry{t, -1, ns});
  (ns == kHtml ? positions_ : foreign_positions_)[t].push_back(pos);
  const uint32_t c = TagCategories(t, ns);
  for (int k = 0; k < kCategoryStacks; ++k) {
    if (c & kStackedCategories[k]) by_cat_[k].push_back(pos);
  }
  if (c & kMarker) PushMarker();
  Count(1, at);
  NoteDepth(at);
}

void HtmlShapeModel::Pop() {
  const Entry e = stack_.back();
  stack_.pop_back();
  (e.ns == kHtml ? positions_ : foreign_positions_)[e.tag].pop_back();
  const uint32_t c = TagCategories(e.tag, e.ns);
  for (int k = 0; k < kCategoryStacks; ++k) {
    if (c & kStackedCategories[k]) by_cat_[k].pop_back();
  }
  if (e.afl >= 0) {
    afl_[e.afl].stack_pos = -1;  // stays active: reconstructed later
    ++off_stack_;
  }
  // Closing a cell or a caption clears the formatting elements opened in it; an applet,
  // marquee, object or template does so only on its own end tag (EndTag).
  if (e.ns == kHtml && (e.tag == GUMBO_TAG_TD || e.tag == GUMBO_TAG_TH || e.tag == GUMBO_TAG_CAPTION)) {
    ClearToMarker();
  }
}

// Pops until the element at `pos` is popped.
void HtmlShapeModel::PopTo(int32_t pos) {
  while (static_cast<int32_t>(stack_.size()) > pos) Pop();
}

// "Generate implied end tags": pops dd, dt, li, option, optgroup, p, rb, rp, rt, rtc (but not
// `except`) while one of them is the current node.
void HtmlShapeModel::PopImplied(TagId except) {
  while (!stack_.empty() && stack_.back().ns == kHtml && stack_.back().tag != except) {
    switch (stack_.back().tag) {
      case GUMBO_TAG_DD: case GUMBO_TAG_DT: case GUMBO_TAG_LI: case GUMBO_TAG_OPTION: case GUMBO_TAG_OPTGROUP:
      case GUMBO_TAG_P: case GUMBO_TAG_RB: case GUMBO_TAG_RP: case GUMBO_TAG_RT: case GUMBO_TAG_RTC:
        Pop();
        continue;
      default:
        return;
    }
  }
}

void HtmlShapeModel::ClosePInButtonScope() {
  const int32_t p = Topmost(GUMBO_TAG_P);
  if (InScope(p, kButtonScope)) PopTo(p);
}

// ---- list of active formatting elements ----

int32_t HtmlShapeModel::AppendActive(Active a) {
  const auto idx = static_cast<int32_t>(afl_.size());
  a.prev = afl_tail_;
  if (afl_tail_ >= 0) afl_[afl_tail_].next = idx;
  afl_tail_ = idx;
  afl_.push_back(a);
  return idx;
}

void HtmlShapeModel::RemoveActive(int32_t idx) {
  Active& a = afl_[idx];
  if (!a.alive) return;
  a.alive = false;
  if (a.prev >= 0) afl_[a.prev].next = a.next;
  if (a.next >= 0) afl_[a.next].prev = a.prev;
  if (afl_tail_ == idx) afl_tail_ = a.prev;
  if (a.marker) return;
  if (auto it = copies_.find(a.key); it != copies_.end()) --it->second.first;
  if (a.stack_pos >= 0) {
    stack_[a.stack_pos].afl = -1;
  } else {
    --off_stack_;
  }
}

void HtmlShapeModel::PushMarker() {
  Active m;
  m.marker = true;
  markers_.push_back(AppendActive(m));
}

void HtmlShapeModel::ClearToMarker() {
  if (markers_.empty()) return;
  const int32_t marker = markers_.back();
  markers_.pop_back();
  while (afl_tail_ >= 0 && afl_tail_ != marker) RemoveActive(afl_tail_);
  RemoveActive(marker);
}

// The last active element with tag `t` after the last marker, or -1.
int32_t HtmlShapeModel::LastActive(TagId t) {
  auto& v = afl_by_tag_[t];
  while (!v.empty() && !afl_[v.back()].alive) v.pop_back();
  if (v.empty()) return -1;
  const int32_t idx = v.back();
  if (!markers_.empty() && idx < markers_.back()) return -1;
  return idx;
}

void HtmlShapeModel::PushFormatting(TagId t, uint64_t attr_hash, size_t at) {
  const uint64_t marker = markers_.empty() ? 0 : static_cast<uint64_t>(markers_.back()) + 1;
  const uint64_t key = (attr_hash ^ (static_cast<uint64_t>(t) * 0x9E3779B97F4A7C15ull)) + marker * 0xC2B2AE3D27D4EB4Full;
  auto& [count, order] = copies_[key];
  if (count >= 3) {  // three copies already: the earliest one leaves the list
    while (!order.empty() && !afl_[order.front()].alive) order.pop_front();
    if (!order.empty()) {
      const int32_t earliest = order.front();
      order.pop_front();
      RemoveActive(earliest);
    }
  }
  Push(t, at);
  Active a;
  a.tag = t;
  a.key = key;
  a.stack_pos = static_cast<int32_t>(stack_.size()) - 1;
  const int32_t idx = AppendActive(a);
  stack_.back().afl = idx;
  afl_by_tag_[t].push_back(idx);
  auto& entry = copies_[key];
  ++entry.first;
  entry.second.push_back(idx);
}

// Active elements that fell off the stack come back, in order, on text and inline tags.
void HtmlShapeModel::Reconstruct(size_t at) {
  if (off_stack_ == 0) return;
  int32_t first = afl_tail_;
  if (first < 0 || afl_[first].marker || afl_[first].stack_pos >= 0) return;
  while (afl_[first].prev >= 0 && !afl_[afl_[first].prev].marker && afl_[afl_[first].prev].stack_pos < 0) {
    first = afl_[first].prev;
  }
  for (int32_t i = first; i >= 0 && exceeded_ == HtmlLimitHit::kNone; i = afl_[i].next) {
    --off_stack_;
    Push(afl_[i].tag, at);  // a formatting tag: pushes no marker, so afl_ does not move
    afl_[i].stack_pos = static_cast<int32_t>(stack_.size()) - 1;
    stack_.back().afl = i;
  }
}

// The adoption agency, as far as depth goes: a formatting element with only phrasing above it is
// popped with what is above it; one with a block above it leaves the list and the stack stays
// (the algorithm re-parents, which never deepens the tree beyond the stack it had).
void HtmlShapeModel::Adopt(TagId t, size_t at) {
  const int32_t idx = LastActive(t);
  if (idx < 0) return AnyOtherEnd(t);
  const int32_t pos = afl_[idx].stack_pos;
  if (pos < 0) return RemoveActive(idx);
  if (!InScope(pos, kScope)) return;
  if (Top(kSpecial) > pos) {
    RemoveActive(idx);
    // The clones the algorithm makes: at most four per round, one round per special element
    // above (at most eight).
    const std::vector<int32_t>& special = InCategory(kSpecial);
    const auto above = static_cast<size_t>(special.end() - std::upper_bound(special.begin(), special.end(), pos));
    Count(4 * std::min<size_t>(8, above), at);
    return;
  }
  RemoveActive(idx);
  PopTo(pos);
}

void HtmlShapeModel::AnyOtherEnd(TagId t) {
  const int32_t pos = Topmost(t);
  if (pos >= 0 && Top(kSpecial) <= pos) PopTo(pos);
}

void HtmlShapeModel::TextAt(std::string_view text, size_t at) {
  if (Current(GUMBO_TAG_COLGROUP) &&
      std::any_of(text.begin(), text.end(), [](char c) { return !IsHtmlSpace(c); })) {
    Pop();  // text ends a column group
  }
  if (off_stack_ > 0 && !InSelect()) Reconstruct(at);
}

// In a select only options and option groups open; most other tags are dropped.
bool HtmlShapeModel::InSelect() const {
  if (stack_.empty() || Topmost(GUMBO_TAG_SELECT) < 0) return false;
  const Entry& top = stack_.back();
  return top.ns == kHtml &&
         (top.tag == GUMBO_TAG_SELECT || top.tag == GUMBO_TAG_OPTION || top.tag == GUMBO_TAG_OPTGROUP);
}

// A tag inside a select; returns false when the select closed and the tag is to be read again.
bool HtmlShapeModel::SelectTag(TagId t, bool end, size_t at) {
  const int32_t select = Topmost(GUMBO_TAG_SELECT);
  switch (t) {
    case GUMBO_TAG_OPTION:
      if (Current(GUMBO_TAG_OPTION)) Pop();
      if (!end) Push(t, at);
      return true;
    case GUMBO_TAG_OPTGROUP:
      if (Current(GUMBO_TAG_OPTION)) Pop();
      if (Current(GUMBO_TAG_OPTGROUP)) Pop();
      if (!end) Push(t, at);
      return true;
    case GUMBO_TAG_SELECT:
      PopTo(select);
      return true;
    case GUMBO_TAG_INPUT: case GUMBO_TAG_KEYGEN: case GUMBO_TAG_TEXTAREA:
      if (end) return true;
      PopTo(select);
      return false;
    case GUMBO_TAG_CAPTION: case GUMBO_TAG_TABLE: case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT: case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH: {
      // Only a select inside a table gives way to the table's tags.
      const int32_t table = Topmost(GUMBO_TAG_TABLE);
      if (table < 0 || table > select || (end && Topmost(t) < 0)) return true;
      PopTo(select);
      return false;
    }
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_TEMPLATE:
      return false;  // read as in the head
    default:
      return true;  // dropped
  }
}

void HtmlShapeModel::EndTagAt(TagId t, std::string_view name, size_t at) {
  if (InSelect() && SelectTag(t, /*end=*/true, at)) return;
  if (Current(GUMBO_TAG_COLGROUP) && t != GUMBO_TAG_COL && t != GUMBO_TAG_TEMPLATE) {
    Pop();  // any other tag ends a column group
    if (t == GUMBO_TAG_COLGROUP) return;
  }
  if (!stack_.empty() && stack_.back().ns != kHtml) {  // closes the foreign element of that name
    const int32_t f = TopmostForeign(ForeignId(t, name));
    if (f >= 0 && f > Top(kHtmlNs)) return PopTo(f);
  }
  const uint32_t c = HtmlTagCategories(t);
  if (t == GUMBO_TAG_HTML || t == GUMBO_TAG_BODY || t == GUMBO_TAG_HEAD) return;
  if (t == GUMBO_TAG_P) {
    const int32_t p = Topmost(t);
    if (InScope(p, kButtonScope)) return PopTo(p);
    Count(1, at);  // "</p>" alone makes an empty p
    return;
  }
  if (t == GUMBO_TAG_LI) {
    const int32_t p = Topmost(t);
    if (InScope(p, kListScope)) PopTo(p);
    return;
  }
  if (t == GUMBO_TAG_BR) {
    Reconstruct(at);
    return Count(1, at);
  }
  if (t == GUMBO_TAG_FORM) {
    // gumbo takes the form out of the stack, from the middle if need be: what is above it keeps
    // its depth in the tree, so the estimate keeps such an entry.
    if (!form_open_) return;
    form_open_ = false;
    if (!InScope(Topmost(GUMBO_TAG_FORM), kScope)) return;
    PopImplied(kNoTag);
    if (Current(GUMBO_TAG_FORM)) Pop();
    return;
  }
  if (c & kHeading) {
    int32_t p = -1;
    for (TagId h : {GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6}) {
      p = std::max(p, Topmost(h));
    }
    if (InScope(p, kScope)) PopTo(p);
    return;
  }
  if (c & kFormatting) return Adopt(t, at);
  if (c & kTablePart || t == GUMBO_TAG_TABLE) {
    const int32_t p = Topmost(t);
    if (InScope(p, kTableScope)) PopTo(p);
    return;
  }
  if (c & kBlockEnd) {
    const int32_t p = Topmost(t);
    // gumbo checks applet, marquee and object against table scope (the spec says scope).
    const bool table_scope = t == GUMBO_TAG_APPLET || t == GUMBO_TAG_MARQUEE || t == GUMBO_TAG_OBJECT;
    if (!InScope(p, table_scope ? kTableScope : kScope)) return;
    PopTo(p);
    if (c & kMarker) ClearToMarker();
    return;
  }
  if (c & kVoid) return;
  AnyOtherEnd(t);
}

void HtmlShapeModel::StartTagAt(TagId t, std::string_view name, uint64_t attr_hash, bool self_closing, size_t at) {
  const uint32_t c = HtmlTagCategories(t);
  if (InForeignContent()) {  // inside svg / math: no raw text; "/>" closes
    if (!BreaksOutOfForeignContent(t)) {
      Push(ForeignId(t, name), at, stack_.back().ns);
      if (self_closing) Pop();
      return;
    }
    while (InForeignContent()) Pop();
  }
  if (Current(GUMBO_TAG_COLGROUP) && t != GUMBO_TAG_COL && t != GUMBO_TAG_TEMPLATE) Pop();
  if (t == GUMBO_TAG_HTML || t == GUMBO_TAG_BODY || t == GUMBO_TAG_HEAD || t == GUMBO_TAG_FRAMESET) return;
  if (InSelect() && SelectTag(t, /*end=*/false, at)) return;
  if (c & kRawText) {
    if (t == GUMBO_TAG_XMP) ClosePInButtonScope();
    if (t != GUMBO_TAG_TITLE && t != GUMBO_TAG_STYLE && t != GUMBO_TAG_SCRIPT) Reconstruct(at);
    Count(1, at);
    next_ = Next::kRawText;
    return;
  }
  if (t == GUMBO_TAG_PLAINTEXT) {
    ClosePInButtonScope();
    Push(t, at);
    next_ = Next::kText;  // the rest is text
    return;
  }
  if (t == GUMBO_TAG_ISINDEX) {  // becomes form > hr, label > input, hr
    ClosePInButtonScope();
    Push(GUMBO_TAG_FORM, at);
    Push(GUMBO_TAG_LABEL, at);
    Count(3, at);
    Pop();
    return Pop();
  }
  if (c & kVoid) {
    if (t == GUMBO_TAG_COL) return TablePart(t, at);
    if (t == GUMBO_TAG_HR) {
      ClosePInButtonScope();
    } else if (t == GUMBO_TAG_AREA || t == GUMBO_TAG_BR || t == GUMBO_TAG_EMBED || t == GUMBO_TAG_IMG ||
               t == GUMBO_TAG_IMAGE || t == GUMBO_TAG_KEYGEN || t == GUMBO_TAG_WBR || t == GUMBO_TAG_INPUT) {
      Reconstruct(at);
    }
    return Count(1, at);
  }
  if (c & kTablePart) return TablePart(t, at);
  if (t == GUMBO_TAG_TABLE) {
    const int32_t table = Topmost(GUMBO_TAG_TABLE);
    if (InTableMode(table)) PopTo(table);  // a table directly in a table closes the first
    return Push(t, at);
  }
  if (t == GUMBO_TAG_LI || t == GUMBO_TAG_DD || t == GUMBO_TAG_DT) {
    int32_t p = t == GUMBO_TAG_LI ? Topmost(GUMBO_TAG_LI) : std::max(Topmost(GUMBO_TAG_DD), Topmost(GUMBO_TAG_DT));
    if (p >= 0 && Top(kSpecialNotAdp) <= p) PopTo(p);
    ClosePInButtonScope();
    return Push(t, at);
  }
  if (c & kHeading) {
    ClosePInButtonScope();
    if (!stack_.empty() && (TagCategories(stack_.back().tag, stack_.back().ns) & kHeading)) Pop();
    return Push(t, at);
  }
  if (t == GUMBO_TAG_FORM) {
    if (form_open_ && Topmost(GUMBO_TAG_TEMPLATE) < 0) return;  // nested forms are ignored
    ClosePInButtonScope();
    form_open_ = true;
    return Push(t, at);
  }
  if (c & kClosesP) {
    ClosePInButtonScope();
    return Push(t, at);
  }
  if (t == GUMBO_TAG_BUTTON) {
    const int32_t p = Topmost(t);
    if (InScope(p, kScope)) PopTo(p);
    Reconstruct(at);
    return Push(t, at);
  }
  if (t == GUMBO_TAG_A) {
    if (LastActive(t) >= 0) Adopt(t, at);
    Reconstruct(at);
    return PushFormatting(t, attr_hash, at);
  }
  if (t == GUMBO_TAG_NOBR) {
    Reconstruct(at);
    if (InScope(Topmost(t), kScope)) {
      Adopt(t, at);
      Reconstruct(at);
    }
    return PushFormatting(t, attr_hash, at);
  }
  if (c & kFormatting) {
    Reconstruct(at);
    return PushFormatting(t, attr_hash, at);
  }
  if (t == GUMBO_TAG_OPTION || t == GUMBO_TAG_OPTGROUP) {
    if (Current(GUMBO_TAG_OPTION)) Pop();  // (in a select an optgroup also closes one: kept open here)
    Reconstruct(at);
    return Push(t, at);
  }
  if (t == GUMBO_TAG_RB || t == GUMBO_TAG_RTC || t == GUMBO_TAG_RP || t == GUMBO_TAG_RT) {
    if (InScope(Topmost(GUMBO_TAG_RUBY), kScope)) {  // rt and rp keep an rtc open
      PopImplied(t == GUMBO_TAG_RB || t == GUMBO_TAG_RTC ? kNoTag : static_cast<TagId>(GUMBO_TAG_RTC));
    }
    return Push(t, at);
  }
  Reconstruct(at);
  Push(t, at);
  if ((c & kForeignRoot) && self_closing) Pop();
}

// The current node is an SVG or MathML element that is not an integration point: tags are read
// as foreign elements.
bool HtmlShapeModel::InForeignContent() const {
  return !stack_.empty() && stack_.back().ns != kHtml && !(TagCategories(stack_.back().tag, stack_.back().ns) & kScope);
}


// In a table but not in one of its cells or its caption.
bool HtmlShapeModel::InTableMode(int32_t table) const {
  if (table < 0 || !InScope(table, kTableScope)) return false;
  for (TagId t : {GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_CAPTION}) {
    if (Topmost(t) > table) return false;
  }
  return true;
}

// caption col colgroup tbody thead tfoot tr td th: ignored outside a table; inside, they close
// the open cell / row / section and supply the tbody and tr that the markup left out.
void HtmlShapeModel::TablePart(TagId t, size_t at) {
  if (Current(GUMBO_TAG_TEMPLATE)) {  // a template holds table parts as they come
    if (t == GUMBO_TAG_COL) return Count(1, at);
    return Push(t, at);
  }
  const int32_t table = Topmost(GUMBO_TAG_TABLE);
  if (table < 0 || !InScope(table, kTableScope)) return;
  auto section = [&] {
    return std::max({Topmost(GUMBO_TAG_TBODY), Topmost(GUMBO_TAG_THEAD), Topmost(GUMBO_TAG_TFOOT)});
  };
  switch (t) {
    case GUMBO_TAG_CAPTION: case GUMBO_TAG_COLGROUP: case GUMBO_TAG_TBODY: case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TFOOT:
      PopTo(table + 1);
      return Push(t, at);
    case GUMBO_TAG_COL:
      if (!Current(GUMBO_TAG_COLGROUP)) {
        PopTo(table + 1);
        Push(GUMBO_TAG_COLGROUP, at);
        return Count(1, at);
      }
      return Count(2, at);  // a stray tag between two cols makes gumbo start another colgroup
    case GUMBO_TAG_TR: {
      const int32_t s = section();
      if (s > table) {
        PopTo(s + 1);
      } else {
        PopTo(table + 1);
        Push(GUMBO_TAG_TBODY, at);
      }
      return Push(t, at);
    }
    default: {  // td, th
      const int32_t row = Topmost(GUMBO_TAG_TR);
      if (row > table) {
        PopTo(row + 1);
      } else {
        const int32_t s = section();
        if (s > table) {
          PopTo(s + 1);
        } else {
          PopTo(table + 1);
          Push(GUMBO_TAG_TBODY, at);
        }
        Push(GUMBO_TAG_TR, at);
      }
      return Push(t, at);
    }
  }
}

}  // namespace attest::ingest
