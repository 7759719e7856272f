#include <gtest/gtest.h>

#include "ingest/jsonl_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

using testing_ingest::ParseContent;

struct Collected {
  std::vector<ParsedDocument> docs;
  std::vector<SourceError> errors;
};

Collected ParseBuffer(std::string_view data, const SourceOptions& options = {}) {
  Collected c;
  ParseJsonlBuffer(
      data, "corpus.jsonl", options, [&](ParsedDocument&& d, uint64_t) { c.docs.push_back(std::move(d)); },
      [&](SourceError&& e) { c.errors.push_back(std::move(e)); });
  return c;
}

TEST(IngestJsonl, GoodLineWithAllFields) {
  auto c = ParseBuffer(R"({"_id": "d1", "title": "  A   title ", "text": "Para one\nline two.\n\n  Para two.  ", )"
                       R"("metadata": {"url": "https://www.Example.org/a", "published": "2023-01-02", )"
                       R"("updated": "March 3, 2023", "version": "15.4", "source_type": "docs", "language": "FR", )"
                       R"("A": "Author", "n": 3, "tags": ["x", "y"], "nothing": null}})");
  ASSERT_EQ(c.errors.size(), 0u) << c.errors[0].ToString();
  ASSERT_EQ(c.docs.size(), 1u);
  const ParsedDocument& d = c.docs[0];
  EXPECT_EQ(d.id, "d1");
  EXPECT_EQ(d.title, "A title");
  ASSERT_EQ(d.blocks.size(), 2u);
  EXPECT_EQ(d.blocks[0].text, "Para one line two.");
  EXPECT_EQ(d.blocks[1].text, "Para two.");
  EXPECT_EQ(d.blocks[0].kind, BlockKind::kParagraph);
  EXPECT_EQ(d.url, "https://www.Example.org/a");
  EXPECT_EQ(d.site, "www.example.org");
  EXPECT_EQ(FormatDate(d.published.value()), "2023-01-02");
  EXPECT_EQ(FormatDate(d.updated.value()), "2023-03-03");
  EXPECT_EQ(d.version, "15.4");
  EXPECT_EQ(d.source_type, "docs");
  EXPECT_EQ(d.language, "fr");
  EXPECT_EQ(d.metadata.at("A"), "Author");
  EXPECT_EQ(d.metadata.at("n"), "3");
  EXPECT_EQ(d.metadata.at("tags"), R"(["x","y"])");
  EXPECT_EQ(d.metadata.count("nothing"), 0u);
  EXPECT_EQ(d.metadata.count("url"), 0u);
}

TEST(IngestJsonl, IntegerIdSiteFallbackAndDateAlias) {
  SourceOptions options;
  options.site = "corpus-label";
  auto c = ParseBuffer(R"({"_id": 42, "text": "x", "metadata": {"date": "2020-02-29"}})", options);
  ASSERT_EQ(c.docs.size(), 1u);
  EXPECT_EQ(c.docs[0].id, "42");
  EXPECT_EQ(c.docs[0].site, "corpus-label");
  EXPECT_EQ(c.docs[0].title, "");
  EXPECT_EQ(FormatDate(c.docs[0].published.value()), "2020-02-29");
}

