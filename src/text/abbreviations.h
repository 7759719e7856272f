// Abbreviations after which a sentence boundary proposed by ICU is usually wrong.
//
// Choice for ambiguous abbreviations: "etc.", "Inc.", "Ltd.", "Co.", "a.m.", "p.m." and "No." often
// end a sentence, so a boundary after them is kept when the next word starts with a capital letter
// ("... tables, indexes, etc. The next step ...") and merged otherwise ("3 p.m. on Monday",
// "No. 5"). All other listed abbreviations, single capital initials ("J. Smith") and dotted
// acronyms ("U.S.", "U.N.", "a.k.a.") always merge: titles, "e.g.", "vs.", "Fig." and months are
// practically never sentence-final, and wrongly merging two sentences is cheaper for chunking than
// cutting one in half.
#pragma once

#include <string_view>

namespace attest {

enum class AbbreviationKind { kNone, kAlwaysMerge, kMergeUnlessCapitalized };

// `word` is the whitespace-delimited word before a boundary, ending with '.', opening
// punctuation already stripped (e.g. "Dr.", "e.g.", "U.S.", "J.").
AbbreviationKind ClassifyAbbreviation(std::string_view word);

}  // namespace attest
