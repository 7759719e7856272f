// IsNameQuery (search/search_runner.h): whether a query looks for the page that defines a name.
#include <string_view>

#include "common/strings.h"
#include "search/search_runner.h"
#include "text/stopwords.h"

namespace attest {

namespace {
bool IsQuerySpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
}  // namespace

bool IsNameQuery(std::string_view query) {
  if (query.find('?') != std::string_view::npos) return false;
  size_t words = 0;
  size_t i = 0;
  while (i < query.size()) {
    while (i < query.size() && IsQuerySpace(query[i])) ++i;
    if (i == query.size()) break;
    const size_t start = i;
    while (i < query.size() && !IsQuerySpace(query[i])) ++i;
    const std::string_view word = query.substr(start, i - start);
    if (++words > 3) return false;
    if (word.front() == '"' || word.front() == '-' || word.front() == '+' || word.find(':') != std::string_view::npos) {
      return false;  // operators and phrases: a query written for the engine, not a name
    }
    if (IsEnglishStopword(AsciiLower(word))) return false;
  }
  return words > 0;
}

}  // namespace attest
