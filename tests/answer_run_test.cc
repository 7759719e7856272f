// RunAnswer end to end over a small store, with fake models injected through RunAnswerWith: an
// LLM writer whose claim quotes text the source does not contain (dropped) beside a good one
// (kept), the repair round, a judge that downgrades, the progress events in order, and each
// fallback reason (no_documents, no_confident_answer, claims_unsupported), and the answerability
// threshold (a supported quote that does not answer the question falls back with the results).
#include <gtest/gtest.h>

#include "answer/answer_stages.h"
#include "index/document_indexer.h"
#include "store_test_helpers.h"
#include "verify/verifier.h"

namespace attest {
namespace {

class FakeWriter final : public RepairingWriter {
 public:
  // Claims from the first passage it is given: the passage's first sentence (good) and, when
  // `with_bad`, a sentence whose quote the passage does not contain.
  Result<Draft> Write(const WriteArgs& args) override {
    ++writes;
    given = *args.pack;
    Draft d;
    d.prompt_tokens = 100;
    d.completion_tokens = 20;
    if (args.pack->empty()) return d;
    const EvidencePassage& p = args.pack->front();
    good = p.text;
    d.claims.push_back(DraftClaim{"c1", p.text, {Citation{p.id, p.text}}});
    if (with_bad) {
      const std::string bad = "ExampleDB was first written in COBOL.";
      d.claims.push_back(DraftClaim{"c2", bad, {Citation{p.id, bad}}});
    }
    return d;
  }
  Result<Draft> Repair(const WriteArgs&, const Draft& draft, const std::vector<ClaimVerdict>&) override {
    ++repairs;
    if (!repair_ok) return Status::IOError("repair refused");
    Draft d;
    d.prompt_tokens = 10;
    d.completion_tokens = 5;
    d.claims.push_back(draft.claims.front());
    return d;
  }
  bool with_bad = true;
  bool repair_ok = false;
  int writes = 0, repairs = 0;
  std::vector<EvidencePassage> given;
  std::string good;
};

class DowngradingJudge final : public ClaimJudge {
 public:
  Result<std::vector<ClaimVerdict>> Judge(const std::vector<EvidencePassage>&, const std::vector<DraftClaim>&,
                                          const std::vector<ClaimVerdict>& mechanical, ModelUsage*) const override {
    std::vector<ClaimVerdict> out = mechanical;
    for (ClaimVerdict& v : out) v = ClaimVerdict{v.claim_id, Verdict::kUnsupported, "judge disagrees"};
    return out;
  }
};

class AnswerRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions so;
    so.dir = dir_.path();
    so.reindex = [this](const ChunkRecord& c, const DocumentRecord& d) { return indexer_.Reindex(c, d); };
    auto store = Store::Open(so);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    WriteBatch batch;
    Add(&batch, "replication", "ExampleDB logical replication",
        "ExampleDB subscribers apply large transactions in parallel. Parallel apply is enabled with the "
        "streaming option of the subscription.");
    Add(&batch, "backups", "ExampleDB backups",
        "ExampleDB takes incremental backups every hour. Backups are kept for thirty days.");
    ASSERT_TRUE(store_->Commit(std::move(batch)).ok());
    snap_ = store_->Pin();
    corpus_ = std::make_unique<SnapshotAnswerCorpus>(snap_.get());
    ctx_.corpus = corpus_.get();
    ctx_.analyzer = &analyzer_;
  }

  void Add(WriteBatch* batch, const std::string& id, const std::string& title, const std::string& text) {
    ParsedDocument d;
    d.id = id;
    d.url = "https://docs.example.org/" + id;
    d.title = title;
    d.site = "docs.example.org";
    d.source_type = "official";
    d.blocks.push_back(Block{BlockKind::kParagraph, 0, text});
    batch->upserts.push_back(indexer_.Prepare(d, DocumentDefaults{}, text.size()));
  }

  AskOptions Ask(const std::string& question, WriterKind writer = WriterKind::kLlm) {
    AskOptions o;
    o.question = question;
    o.today = "2026-12-01";
    o.writer = writer;
    return o;
  }

  store_test::TempDir dir_;
  Analyzer analyzer_;
  DocumentIndexer indexer_{analyzer_, ChunkerOptions{}};
  std::unique_ptr<Store> store_;
  std::shared_ptr<const Snapshot> snap_;
  std::unique_ptr<SnapshotAnswerCorpus> corpus_;
  AnswerContext ctx_;
};

