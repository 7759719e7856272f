// The HTML pre-scan: a tokenizer that only finds tags, and a replay of the parts of HTML5 tree
// construction that decide how deep the tree gets (docs/ingestion.md, "Limits"). Each step is O(1)
// amortized: open elements are indexed per tag and per scope category, and the list of active
// formatting elements is a linked list indexed per tag and per (tag, attributes) for the
// three-copies rule, so the scan is linear whatever the markup.
#include "ingest/html_limits.h"

#include <gumbo.h>

#include <algorithm>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace attest {
namespace {

using TagId = uint32_t;

// Categories of a tag (bit flags).
enum : uint32_t {
  kVoid = 1u << 0,           // never has children
  kRawText = 1u << 1,        // content is text up to the matching end tag
  kFormatting = 1u << 2,     // kept in the list of active formatting elements
  kSpecial = 1u << 3,        // the HTML "special" category
  kScope = 1u << 4,          // boundary of "has an element in scope"
  kListScope = 1u << 5,      // boundary of list item scope (scope + ol, ul)
  kButtonScope = 1u << 6,    // boundary of button scope (scope + button)
  kTableScope = 1u << 7,     // boundary of table scope (html, table, template)
  kMarker = 1u << 8,         // pushes a marker on the list of active formatting elements
  kClosesP = 1u << 9,        // its start tag closes an open p (in button scope)
  kHeading = 1u << 10,
  kBlockEnd = 1u << 11,      // its end tag closes the element if in scope
  kTablePart = 1u << 12,     // caption col colgroup tbody td tfoot th thead tr
  kForeignRoot = 1u << 13,   // svg, math
  kSpecialNotAdp = 1u << 14, // special, but not address, div or p (the li / dd / dt algorithm)
};

constexpr int kCategoryStacks = 6;  // kScope, kListScope, kButtonScope, kTableScope, kSpecial, kSpecialNotAdp
constexpr uint32_t kStackedCategories[kCategoryStacks] = {kScope, kListScope, kButtonScope,
                                                          kTableScope, kSpecial, kSpecialNotAdp};

uint32_t KnownCategories(GumboTag t) {
  uint32_t c = 0;
  auto in = [t](std::initializer_list<GumboTag> tags) { return std::find(tags.begin(), tags.end(), t) != tags.end(); };
  if (in({GUMBO_TAG_AREA, GUMBO_TAG_BASE, GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_BR, GUMBO_TAG_COL,
          GUMBO_TAG_EMBED, GUMBO_TAG_FRAME, GUMBO_TAG_HR, GUMBO_TAG_IMAGE, GUMBO_TAG_IMG, GUMBO_TAG_INPUT,
          GUMBO_TAG_KEYGEN, GUMBO_TAG_LINK, GUMBO_TAG_MENUITEM, GUMBO_TAG_META, GUMBO_TAG_PARAM, GUMBO_TAG_SOURCE,
          GUMBO_TAG_TRACK, GUMBO_TAG_WBR, GUMBO_TAG_ISINDEX})) {
    c |= kVoid;
  }
  if (in({GUMBO_TAG_SCRIPT, GUMBO_TAG_STYLE, GUMBO_TAG_XMP, GUMBO_TAG_IFRAME, GUMBO_TAG_NOEMBED,
          GUMBO_TAG_NOFRAMES, GUMBO_TAG_TEXTAREA, GUMBO_TAG_TITLE})) {
    c |= kRawText;
  }
  if (in({GUMBO_TAG_A, GUMBO_TAG_B, GUMBO_TAG_BIG, GUMBO_TAG_CODE, GUMBO_TAG_EM, GUMBO_TAG_FONT, GUMBO_TAG_I,
          GUMBO_TAG_NOBR, GUMBO_TAG_S, GUMBO_TAG_SMALL, GUMBO_TAG_STRIKE, GUMBO_TAG_STRONG, GUMBO_TAG_TT,
          GUMBO_TAG_U})) {
    c |= kFormatting;
  }
  if (in({GUMBO_TAG_ADDRESS, GUMBO_TAG_APPLET, GUMBO_TAG_AREA, GUMBO_TAG_ARTICLE, GUMBO_TAG_ASIDE, GUMBO_TAG_BASE,
          GUMBO_TAG_BASEFONT, GUMBO_TAG_BGSOUND, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BODY, GUMBO_TAG_BR,
          GUMBO_TAG_BUTTON, GUMBO_TAG_CAPTION, GUMBO_TAG_CENTER, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP,
          GUMBO_TAG_MENUITEM, GUMBO_TAG_DD, GUMBO_TAG_DETAILS, GUMBO_TAG_DIR, GUMBO_TAG_DIV, GUMBO_TAG_DL,
          GUMBO_TAG_DT, GUMBO_TAG_EMBED, GUMBO_TAG_FIELDSET, GUMBO_TAG_FIGCAPTION, GUMBO_TAG_FIGURE,
          GUMBO_TAG_FOOTER, GUMBO_TAG_FORM, GUMBO_TAG_FRAME, GUMBO_TAG_FRAMESET, GUMBO_TAG_H1, GUMBO_TAG_H2,
          GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6, GUMBO_TAG_HEAD, GUMBO_TAG_HEADER,
          GUMBO_TAG_HGROUP, GUMBO_TAG_HR, GUMBO_TAG_HTML, GUMBO_TAG_IFRAME, GUMBO_TAG_IMG, GUMBO_TAG_INPUT,
          GUMBO_TAG_ISINDEX, GUMBO_TAG_LI, GUMBO_TAG_LINK, GUMBO_TAG_LISTING, GUMBO_TAG_MARQUEE, GUMBO_TAG_MENU,
          GUMBO_TAG_META, GUMBO_TAG_NAV, GUMBO_TAG_NOEMBED, GUMBO_TAG_NOFRAMES, GUMBO_TAG_NOSCRIPT,
          GUMBO_TAG_OBJECT, GUMBO_TAG_OL, GUMBO_TAG_P, GUMBO_TAG_PARAM, GUMBO_TAG_PLAINTEXT, GUMBO_TAG_PRE,
          GUMBO_TAG_SCRIPT, GUMBO_TAG_SECTION, GUMBO_TAG_SELECT, GUMBO_TAG_STYLE, GUMBO_TAG_SUMMARY,
          GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_TD, GUMBO_TAG_TEMPLATE, GUMBO_TAG_TEXTAREA,
          GUMBO_TAG_TFOOT, GUMBO_TAG_TH, GUMBO_TAG_THEAD, GUMBO_TAG_TITLE, GUMBO_TAG_TR, GUMBO_TAG_UL,
          GUMBO_TAG_WBR, GUMBO_TAG_XMP, GUMBO_TAG_MI, GUMBO_TAG_MO, GUMBO_TAG_MN, GUMBO_TAG_MS, GUMBO_TAG_MTEXT,
          GUMBO_TAG_ANNOTATION_XML, GUMBO_TAG_FOREIGNOBJECT, GUMBO_TAG_DESC})) {
    c |= kSpecial;
    if (t != GUMBO_TAG_ADDRESS && t != GUMBO_TAG_DIV && t != GUMBO_TAG_P) c |= kSpecialNotAdp;
  }
  if (in({GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH,
          GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE, GUMBO_TAG_MI, GUMBO_TAG_MO, GUMBO_TAG_MN,
          GUMBO_TAG_MS, GUMBO_TAG_MTEXT, GUMBO_TAG_ANNOTATION_XML, GUMBO_TAG_FOREIGNOBJECT, GUMBO_TAG_DESC,
          GUMBO_TAG_TITLE})) {
    c |= kScope | kListScope | kButtonScope;
  }
  if (t == GUMBO_TAG_OL || t == GUMBO_TAG_UL) c |= kListScope;
  if (t == GUMBO_TAG_BUTTON) c |= kButtonScope;
  if (in({GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TEMPLATE})) c |= kTableScope;
  if (in({GUMBO_TAG_APPLET, GUMBO_TAG_OBJECT, GUMBO_TAG_MARQUEE, GUMBO_TAG_TEMPLATE, GUMBO_TAG_TD, GUMBO_TAG_TH,
          GUMBO_TAG_CAPTION})) {
    c |= kMarker;
  }
  if (in({GUMBO_TAG_ADDRESS, GUMBO_TAG_ARTICLE, GUMBO_TAG_ASIDE, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_CENTER,
          GUMBO_TAG_DETAILS, GUMBO_TAG_DIR, GUMBO_TAG_DIV, GUMBO_TAG_DL, GUMBO_TAG_FIELDSET, GUMBO_TAG_FIGCAPTION,
          GUMBO_TAG_FIGURE, GUMBO_TAG_FOOTER, GUMBO_TAG_HEADER, GUMBO_TAG_HGROUP, GUMBO_TAG_MENU, GUMBO_TAG_MAIN,
          GUMBO_TAG_NAV, GUMBO_TAG_OL, GUMBO_TAG_P, GUMBO_TAG_SECTION, GUMBO_TAG_SUMMARY, GUMBO_TAG_UL,
          GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6, GUMBO_TAG_PRE,
          GUMBO_TAG_LISTING, GUMBO_TAG_FORM, GUMBO_TAG_HR, GUMBO_TAG_XMP, GUMBO_TAG_PLAINTEXT, GUMBO_TAG_LI,
          GUMBO_TAG_DD, GUMBO_TAG_DT})) {
    c |= kClosesP;
  }
  if (in({GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3, GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6})) c |= kHeading;
  if (in({GUMBO_TAG_ADDRESS, GUMBO_TAG_ARTICLE, GUMBO_TAG_ASIDE, GUMBO_TAG_BLOCKQUOTE, GUMBO_TAG_BUTTON,
          GUMBO_TAG_CENTER, GUMBO_TAG_DETAILS, GUMBO_TAG_DIR, GUMBO_TAG_DIV, GUMBO_TAG_DL, GUMBO_TAG_FIELDSET,
          GUMBO_TAG_FIGCAPTION, GUMBO_TAG_FIGURE, GUMBO_TAG_FOOTER, GUMBO_TAG_HEADER, GUMBO_TAG_HGROUP,
          GUMBO_TAG_LISTING, GUMBO_TAG_MAIN, GUMBO_TAG_MENU, GUMBO_TAG_NAV, GUMBO_TAG_OL, GUMBO_TAG_PRE,
          GUMBO_TAG_SECTION, GUMBO_TAG_SUMMARY, GUMBO_TAG_UL, GUMBO_TAG_APPLET, GUMBO_TAG_MARQUEE,
          GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE, GUMBO_TAG_FORM, GUMBO_TAG_SELECT, GUMBO_TAG_DD, GUMBO_TAG_DT})) {
    c |= kBlockEnd;
  }
  if (in({GUMBO_TAG_CAPTION, GUMBO_TAG_COL, GUMBO_TAG_COLGROUP, GUMBO_TAG_TBODY, GUMBO_TAG_TD, GUMBO_TAG_TFOOT,
          GUMBO_TAG_TH, GUMBO_TAG_THEAD, GUMBO_TAG_TR})) {
    c |= kTablePart;
  }
  if (t == GUMBO_TAG_SVG || t == GUMBO_TAG_MATH) c |= kForeignRoot;
  return c;
}

const std::vector<uint32_t>& CategoryTable() {
  static const std::vector<uint32_t> table = [] {
    std::vector<uint32_t> v(GUMBO_TAG_LAST + 1, 0);
    for (int t = 0; t < GUMBO_TAG_UNKNOWN; ++t) v[t] = KnownCategories(static_cast<GumboTag>(t));
    return v;
  }();
  return table;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Why the scan stopped early.
enum class Exceeded { kNone, kDepth, kElements, kAttributes, kAttributeBytes };

class ShapeScanner {
 public:
  ShapeScanner(std::string_view s, const HtmlLimits* limits) : s_(s), limits_(limits), cats_(CategoryTable()) {
    positions_.resize(GUMBO_TAG_LAST + 1);
    afl_by_tag_.resize(GUMBO_TAG_LAST + 1);
  }

  // Runs the scan; returns what stopped it (kNone: the whole input was read).
  Exceeded Run() {
    elements_ = 3;  // html, head, body
    shape_.depth = 3;
    while (pos_ < s_.size() && exceeded_ == Exceeded::kNone) Step();
    shape_.elements = elements_;
    return exceeded_;
  }

  const HtmlShape& shape() const { return shape_; }
  size_t stopped_at() const { return stopped_at_; }

 private:
  struct Entry {
    TagId tag;
    int32_t afl;  // index in afl_ while this is an active formatting element, else -1
  };
  struct Active {
    TagId tag = 0;
    uint64_t key = 0;   // tag, attributes and marker: the three-copies rule
    int32_t prev = -1, next = -1;
    int32_t stack_pos = -1;  // -1: not on the stack (reconstructed on the next text or inline tag)
    bool marker = false;
    bool alive = true;
  };

  // ---- tokenizer -------------------------------------------------------------------------------

  void Step() {
    const size_t lt = s_.find('<', pos_);
    if (lt == std::string_view::npos) {
      Text();
      pos_ = s_.size();
      return;
    }
    if (lt > pos_) Text();
    pos_ = lt;
    const char c1 = At(lt + 1);
    if (c1 == '!') {
      if (s_.substr(lt, 4) == "<!--") return Comment();
      if (foreign_ > 0 && s_.substr(lt, 9) == "<![CDATA[") return SkipPast("]]>", lt + 9);
      return SkipPast(">", lt + 2);
    }
    if (c1 == '?') return SkipPast(">", lt + 2);
    if (c1 == '/') {
      const char c2 = At(lt + 2);
      if (IsAlpha(c2)) return Tag(lt + 2, /*end=*/true);
      if (c2 == '>') {
        pos_ = lt + 3;
        return;
      }
      return SkipPast(">", lt + 2);
    }
    if (IsAlpha(c1)) return Tag(lt + 1, /*end=*/false);
    pos_ = lt + 1;  // a literal '<'
    Text();
  }

  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  void SkipPast(std::string_view terminator, size_t from) {
    const size_t at = s_.find(terminator, from);
    pos_ = at == std::string_view::npos ? s_.size() : at + terminator.size();
  }

  // "<!--" ... "-->" (or "--!>"; "<!-->" and "<!--->" are empty comments).
  void Comment() {
    size_t p = pos_ + 4;
    if (At(p) == '>') {
      pos_ = p + 1;
      return;
    }
    if (At(p) == '-' && At(p + 1) == '>') {
      pos_ = p + 2;
      return;
    }
    for (;;) {
      const size_t d = s_.find("--", p);
      if (d == std::string_view::npos) {
        pos_ = s_.size();
        return;
      }
      if (At(d + 2) == '>') {
        pos_ = d + 3;
        return;
      }
      if (At(d + 2) == '!' && At(d + 3) == '>') {
        pos_ = d + 4;
        return;
      }
      p = d + 1;
    }
  }

  // A start or end tag whose name starts at `name_at`. Attributes are read as the HTML tokenizer
  // reads them (quoted values may hold '>'). A tag cut off by the end of input is dropped.
  void Tag(size_t name_at, bool end) {
    size_t i = name_at;
    while (i < s_.size() && !IsSpace(s_[i]) && s_[i] != '/' && s_[i] != '>') ++i;
    const std::string_view name = s_.substr(name_at, i - name_at);
    size_t attributes = 0;
    bool self_closing = false;
    uint64_t attr_hash = 1469598103934665603ull;
    for (;;) {
      while (i < s_.size() && (IsSpace(s_[i]) || s_[i] == '/')) {
        self_closing = s_[i] == '/' && At(i + 1) == '>';
        ++i;
      }
      if (i >= s_.size()) return Finish();
      if (s_[i] == '>') {
        ++i;
        break;
      }
      const size_t attr_at = i;
      ++i;  // the first character of a name may be anything, '=' included
      while (i < s_.size() && !IsSpace(s_[i]) && s_[i] != '/' && s_[i] != '>' && s_[i] != '=') ++i;
      size_t j = i;
      while (j < s_.size() && IsSpace(s_[j])) ++j;
      if (j < s_.size() && s_[j] == '=') {
        ++j;
        while (j < s_.size() && IsSpace(s_[j])) ++j;
        if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'')) {
          const size_t close = s_.find(s_[j], j + 1);
          if (close == std::string_view::npos) return Finish();
          i = close + 1;
        } else {
          while (j < s_.size() && !IsSpace(s_[j]) && s_[j] != '>') ++j;
          i = j;
        }
      }
      ++attributes;
      const size_t bytes = i - attr_at;
      for (size_t k = attr_at; k < i; ++k) attr_hash = (attr_hash ^ static_cast<uint8_t>(Lower(s_[k]))) * 1099511628211ull;
      attr_hash = (attr_hash ^ 0xff) * 1099511628211ull;
      shape_.max_attribute_bytes = std::max(shape_.max_attribute_bytes, bytes);
      shape_.max_attributes = std::max(shape_.max_attributes, attributes);
      if (limits_ && bytes > limits_->max_attribute_bytes) return Stop(Exceeded::kAttributeBytes, attr_at);
      if (limits_ && attributes > limits_->max_attributes) return Stop(Exceeded::kAttributes, attr_at);
    }
    const size_t tag_at = name_at - (end ? 2 : 1);
    pos_ = i;
    const TagId tag = Intern(name);
    if (end) {
      EndTag(tag, tag_at);
    } else {
      StartTag(tag, attr_hash, self_closing, tag_at);
    }
  }