TEST(IngestJsonl, BadLinesReportLineNumbersAndTheRestProceeds) {
  const std::string data =
      "{\"_id\": \"ok1\", \"text\": \"fine\"}\n"
      "{not json}\n"
      "\n"
      "   \r\n"
      "[1, 2]\n"
      "{\"_id\": \"ok2\", \"text\": \"also fine\"}\r\n"
      "{\"text\": \"no id\"}\n"
      "{\"_id\": \"\", \"text\": \"empty id\"}\n"
      "{\"_id\": \"e\", \"text\": \"   \\n\\n  \"}\n"
      "{\"_id\": \"nt\"}\n"
      "{\"_id\": \"ok3\", \"text\": \"last, no newline\"}";
  auto c = ParseBuffer(data);
  ASSERT_EQ(c.docs.size(), 3u);
  EXPECT_EQ(c.docs[0].id, "ok1");
  EXPECT_EQ(c.docs[1].id, "ok2");
  EXPECT_EQ(c.docs[2].id, "ok3");
  ASSERT_EQ(c.errors.size(), 6u);
  const uint64_t lines[] = {2, 5, 7, 8, 9, 10};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(c.errors[i].line, lines[i]) << c.errors[i].ToString();
    EXPECT_EQ(c.errors[i].file, "corpus.jsonl");
  }
  EXPECT_NE(c.errors[0].message.find("invalid JSON"), std::string::npos) << c.errors[0].message;
  EXPECT_NE(c.errors[1].message.find("not an object"), std::string::npos) << c.errors[1].message;
  EXPECT_NE(c.errors[2].message.find("\"_id\""), std::string::npos) << c.errors[2].message;
  EXPECT_NE(c.errors[3].message.find("\"_id\" is empty"), std::string::npos) << c.errors[3].message;
  EXPECT_NE(c.errors[4].message.find("empty document"), std::string::npos) << c.errors[4].message;
  EXPECT_NE(c.errors[5].message.find("\"text\""), std::string::npos) << c.errors[5].message;
  EXPECT_EQ(c.errors[2].ToString().rfind("corpus.jsonl:7: ", 0), 0u);
}

TEST(IngestJsonl, WrongTypesNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"_id": 1.5, "text": "x"})", "\"_id\""},
      {R"({"_id": ["a"], "text": "x"})", "\"_id\""},
      {R"({"_id": "a", "title": 7, "text": "x"})", "\"title\""},
      {R"({"_id": "a", "text": {"p": 1}})", "\"text\""},
      {R"({"_id": "a", "text": "x", "metadata": "m"})", "\"metadata\""},
      {R"({"_id": "a", "text": "x", "metadata": {"url": 5}})", "\"metadata.url\""},
      {R"({"_id": "a", "text": "x", "metadata": {"published": 20230101}})", "\"metadata.published\""},
      {R"({"_id": "a", "text": "x", "metadata": {"published": "2023-02-30"}})", "\"metadata.published\""},
      {R"({"_id": "a", "text": "x", "metadata": {"updated": "soon"}})", "\"metadata.updated\""},
      {R"({"_id": "a", "text": "x", "metadata": {"version": 15.4}})", "\"metadata.version\""},
      {R"({"_id": "a", "text": "x", "metadata": {"language": true}})", "\"metadata.language\""},
  };
  for (const auto& [line, field] : cases) {
    auto c = ParseBuffer(line);
    EXPECT_TRUE(c.docs.empty()) << line;
    ASSERT_EQ(c.errors.size(), 1u) << line;
    EXPECT_NE(c.errors[0].message.find(field), std::string::npos) << line << " -> " << c.errors[0].message;
  }
}

TEST(IngestJsonl, InvalidUtf8NulAndDeepNestingAreLineErrors) {
  std::string data = "{\"_id\": \"a\", \"text\": \"caf\xC3\xA9\"}\n";
  data += "{\"_id\": \"b\", \"text\": \"bad \xC3\x28\"}\n";
  data += std::string("{\"_id\": \"c\", \"text\": \"nul \0 here\"}\n", 35);
  data += "{\"_id\": \"d\", \"text\": \"x\", \"metadata\": {\"z\": " + std::string(200, '[') + std::string(200, ']') + "}}\n";
  data += "{\"_id\": \"e\", \"text\": \"surrogate \xED\xA0\x80\"}\n";
  auto c = ParseBuffer(data);
  ASSERT_EQ(c.docs.size(), 1u);
  EXPECT_EQ(c.docs[0].blocks[0].text, "caf\xC3\xA9");
  ASSERT_EQ(c.errors.size(), 4u);
  EXPECT_EQ(c.errors[0].line, 2u);
  EXPECT_NE(c.errors[0].message.find("invalid UTF-8 at column 27"), std::string::npos) << c.errors[0].message;
  EXPECT_EQ(c.errors[1].line, 3u);
  EXPECT_NE(c.errors[1].message.find("NUL"), std::string::npos) << c.errors[1].message;
  EXPECT_EQ(c.errors[2].line, 4u);
  EXPECT_NE(c.errors[2].message.find("nested"), std::string::npos) << c.errors[2].message;
  EXPECT_EQ(c.errors[3].line, 5u);
  EXPECT_NE(c.errors[3].message.find("invalid UTF-8"), std::string::npos);
}

