#include "write/quote_recovery.h"

#include <unordered_set>
#include <vector>

#include "text/sentence_splitter.h"
#include "text/stopwords.h"

namespace attest {
namespace {

bool IsWordByte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

std::unordered_set<std::string> ContentWords(std::string_view text) {
  std::unordered_set<std::string> words;
  std::string w;
  auto flush = [&] {
    if (w.size() >= 2 && !IsEnglishStopword(w)) words.insert(w);
    w.clear();
  };
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsWordByte(c)) {
      w.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : ch);
    } else {
      flush();
    }
  }
  flush();
  return words;
}

}  // namespace

std::string RecoverQuote(std::string_view sentence, std::string_view passage) {
  const std::unordered_set<std::string> wanted = ContentWords(sentence);
  if (wanted.empty() || passage.empty()) return "";
  size_t best_score = 0;
  std::string_view best;
  for (const SentenceSpan& span : SplitSentences(passage)) {
    if (span.end <= span.start || span.end > passage.size()) continue;
    const std::string_view candidate = passage.substr(span.start, span.end - span.start);
    size_t score = 0;
    for (const std::string& w : ContentWords(candidate)) score += wanted.count(w);
    if (score > best_score || (score == best_score && score > 0 && candidate.size() > best.size())) {
      best_score = score;
      best = candidate;
    }
  }
  return std::string(best);
}

}  // namespace attest