  void Finish() { pos_ = s_.size(); }

  TagId Intern(std::string_view name) {
    const GumboTag known = gumbo_tagn_enum(name.data(), static_cast<unsigned>(name.size()));
    if (known != GUMBO_TAG_UNKNOWN) return known;
    std::string lower(name);
    for (char& c : lower) c = Lower(c);
    auto [it, inserted] = unknown_.try_emplace(std::move(lower), static_cast<TagId>(positions_.size()));
    if (inserted) {
      positions_.emplace_back();
      afl_by_tag_.emplace_back();
    }
    return it->second;
  }

  uint32_t Cats(TagId t) const { return t < cats_.size() ? cats_[t] : 0; }

  // Skips raw text up to "</name" followed by a space, '/' or '>'.
  void SkipRawText(std::string_view name) {
    size_t p = pos_;
    for (;;) {
      const size_t at = s_.find("</", p);
      if (at == std::string_view::npos || at + 2 + name.size() > s_.size()) {
        pos_ = s_.size();
        return;
      }
      bool match = true;
      for (size_t k = 0; k < name.size() && match; ++k) match = Lower(s_[at + 2 + k]) == name[k];
      const char after = At(at + 2 + name.size());
      if (match && (IsSpace(after) || after == '/' || after == '>')) {
        pos_ = at;
        return;
      }
      p = at + 2;
    }
  }

