#include "verify/support_checks.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <vector>

#include "text/analyzer.h"
#include "verify/quantities.h"
#include "verify/quote_match.h"

namespace attest {
namespace {

const Analyzer& ContentAnalyzer() {
  // Identifiers stay whole ("lr_example_parallel_apply" is one content word, not five).
  static const Analyzer analyzer(AnalyzerOptions{.stem = true, .remove_stopwords = true, .split_identifiers = false});
  return analyzer;
}

bool InList(std::string_view w, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), w) != list.end();
}

// Function words beyond the analyzer's 33 stopwords: they carry no claim content of their own.
// Negations and absolute quantifiers are listed too, because their own checks own them.
bool IsFunctionWord(std::string_view w) {
  return InList(w, {"a", "an", "the", "and", "or", "but", "if", "then", "else", "of", "in", "on", "at", "by",
                    "for", "with", "without", "to", "from", "into", "onto", "over", "under", "about",
                    "above", "below", "after", "before", "between", "during", "through", "via", "per",
                    "than", "as", "such", "that", "this", "these", "those", "there", "their", "they",
                    "them", "it", "its", "it's", "is", "are", "was", "were", "be", "been", "being", "am",
                    "do", "does", "did", "done", "have", "has", "had", "having", "can", "could", "may",
                    "might", "must", "shall", "should", "will", "would", "also", "now", "just", "very",
                    "so", "too", "not", "no", "nor", "never", "cannot", "none", "neither", "i", "you",
                    "he", "she", "we", "us", "our", "your", "his", "her", "my", "me", "which", "who",
                    "whom", "whose", "what", "when", "where", "why", "how", "while", "here", "all",
                    "every", "each", "any", "some", "both", "either", "only", "always", "entirely",
                    "completely", "fully", "totally", "wholly", "altogether", "solely", "exclusively",
                    "guaranteed", "other", "more", "most", "less", "least", "same", "own", "up", "out",
                    "off", "again", "further", "once", "yet", "still", "already", "whether", "because",
                    "since", "until", "unless", "although", "though"}) ||
         (w.size() > 3 && w.substr(w.size() - 3) == "n't");
}

// Whitespace-separated words with surrounding punctuation removed (hyphenated words stay whole).
std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    size_t b = i, e = j;
    while (b < e && std::strchr("([{\"'<*`", s[b]) != nullptr) ++b;
    while (e > b && std::strchr(".,;:)]}\"'!?>*`", s[e - 1]) != nullptr) --e;
    if (b < e) out.push_back(s.substr(b, e - b));
    i = j;
  }
  return out;
}

bool IsCalendarWord(std::string_view w) {
  return InList(w, {"january", "february", "march", "april", "may", "june", "july", "august", "september",
                    "october", "november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep",
                    "sept", "oct", "nov", "dec", "monday", "tuesday", "wednesday", "thursday", "friday",
                    "saturday", "sunday"});
}

bool IsNegationCue(std::string_view w) {
  return InList(w, {"not", "no", "never", "without", "cannot", "none", "nor", "neither"}) ||
         (w.size() > 3 && w.substr(w.size() - 3) == "n't");
}

std::string_view FirstNegationCue(std::string_view normalized) {
  for (std::string_view w : Words(normalized)) {
    if (IsNegationCue(w)) return w;
  }
  return {};
}

struct QuantifierClass {
  const char* name;
  std::vector<std::string_view> words;
};

const std::vector<QuantifierClass>& QuantifierClasses() {
  static const std::vector<QuantifierClass> classes = {
      {"entirely", {"entirely", "completely", "fully", "totally", "wholly", "altogether", "100%"}},
      {"always", {"always", "invariably"}},
      {"never", {"never"}},
      {"all", {"all", "every", "each", "everything", "everyone"}},
      {"only", {"only", "solely", "exclusively"}},
      {"guaranteed", {"guaranteed", "guarantee", "guarantees", "certainly", "definitely"}},
  };
  return classes;
}

bool IsWordByte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

// `needle` occurs in `hay` with no word character directly before or after it.
bool ContainsWord(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return false;
  for (size_t pos = hay.find(needle); pos != std::string_view::npos; pos = hay.find(needle, pos + 1)) {
    const bool left = pos == 0 || !IsWordByte(hay[pos - 1]);
    const size_t end = pos + needle.size();
    const bool right = end >= hay.size() || !IsWordByte(hay[end]) ||
                       !IsWordByte(needle.back());
    if (left && right) return true;
  }
  return false;
}

bool HasLetter(std::string_view s) {
  for (char c : s) {
    if (std::isalpha(static_cast<unsigned char>(c)) || static_cast<unsigned char>(c) >= 0x80) return true;
  }
  return false;
}

