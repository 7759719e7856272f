#include "search/snippet.h"

#include <algorithm>
#include <map>

namespace attest {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026

struct Word {
  uint32_t start, end;
  int32_t term_key;  // first matched query term at this start (for distinct counting), -1 for none
  bool hit() const { return term_key >= 0; }
};

}  // namespace

Snippet MakeSnippet(std::string_view text, const std::unordered_set<std::string>& query_terms,
                    const Analyzer& analyzer, size_t max_words) {
  if (text.empty()) return {};
  std::vector<Token> analyzed;
  analyzer.Analyze(text, &analyzed);
  // Distinct query terms numbered in sorted order (the numbering only tells terms apart).
  std::vector<std::string_view> terms(query_terms.begin(), query_terms.end());
  std::sort(terms.begin(), terms.end());
  std::vector<SnippetToken> tokens;
  tokens.reserve(analyzed.size());
  for (const Token& t : analyzed) {
    const auto at = std::lower_bound(terms.begin(), terms.end(), std::string_view(t.term));
    const bool hit = at != terms.end() && *at == t.term;
    tokens.push_back({t.start, t.end, hit ? static_cast<int32_t>(at - terms.begin()) : -1});
  }
  return SnippetFromTokens(text, tokens, max_words);
}

bool InTextBounds(std::string_view text, const std::vector<SnippetToken>& tokens) {
  for (const SnippetToken& t : tokens) {
    if (t.start > t.end || t.end > text.size()) return false;
  }
  return true;
}

Snippet SnippetFromTokens(std::string_view text, const std::vector<SnippetToken>& tokens, size_t max_words) {
  Snippet out;
  if (text.empty()) return out;
  if (max_words == 0) max_words = 1;

  // Collapse tokens to surface words keyed by start offset; a word is a hit if any of its terms matches.
  // Tokens arrive almost sorted by start (sub-tokens of an identifier share or follow its start), so a
  // stable sort of a flat vector replaces a node-per-word map: same words, no per-token allocation.
  std::vector<Word> raw;
  raw.reserve(tokens.size());
  std::vector<Highlight> spans;
  for (const SnippetToken& t : tokens) {
    raw.push_back(Word{t.start, t.end, t.query_term});
    if (t.query_term >= 0) spans.push_back({t.start, t.end});
  }
  auto by_start = [](const Word& a, const Word& b) { return a.start < b.start; };
  if (!std::is_sorted(raw.begin(), raw.end(), by_start)) std::stable_sort(raw.begin(), raw.end(), by_start);
  std::vector<Word> words;
  words.reserve(raw.size());
  for (const Word& w : raw) {
    if (!words.empty() && words.back().start == w.start) {
      Word& m = words.back();  // the first token at this start keeps its term key
      m.end = std::max(m.end, w.end);
      if (!m.hit() && w.hit()) m.term_key = w.term_key;
    } else {
      words.push_back(w);
    }
  }

  // Best window of max_words consecutive words: most distinct matched terms, then most hits, earliest.
  size_t best_begin = 0;
  if (words.size() > max_words) {
    int best_distinct = -1, best_hits = -1;
    std::map<int32_t, int> counts;
    int hits = 0;
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i].hit()) {
        ++hits;
        ++counts[words[i].term_key];
      }
      if (i >= max_words) {
        const Word& out_w = words[i - max_words];
        if (out_w.hit()) {
          --hits;
          if (--counts[out_w.term_key] == 0) counts.erase(out_w.term_key);
        }
      }
      if (i + 1 >= max_words) {
        int distinct = static_cast<int>(counts.size());
        if (distinct > best_distinct || (distinct == best_distinct && hits > best_hits)) {
          best_distinct = distinct;
          best_hits = hits;
          best_begin = i + 1 - max_words;
        }
      }
    }
  }
  uint32_t from = 0, to = static_cast<uint32_t>(text.size());
  bool cut_front = false, cut_back = false;
  if (words.size() > max_words) {
    size_t last = std::min(words.size(), best_begin + max_words) - 1;
    if (best_begin > 0) {
      from = words[best_begin].start;
      cut_front = true;
    }
    if (last + 1 < words.size()) {
      to = words[last].end;
      cut_back = true;
    }
  }
  // Trim whitespace inside the window.
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; };
  while (from < to && is_space(text[from])) ++from;
  while (to > from && is_space(text[to - 1])) --to;

  if (cut_front) out.text.append(kEllipsis);
  uint32_t base = static_cast<uint32_t>(out.text.size());
  // Collapse runs of whitespace to one space so snippets print on one line.
  std::vector<int32_t> remap(to - from + 1, 0);  // offset in window -> offset in out.text (relative to base)
  bool in_space = false;
  for (uint32_t i = from; i < to; ++i) {
    remap[i - from] = static_cast<int32_t>(out.text.size() - base);
    char c = text[i];
    if (is_space(c)) {
      if (!in_space) out.text.push_back(' ');
      in_space = true;
    } else {
      out.text.push_back(c);
      in_space = false;
    }
  }
  remap[to - from] = static_cast<int32_t>(out.text.size() - base);
  if (cut_back) out.text.append(kEllipsis);

  std::sort(spans.begin(), spans.end(), [](const Highlight& a, const Highlight& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
  for (const Highlight& h : spans) {
    if (h.start < from || h.end > to) continue;
    Highlight r{base + static_cast<uint32_t>(remap[h.start - from]), base + static_cast<uint32_t>(remap[h.end - from])};
    if (!out.highlights.empty() && r.start <= out.highlights.back().end) {
      out.highlights.back().end = std::max(out.highlights.back().end, r.end);
    } else {
      out.highlights.push_back(r);
    }
  }
  return out;
}

}  // namespace attest