  // ---- tree construction --------------------------------------------------------------------

  void Stop(Exceeded why, size_t at) {
    if (exceeded_ != Exceeded::kNone) return;
    exceeded_ = why;
    stopped_at_ = at;
    pos_ = s_.size();
  }

  void Count(size_t n, size_t at) {
    elements_ += n;
    if (limits_ && elements_ > limits_->max_elements) Stop(Exceeded::kElements, at);
  }

  void NoteDepth(size_t at) {
    // html and body, the open elements, the active elements off the stack, and a possible leaf.
    const size_t depth = 3 + stack_.size() + off_stack_;
    if (depth > shape_.depth) {
      shape_.depth = depth;
      shape_.deepest_at = at;
    }
    if (limits_ && depth > limits_->max_depth) Stop(Exceeded::kDepth, at);
  }

  int32_t Top(uint32_t category) const {
    for (int k = 0; k < kCategoryStacks; ++k) {
      if (kStackedCategories[k] == category) return by_cat_[k].empty() ? -1 : by_cat_[k].back();
    }
    return -1;
  }
  int32_t Topmost(TagId t) const { return positions_[t].empty() ? -1 : positions_[t].back(); }
  bool InScope(int32_t pos, uint32_t scope) const { return pos >= 0 && pos >= Top(scope); }
  bool Current(TagId t) const { return !stack_.empty() && stack_.back().tag == t; }