bool IsIdentifierTerm(std::string_view t) {
  return t.find_first_of("_.-/") != std::string_view::npos;
}

// A claim term is present when the context has it, or (ordinary words only) a term that differs by a
// short derivational ending the stemmer keeps ("new" ~ "newli", "configur" ~ "configurat").
bool TermPresent(const std::string& term, const std::set<std::string>& context_terms) {
  if (context_terms.count(term) != 0) return true;
  if (IsIdentifierTerm(term)) return false;
  for (const std::string& c : context_terms) {
    const std::string& shorter = c.size() < term.size() ? c : term;
    const std::string& longer = c.size() < term.size() ? term : c;
    if (shorter.size() >= 3 && longer.size() - shorter.size() <= 2 && longer.compare(0, shorter.size(), shorter) == 0 &&
        !IsIdentifierTerm(c)) {
      return true;
    }
  }
  return false;
}

std::string Join(const std::vector<std::string>& items, size_t limit) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < limit; ++i) {
    if (i > 0) out += ", ";
    out += items[i];
  }
  if (items.size() > limit) out += ", ...";
  return out;
}

}  // namespace

std::string BlankQuantities(std::string_view normalized_claim) {
  std::string out(normalized_claim);
  for (const Quantity& q : ExtractQuantities(normalized_claim)) {
    for (size_t i = q.begin; i < q.end && i < out.size(); ++i) out[i] = ' ';
  }
  return out;
}

CheckResult CheckContentCoverage(std::string_view claim, const SupportEvidence& evidence,
                                 double supported_coverage, double partial_coverage) {
  const Analyzer& analyzer = ContentAnalyzer();
  const std::string blanked = BlankQuantities(NormalizeForQuoteMatch(claim));
  std::vector<Token> tokens;
  analyzer.Analyze(blanked, &tokens);
  std::vector<std::string> terms;      // distinct content terms, in claim order
  std::vector<std::string> surfaces;
  for (const Token& t : tokens) {
    const std::string_view surface = std::string_view(blanked).substr(t.start, t.end - t.start);
    if (IsFunctionWord(surface) || !HasLetter(t.term)) continue;
    if (std::find(terms.begin(), terms.end(), t.term) != terms.end()) continue;
    terms.push_back(t.term);
    surfaces.emplace_back(surface);
  }
  if (terms.empty()) return {CheckLevel::kPass, "content words: the claim has no content words to check"};
  std::set<std::string> context_terms;
  for (std::string& t : analyzer.Terms(evidence.context)) context_terms.insert(std::move(t));
  std::vector<std::string> missing;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!TermPresent(terms[i], context_terms)) missing.push_back(surfaces[i]);
  }
  const size_t found = terms.size() - missing.size();
  const double coverage = static_cast<double>(found) / static_cast<double>(terms.size());
  std::string counts = std::to_string(found) + " of " + std::to_string(terms.size()) +
                       " content words of the claim are in the quotes";
  if (!missing.empty()) counts += " (missing: " + Join(missing, 6) + ")";
  if (coverage >= supported_coverage) return {CheckLevel::kPass, "content words: " + counts};
  if (coverage >= partial_coverage) return {CheckLevel::kPartial, "content words: only " + counts};
  return {CheckLevel::kFail, "content words: only " + counts};
}

CheckResult CheckNumbers(std::string_view claim, const SupportEvidence& evidence) {
  const std::vector<Quantity> claimed = ExtractQuantities(NormalizeForQuoteMatch(claim));
  if (claimed.empty()) return {CheckLevel::kPass, "numbers: none in the claim"};
  const std::vector<Quantity> quoted = ExtractQuantities(evidence.quotes);
  std::vector<Quantity> scope_quantities;
  for (const Quantity& claim_q : claimed) {
    if (QuantityMatches(claim_q, quoted)) continue;
    if (claim_q.scope) {
      if (scope_quantities.empty()) {
        scope_quantities = ExtractQuantities(evidence.context);
        for (Quantity& q : ExtractQuantities(evidence.scope)) scope_quantities.push_back(std::move(q));
      }
      Quantity bare = claim_q;
      bare.unit.clear();
      if (QuantityMatches(bare, scope_quantities)) continue;
    }
    const Quantity* nearest = nullptr;
    for (const Quantity& q : quoted) {
      if (q.kind == claim_q.kind && q.unit == claim_q.unit) {
        nearest = &q;
        break;
      }
    }
    if (nearest == nullptr && !quoted.empty()) nearest = &quoted.front();
    std::string reason = "numbers: claim says " + claim_q.Describe();
    reason += nearest != nullptr ? ", quote says " + nearest->Describe() : ", the quotes state no such number";
    return {CheckLevel::kFail, reason};
  }
  return {CheckLevel::kPass, "numbers: all " + std::to_string(claimed.size()) + " stated in the quotes"};
}

