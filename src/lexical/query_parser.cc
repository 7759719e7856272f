// ParseLexicalQuery: see lexical_query.h for the syntax and semantics.
#include <algorithm>
#include <cctype>

#include "lexical/lexical_query.h"
#include "text/analyzer.h"

namespace attest {

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Builds a clause from analyzed tokens: positions relative to the first token.
QueryClause ClauseFromTokens(const std::vector<Token>& tokens, Occur occur, bool phrase) {
  QueryClause c;
  c.occur = occur;
  c.phrase = phrase && tokens.size() > 1;
  uint32_t base = UINT32_MAX;
  for (const Token& t : tokens) base = std::min(base, t.position);
  for (const Token& t : tokens) {
    c.terms.push_back(t.term);
    c.positions.push_back(t.position - base);
  }
  return c;
}

// Under +/-, a word that analyzes to several terms stands for its whole identifier: the token
// spanning the whole word when there is one, else the phrase of its tokens.
QueryClause SignedWordClause(const std::vector<Token>& tokens, Occur occur) {
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const Token& t : tokens) {
    lo = std::min(lo, t.start);
    hi = std::max(hi, t.end);
  }
  for (const Token& t : tokens) {
    if (t.start == lo && t.end == hi) return QueryClause{occur, {t.term}, {0}, false};
  }
  return ClauseFromTokens(tokens, occur, /*phrase=*/true);
}

}  // namespace

Result<LexicalQuery> ParseLexicalQuery(std::string_view text, const Analyzer& analyzer) {
  LexicalQuery q;
  size_t i = 0;
  const size_t n = text.size();
  std::vector<Token> tokens;
  bool any_positive = false, any_input = false;
  while (i < n) {
    while (i < n && IsSpace(text[i])) ++i;
    if (i >= n) break;
    any_input = true;
    Occur occur = Occur::kShould;
    bool signed_clause = false;
    if ((text[i] == '+' || text[i] == '-') && i + 1 < n && !IsSpace(text[i + 1])) {
      occur = text[i] == '+' ? Occur::kMust : Occur::kMustNot;
      signed_clause = true;
      ++i;
    }
    tokens.clear();
    if (text[i] == '"') {
      const size_t close = text.find('"', i + 1);
      const size_t end = close == std::string_view::npos ? n : close;  // unterminated: to the end
      analyzer.Analyze(text.substr(i + 1, end - i - 1), &tokens);
      i = close == std::string_view::npos ? n : close + 1;
      if (tokens.empty()) continue;  // only stopwords or punctuation
      // A quoted phrase without a sign must appear.
      q.clauses.push_back(ClauseFromTokens(tokens, signed_clause ? occur : Occur::kMust, /*phrase=*/true));
    } else {
      size_t j = i;
      while (j < n && !IsSpace(text[j]) && text[j] != '"') ++j;
      analyzer.Analyze(text.substr(i, j - i), &tokens);
      i = j;
      if (tokens.empty()) continue;
      if (signed_clause) {
        q.clauses.push_back(SignedWordClause(tokens, occur));
      } else {
        for (const Token& t : tokens) q.clauses.push_back(QueryClause{Occur::kShould, {t.term}, {0}, false});
      }
    }
    if (q.clauses.back().occur != Occur::kMustNot) any_positive = true;
  }
  if (q.clauses.empty()) {
    return Status::InvalidArgument(any_input ? "query has no searchable terms (only stopwords or punctuation)"
                                             : "query is empty");
  }
  if (!any_positive) {
    return Status::InvalidArgument("query has only excluded clauses (-term); add at least one term to search for");
  }
  return q;
}

}  // namespace attest