  void Push(TagId t, size_t at) {
    const auto pos = static_cast<int32_t>(stack_.size());
    stack_.push_back(Entry{t, -1});
    positions_[t].push_back(pos);
    const uint32_t c = Cats(t);
    for (int k = 0; k < kCategoryStacks; ++k) {
      if (c & kStackedCategories[k]) by_cat_[k].push_back(pos);
    }
    if (c & kForeignRoot) ++foreign_;
    if (c & kMarker) PushMarker();
    Count(1, at);
    NoteDepth(at);
  }

  void Pop() {
    const Entry e = stack_.back();
    stack_.pop_back();
    positions_[e.tag].pop_back();
    const uint32_t c = Cats(e.tag);
    for (int k = 0; k < kCategoryStacks; ++k) {
      if (c & kStackedCategories[k]) by_cat_[k].pop_back();
    }
    if (c & kForeignRoot) --foreign_;
    if (e.afl >= 0) {
      afl_[e.afl].stack_pos = -1;  // stays active: reconstructed later
      ++off_stack_;
    }
    if (c & kMarker) ClearToMarker();
  }

  // Pops until the element at `pos` is popped.
  void PopTo(int32_t pos) {
    while (static_cast<int32_t>(stack_.size()) > pos) Pop();
  }

  void ClosePInButtonScope() {
    const int32_t p = Topmost(GUMBO_TAG_P);
    if (InScope(p, kButtonScope)) PopTo(p);
  }

