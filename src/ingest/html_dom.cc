#include "ingest/html_dom.h"

#include <vector>

#include "common/strings.h"
#include "ingest/text_util.h"

namespace attest::ingest {
namespace {

bool AnyClassToken(const GumboNode* node, std::initializer_list<std::string_view> tokens) {
  for (std::string_view t : tokens) {
    if (HasClassToken(node, t)) return true;
  }
  return false;
}

bool HasAncestor(const GumboNode* node, std::initializer_list<GumboTag> tags) {
  for (const GumboNode* p = node->parent; p != nullptr; p = p->parent) {
    if (p->type != GUMBO_NODE_ELEMENT) continue;
    for (GumboTag t : tags) {
      if (p->v.element.tag == t) return true;
    }
  }
  return false;
}

bool HiddenByStyle(const char* style) {
  if (style == nullptr) return false;
  std::string compact;
  for (const char* p = style; *p; ++p) {
    if (!IsAsciiSpace(*p)) compact.push_back(*p);
  }
  compact = AsciiLower(compact);
  return compact.find("display:none") != std::string::npos || compact.find("visibility:hidden") != std::string::npos;
}

// A link whose whole text is a permalink symbol, as DocBook ("§"), Sphinx ("¶") and many blogs ("#") add.
bool IsPermalinkAnchor(const GumboNode* node) {
  if (!IsElement(node, GUMBO_TAG_A)) return false;
  if (AnyClassToken(node, {"headerlink", "anchor-link", "anchorjs-link", "permalink"})) return true;
  const GumboVector& children = node->v.element.children;
  if (children.length != 1) return false;
  const auto* child = static_cast<const GumboNode*>(children.data[0]);
  if (child->type != GUMBO_NODE_TEXT) return false;
  const std::string_view text = Trim(child->v.text.text);
  return text == "\xC2\xA7" || text == "\xC2\xB6" || text == "#" || text == "\xF0\x9F\x94\x97";
}

}  // namespace

const char* Attr(const GumboNode* node, std::string_view name) {
  if (node == nullptr || node->type != GUMBO_NODE_ELEMENT) return nullptr;
  const GumboVector& attrs = node->v.element.attributes;
  for (unsigned i = 0; i < attrs.length; ++i) {
    const auto* a = static_cast<const GumboAttribute*>(attrs.data[i]);
    if (EqualsIgnoreCase(a->name, name)) return a->value;
  }
  return nullptr;
}

bool HasClassToken(const GumboNode* node, std::string_view token) {
  return RelHasToken(Attr(node, "class"), token);
}

bool RelHasToken(const char* rel, std::string_view token) {
  if (rel == nullptr) return false;
  std::string_view s(rel);
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsAsciiSpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsAsciiSpace(s[j])) ++j;
    if (j > i && EqualsIgnoreCase(s.substr(i, j - i), token)) return true;
    i = j;
  }
  return false;
}

bool IsElement(const GumboNode* node, GumboTag tag) {
  return node != nullptr && node->type == GUMBO_NODE_ELEMENT && node->v.element.tag == tag;
}

int HeadingLevel(const GumboNode* node) {
  if (node == nullptr || node->type != GUMBO_NODE_ELEMENT) return 0;
  switch (node->v.element.tag) {
    case GUMBO_TAG_H1: return 1;
    case GUMBO_TAG_H2: return 2;
    case GUMBO_TAG_H3: return 3;
    case GUMBO_TAG_H4: return 4;
    case GUMBO_TAG_H5: return 5;
    case GUMBO_TAG_H6: return 6;
    default: return 0;
  }
}

