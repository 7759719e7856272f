// The docs-qa harness (eval/docs_scoring.h, eval/docs_evaluation.h): its scorers are oracles, so
// each is shown to fail where it must (a neighbouring key's default, a later claim instead of the
// first, a duplicate document in the ranking), and the run over a small HTML corpus written to a
// temporary folder gives documents the ids `attest ingest DIR` gives.
#include "eval/docs_evaluation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "eval/docs_scoring.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::TempDir;
using testing_support::WriteFile;

// A configuration page in the shape of git-config.html: keys in a definition list, each with its
// own description. core.beta's and core.gamma's defaults are both 10: only the entry tells them apart.
constexpr const char* kConfigHtml = R"(<html><head><title>example-config(1)</title></head><body>
<h1>example-config(1)</h1>
<h2>Variables</h2>
<dl>
<dt>core.alpha</dt><dd><p>Enables the alpha mode of the &#8220;tool&#8221;. Defaults to true.</p></dd>
<dt>core.beta</dt><dd><p>Number of beta retries. The default is 10, which spreads the load over the whole window.</p></dd>
<dt>core.gamma</dt><dd><p>Number of gamma retries before giving up on the remote &#8212; 10 is plenty. The default is 10.</p></dd>
</dl></body></html>
)";

constexpr const char* kToolHtml = R"(<html><head><title>example-tool(1)</title></head><body>
<h1>example-tool(1)</h1>
<h2>Options</h2>
<dl>
<dt>--chmod</dt><dd><p>Override the executable bit of the added files. The files on disk are left unchanged.</p></dd>
<dt>--verbose</dt><dd><p>Show more output.</p></dd>
<dt>--dry-run</dt><dd><p>Do not actually add the files, only show what would be added to the index.</p></dd>
</dl>
<p>The zyxwvut mechanism is described in detail on this page only.</p>
</body></html>
)";

DocsQuestion Defaults(const std::string& subject, const std::string& value, const std::string& entry) {
  DocsQuestion q;
  q.task = DocsTask::kDefaults;
  q.id = "d-" + subject;
  q.query = "What is the default value of " + subject + "?";
  q.subject = subject;
  q.answers = {value};
  q.relevant = {"config.html"};
  q.entry = entry;
  return q;
}

DocsQuestion Option(const std::string& subject, const std::string& entry) {
  DocsQuestion q;
  q.task = DocsTask::kOptions;
  q.id = "o-" + subject;
  q.query = "What does the " + subject + " option of example tool do?";
  q.subject = subject;
  q.relevant = {"man/tool.html"};
  q.entry = entry;
  return q;
}

const std::string kGammaEntry = "Number of gamma retries before giving up on the remote \xE2\x80\x94 10 is plenty. The default is 10.";
const std::string kBetaSentence = "The default is 10, which spreads the load over the whole window.";
const std::string kChmodEntry = "Override the executable bit of the added files. The files on disk are left unchanged.";
const std::string kDryRunEntry = "Do not actually add the files, only show what would be added to the index.";

// An answer whose claims cite one source each: {kept, doc id, quote}.
struct DraftClaim {
  bool kept;
  std::string doc_id;
  std::string quote;
};
AnswerResult Answer(const std::vector<DraftClaim>& drafts) {
  AnswerResult a;
  a.outcome = AnswerOutcome::kAnswer;
  for (size_t i = 0; i < drafts.size(); ++i) {
    AnswerSource s;
    s.id = "S" + std::to_string(i + 1);
    s.doc_id = drafts[i].doc_id;
    s.text = drafts[i].quote;
    a.sources.push_back(s);
    AnswerClaim c;
    c.id = "c" + std::to_string(i + 1);
    c.text = drafts[i].quote;
    c.kept = drafts[i].kept;
    c.verdict = c.kept ? "supported" : "unsupported";
    c.cites.push_back({s.id, drafts[i].quote});
    a.claims.push_back(c);
  }
  return a;
}

TEST(DocsScoringTest, NormalizationUnifiesTypographyCaseAndWhitespace) {
  EXPECT_EQ(NormalizeDocsText("  The \xE2\x80\x9C" "Default\xE2\x80\x9D\t is\n\n10 \xE2\x80\x94 it\xE2\x80\x99s "),
            "the \"default\" is 10 - it's");
  EXPECT_EQ(NormalizeDocsText("a\xC2\xA0" "b\xE2\x80\x8B" "c\xE2\x80\xA6"), "a bc...");
  EXPECT_EQ(NormalizeDocsText("x \xE2\x88\x92" "1"), "x -1");
}