  // ---- list of active formatting elements ----

  int32_t AppendActive(Active a) {
    const auto idx = static_cast<int32_t>(afl_.size());
    a.prev = afl_tail_;
    if (afl_tail_ >= 0) afl_[afl_tail_].next = idx;
    afl_tail_ = idx;
    afl_.push_back(a);
    return idx;
  }

  void RemoveActive(int32_t idx) {
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

  void PushMarker() {
    Active m;
    m.marker = true;
    markers_.push_back(AppendActive(m));
  }

  void ClearToMarker() {
    if (markers_.empty()) return;
    const int32_t marker = markers_.back();
    markers_.pop_back();
    while (afl_tail_ >= 0 && afl_tail_ != marker) RemoveActive(afl_tail_);
    RemoveActive(marker);
  }

  // The last active element with tag `t` after the last marker, or -1.
  int32_t LastActive(TagId t) {
    auto& v = afl_by_tag_[t];
    while (!v.empty() && !afl_[v.back()].alive) v.pop_back();
    if (v.empty()) return -1;
    const int32_t idx = v.back();
    if (!markers_.empty() && idx < markers_.back()) return -1;
    return idx;
  }

  void PushFormatting(TagId t, uint64_t attr_hash, size_t at) {
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
  void Reconstruct(size_t at) {
    if (off_stack_ == 0) return;
    int32_t first = afl_tail_;
    if (first < 0 || afl_[first].marker || afl_[first].stack_pos >= 0) return;
    while (afl_[first].prev >= 0 && !afl_[afl_[first].prev].marker && afl_[afl_[first].prev].stack_pos < 0) {
      first = afl_[first].prev;
    }
    for (int32_t i = first; i >= 0 && exceeded_ == Exceeded::kNone; i = afl_[i].next) {
      --off_stack_;
      Push(afl_[i].tag, at);  // a formatting tag: pushes no marker, so afl_ does not move
      afl_[i].stack_pos = static_cast<int32_t>(stack_.size()) - 1;
      stack_.back().afl = i;
    }
  }

  // The adoption agency, as far as depth goes: a formatting element with only phrasing above it is
  // popped with what is above it; one with a block above it leaves the list and the stack stays
  // (the algorithm re-parents, which never deepens the tree beyond the stack it had).
  void Adopt(TagId t, size_t at) {
    const int32_t idx = LastActive(t);
    if (idx < 0) return AnyOtherEnd(t);
    const int32_t pos = afl_[idx].stack_pos;
    if (pos < 0) return RemoveActive(idx);
    if (!InScope(pos, kScope)) return;
    if (Top(kSpecial) > pos) {
      RemoveActive(idx);
      Count(4, at);  // the clones the algorithm makes
      return;
    }
    RemoveActive(idx);
    PopTo(pos);
  }

  void AnyOtherEnd(TagId t) {
    const int32_t pos = Topmost(t);
    if (pos >= 0 && Top(kSpecial) <= pos) PopTo(pos);
  }

  void Text() {
    if (off_stack_ > 0) Reconstruct(pos_);
  }

  void EndTag(TagId t, size_t at) {
    const uint32_t c = Cats(t);
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
      if (InScope(p, kScope)) PopTo(p);
      return;
    }
    if (c & kVoid) return;
    AnyOtherEnd(t);
  }

  void StartTag(TagId t, uint64_t attr_hash, bool self_closing, size_t at) {
    const uint32_t c = Cats(t);
    if (t == GUMBO_TAG_HTML || t == GUMBO_TAG_BODY || t == GUMBO_TAG_HEAD || t == GUMBO_TAG_FRAMESET) return;
    if (foreign_ > 0 && !(c & kForeignRoot)) {  // inside svg / math: no raw text; "/>" closes
      Push(t, at);
      if (self_closing) Pop();
      return;
    }
    if (c & kRawText) {
      if (t == GUMBO_TAG_XMP) ClosePInButtonScope();
      if (t != GUMBO_TAG_TITLE && t != GUMBO_TAG_STYLE && t != GUMBO_TAG_SCRIPT) Reconstruct(at);
      Count(1, at);
      return SkipRawText(gumbo_normalized_tagname(static_cast<GumboTag>(t)));
    }
    if (t == GUMBO_TAG_PLAINTEXT) {
      ClosePInButtonScope();
      Push(t, at);
      pos_ = s_.size();  // the rest is text
      return;
    }
    if (c & kVoid) {
      if (t == GUMBO_TAG_HR || t == GUMBO_TAG_ISINDEX) ClosePInButtonScope();
      if (t == GUMBO_TAG_COL) return TablePart(t, at);
      Reconstruct(at);
      return Count(t == GUMBO_TAG_ISINDEX ? 6 : 1, at);
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
      if (!stack_.empty() && (Cats(stack_.back().tag) & kHeading)) Pop();
      return Push(t, at);
    }
    if (t == GUMBO_TAG_FORM) {
      if (Topmost(GUMBO_TAG_FORM) >= 0 && Topmost(GUMBO_TAG_TEMPLATE) < 0) return;  // nested forms are ignored
      ClosePInButtonScope();
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
      if (Current(GUMBO_TAG_OPTION)) Pop();
      if (t == GUMBO_TAG_OPTGROUP && Current(GUMBO_TAG_OPTGROUP)) Pop();
      Reconstruct(at);
      return Push(t, at);
    }
    if (t == GUMBO_TAG_RB || t == GUMBO_TAG_RTC || t == GUMBO_TAG_RP || t == GUMBO_TAG_RT) {
      if (InScope(Topmost(GUMBO_TAG_RUBY), kScope)) {
        while (Current(GUMBO_TAG_RB) || Current(GUMBO_TAG_RP) || Current(GUMBO_TAG_RT) ||
               ((t == GUMBO_TAG_RB || t == GUMBO_TAG_RTC) && Current(GUMBO_TAG_RTC))) {
          Pop();
        }
      }
      return Push(t, at);
    }
    Reconstruct(at);
    Push(t, at);
    if ((c & kForeignRoot) && self_closing) Pop();
  }

  // In a table but not in one of its cells or its caption.
  bool InTableMode(int32_t table) const {
    if (table < 0 || !InScope(table, kTableScope)) return false;
    for (TagId t : {GUMBO_TAG_TD, GUMBO_TAG_TH, GUMBO_TAG_CAPTION}) {
      if (Topmost(t) > table) return false;
    }
    return true;
  }

  // caption col colgroup tbody thead tfoot tr td th: ignored outside a table; inside, they close
  // the open cell / row / section and supply the tbody and tr that the markup left out.
  void TablePart(TagId t, size_t at) {
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
        }
        return Count(1, at);
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

  std::string_view s_;
  const HtmlLimits* limits_;
  const std::vector<uint32_t>& cats_;
  size_t pos_ = 0;
  HtmlShape shape_;
  size_t elements_ = 0;
  Exceeded exceeded_ = Exceeded::kNone;
  size_t stopped_at_ = 0;
  int foreign_ = 0;

  std::vector<Entry> stack_;
  std::vector<std::vector<int32_t>> positions_;  // per tag: stack positions, bottom to top
  std::vector<int32_t> by_cat_[kCategoryStacks];
  std::unordered_map<std::string, TagId> unknown_;

  std::vector<Active> afl_;  // the list of active formatting elements (a linked list in a pool)
  int32_t afl_tail_ = -1;
  size_t off_stack_ = 0;     // active elements not on the stack
  std::vector<int32_t> markers_;
  std::vector<std::vector<int32_t>> afl_by_tag_;
  std::unordered_map<uint64_t, std::pair<uint32_t, std::deque<int32_t>>> copies_;
};

}  // namespace