CheckResult CheckNegation(std::string_view claim, const SupportEvidence& evidence) {
  const std::string normalized_claim = NormalizeForQuoteMatch(claim);
  const std::string_view claim_cue = FirstNegationCue(normalized_claim);
  const std::string_view quote_cue = FirstNegationCue(evidence.local);
  if (claim_cue.empty() == quote_cue.empty()) return {CheckLevel::kPass, "negation: polarity agrees"};
  if (!claim_cue.empty()) {
    return {CheckLevel::kFail, "negation: the claim is negated ('" + std::string(claim_cue) + "') but the quote is not"};
  }
  return {CheckLevel::kFail, "negation: the quote is negated ('" + std::string(quote_cue) + "') but the claim is not"};
}

CheckResult CheckAbsoluteQuantifiers(std::string_view claim, const SupportEvidence& evidence) {
  const std::string normalized_claim = NormalizeForQuoteMatch(claim);
  const std::vector<std::string_view> claim_words = Words(normalized_claim);
  const std::vector<std::string_view> quote_words = Words(evidence.local);
  for (const QuantifierClass& cls : QuantifierClasses()) {
    std::string_view used;
    for (std::string_view w : claim_words) {
      if (std::find(cls.words.begin(), cls.words.end(), w) != cls.words.end()) {
        used = w;
        break;
      }
    }
    if (used.empty()) continue;
    const bool matched = std::any_of(quote_words.begin(), quote_words.end(),
                                     [&](std::string_view w) { return std::find(cls.words.begin(), cls.words.end(), w) != cls.words.end(); });
    if (!matched) {
      return {CheckLevel::kFail,
              "absolute quantifier: the claim says '" + std::string(used) + "' but the quotes do not"};
    }
  }
  return {CheckLevel::kPass, "absolute quantifiers: none unmatched"};
}

CheckResult CheckNamedEntities(std::string_view claim, const SupportEvidence& evidence) {
  // Tokens of the original claim (capitalisation matters here), tracking sentence starts.
  std::vector<std::string> missing;
  bool sentence_start = true;
  size_t i = 0;
  while (i < claim.size()) {
    while (i < claim.size() && std::isspace(static_cast<unsigned char>(claim[i]))) ++i;
    size_t j = i;
    while (j < claim.size() && !std::isspace(static_cast<unsigned char>(claim[j]))) ++j;
    std::string_view raw = claim.substr(i, j - i);
    i = j;
    if (raw.empty()) continue;
    const bool was_start = sentence_start;
    sentence_start = std::strchr(".!?:", raw.back()) != nullptr;
    size_t b = 0, e = raw.size();
    while (b < e && std::strchr("([{\"'<*`", raw[b]) != nullptr) ++b;
    while (e > b && std::strchr(".,;:)]}\"'!?>*`", raw[e - 1]) != nullptr) --e;
    std::string_view w = raw.substr(b, e - b);
    if (w.size() < 2 || !std::isalpha(static_cast<unsigned char>(w[0]))) continue;
    if (w[0] == 'v' && std::isdigit(static_cast<unsigned char>(w[1]))) continue;  // "v17": a version
    bool inner_upper = false, digit = false, lower = false;
    for (size_t k = 0; k < w.size(); ++k) {
      const auto c = static_cast<unsigned char>(w[k]);
      if (k > 0 && std::isupper(c)) inner_upper = true;
      if (std::isdigit(c)) digit = true;
      if (std::islower(c)) lower = true;
    }
    const bool underscore = w.find('_') != std::string_view::npos;
    const bool dotted = w.size() >= 5 && w.find('.') != std::string_view::npos && w.find("..") == std::string_view::npos;
    const bool capitalised = std::isupper(static_cast<unsigned char>(w[0])) && !was_start;
    if (!(underscore || inner_upper || (digit && lower) || dotted || capitalised)) continue;
    const std::string normalized = NormalizeForQuoteMatch(w);
    if (IsFunctionWord(normalized) || IsCalendarWord(normalized)) continue;  // dates belong to CheckNumbers
    if (!ContainsWord(evidence.context, normalized) && !ContainsWord(evidence.scope, normalized)) {
      missing.emplace_back(w);
    }
  }
  if (missing.empty()) return {CheckLevel::kPass, "names: all in the quotes"};
  return {CheckLevel::kPartial, "names: " + Join(missing, 4) + (missing.size() == 1 ? " is" : " are") + " in no quote"};
}

}  // namespace attest
