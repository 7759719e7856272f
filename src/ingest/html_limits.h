// Limits on an HTML document, checked before its bytes reach gumbo, and the linear pre-scan that
// checks them (html_limits.cc: the tokenizer; html_shape_model.h: the tree-construction replay).
//
// gumbo's tree construction is super-linear in some shapes: its scope checks walk the stack of open
// elements on every tag (40,000 unclosed <div>s take seconds), duplicate attributes are found by a
// linear search per attribute (60,000 attributes on one element take seconds), and its tree
// destructor recurses once per nesting level (300,000 nested <span>s overflow the stack). The
// pre-scan (ScanHtmlShape) tokenizes the markup once, replays a simplified HTML5 tree construction
// (implied end tags of p/li/dt/dd/option/table parts, scope boundaries, the list of active
// formatting elements with its reconstruction and its three-copies rule) and reports an upper
// estimate of the nesting depth and the element count, the most attributes on one tag and the
// longest attribute. Every refusal names its limit, e.g.
//   html: elements nest deeper than 512 at byte 3000 (limit html.max_depth)
// Thread-safe (no shared state).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "attest/status.h"

namespace attest {

// Defaults accept the PostgreSQL, Git and SQLite documentation trees with a wide margin
// (docs/ingestion.md lists what they need).
struct HtmlLimits {
  uint64_t max_bytes = 50ull << 20;           // html.max_bytes: the whole document
  size_t max_depth = 512;                     // html.max_depth: nesting of elements
  size_t max_elements = 1'000'000;            // html.max_elements: elements gumbo would build
  size_t max_attributes = 256;                // html.max_attributes: attributes on one tag
  size_t max_attribute_bytes = 1u << 20;      // html.max_attribute_bytes: one attribute, name and value
  // html.parse_ms: budget of CPU time (of the parsing thread, so a loaded machine does not refuse
  // ordinary pages) for gumbo's parse, a backstop for shapes the pre-scan does not foresee:
  // parse_ms_base plus parse_ms_per_mib for each MiB of input (5 s + 0.5 s/MiB: ordinary pages
  // parse at about 10 MB/s of CPU, so a 50 MiB page uses a sixth of its 30 s). 0 and 0 = no budget.
  uint32_t parse_ms_base = 5000;
  uint32_t parse_ms_per_mib = 500;
};

// What the pre-scan saw. `depth` and `elements` are upper estimates of gumbo's tree (html and body
// included); the attribute figures are exact counts of the tokens.
struct HtmlShape {
  size_t depth = 0;
  size_t elements = 0;
  size_t max_attributes = 0;
  size_t max_attribute_bytes = 0;
  size_t deepest_at = 0;  // byte offset where `depth` was first reached
};

// Scans all of `html` and returns its shape (no limits; for measuring document trees).
HtmlShape MeasureHtmlShape(std::string_view html);

// Scans `html`, stopping at the first limit exceeded: ResourceExhausted naming the limit and the
// byte offset, else OK. Linear in the input.
Status CheckHtmlShape(std::string_view html, const HtmlLimits& limits);

// The budget in milliseconds for a document of `bytes` bytes (0 = unlimited).
uint64_t HtmlParseBudgetMs(const HtmlLimits& limits, uint64_t bytes);

}  // namespace attest
