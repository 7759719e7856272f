// The tag categories of HTML5 tree construction that the pre-scan (html_shape_model.h) needs:
// void and raw-text elements, formatting elements, the "special" category, the scope boundaries,
// which start tags close an open p, and how SVG and MathML elements differ (an SVG <desc> is an
// integration point, an HTML <desc> is ordinary). Ids are gumbo's GumboTag values. Thread-safe.
#pragma once

#include <gumbo.h>

#include <cstdint>

namespace attest::ingest {

using TagId = uint32_t;

// Categories of a tag (bit flags).
enum TagCategory : uint32_t {
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


// Categories of tag `t` for an element of namespace `ns` as it sits on the stack of open elements.
uint32_t TagCategories(TagId t, Namespace ns);

// Categories of tag `t` read as an HTML tag (unknown ids: only kHtmlNs).
uint32_t HtmlTagCategories(TagId t);

bool IsMathMlIntegrationPoint(TagId t);
bool IsSvgIntegrationPoint(TagId t);

// HTML start tags that end foreign content (font only with some attributes: kept foreign here,
// which can only over-estimate).
bool BreaksOutOfForeignContent(TagId t);

inline bool IsHtmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

}  // namespace attest::ingest