TEST(DocsScoringTest, ContainmentIsWordAligned) {
  EXPECT_TRUE(ContainsWordAligned("the default is 10.", "10"));
  EXPECT_FALSE(ContainsWordAligned("the default is 100.", "10"));
  EXPECT_FALSE(ContainsWordAligned("the default is 10.", "1"));
  EXPECT_TRUE(ContainsWordAligned("defaults to -1.", "-1"));
  EXPECT_FALSE(ContainsWordAligned("no retries.", "retr"));
  EXPECT_FALSE(ContainsWordAligned("anything", ""));
}

TEST(DocsScoringTest, DefaultFromTheSubjectsOwnEntryIsCorrect) {
  const DocsQuestion q = Defaults("core.gamma", "10", kGammaEntry);
  // Typographic dash in the entry, an ASCII one (and other casing) in the quote: still inside.
  CitationScore c = ScoreDefaultsCitation(q, "config.html", "The default is 10.");
  EXPECT_TRUE(c.correct) << c.reason;
  EXPECT_TRUE(ScoreDefaultsCitation(q, "config.html", "number of gamma retries before giving up on the remote - 10 is "
                                                      "plenty. THE DEFAULT IS 10.").correct);
}

TEST(DocsScoringTest, NeighbouringKeysDefaultIsWrongHoweverVerbatim) {
  // core.beta's sentence is verbatim from the relevant page, states "10" next to "default": the
  // value asked for. It is still the wrong entry.
  const DocsQuestion q = Defaults("core.gamma", "10", kGammaEntry);
  CitationScore c = ScoreDefaultsCitation(q, "config.html", kBetaSentence);
  EXPECT_FALSE(c.correct);
  EXPECT_NE(c.reason.find("not inside the entry of core.gamma"), std::string::npos) << c.reason;
  Result<AnswerScore> s = ScoreAnswer(q, Answer({{true, "config.html", kBetaSentence}}));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->correct);
  EXPECT_EQ(s->kept_claims, 1u);
}

TEST(DocsScoringTest, DefaultsNeedTheRelevantPageTheValueAndTheWordDefault) {
  const DocsQuestion q = Defaults("core.gamma", "10", kGammaEntry);
  CitationScore other_page = ScoreDefaultsCitation(q, "other.html", "The default is 10.");
  EXPECT_FALSE(other_page.correct);
  EXPECT_NE(other_page.reason.find("not a relevant page"), std::string::npos);
  EXPECT_FALSE(ScoreDefaultsCitation(q, "config.html", "Number of gamma retries before giving up on the remote").correct);
  CitationScore no_default = ScoreDefaultsCitation(q, "config.html", "10 is plenty.");
  EXPECT_FALSE(no_default.correct);
  EXPECT_NE(no_default.reason.find("without the word default"), std::string::npos) << no_default.reason;
  // "1" is not stated by "10".
  EXPECT_FALSE(ScoreDefaultsCitation(Defaults("core.gamma", "1", kGammaEntry), "config.html", "The default is 10.").correct);
}

TEST(DocsScoringTest, DefaultsCountSomeKeptClaimButNeverADroppedOne) {
  const DocsQuestion q = Defaults("core.gamma", "10", kGammaEntry);
  Result<AnswerScore> later = ScoreAnswer(q, Answer({{true, "config.html", kBetaSentence},
                                                     {true, "config.html", "The default is 10."}}));
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->correct);
  EXPECT_NE(later->reason.find("c2"), std::string::npos) << later->reason;
  Result<AnswerScore> dropped = ScoreAnswer(q, Answer({{false, "config.html", "The default is 10."},
                                                       {true, "config.html", kBetaSentence}}));
  ASSERT_TRUE(dropped.ok());
  EXPECT_FALSE(dropped->correct);
  EXPECT_EQ(dropped->kept_claims, 1u);
  AnswerResult fallback;
  fallback.outcome = AnswerOutcome::kFallback;
  fallback.fallback_reason = "no_confident_answer";
  Result<AnswerScore> none = ScoreAnswer(q, fallback);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->correct);
  EXPECT_NE(none->reason.find("no_confident_answer"), std::string::npos);
}

