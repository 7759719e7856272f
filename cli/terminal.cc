#include "cli/terminal.h"

#include <unistd.h>

#include <cstdio>

namespace attest::cli {

bool StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }
bool StdoutIsTerminal() { return ::isatty(STDOUT_FILENO) == 1; }

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), enabled_(StderrIsTerminal()), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::Update(uint64_t done, uint64_t total) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100) && done < total) return;
  last_draw_ = now;
  drawn_ = true;
  double frac = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  if (frac > 1) frac = 1;
  constexpr int kWidth = 30;
  int filled = static_cast<int>(frac * kWidth);
  std::string bar(filled, '=');
  if (filled < kWidth) bar += '>' + std::string(kWidth - filled - 1, ' ');
  double secs = std::chrono::duration<double>(now - start_).count();
  double mbps = secs > 0 ? static_cast<double>(done) / 1e6 / secs : 0;
  std::fprintf(stderr, "\r%s [%s] %5.1f%% %s/%s %.1f MB/s ", label_.c_str(), bar.c_str(), frac * 100,
               HumanBytes(done).c_str(), HumanBytes(total).c_str(), mbps);
  std::fflush(stderr);
}

void ProgressBar::Finish() {
  if (enabled_ && drawn_) std::fprintf(stderr, "\n");
}

std::string RenderHighlighted(const std::string& text, const std::vector<Highlight>& highlights, bool ansi) {
  const char* open = ansi ? "\x1b[1;33m" : "[[";
  const char* close = ansi ? "\x1b[0m" : "]]";
  std::string out;
  size_t pos = 0;
  for (const Highlight& h : highlights) {
    if (h.start < pos || h.end > text.size() || h.start >= h.end) continue;
    out.append(text, pos, h.start - pos);
    out += open;
    out.append(text, h.start, h.end - h.start);
    out += close;
    pos = h.end;
  }
  out.append(text, pos, std::string::npos);
  return out;
}

std::string HumanBytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30)) {
    std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / (1ull << 30));
  } else if (bytes >= (1ull << 20)) {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1ull << 20));
  } else if (bytes >= 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1024);
  } else {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

}  // namespace attest::cli
