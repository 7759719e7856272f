// The structure path end to end: an HTML definition list is extracted with subjects, chunked into
// spans, committed to the catalog and read back by the answer's retrieval, whose evidence
// candidates carry the spans: "The default is 10." is about max_wal_senders, and only about it.
#include <gtest/gtest.h>

#include "answer/answer_retrieval.h"
#include "answer/answer_stages.h"
#include "index/document_indexer.h"
#include "ingest/html_extractor.h"
#include "store_test_helpers.h"

namespace attest {
namespace {

constexpr const char* kPage = R"(<html><head><title>20.6. Replication</title></head><body>
<h2>20.6.1. Sending Servers</h2><div class="variablelist"><dl class="variablelist">
<dt id="GUC-MAX-WAL-SENDERS"><span class="term"><code class="varname">max_wal_senders</code> (<code class="type">integer</code>)</span></dt>
<dd><p>Specifies the maximum number of concurrent connections from standby servers. The default is
<code class="literal">10</code>.</p></dd>
<dt id="GUC-CHECKPOINT"><span class="term"><code class="varname">checkpoint_completion_target</code> (<code class="type">floating point</code>)</span></dt>
<dd><p>Specifies the target of checkpoint completion. The default is 0.9.</p></dd>
</dl></div></body></html>)";

TEST(AnswerStructureRetrieval, CandidatesCarryTheSpansOfTheirChunks) {
  store_test::TempDir dir;
  Analyzer analyzer;
  DocumentIndexer indexer{analyzer, ChunkerOptions{}};
  StoreOptions so;
  so.dir = dir.path();
  so.reindex = [&](const ChunkRecord& c, const DocumentRecord& d) { return indexer.Reindex(c, d); };
  auto store = Store::Open(so);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ParsedDocument doc;
  ASSERT_TRUE(ExtractHtml(kPage, &doc).ok());
  doc.id = "runtime-config-replication";
  doc.url = "https://docs.example.org/runtime-config-replication.html";
  WriteBatch batch;
  batch.upserts.push_back(indexer.Prepare(doc, DocumentDefaults{}, 1000));
  ASSERT_TRUE((*store)->Commit(std::move(batch)).ok());

  auto snap = (*store)->Pin();
  SnapshotAnswerCorpus corpus(snap.get());
  AnswerContext ctx;
  ctx.corpus = &corpus;
  ctx.analyzer = &analyzer;
  QueryPlan plan;
  plan.original = plan.standalone = "What is the default of max_wal_senders?";
  plan.subqueries.push_back(SubQuery{"q0", plan.original, "original"});
  AskOptions options;
  options.question = plan.original;
  auto got = Retrieve(ctx, plan, options, SearchFilter{});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_FALSE(got->candidates.empty());
  const EvidenceCandidate& c = got->candidates[0];
  ASSERT_FALSE(c.spans.empty());
  const size_t ten = c.text.find("The default is 10.");
  const size_t nine = c.text.find("The default is 0.9.");
  ASSERT_NE(ten, std::string::npos) << c.text;
  ASSERT_NE(nine, std::string::npos) << c.text;
  EXPECT_EQ(SubjectAt(c.spans, ten), "max_wal_senders (integer)");
  EXPECT_EQ(SubjectAt(c.spans, nine), "checkpoint_completion_target (floating point)");
  EXPECT_EQ(SpanAt(c.spans, ten)->role, SpanRole::kDefinition);
}

}  // namespace
}  // namespace attest
