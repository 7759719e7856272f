// Title-only documents (issue 10): a BEIR record whose "text" is empty but whose title has words
// (half of CACM) was rejected as "empty document" and silently left out of evaluation. It is now a
// document with one chunk, its title: indexed, searchable and citable.
#include <gtest/gtest.h>

#include <string>

#include "attest/engine.h"
#include "ingest/jsonl_reader.h"
#include "ingest_test_util.h"

namespace attest {
namespace {

struct Collected {
  std::vector<ParsedDocument> docs;
  std::vector<SourceError> errors;
};

Collected Parse(std::string_view data) {
  Collected c;
  ParseJsonlBuffer(
      data, "corpus.jsonl", SourceOptions{}, [&](ParsedDocument&& d, uint64_t) { c.docs.push_back(std::move(d)); },
      [&](SourceError&& e) { c.errors.push_back(std::move(e)); });
  return c;
}

TEST(IngestTitleOnly, Regression_ATitleOnlyJsonlRecordIsADocument) {
  const Collected c = Parse(
      R"({"_id": "t1", "title": "Compiling for parallel machines", "text": ""})" "\n"
      R"({"_id": "t2", "title": "Storage allocation", "text": null})" "\n");
  EXPECT_TRUE(c.errors.empty()) << (c.errors.empty() ? "" : c.errors[0].ToString());
  ASSERT_EQ(c.docs.size(), 2u);
  EXPECT_EQ(c.docs[0].id, "t1");
  EXPECT_EQ(c.docs[0].title, "Compiling for parallel machines");
  EXPECT_TRUE(c.docs[0].blocks.empty());
}

TEST(IngestTitleOnly, ARecordWithoutWordsInTitleOrTextIsStillAnErrorNamingItsLine) {
  const Collected c = Parse(
      R"({"_id": "a", "title": "", "text": "  "})" "\n"
      R"({"_id": "b", "title": " -- ", "text": ""})" "\n");
  EXPECT_TRUE(c.docs.empty());
  ASSERT_EQ(c.errors.size(), 2u);
  EXPECT_EQ(c.errors[0].line, 1u);
  EXPECT_EQ(c.errors[1].line, 2u);
  EXPECT_NE(c.errors[0].message.find("empty document: neither \"title\" nor \"text\" has words"), std::string::npos)
      << c.errors[0].message;
}

TEST(IngestTitleOnly, Regression_ATitleOnlyDocumentIsIndexedSearchableAndCitable) {
  const auto dir = testing_ingest::MakeTempDir();
  testing_ingest::WriteFile(dir / "corpus.jsonl",
                            R"({"_id": "t1", "title": "Compiling for parallel machines", "text": ""})" "\n"
                            R"({"_id": "d1", "title": "Sorting", "text": "Merge sort splits the input in halves."})"
                            "\n");
  EngineOptions eo;
  eo.data_dir = (dir / "data").string();
  eo.embedder.kind = EmbedderKind::kNone;
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  IngestOptions io;
  io.paths = {(dir / "corpus.jsonl").string()};
  auto report = (*engine)->Ingest(io);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->issues.empty()) << report->issues[0].message;
  EXPECT_EQ(report->documents_seen, 2u);
  EXPECT_EQ(report->chunks, 2u);

  SearchOptions so;
  so.query = "parallel compiling";
  auto found = (*engine)->Search(so);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_FALSE(found->hits.empty());
  EXPECT_EQ(found->hits[0].doc_id, "t1");
  EXPECT_EQ(found->hits[0].title, "Compiling for parallel machines");
  EXPECT_NE(found->hits[0].snippet.find("parallel"), std::string::npos) << found->hits[0].snippet;

  // Its one chunk holds the title, so an answer can cite it.
  auto info = (*engine)->GetDocument(SearchFilter{}, "t1");
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  ASSERT_EQ(info->chunk_ids.size(), 1u);
  EXPECT_EQ(info->text, "Compiling for parallel machines");
  std::filesystem::remove_all(dir);
}

// The API's path (POST /v1/documents, documents:batch) goes through PutDocuments: a title-only
// document is accepted there too, for every content type; one with neither is refused naming text.
TEST(IngestTitleOnly, ATitleOnlyDocumentIsAcceptedThroughPutDocuments) {
  const auto dir = testing_ingest::MakeTempDir();
  EngineOptions eo;
  eo.data_dir = (dir / "data").string();
  eo.embedder.kind = EmbedderKind::kNone;
  auto engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  std::vector<DocumentSpec> specs;
  for (const char* type : {"text", "markdown", "html"}) {
    DocumentSpec d;
    d.id = std::string("orion-") + type;
    d.title = "Orion toaster warranty terms";
    d.content_type = type;
    d.text = std::string(type) == "html" ? "<html><body> </body></html>" : "";
    specs.push_back(d);
  }
  auto put = (*engine)->PutDocuments(specs);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  SearchOptions so;
  so.query = "orion toaster warranty";
  auto found = (*engine)->Search(so);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->hits.size(), 3u);

  DocumentSpec empty;
  empty.id = "nothing";
  empty.title = "  !!  ";
  empty.text = " ";
  auto refused = (*engine)->PutDocuments({empty});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("text"), std::string::npos) << refused.status().ToString();
  EXPECT_NE(refused.status().message().find("title has no words"), std::string::npos) << refused.status().ToString();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace attest
