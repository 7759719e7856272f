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
  kHtmlNs = 1u << 15,        // an element in the HTML namespace
};
constexpr uint32_t kIntegrationPoint = kSpecial | kSpecialNotAdp | kScope | kListScope | kButtonScope;

constexpr int kCategoryStacks = 7;
constexpr uint32_t kStackedCategories[kCategoryStacks] = {kScope,   kListScope,     kButtonScope, kTableScope,
                                                          kSpecial, kSpecialNotAdp, kHtmlNs};

enum Namespace : uint8_t { kHtml, kSvg, kMathMl };

bool IsMathMlIntegrationPoint(uint32_t t) {
  return t == GUMBO_TAG_MI || t == GUMBO_TAG_MO || t == GUMBO_TAG_MN || t == GUMBO_TAG_MS || t == GUMBO_TAG_MTEXT ||
         t == GUMBO_TAG_ANNOTATION_XML;
}
bool IsSvgIntegrationPoint(uint32_t t) {
  return t == GUMBO_TAG_FOREIGNOBJECT || t == GUMBO_TAG_DESC || t == GUMBO_TAG_TITLE;
}

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
          GUMBO_TAG_WBR, GUMBO_TAG_XMP})) {
    c |= kSpecial;
    if (t != GUMBO_TAG_ADDRESS && t != GUMBO_TAG_DIV && t != GUMBO_TAG_P) c |= kSpecialNotAdp;
  }
  if (in({GUMBO_TAG_APPLET, GUMBO_TAG_CAPTION, GUMBO_TAG_HTML, GUMBO_TAG_TABLE, GUMBO_TAG_TD, GUMBO_TAG_TH,
          GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT, GUMBO_TAG_TEMPLATE})) {
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
  return c | kHtmlNs;
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
    foreign_positions_.resize(GUMBO_TAG_LAST + 1);
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

  // ---- tokenizer -------------------------------------------------------------------------------

  void Step() {
    const size_t lt = s_.find('<', pos_);
    if (lt == std::string_view::npos) {
      Text(s_.substr(pos_));
      pos_ = s_.size();
      return;
    }
    if (lt > pos_) Text(s_.substr(pos_, lt - pos_));
    pos_ = lt;
    const char c1 = At(lt + 1);
    if (c1 == '!') {
      if (s_.substr(lt, 4) == "<!--") return Comment();
      if (InForeignContent() && s_.substr(lt, 9) == "<![CDATA[") return SkipPast("]]>", lt + 9);
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
    Text("<");
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
    // gumbo matches HTML elements by their enum: every unknown name is the same tag, GUMBO_TAG_UNKNOWN.
    const TagId tag = gumbo_tagn_enum(name.data(), static_cast<unsigned>(name.size()));
    if (end) {
      EndTag(tag, name, tag_at);
    } else {
      StartTag(tag, name, attr_hash, self_closing, tag_at);
    }
  }

  void Finish() { pos_ = s_.size(); }

  // Foreign elements are matched by name: an unknown name gets an id of its own.
  TagId ForeignId(TagId tag, std::string_view name) {
    if (tag != GUMBO_TAG_UNKNOWN) return tag;
    std::string lower(name);
    for (char& c : lower) c = Lower(c);
    auto [it, inserted] = unknown_.try_emplace(std::move(lower), static_cast<TagId>(positions_.size()));
    if (inserted) {
      positions_.emplace_back();
      foreign_positions_.emplace_back();
      afl_by_tag_.emplace_back();
    }
    return it->second;
  }

  uint32_t Cats(TagId t) const { return t < cats_.size() ? cats_[t] : kHtmlNs; }
  // Categories of an element as it sits on the stack: the namespace decides (an HTML <desc> is
  // ordinary, an SVG <desc> is special; an SVG <tr> is none of the table's business).
  uint32_t Cats(TagId t, Namespace ns) const {
    switch (ns) {
      case kHtml:
        return (IsMathMlIntegrationPoint(t) || IsSvgIntegrationPoint(t)) ? Cats(t) & ~kIntegrationPoint : Cats(t);
      case kSvg:
        return IsSvgIntegrationPoint(t) ? kIntegrationPoint : 0;
      case kMathMl:
        return IsMathMlIntegrationPoint(t) ? kIntegrationPoint : 0;
    }
    return 0;
  }

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

  // Stack positions of the open elements in `category`, bottom to top.
  const std::vector<int32_t>& InCategory(uint32_t category) const {
    int k = 0;
    while (k + 1 < kCategoryStacks && kStackedCategories[k] != category) ++k;
    return by_cat_[k];
  }
  int32_t Top(uint32_t category) const {
    const std::vector<int32_t>& v = InCategory(category);
    return v.empty() ? -1 : v.back();
  }
  int32_t Topmost(TagId t) const { return positions_[t].empty() ? -1 : positions_[t].back(); }
  int32_t TopmostForeign(TagId t) const {
    return foreign_positions_[t].empty() ? -1 : foreign_positions_[t].back();
  }
  bool InScope(int32_t pos, uint32_t scope) const { return pos >= 0 && pos >= Top(scope); }
  bool Current(TagId t) const { return !stack_.empty() && stack_.back().tag == t && stack_.back().ns == kHtml; }

  // Pushes an element of namespace `ns` (svg and math opened in HTML start their own).
  void Push(TagId t, size_t at, Namespace ns = kHtml) {
    if (ns == kHtml && t == GUMBO_TAG_SVG) ns = kSvg;
    if (ns == kHtml && t == GUMBO_TAG_MATH) ns = kMathMl;
    const auto pos = static_cast<int32_t>(stack_.size());
    stack_.push_back(Entry{t, -1, ns});
    (ns == kHtml ? positions_ : foreign_positions_)[t].push_back(pos);
    const uint32_t c = Cats(t, ns);
    for (int k = 0; k < kCategoryStacks; ++k) {
      if (c & kStackedCategories[k]) by_cat_[k].push_back(pos);
    }
    if (c & kMarker) PushMarker();
    Count(1, at);
    NoteDepth(at);
  }

  void Pop() {
    const Entry e = stack_.back();
    stack_.pop_back();
    (e.ns == kHtml ? positions_ : foreign_positions_)[e.tag].pop_back();
    const uint32_t c = Cats(e.tag, e.ns);
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
  void PopTo(int32_t pos) {
    while (static_cast<int32_t>(stack_.size()) > pos) Pop();
  }

  // "Generate implied end tags": pops dd, dt, li, option, optgroup, p, rb, rp, rt, rtc (but not
  // `except`) while one of them is the current node.
  static constexpr TagId kNoTag = GUMBO_TAG_LAST;
  void PopImplied(TagId except) {
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

  void AnyOtherEnd(TagId t) {
    const int32_t pos = Topmost(t);
    if (pos >= 0 && Top(kSpecial) <= pos) PopTo(pos);
  }

  void Text(std::string_view text) {
    if (Current(GUMBO_TAG_COLGROUP) &&
        std::any_of(text.begin(), text.end(), [](char c) { return !IsSpace(c); })) {
      Pop();  // text ends a column group
    }
    if (off_stack_ > 0 && !InSelect()) Reconstruct(pos_);
  }

  // In a select only options and option groups open; most other tags are dropped.
  bool InSelect() const {
    if (stack_.empty() || Topmost(GUMBO_TAG_SELECT) < 0) return false;
    const Entry& top = stack_.back();
    return top.ns == kHtml &&
           (top.tag == GUMBO_TAG_SELECT || top.tag == GUMBO_TAG_OPTION || top.tag == GUMBO_TAG_OPTGROUP);
  }

  // A tag inside a select; returns false when the select closed and the tag is to be read again.
  bool SelectTag(TagId t, bool end, size_t at) {
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

  void EndTag(TagId t, std::string_view name, size_t at) {
    if (InSelect() && SelectTag(t, /*end=*/true, at)) return;
    if (Current(GUMBO_TAG_COLGROUP) && t != GUMBO_TAG_COL && t != GUMBO_TAG_TEMPLATE) {
      Pop();  // any other tag ends a column group
      if (t == GUMBO_TAG_COLGROUP) return;
    }
    if (!stack_.empty() && stack_.back().ns != kHtml) {  // closes the foreign element of that name
      const int32_t f = TopmostForeign(ForeignId(t, name));
      if (f >= 0 && f > Top(kHtmlNs)) return PopTo(f);
    }
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

  void StartTag(TagId t, std::string_view name, uint64_t attr_hash, bool self_closing, size_t at) {
    const uint32_t c = Cats(t);
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
      return SkipRawText(gumbo_normalized_tagname(static_cast<GumboTag>(t)));
    }
    if (t == GUMBO_TAG_PLAINTEXT) {
      ClosePInButtonScope();
      Push(t, at);
      pos_ = s_.size();  // the rest is text
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
      if (!stack_.empty() && (Cats(stack_.back().tag, stack_.back().ns) & kHeading)) Pop();
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
  bool InForeignContent() const {
    return !stack_.empty() && stack_.back().ns != kHtml && !(Cats(stack_.back().tag, stack_.back().ns) & kScope);
  }

  // HTML start tags that end foreign content (font only with some attributes: kept foreign here,
  // which can only over-estimate).
  static bool BreaksOutOfForeignContent(TagId t) {
    switch (t) {
      case GUMBO_TAG_B: case GUMBO_TAG_BIG: case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_BODY: case GUMBO_TAG_BR:
      case GUMBO_TAG_CENTER: case GUMBO_TAG_CODE: case GUMBO_TAG_DD: case GUMBO_TAG_DIV: case GUMBO_TAG_DL:
      case GUMBO_TAG_DT: case GUMBO_TAG_EM: case GUMBO_TAG_EMBED: case GUMBO_TAG_H1: case GUMBO_TAG_H2:
      case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5: case GUMBO_TAG_H6: case GUMBO_TAG_HEAD:
      case GUMBO_TAG_HR: case GUMBO_TAG_I: case GUMBO_TAG_IMG: case GUMBO_TAG_LI: case GUMBO_TAG_LISTING:
      case GUMBO_TAG_MENU: case GUMBO_TAG_META: case GUMBO_TAG_NOBR: case GUMBO_TAG_OL: case GUMBO_TAG_P:
      case GUMBO_TAG_PRE: case GUMBO_TAG_RUBY: case GUMBO_TAG_S: case GUMBO_TAG_SMALL: case GUMBO_TAG_SPAN:
      case GUMBO_TAG_STRONG: case GUMBO_TAG_STRIKE: case GUMBO_TAG_SUB: case GUMBO_TAG_SUP: case GUMBO_TAG_TABLE:
      case GUMBO_TAG_TT: case GUMBO_TAG_U: case GUMBO_TAG_UL: case GUMBO_TAG_VAR:
        return true;
      default:
        return false;
    }
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

  std::string_view s_;
  const HtmlLimits* limits_;
  const std::vector<uint32_t>& cats_;
  size_t pos_ = 0;
  HtmlShape shape_;
  size_t elements_ = 0;
  Exceeded exceeded_ = Exceeded::kNone;
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