bool IsBlockLevel(const GumboNode* node) {
  if (node == nullptr || node->type != GUMBO_NODE_ELEMENT) return false;
  switch (node->v.element.tag) {
    case GUMBO_TAG_HTML: case GUMBO_TAG_BODY: case GUMBO_TAG_P: case GUMBO_TAG_DIV: case GUMBO_TAG_LI:
    case GUMBO_TAG_UL: case GUMBO_TAG_OL: case GUMBO_TAG_DL: case GUMBO_TAG_DT: case GUMBO_TAG_DD:
    case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5:
    case GUMBO_TAG_H6: case GUMBO_TAG_TABLE: case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD: case GUMBO_TAG_TBODY: case GUMBO_TAG_TFOOT: case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_PRE: case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_SECTION: case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_MAIN: case GUMBO_TAG_HEADER: case GUMBO_TAG_FOOTER: case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_ADDRESS: case GUMBO_TAG_DETAILS: case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_HR: case GUMBO_TAG_BR: case GUMBO_TAG_CENTER: case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_LEGEND: case GUMBO_TAG_HGROUP: case GUMBO_TAG_COLGROUP:
      return true;
    default:
      return false;
  }
}

bool IsDropped(const GumboNode* node, const DropRules& rules) {
  if (node->type == GUMBO_NODE_TEMPLATE) return true;
  if (node->type != GUMBO_NODE_ELEMENT) return false;
  switch (node->v.element.tag) {
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_SVG: case GUMBO_TAG_NAV: case GUMBO_TAG_FOOTER: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_FORM: case GUMBO_TAG_IFRAME: case GUMBO_TAG_OBJECT: case GUMBO_TAG_EMBED:
    case GUMBO_TAG_CANVAS: case GUMBO_TAG_BUTTON: case GUMBO_TAG_SELECT: case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_INPUT: case GUMBO_TAG_AUDIO: case GUMBO_TAG_VIDEO: case GUMBO_TAG_MAP:
    case GUMBO_TAG_HEAD: case GUMBO_TAG_TITLE: case GUMBO_TAG_MENU:
      return true;
    case GUMBO_TAG_HEADER:
      // A page banner is chrome; an article's own header holds its title.
      if (!HasAncestor(node, {GUMBO_TAG_ARTICLE, GUMBO_TAG_MAIN})) return true;
      break;
    default:
      break;
  }
  if (Attr(node, "hidden") != nullptr) return true;
  if (const char* aria = Attr(node, "aria-hidden"); aria && EqualsIgnoreCase(Trim(aria), "true")) return true;
  if (HiddenByStyle(Attr(node, "style"))) return true;
  if (const char* role = Attr(node, "role")) {
    const std::string_view r = Trim(role);
    if (EqualsIgnoreCase(r, "navigation") || EqualsIgnoreCase(r, "search") || EqualsIgnoreCase(r, "menubar") ||
        EqualsIgnoreCase(r, "toolbar")) {
      return true;
    }
  }
  if (AnyClassToken(node, {"navheader", "navfooter", "breadcrumb", "breadcrumbs", "skip-link", "skiplink",
                           "sr-only", "visually-hidden", "screen-reader-text"})) {
    return true;
  }
  if (rules.drop_toc &&
      AnyClassToken(node, {"toc", "list-of-tables", "list-of-figures", "list-of-examples", "list-of-equations"})) {
    return true;
  }
  return IsPermalinkAnchor(node);
}

std::string CollectText(const GumboNode* node, const DropRules& rules) {
  std::string raw;
  std::vector<const GumboNode*> stack{node};  // nullptr marks the end of a block-level element
  while (!stack.empty()) {
    const GumboNode* n = stack.back();
    stack.pop_back();
    if (n == nullptr) {
      raw.push_back(' ');
      continue;
    }
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_CDATA || n->type == GUMBO_NODE_WHITESPACE) {
      raw += n->v.text.text;
      continue;
    }
    if (n->type != GUMBO_NODE_ELEMENT || (n != node && IsDropped(n, rules))) continue;
    if (IsBlockLevel(n)) {  // block boundaries separate words; inline ones do not
      raw.push_back(' ');
      stack.push_back(nullptr);
    }
    const GumboVector& children = n->v.element.children;
    for (unsigned i = children.length; i > 0; --i) stack.push_back(static_cast<const GumboNode*>(children.data[i - 1]));
  }
  return CollapseWhitespace(raw, Nbsp::kAsSpace);
}

}  // namespace attest::ingest
