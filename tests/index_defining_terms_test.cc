// The term field's text (index/document_indexer.h): defining terms from definition and table-row
// spans, and the names a document's lead declaration declares.
#include <gtest/gtest.h>

#include "index/document_indexer.h"

namespace attest {
namespace {

ChunkSpan Span(const std::string& text, const std::string& part, SpanRole role, const std::string& subject = "") {
  const size_t at = text.find(part);
  EXPECT_NE(at, std::string::npos) << part;
  return ChunkSpan{uint32_t(at), uint32_t(at + part.size()), role, subject};
}

TEST(DefiningTermsTest, SubjectsOfDefinitionsAndRowsOnceEach) {
  const std::string text = "Intro.\n\nSets the sender count.\n\nMore on it.\n\n10 | integer\n\nPlain.";
  std::vector<ChunkSpan> spans = {Span(text, "Intro.", SpanRole::kText),
                                  Span(text, "Sets the sender count.", SpanRole::kDefinition, "max_wal_senders"),
                                  Span(text, "More on it.", SpanRole::kDefinition, "max_wal_senders"),
                                  Span(text, "10 | integer", SpanRole::kTableRow, "wal_level"),
                                  Span(text, "Plain.", SpanRole::kListItem, "not a term")};
  EXPECT_EQ(DefiningTerms(spans, text, 3), (std::vector<std::string>{"max_wal_senders", "wal_level"}));
  EXPECT_TRUE(DefiningTerms({}, "", 0).empty());
}

TEST(DefiningTermsTest, LeadDeclarationAfterTheHeadingsDeclaresTheDocumentsNames) {
  const std::string text =
      "Small. Fast.\n\nC Interface\n\nCompiling A Statement\n\n"
      "int sqlite3_prepare(\n  sqlite3 *db\n);\nint sqlite3_prepare_v2 (sqlite3*, void(*)(void*));\n\n"
      "To execute a statement, call foo() first.";
  std::vector<ChunkSpan> spans = {
      Span(text, "Small. Fast.", SpanRole::kText), Span(text, "C Interface", SpanRole::kHeading),
      Span(text, "Compiling A Statement", SpanRole::kHeading),
      Span(text, "int sqlite3_prepare(\n  sqlite3 *db\n);\nint sqlite3_prepare_v2 (sqlite3*, void(*)(void*));",
           SpanRole::kCode),
      Span(text, "To execute a statement, call foo() first.", SpanRole::kText)};
  EXPECT_EQ(DeclaredNames(spans, text), (std::vector<std::string>{"sqlite3_prepare", "sqlite3_prepare_v2"}));
  // Only a document's first chunk has a lead.
  EXPECT_EQ(DefiningTerms(spans, text, 0).size(), 2u);
  EXPECT_TRUE(DefiningTerms(spans, text, 1).empty());
  // Prose first: no declaration, even with code later (foo() is a mention).
  spans[3].role = SpanRole::kText;
  EXPECT_TRUE(DeclaredNames(spans, text).empty());
  // No headings at all: the first block is the lead.
  const std::string code = "void f(int);";
  EXPECT_EQ(DeclaredNames({Span(code, code, SpanRole::kCode)}, code), (std::vector<std::string>{"f"}));
}

}  // namespace
}  // namespace attest
