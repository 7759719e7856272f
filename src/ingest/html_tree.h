// One gumbo parse whose memory this class owns.
//
// gumbo_destroy_output recurses once per nesting level of the tree (300,000 nested <span>s
// overflow the stack), so the tree is never handed back to it: every block gumbo allocates goes
// through an allocator that links it into a list, and the destructor frees that list in a loop.
//
// The same allocator enforces the time budget (HtmlLimits parse_ms, CPU time of the parsing
// thread): gumbo has no way to be cancelled, but it allocates for every tag and text node, so the
// allocator checks the clock every 256 allocations and, past the deadline, jumps back to Parse (siglongjmp). That is safe
// here: gumbo is C (no destructors are skipped), keeps no global state, and everything it
// allocated is in the list, which the destructor frees; nothing of the abandoned parse is used.
// The same jump answers a failed assert() inside gumbo (Debian builds it with its asserts, and
// some markup trips them): a SIGABRT raised on this thread while gumbo runs comes back to Parse
// as an error instead of ending the process (html_tree.cc, OnAbort).
//
// Not copyable or movable (gumbo holds a pointer to it). Not thread-safe per instance; separate
// instances run concurrently.
#pragma once

#include <gumbo.h>

#include <cstdint>
#include <string_view>

#include "attest/status.h"

namespace attest::ingest {

class HtmlTree {
 public:
  HtmlTree() = default;
  ~HtmlTree();
  HtmlTree(const HtmlTree&) = delete;
  HtmlTree& operator=(const HtmlTree&) = delete;

  // Parses `html`; `budget_ms` = 0 means no budget. Past the budget: ResourceExhausted naming the
  // limit html.parse_ms. Call once per instance.
  Status Parse(std::string_view html, uint64_t budget_ms);

  // The parsed document (after an OK Parse), else nullptr.
  const GumboOutput* output() const { return output_; }

  // Blocks gumbo holds now (the tree, after a Parse; 0 after a refused one).
  uint64_t live_blocks() const { return live_; }

 private:
  struct Block;
  static void* Allocate(void* self, size_t size);
  static void Deallocate(void* self, void* ptr);
  void FreeAll();

  Block* head_ = nullptr;
  uint64_t live_ = 0;
  uint64_t calls_ = 0;
  int64_t deadline_ns_ = 0;  // steady clock; 0 = none
  void* jump_ = nullptr;     // the sigjmp_buf of the running Parse
  GumboOutput* output_ = nullptr;
};

}  // namespace attest::ingest
