// One indexed term occurrence produced by the Analyzer.
#pragma once

#include <cstdint>
#include <string>

namespace attest {

struct Token {
  std::string term;       // normalized (NFKC case-folded), stemmed unless it is an identifier whole
  uint32_t position = 0;  // token position within the field; identifier parts take consecutive positions
  uint32_t start = 0;     // byte offset of the surface form in the analyzed text
  uint32_t end = 0;       // one past the last byte of the surface form
};

}  // namespace attest