const AnswerClaim* ClaimById(const AnswerResult& r, const std::string& id) {
  for (const AnswerClaim& c : r.claims) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

TEST_F(AnswerRunTest, AClaimQuotingTextNotInItsSourceIsDroppedAndAGoodOneKept) {
  FakeWriter writer;
  AnswerModels models{&writer};
  auto r = RunAnswerWith(ctx_, models, Ask("How do ExampleDB subscribers apply large transactions?"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, AnswerOutcome::kAnswer) << r->fallback_reason;
  EXPECT_EQ(writer.writes, 1);
  EXPECT_EQ(writer.repairs, 1) << "a failing claim asks the LLM writer once to repair";
  ASSERT_NE(ClaimById(*r, "c1"), nullptr);
  ASSERT_NE(ClaimById(*r, "c2"), nullptr);
  EXPECT_TRUE(ClaimById(*r, "c1")->kept);
  EXPECT_EQ(ClaimById(*r, "c1")->verdict, "supported");
  EXPECT_FALSE(ClaimById(*r, "c2")->kept);
  EXPECT_EQ(ClaimById(*r, "c2")->verdict, "quote_not_found");
  EXPECT_EQ(r->dropped_claims, 1u);
  EXPECT_EQ(r->text, writer.good + " [1]");
  EXPECT_TRUE(r->sources.at(0).cited);
  EXPECT_EQ(r->degraded, std::vector<std::string>{"repair_failed: repair refused"});
  EXPECT_EQ(r->prompt_tokens, 100u);
  for (const char* stage : {"plan", "retrieve", "rerank", "write", "verify", "total"}) {
    EXPECT_TRUE(r->timings_ms.count(stage)) << stage;
  }
  EXPECT_EQ(r->manifest_sha256.size(), 64u);
}

TEST_F(AnswerRunTest, TheRepairRoundReplacesTheDraftAndAddsItsTokens) {
  FakeWriter writer;
  writer.repair_ok = true;
  AnswerModels models{&writer};
  auto r = RunAnswerWith(ctx_, models, Ask("How do ExampleDB subscribers apply large transactions?"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, AnswerOutcome::kAnswer);
  ASSERT_EQ(r->claims.size(), 1u);
  EXPECT_TRUE(r->claims[0].kept);
  EXPECT_EQ(r->dropped_claims, 0u);
  EXPECT_EQ(r->prompt_tokens, 110u);
  EXPECT_EQ(r->completion_tokens, 25u);
  EXPECT_TRUE(r->degraded.empty());
  EXPECT_NE(std::find(r->warnings.begin(), r->warnings.end(), "the model was asked once to repair unsupported claims"),
            r->warnings.end());
}

TEST_F(AnswerRunTest, AJudgeThatDowngradesEveryClaimLeavesClaimsUnsupported) {
  FakeWriter writer;
  writer.with_bad = false;
  DowngradingJudge judge;
  AnswerModels models{&writer, &judge};
  AskOptions o = Ask("How do ExampleDB subscribers apply large transactions?");
  o.llm_judge = true;
  auto r = RunAnswerWith(ctx_, models, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, AnswerOutcome::kFallback);
  EXPECT_EQ(r->fallback_reason, "claims_unsupported");
  EXPECT_EQ(r->text, "");
  ASSERT_EQ(r->claims.size(), 1u);
  EXPECT_EQ(r->claims[0].verdict, "unsupported");
  EXPECT_EQ(r->claims[0].reason, "judge disagrees");
  EXPECT_FALSE(r->sources.empty()) << "the sources are still shown";
}

TEST_F(AnswerRunTest, TheExtractiveWriterAnswersAndEventsArriveInStageOrder) {
  std::vector<std::string> stages;
  size_t sources_given = 0;
  AnswerEvents events;
  events.on_progress = [&](std::string_view stage, const std::vector<std::string>&) { stages.emplace_back(stage); };
  events.on_sources = [&](const std::vector<AnswerSource>& s) { sources_given = s.size(); };
  AskOptions o = Ask("How often does ExampleDB take incremental backups?", WriterKind::kExtractive);
  o.events = &events;
  auto r = RunAnswerWith(ctx_, AnswerModels{}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, AnswerOutcome::kAnswer) << r->fallback_reason;
  EXPECT_NE(r->text.find("incremental backups every hour"), std::string::npos) << r->text;
  EXPECT_EQ(stages, (std::vector<std::string>{"plan", "retrieve", "rerank", "write", "verify"}));
  EXPECT_EQ(sources_given, r->sources.size());
}

TEST_F(AnswerRunTest, FallbackReasons) {
  FakeWriter writer;
  AnswerModels models{&writer};
  auto none = RunAnswerWith(ctx_, models, Ask("Which glaciers calve icebergs into fjords?"));
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->outcome, AnswerOutcome::kFallback);
  EXPECT_EQ(none->fallback_reason, "no_documents");
  EXPECT_EQ(none->timings_ms.count("rerank"), 0u) << "nothing to pack";

  auto weak = RunAnswerWith(ctx_, models, Ask("What salary does the ExampleDB chief executive officer earn?"));
  ASSERT_TRUE(weak.ok()) << weak.status().ToString();
  EXPECT_EQ(weak->outcome, AnswerOutcome::kFallback);
  EXPECT_EQ(weak->fallback_reason, "no_confident_answer");
  EXPECT_EQ(writer.writes, 0) << "the writer is not asked when the evidence does not cover the question";
}

TEST_F(AnswerRunTest, AQuestionTheKeptClaimsDoNotAnswerFallsBackWithTheRankedResults) {
  // The sources speak of ExampleDB's backups; the question names another product. The claim is a
  // verbatim, supported quote, but it does not answer the question.
  AskOptions o = Ask("How often does PostgreSQL take incremental backups?", WriterKind::kExtractive);
  auto r = RunAnswerWith(ctx_, AnswerModels{}, o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, AnswerOutcome::kFallback);
  EXPECT_EQ(r->fallback_reason, "no_confident_answer");
  EXPECT_EQ(r->text, "");
  EXPECT_FALSE(r->results.empty()) << "the ranked results are shown";
  EXPECT_FALSE(r->sources.empty());
  ASSERT_TRUE(r->answerability.computed);
  EXPECT_LT(r->answerability.score, r->answerability.threshold);
  EXPECT_EQ(r->answerability.threshold, kDefaultMinAnswerability);
  EXPECT_LT(r->answerability.parts.at("names"), 1.0);
  bool said = false;
  for (const std::string& w : r->warnings) said |= w.find("no confident answer") != std::string::npos &&
                                                   w.find("postgresql") != std::string::npos;
  EXPECT_TRUE(said) << "the reason is given in words";
  const std::string json = AnswerToJson(*r);
  EXPECT_NE(json.find("\"answerability\""), std::string::npos);

  // The same question about the product the sources describe is answered, and so is this one
  // with the threshold off.
  auto own = RunAnswerWith(ctx_, AnswerModels{}, Ask("How often does ExampleDB take incremental backups?",
                                                     WriterKind::kExtractive));
  ASSERT_TRUE(own.ok()) << own.status().ToString();
  EXPECT_EQ(own->outcome, AnswerOutcome::kAnswer) << own->fallback_reason;
  EXPECT_GE(own->answerability.score, kDefaultMinAnswerability);
  o.min_answerability = 0;
  auto off = RunAnswerWith(ctx_, AnswerModels{}, o);
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_EQ(off->outcome, AnswerOutcome::kAnswer) << off->fallback_reason;
}

TEST_F(AnswerRunTest, MissingModelsAreInvalidArguments) {
  auto no_writer = RunAnswerWith(ctx_, AnswerModels{}, Ask("How do ExampleDB subscribers apply large transactions?"));
  EXPECT_EQ(no_writer.status().code(), StatusCode::kInvalidArgument);
  AskOptions o = Ask("How do ExampleDB subscribers apply large transactions?", WriterKind::kExtractive);
  o.llm_judge = true;
  EXPECT_EQ(RunAnswerWith(ctx_, AnswerModels{}, o).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(AnswerRunTest, ACancelledAnswerStopsAtTheNextStage) {
  AnswerEvents events;
  events.cancelled = [] { return true; };
  AskOptions o = Ask("How do ExampleDB subscribers apply large transactions?", WriterKind::kExtractive);
  o.events = &events;
  EXPECT_EQ(RunAnswerWith(ctx_, AnswerModels{}, o).status().code(), StatusCode::kCancelled);
}

}  // namespace
}  // namespace attest
