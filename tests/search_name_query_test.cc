// Name queries (search/search_runner.h, IsNameQuery): a query that is just a name brings up the
// page titled by it first, with heavier title and heading weights; other queries rank as before.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "attest/engine.h"
#include "search/search_runner.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::TempDir;

TEST(NameQuery, ShortQueriesOfNamesOnly) {
  EXPECT_TRUE(IsNameQuery("git rebase"));
  EXPECT_TRUE(IsNameQuery("sqlite3_prepare_v2"));
  EXPECT_TRUE(IsNameQuery("CREATE INDEX"));
  EXPECT_TRUE(IsNameQuery("  max_wal_senders "));
  EXPECT_FALSE(IsNameQuery(""));
  EXPECT_FALSE(IsNameQuery("what is a slot"));            // a stopword: a question, not a name
  EXPECT_FALSE(IsNameQuery("slot?"));
  EXPECT_FALSE(IsNameQuery("logical replication slot lag"));  // four words
  EXPECT_FALSE(IsNameQuery("\"replication slot\""));      // a phrase operator
  EXPECT_FALSE(IsNameQuery("vacuum -autovacuum"));        // an exclusion operator
  EXPECT_FALSE(IsNameQuery("site:example.org vacuum"));   // a field operator
}

void Write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

class NameQuerySearch : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto docs = tmp_.path() / "docs";
    std::filesystem::create_directories(docs);
    // The tutorial says "frob commit" many times; the manual page is titled by the name.
    std::string tutorial = "<html><head><title>Tutorial</title></head><body><h1>Tutorial</h1>";
    for (int i = 0; i < 12; ++i) tutorial += "<p>Run frob commit again, then frob commit once more to record step " + std::to_string(i) + ".</p>";
    Write(docs / "tutorial.html", tutorial + "</body></html>");
    Write(docs / "frob-commit.html",
          "<html><head><title>frob-commit(1)</title></head><body><h1>frob-commit(1) Manual Page</h1>"
          "<p>Records changes to the repository. Options are described below in detail for every "
          "use case, with examples of recording work.</p></body></html>");
    Write(docs / "frob-status.html",
          "<html><head><title>frob-status(1)</title></head><body><h1>frob-status(1)</h1>"
          "<p>Shows the working tree status and what the next commit would record.</p></body></html>");
    EngineOptions eo;
    eo.data_dir = tmp_.str("store");
    eo.embedder.kind = EmbedderKind::kNone;
    auto engine = Engine::Open(eo);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(engine).value();
    IngestOptions io;
    io.paths = {docs.string()};
    ASSERT_TRUE(engine_->Ingest(io).ok());
  }

  std::vector<std::string> Ranked(SearchOptions so) {
    so.mode = SearchMode::kBm25;
    auto r = engine_->Search(so);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> ids;
    if (r.ok()) {
      for (const SearchHit& h : r->hits) ids.push_back(h.doc_id);
    }
    return ids;
  }

  TempDir tmp_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(NameQuerySearch, ThePageTitledByTheNameComesFirst) {
  SearchOptions so;
  so.query = "frob commit";
  std::vector<std::string> ids = Ranked(so);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], "frob-commit.html");
  // Switched off, plain BM25F ranks the page that repeats the words first: the rule is what moves it.
  so.name_query_title_weight = 0;
  ids = Ranked(so);
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids[0], "tutorial.html");
}

TEST_F(NameQuerySearch, AQuestionIsNotANameQuery) {
  SearchOptions so;
  so.query = "how do I run frob commit";
  std::vector<std::string> ids = Ranked(so);
  SearchOptions off = so;
  off.name_query_title_weight = 0;
  EXPECT_EQ(ids, Ranked(off));
}

}  // namespace
}  // namespace attest
