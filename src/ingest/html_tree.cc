#include "ingest/html_tree.h"

#include <csetjmp>
#include <csignal>

#include <ctime>
#include <cstddef>
#include <cstdlib>
#include <mutex>

namespace attest::ingest {
namespace {

// CPU time of this thread: the budget measures gumbo's work, not how loaded the machine is (on a
// busy machine wall time is several times the CPU time, and ordinary pages must not run out).
int64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

constexpr uint64_t kClockEvery = 256;  // allocations between two looks at the clock

constexpr int kJumpBudget = 1;
constexpr int kJumpNoMemory = 2;
constexpr int kJumpAssertion = 3;

// The jump back into HtmlTree::Parse while this thread is inside gumbo, else nullptr.
thread_local sigjmp_buf* t_in_gumbo = nullptr;

struct sigaction g_previous_abort_action;

// gumbo as Debian builds it keeps its assert()s: a crafted document (<table><th><svg><select>
// <foreignObject><table><table>) fails one, and abort() would take the whole process down. While
// this thread is inside gumbo, SIGABRT returns to Parse instead (glibc's abort releases its lock
// before raising, and expects a handler that does not return). Anywhere else it goes to the
// previous handler, or back to abort, which then ends the process as before.
void OnAbort(int sig, siginfo_t* info, void* context) {
  if (t_in_gumbo != nullptr) siglongjmp(*t_in_gumbo, kJumpAssertion);
  const struct sigaction& prev = g_previous_abort_action;
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, context);
  } else if ((prev.sa_flags & SA_SIGINFO) == 0 && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
  }
}

void InstallAbortGuard() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action {};
    action.sa_sigaction = &OnAbort;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGABRT, &action, &g_previous_abort_action);
  });
}

// Runs gumbo; returns nullptr and sets `*why` when the allocator or the abort guard jumped out.
// Only plain C objects live between the sigsetjmp here and the jumps.
GumboOutput* ParseOrJump(sigjmp_buf* jump, const GumboOptions* options, const char* data, size_t size, int* why) {
  const int jumped = sigsetjmp(*jump, 1);
  if (jumped != 0) {
    t_in_gumbo = nullptr;
    *why = jumped;
    return nullptr;
  }
  t_in_gumbo = jump;
  GumboOutput* out = gumbo_parse_with_options(options, data, size);
  t_in_gumbo = nullptr;
  return out;
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
    siglongjmp(*static_cast<sigjmp_buf*>(tree->jump_), kJumpBudget);
  }
  auto* b = static_cast<Block*>(std::malloc(sizeof(Block) + size));
  // gumbo never checks for NULL, and an exception cannot cross its C frames: jump out instead.
  if (b == nullptr) siglongjmp(*static_cast<sigjmp_buf*>(tree->jump_), kJumpNoMemory);
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
  InstallAbortGuard();
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &HtmlTree::Allocate;
  options.deallocator = &HtmlTree::Deallocate;
  options.userdata = this;
  options.max_errors = 0;  // we never look at parse errors; do not spend memory on them
  deadline_ns_ = budget_ms == 0 ? 0 : NowNs() + static_cast<int64_t>(budget_ms) * 1'000'000;
  sigjmp_buf jump;
  jump_ = &jump;
  int why = 0;
  GumboOutput* out = ParseOrJump(&jump, &options, html.data(), html.size(), &why);
  jump_ = nullptr;
  deadline_ns_ = 0;
  if (out == nullptr) {
    FreeAll();
    switch (why) {
      case kJumpNoMemory:
        return Status::ResourceExhausted("html: out of memory while parsing");
      case kJumpAssertion:
        return Status::InvalidArgument(
            "html: the parser failed one of its internal checks on this markup (a known gumbo defect); the "
            "document is refused");
      default:
        return Status::ResourceExhausted("html: parsing took more than " + std::to_string(budget_ms) +
                                         " ms of CPU time (limit html.parse_ms)");
    }
  }
  output_ = out;
  return Status::Ok();
}

}  // namespace attest::ingest
