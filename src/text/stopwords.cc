#include "text/stopwords.h"

#include <initializer_list>

namespace attest {
namespace {

bool AnyOf(std::string_view term, std::initializer_list<std::string_view> words) {
  for (std::string_view w : words) {
    if (term == w) return true;
  }
  return false;
}

}  // namespace

// a an and are as at be but by for if in into is it no not of on or such that the their then there
// these they this to was will with
bool IsEnglishStopword(std::string_view term) {
  if (term.empty() || term.size() > 5) return false;
  switch (term[0]) {
    case 'a': return AnyOf(term, {"a", "an", "and", "are", "as", "at"});
    case 'b': return AnyOf(term, {"be", "but", "by"});
    case 'f': return term == "for";
    case 'i': return AnyOf(term, {"if", "in", "into", "is", "it"});
    case 'n': return AnyOf(term, {"no", "not"});
    case 'o': return AnyOf(term, {"of", "on", "or"});
    case 's': return term == "such";
    case 't':
      return AnyOf(term, {"that", "the", "their", "then", "there", "these", "they", "this", "to"});
    case 'w': return AnyOf(term, {"was", "will", "with"});
    default: return false;
  }
}

}  // namespace attest
