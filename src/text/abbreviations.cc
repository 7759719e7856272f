#include "text/abbreviations.h"

#include <array>
#include <string>

namespace attest {
namespace {

constexpr std::array<std::string_view, 52> kAlwaysMerge = {
    "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "cf", "al", "fig", "figs",
    "vol", "vols", "approx", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec", "mt", "gen", "col", "lt", "sgt", "capt", "rev", "hon", "dept", "est", "ca", "viz",
    "eq", "eqs", "pp", "ref", "refs", "sec", "ch", "nos", "ed", "eds"};

constexpr std::array<std::string_view, 8> kMergeUnlessCapitalized = {"etc", "inc", "ltd", "co", "corp",
                                                                     "a.m", "p.m", "no"};

bool IsAsciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "U.S", "a.k.a", "J.R": single letters separated by dots (at least one dot).
bool IsDottedAcronym(std::string_view key) {
  if (key.size() < 3 || key.size() % 2 == 0) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    if (i % 2 == 0 ? !IsAsciiLetter(key[i]) : key[i] != '.') return false;
  }
  return true;
}

}  // namespace

AbbreviationKind ClassifyAbbreviation(std::string_view word) {
  if (word.size() < 2 || word.back() != '.') return AbbreviationKind::kNone;
  std::string_view body = word.substr(0, word.size() - 1);
  if (body.size() > 8) return AbbreviationKind::kNone;
  if (body.size() == 1) {
    // A single capital letter is an initial ("J. Smith"); a lone lowercase letter is not.
    return body[0] >= 'A' && body[0] <= 'Z' ? AbbreviationKind::kAlwaysMerge : AbbreviationKind::kNone;
  }
  std::string key(body);
  for (char& c : key) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (std::string_view a : kMergeUnlessCapitalized) {
    if (key == a) return AbbreviationKind::kMergeUnlessCapitalized;
  }
  for (std::string_view a : kAlwaysMerge) {
    if (key == a) return AbbreviationKind::kAlwaysMerge;
  }
  if (IsDottedAcronym(key)) return AbbreviationKind::kAlwaysMerge;
  return AbbreviationKind::kNone;
}

}  // namespace attest
