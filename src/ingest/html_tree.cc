#include "ingest/html_tree.h"

#include <chrono>
#include <csetjmp>
#include <cstddef>
#include <cstdlib>

namespace attest::ingest {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr uint64_t kClockEvery = 256;  // allocations between two looks at the clock

constexpr int kJumpBudget = 1;
constexpr int kJumpNoMemory = 2;

// Runs gumbo; returns nullptr and sets `*why` when the allocator jumped out. Only plain C objects
// live between the setjmp here and the longjmp in the allocator.
GumboOutput* ParseOrJump(std::jmp_buf* jump, const GumboOptions* options, const char* data, size_t size,
                         int* why) {
  const int jumped = setjmp(*jump);
  if (jumped != 0) {
    *why = jumped;
    return nullptr;
  }
  return gumbo_parse_with_options(options, data, size);
}

}  // namespace

// A header before each block gumbo gets; keeps the block aligned for any type.
struct alignas(std::max_align_t) HtmlTree::Block {
  Block* prev;
  Block* next;
};

HtmlTree::~HtmlTree() { FreeAll(); }

void HtmlTree::FreeAll() {
  while (head_ != nullptr) {
    Block* b = head_;
    head_ = b->next;
    std::free(b);
  }
  live_ = 0;
  output_ = nullptr;
}

void* HtmlTree::Allocate(void* self, size_t size) {
  auto* tree = static_cast<HtmlTree*>(self);
  if (tree->deadline_ns_ != 0 && ++tree->calls_ % kClockEvery == 0 && NowNs() > tree->deadline_ns_) {
    std::longjmp(*static_cast<std::jmp_buf*>(tree->jump_), kJumpBudget);
  }
  auto* b = static_cast<Block*>(std::malloc(sizeof(Block) + size));
  // gumbo never checks for NULL, and an exception cannot cross its C frames: jump out instead.
  if (b == nullptr) std::longjmp(*static_cast<std::jmp_buf*>(tree->jump_), kJumpNoMemory);
  b->prev = nullptr;
  b->next = tree->head_;
  if (tree->head_ != nullptr) tree->head_->prev = b;
  tree->head_ = b;
  ++tree->live_;
  return b + 1;
}

void HtmlTree::Deallocate(void* self, void* ptr) {
  if (ptr == nullptr) return;
  auto* tree = static_cast<HtmlTree*>(self);
  Block* b = static_cast<Block*>(ptr) - 1;
  if (b->prev != nullptr) {
    b->prev->next = b->next;
  } else {
    tree->head_ = b->next;
  }
  if (b->next != nullptr) b->next->prev = b->prev;
  --tree->live_;
  std::free(b);
}

Status HtmlTree::Parse(std::string_view html, uint64_t budget_ms) {
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &HtmlTree::Allocate;
  options.deallocator = &HtmlTree::Deallocate;
  options.userdata = this;
  options.max_errors = 0;  // we never look at parse errors; do not spend memory on them
  deadline_ns_ = budget_ms == 0 ? 0 : NowNs() + static_cast<int64_t>(budget_ms) * 1'000'000;
  std::jmp_buf jump;
  jump_ = &jump;
  int why = 0;
  GumboOutput* out = ParseOrJump(&jump, &options, html.data(), html.size(), &why);
  jump_ = nullptr;
  deadline_ns_ = 0;
  if (out == nullptr) {
    FreeAll();
    if (why == kJumpNoMemory) return Status::ResourceExhausted("html: out of memory while parsing");
    return Status::ResourceExhausted("html: parsing took longer than " + std::to_string(budget_ms) +
                                     " ms (limit html.parse_ms)");
  }
  output_ = out;
  return Status::Ok();
}

}  // namespace attest::ingest