TEST(DocsScoringTest, OptionsFirstClaimVersusAnyClaim) {
  const DocsQuestion q = Option("--chmod", kChmodEntry);
  // The first kept claim quotes another option's entry, the second this option's: any, not first.
  Result<AnswerScore> second = ScoreAnswer(q, Answer({{true, "man/tool.html", kDryRunEntry},
                                                      {true, "man/tool.html", "Override the executable bit of the added files."}}));
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->correct);
  EXPECT_TRUE(second->any_claim);
  EXPECT_NE(second->reason.find("first kept claim c1"), std::string::npos) << second->reason;
  Result<AnswerScore> first = ScoreAnswer(q, Answer({{true, "man/tool.html", "Override the executable bit of the added files."},
                                                     {true, "man/tool.html", kDryRunEntry}}));
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->correct);
  EXPECT_TRUE(first->any_claim);
  // A dropped claim is not the first kept claim.
  Result<AnswerScore> dropped = ScoreAnswer(q, Answer({{false, "man/tool.html", "Override the executable bit of the added files."},
                                                       {true, "man/tool.html", kDryRunEntry}}));
  ASSERT_TRUE(dropped.ok());
  EXPECT_FALSE(dropped->correct);
  EXPECT_FALSE(dropped->any_claim);
}

TEST(DocsScoringTest, OptionsNeedFourWordsOfTheEntryOrAllOfAShortOne) {
  const DocsQuestion q = Option("--chmod", kChmodEntry);
  EXPECT_FALSE(ScoreOptionsCitation(q, "man/tool.html", "the executable bit").correct);  // three words
  EXPECT_TRUE(ScoreOptionsCitation(q, "man/tool.html", "The files on disk are left unchanged.").correct);
  // Four words of the entry followed by words that are not in it: not a run of the entry.
  EXPECT_FALSE(ScoreOptionsCitation(q, "man/tool.html", "Override the executable bit of every file on Windows.").correct);
  EXPECT_FALSE(ScoreOptionsCitation(q, "tool.txt", kChmodEntry).correct);
  const DocsQuestion short_entry = Option("--verbose", "Show more output.");
  EXPECT_TRUE(ScoreOptionsCitation(short_entry, "man/tool.html", "Show more output.").correct);
  EXPECT_FALSE(ScoreOptionsCitation(short_entry, "man/tool.html", "more output").correct);
}

SearchHit Hit(const std::string& doc) {
  SearchHit h;
  h.doc_id = doc;
  return h;
}

TEST(DocsScoringTest, KnownItemRanksDocumentsAtTheirFirstHit) {
  DocsQuestion q;
  q.relevant = {"b.html"};
  // a.html twice (two chunks): its second hit neither scores nor takes a rank.
  KnownItemScore s = ScoreKnownItem(q, {Hit("a.html"), Hit("a.html"), Hit("b.html")});
  EXPECT_EQ(s.rank, 2u);
  EXPECT_DOUBLE_EQ(s.reciprocal_rank, 0.5);
  EXPECT_EQ(s.ranked, (std::vector<std::string>{"a.html", "b.html"}));
  std::vector<SearchHit> eleven;
  for (int i = 0; i < 10; ++i) eleven.push_back(Hit("d" + std::to_string(i)));
  eleven.push_back(Hit("b.html"));
  KnownItemScore late = ScoreKnownItem(q, eleven);
  EXPECT_EQ(late.rank, 0u);  // 11th document: outside MRR@10
  EXPECT_EQ(late.reciprocal_rank, 0.0);
  q.relevant = {"x.html", "d2"};
  EXPECT_EQ(ScoreKnownItem(q, eleven).rank, 3u);
  EXPECT_EQ(ScoreKnownItem(q, {}).rank, 0u);
}

TEST(DocsScoringTest, RowsAreCheckedAndOneKindPerFile) {
  EXPECT_EQ(ParseDocsQuestionLine(R"({"id":"k1","query":"git add","kind":"command","relevant":["a.html"]})")->task,
            DocsTask::kKnownItem);
  EXPECT_EQ(ParseDocsQuestionLine(R"({"id":"d","query":"q","answers":["1"],"relevant":["a"],"entry":"e"})")->task,
            DocsTask::kDefaults);
  EXPECT_EQ(ParseDocsQuestionLine(R"({"id":"o","query":"q","relevant":["a"],"entry":"e"})")->task, DocsTask::kOptions);
  EXPECT_FALSE(ParseDocsQuestionLine(R"({"id":"o","query":"q","relevant":[],"entry":"e"})").ok());
  EXPECT_FALSE(ParseDocsQuestionLine(R"({"id":"o","query":"q","relevant":["a"]})").ok());
  EXPECT_FALSE(ParseDocsQuestionLine(R"({"id":"d","query":"q","answers":"1","relevant":["a"],"entry":"e"})").ok());
  EXPECT_FALSE(ParseDocsQuestionLine("[1]").ok());
  TempDir tmp;
  WriteFile(tmp.path() / "mixed.jsonl", R"({"id":"k1","query":"a","kind":"c","relevant":["a"]})"
                                        "\n\n"
                                        R"({"id":"o1","query":"q","relevant":["a"],"entry":"e"})" "\n");
  Result<std::vector<DocsQuestion>> mixed = LoadDocsQuestions(tmp.path() / "mixed.jsonl");
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("mixed.jsonl:3"), std::string::npos) << mixed.status().ToString();
}

