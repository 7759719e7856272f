// Helpers over gumbo's DOM for the HTML extractor: attributes, class tokens, the rules that
// decide which elements are page chrome or hidden, and iterative (stack-safe) text collection.
// Thread-safe (no shared state).
#pragma once

#include <gumbo.h>

#include <string>
#include <string_view>

namespace attest::ingest {

// The attribute value, or nullptr when absent. Attribute names are matched case-insensitively.
const char* Attr(const GumboNode* node, std::string_view name);
bool HasClassToken(const GumboNode* node, std::string_view token);
bool IsElement(const GumboNode* node, GumboTag tag);
// Whether a space-separated attribute value (rel="next canonical") has `token`, ASCII case-insensitively.
// nullptr (no attribute) has none.
bool RelHasToken(const char* rel, std::string_view token);

// Heading level 1..6 of h1..h6, else 0.
int HeadingLevel(const GumboNode* node);

// Elements that break the flow of text (p, div, li, td, h1, br, ...), as opposed to inline ones.
bool IsBlockLevel(const GumboNode* node);

struct DropRules {
  bool drop_toc = true;  // DocBook/Sphinx tables of contents (class "toc", "list-of-tables", ...)
};

// True when the element and everything inside it is not document content: script, style,
// noscript, template, svg, nav, header (outside article/main), footer, aside, form, iframe and
// other embedded or interactive elements; hidden elements (hidden attribute, aria-hidden="true",
// style display:none / visibility:hidden, input type=hidden); navigation chrome (role=navigation,
// classes navheader/navfooter/breadcrumb/skip-link); permalink anchors ("§", "¶", "#").
bool IsDropped(const GumboNode* node, const DropRules& rules);

// Text of the subtree in document order with dropped elements skipped, whitespace collapsed.
std::string CollectText(const GumboNode* node, const DropRules& rules);

}  // namespace attest::ingest
