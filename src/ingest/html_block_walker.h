// Walks the <body> of a gumbo DOM in document order and emits text blocks (see html_extractor.h
// for the rules). Iterative, so arbitrarily deep markup cannot overflow the stack.
// Not thread-safe per instance; use one walker per document.
#pragma once

#include <gumbo.h>

#include <string>
#include <vector>

#include "ingest/document.h"
#include "ingest/html_dom.h"

namespace attest::ingest {

class HtmlBlockWalker {
 public:
  explicit HtmlBlockWalker(DropRules rules) : rules_(rules) {}

  std::vector<Block> Walk(const GumboNode* root);

 private:
  struct Context {
    BlockKind kind;
    int level;
    std::string subject;  // what the blocks in this context are about (a definition's term)
  };

  void Enter(const GumboNode* node);
  void Exit(const GumboNode* node);
  void AppendText(std::string_view text);
  void Boundary();
  void Flush();
  void EmitTable(const GumboNode* table);
  void AddTerm(const GumboNode* dt);
  void EnterDescription();
  std::string TakeSubject();
  void EmitPendingTerms();
  const Context& Current() const { return contexts_.back(); }

  DropRules rules_;
  std::vector<Block> blocks_;
  std::vector<Context> contexts_;
  std::string buf_;
  bool pending_space_ = false;
  int pre_depth_ = 0;
  std::vector<std::string> pending_terms_;  // <dt> texts seen since the last <dd>

};

}  // namespace attest::ingest