// The whole run over a corpus folder written here (one page in a subfolder, as sqlite's c3ref/).
class DocsEvaluationRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(tmp_.path() / "docs" / "config.html", kConfigHtml);
    WriteFile(tmp_.path() / "docs" / "man" / "tool.html", kToolHtml);
    WriteFile(tmp_.path() / "known.jsonl",
              R"({"id":"k1","query":"zyxwvut","kind":"term","relevant":["man/tool.html"]})" "\n"
              R"({"id":"k2","query":"qqqxxyyzz","kind":"term","relevant":["config.html"]})" "\n");
    WriteFile(tmp_.path() / "q" / "defaults.jsonl",
              nlohmann::json({{"id", "d1"}, {"query", "What is the default value of core.gamma?"},
                              {"subject", "core.gamma"}, {"answers", {"10"}}, {"relevant", {"config.html"}},
                              {"entry", kGammaEntry}}).dump() + "\n");
    WriteFile(tmp_.path() / "q" / "options.jsonl",
              nlohmann::json({{"id", "o1"}, {"query", "What does the --chmod option of example tool do?"},
                              {"subject", "--chmod"}, {"relevant", {"man/tool.html"}}, {"entry", kChmodEntry}}).dump() + "\n");
    args_.corpus_dir = (tmp_.path() / "docs").string();
    args_.question_files = {tmp_.str("known.jsonl"), tmp_.str("q/defaults.jsonl"), tmp_.str("q/options.jsonl")};
    args_.engine.embedder.kind = EmbedderKind::kNone;
    args_.on_detail = [this](const std::string& line) { details_.push_back(nlohmann::json::parse(line)); };
  }

  TempDir tmp_;
  DocsEvaluationArgs args_;
  std::vector<nlohmann::json> details_;
};

TEST_F(DocsEvaluationRunTest, IngestsTheFolderAndReportsEachSet) {
  Result<DocsEvaluationReport> r = RunDocsEvaluation(args_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->ingested);
  EXPECT_EQ(r->documents, 2u);
  ASSERT_EQ(r->sets.size(), 3u);
  const DocsSetReport& known = r->sets[0];
  EXPECT_EQ(known.name, tmp_.path().filename().string() + "/known");
  EXPECT_EQ(known.task, DocsTask::kKnownItem);
  EXPECT_EQ(known.questions, 2u);
  // The word only man/tool.html holds brings it first; the word no page holds brings nothing.
  EXPECT_DOUBLE_EQ(known.success_at_1, 0.5);
  EXPECT_DOUBLE_EQ(known.success_at_3, 0.5);
  EXPECT_DOUBLE_EQ(known.mrr_at_10, 0.5);
  EXPECT_EQ(known.outcomes.at("results"), 1u);
  EXPECT_EQ(known.outcomes.at("no_results"), 1u);
  EXPECT_EQ(known.latency.samples, 2u);
  EXPECT_EQ(r->sets[1].name, "q/defaults");
  EXPECT_EQ(r->sets[1].task, DocsTask::kDefaults);
  EXPECT_EQ(r->sets[2].task, DocsTask::kOptions);
  size_t asked = 0;
  for (const auto& [outcome, n] : r->sets[1].outcomes) asked += n;
  EXPECT_EQ(asked, 1u);

  ASSERT_EQ(details_.size(), 4u);
  EXPECT_EQ(details_[0]["ranked"][0], "man/tool.html");  // the id is the path relative to the folder
  EXPECT_EQ(details_[0]["rank"], 1);
  EXPECT_EQ(details_[1]["rank"], 0);
  EXPECT_EQ(details_[2]["set"], "q/defaults");
  EXPECT_TRUE(details_[2].contains("claims"));
  EXPECT_EQ(details_[2]["correct"].get<bool>(), r->sets[1].correct == 1.0);
  // Every kept claim's citation is scored with its reason; dropped ones are shown unscored.
  for (const auto& claim : details_[3]["claims"]) {
    for (const auto& cite : claim["cites"]) EXPECT_EQ(cite.contains("reason"), claim["kept"].get<bool>());
  }

  nlohmann::json j = nlohmann::json::parse(DocsReportToJson(*r));
  EXPECT_EQ(j["sets"][0]["success@1"], 0.5);
  EXPECT_FALSE(j["sets"][0].contains("correct"));
  EXPECT_TRUE(j["sets"][2].contains("any_claim"));
  EXPECT_TRUE(j["sets"][1]["latency_ms"].contains("p95"));
  EXPECT_NE(FormatDocsReport(*r).find("q/options"), std::string::npos);
}