TEST(IngestJsonl, OversizedLineIsSkippedWithItsSizeFromAFile) {
  const auto dir = testing_ingest::MakeTempDir();
  SourceOptions options;
  options.max_document_bytes = 100;
  std::string data = "{\"_id\": \"small\", \"text\": \"ok\"}\n";
  const std::string big = "{\"_id\": \"big\", \"text\": \"" + std::string(3 << 20, 'x') + "\"}";
  data += big + "\n";
  data += "{\"_id\": \"after\", \"text\": \"still read\"}\n";
  auto parsed = ParseContent(dir, "c.jsonl", data, SourceFormat::kBeirJsonl, options);
  ASSERT_EQ(parsed.docs.size(), 2u);
  EXPECT_EQ(parsed.docs[0].id, "small");
  EXPECT_EQ(parsed.docs[1].id, "after");
  EXPECT_EQ(parsed.bytes[1], std::string("{\"_id\": \"after\", \"text\": \"still read\"}").size());
  ASSERT_EQ(parsed.errors.size(), 1u);
  EXPECT_EQ(parsed.errors[0].line, 2u);
  EXPECT_EQ(parsed.errors[0].file, "c.jsonl");
  EXPECT_NE(parsed.errors[0].message.find(std::to_string(big.size()) + " bytes"), std::string::npos)
      << parsed.errors[0].message;
}

TEST(IngestJsonl, FileReaderMatchesBufferParserAcrossChunkBoundaries) {
  const auto dir = testing_ingest::MakeTempDir();
  std::string data;
  for (int i = 0; i < 3000; ++i) {
    if (i % 7 == 3) {
      data += "{broken " + std::to_string(i) + "\n";
    } else {
      data += "{\"_id\": \"d" + std::to_string(i) + "\", \"text\": \"" + std::string(static_cast<size_t>(i % 900), 'w') +
              " end\"}\n";
    }
  }
  auto from_buffer = ParseBuffer(data);
  auto from_file = ParseContent(dir, "many.jsonl", data, SourceFormat::kBeirJsonl);
  ASSERT_EQ(from_file.docs.size(), from_buffer.docs.size());
  ASSERT_EQ(from_file.errors.size(), from_buffer.errors.size());
  for (size_t i = 0; i < from_file.docs.size(); ++i) {
    ASSERT_EQ(from_file.docs[i].id, from_buffer.docs[i].id);
    ASSERT_EQ(from_file.docs[i].blocks[0].text, from_buffer.docs[i].blocks[0].text);
  }
  for (size_t i = 0; i < from_file.errors.size(); ++i) ASSERT_EQ(from_file.errors[i].line, from_buffer.errors[i].line);
}

TEST(IngestJsonl, ErrorFloodIsCapped) {
  std::string data;
  for (int i = 0; i < 1500; ++i) data += "garbage\n";
  auto c = ParseBuffer(data);
  ASSERT_EQ(c.errors.size(), 1001u);
  EXPECT_EQ(c.errors.back().line, 0u);
  EXPECT_NE(c.errors.back().message.find("500 more"), std::string::npos) << c.errors.back().message;
}

TEST(IngestJsonl, ReadsRealBeirCorpus) {
  const char* env = std::getenv("ATTEST_DATASETS");
  const std::filesystem::path root = env ? env : ATTEST_SOURCE_DIR "/../shared/datasets";
  const auto path = root / "scifact/beir/corpus.jsonl";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "dataset not found at " << path << " (set ATTEST_DATASETS)";
  std::vector<SourceFile> files;
  std::vector<SourceError> errors;
  ListSources({path}, &files, &errors);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].format, SourceFormat::kBeirJsonl);
  EXPECT_EQ(files[0].relative, "corpus.jsonl");
  size_t docs = 0;
  ParseSource(
      files[0], SourceOptions{}, [&](ParsedDocument&& d, uint64_t) {
        ++docs;
        EXPECT_FALSE(d.id.empty());
      },
      [&](SourceError&& e) { ADD_FAILURE() << e.ToString(); });
  EXPECT_EQ(docs, 5183u);
}

}  // namespace
}  // namespace attest