HtmlShape MeasureHtmlShape(std::string_view html) {
  ShapeScanner scanner(html, nullptr);
  scanner.Run();
  return scanner.shape();
}

Status CheckHtmlShape(std::string_view html, const HtmlLimits& limits) {
  if (html.size() > limits.max_bytes) {
    return Status::ResourceExhausted("html: document is " + std::to_string(html.size()) + " bytes, over " +
                                     std::to_string(limits.max_bytes) + " (limit html.max_bytes)");
  }
  ShapeScanner scanner(html, &limits);
  const Exceeded why = scanner.Run();
  const std::string at = " at byte " + std::to_string(scanner.stopped_at());
  switch (why) {
    case Exceeded::kNone:
      return Status::Ok();
    case Exceeded::kDepth:
      return Status::ResourceExhausted("html: elements nest deeper than " + std::to_string(limits.max_depth) + at +
                                       " (limit html.max_depth)");
    case Exceeded::kElements:
      return Status::ResourceExhausted("html: more than " + std::to_string(limits.max_elements) + " elements" + at +
                                       " (limit html.max_elements)");
    case Exceeded::kAttributes:
      return Status::ResourceExhausted("html: more than " + std::to_string(limits.max_attributes) +
                                       " attributes on one tag" + at + " (limit html.max_attributes)");
    case Exceeded::kAttributeBytes:
      return Status::ResourceExhausted("html: an attribute longer than " + std::to_string(limits.max_attribute_bytes) +
                                       " bytes" + at + " (limit html.max_attribute_bytes)");
  }
  return Status::Ok();
}

uint64_t HtmlParseBudgetMs(const HtmlLimits& limits, uint64_t bytes) {
  if (limits.parse_ms_base == 0 && limits.parse_ms_per_mib == 0) return 0;
  return limits.parse_ms_base + (bytes * limits.parse_ms_per_mib >> 20);
}

}  // namespace attest