TEST_F(DocsEvaluationRunTest, ReusesAStoreWithoutIngesting) {
  args_.data_dir = tmp_.str("store");
  ASSERT_TRUE(RunDocsEvaluation(args_).ok());
  args_.corpus_dir.clear();
  args_.question_files = {tmp_.str("known.jsonl")};
  Result<DocsEvaluationReport> r = RunDocsEvaluation(args_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->ingested);
  EXPECT_EQ(r->documents, 2u);
  EXPECT_DOUBLE_EQ(r->sets[0].success_at_1, 0.5);

  // The neighbouring key's sentence is verbatim in the stored page, and still scores wrong.
  EngineOptions eo;
  eo.data_dir = args_.data_dir;
  eo.read_only = true;
  Result<std::unique_ptr<Engine>> engine = Engine::Open(eo);
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  Result<DocumentInfo> page = (*engine)->GetDocument(SearchFilter{}, "config.html");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_NE(page->text.find(kBetaSentence), std::string::npos) << page->text;
  EXPECT_FALSE(ScoreDefaultsCitation(Defaults("core.gamma", "10", kGammaEntry), "config.html", kBetaSentence).correct);
}

TEST_F(DocsEvaluationRunTest, ASetOfAnotherCorpusFailsInsteadOfScoringZero) {
  WriteFile(tmp_.path() / "other.jsonl", R"({"id":"k1","query":"zyxwvut","kind":"term","relevant":["git-add.html"]})" "\n");
  args_.question_files = {tmp_.str("other.jsonl")};
  Result<DocsEvaluationReport> r = RunDocsEvaluation(args_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("none of the relevant documents"), std::string::npos) << r.status().ToString();
  args_.question_files = {tmp_.str("known.jsonl")};
  args_.corpus_dir = tmp_.str("absent");
  EXPECT_EQ(RunDocsEvaluation(args_).status().code(), StatusCode::kNotFound);
  args_.corpus_dir.clear();
  EXPECT_EQ(RunDocsEvaluation(args_).status().code(), StatusCode::kInvalidArgument);  // nothing to ingest, no store
}

// The CLI adapter: `attest eval --task docs` with --json and --details, a store given with --data,
// and its usage errors.
TEST_F(DocsEvaluationRunTest, CommandLine) {
  const std::string json_file = tmp_.str("report.json"), details = tmp_.str("details.jsonl");
  auto r = testing_support::RunAttest({"--embedder", "none", "eval", "--task", "docs", "--corpus", args_.corpus_dir,
                                       "--questions", tmp_.str("known.jsonl"), "--json", json_file, "--details", details});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("success@1"), std::string::npos) << r.out;
  std::ifstream in(json_file);
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["sets"][0]["success@1"], 0.5);
  EXPECT_EQ(j["ingested"], true);
  std::ifstream d(details);
  size_t lines = 0;
  for (std::string line; std::getline(d, line);) lines += !nlohmann::json::parse(line)["reason"].get<std::string>().empty();
  EXPECT_EQ(lines, 2u);

  const std::string store = tmp_.str("store");
  ASSERT_EQ(testing_support::RunAttest({"--data", store, "--embedder", "none", "ingest", args_.corpus_dir}).exit_code, 0);
  auto reuse = testing_support::RunAttest({"--data", store, "eval", "--task", "docs", "--questions", tmp_.str("known.jsonl"),
                                           "--json", json_file});
  ASSERT_EQ(reuse.exit_code, 0) << reuse.err;
  std::ifstream in2(json_file);
  nlohmann::json j2 = nlohmann::json::parse(in2);
  EXPECT_EQ(j2["ingested"], false);
  EXPECT_EQ(j2["sets"][0]["success@1"], 0.5);

  EXPECT_EQ(testing_support::RunAttest({"eval", "--task", "docs", "--corpus", args_.corpus_dir}).exit_code, 2);
  EXPECT_EQ(testing_support::RunAttest({"eval", "--task", "docs", "--questions", tmp_.str("known.jsonl")}).exit_code, 2);
  EXPECT_EQ(testing_support::RunAttest({"eval", "--task", "qa"}).exit_code, 2);
  auto bad = testing_support::RunAttest({"eval", "--task", "docs", "--corpus", args_.corpus_dir, "--questions",
                                         tmp_.str("absent.jsonl")});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("absent.jsonl"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace attest
