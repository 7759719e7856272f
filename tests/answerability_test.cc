// The answerability score (src/answer/answerability.h) on hand-made cases: a sentence about a
// swapped entity scores below the right one, a number question answered without a number scores
// low, a negated question answered by a sentence that does not negate scores low, the subject part
// says whether the source is about the question's subject, words the plan excludes do not count, and the best of
// several sentences is reported.
#include <gtest/gtest.h>

#include "answer/answerability.h"

namespace attest {
namespace {

class AnswerabilityTest : public ::testing::Test {
 protected:
  Answerability Score(const std::string& question, const std::string& quote, const std::string& context = "",
                      Focus focus = Focus::kNone, const std::string& subject = "") {
    AnswerabilityInput in;
    in.analyzer = &analyzer_;
    in.question = question;
    in.focus = focus;
    in.subject = subject;
    in.sentences.push_back(AnsweringSentence{"c1", quote, context.empty() ? quote : context, "", ""});
    return ScoreAnswerability(in);
  }
  Analyzer analyzer_;
};

TEST_F(AnswerabilityTest, ASwappedEntityScoresBelowTheRightOne) {
  const std::string sentence = "The Normans conquered England in 1066 under William.";
  const Answerability right = Score("When did the Normans conquer England?", sentence);
  const Answerability swapped = Score("When did the Danes conquer England?", sentence);
  EXPECT_GT(right.score, swapped.score);
  EXPECT_LT(swapped.parts.at("names"), 1.0);
  EXPECT_NE(swapped.reason.find("dane"), std::string::npos) << swapped.reason;
  EXPECT_EQ(right.parts.at("names"), 1.0);
  EXPECT_EQ(right.reason, "");
}

TEST_F(AnswerabilityTest, ANumberQuestionAnsweredWithoutANumberScoresLow) {
  const Answerability with = Score("How many days are backups kept?", "Backups are kept for 30 days.");
  const Answerability without = Score("How many days are backups kept?", "Backups are kept for several days.");
  EXPECT_EQ(with.parts.at("answer"), 1.0);
  EXPECT_EQ(without.parts.at("answer"), 0.0);
  EXPECT_LT(without.score, with.score);
  EXPECT_NE(without.reason.find("number"), std::string::npos) << without.reason;
  // A spelled-out number answers too.
  EXPECT_EQ(Score("How many days are backups kept?", "Backups are kept for two days.").parts.at("answer"), 1.0);
  // The question's own number is not an answer.
  const Answerability echo = Score("How many replicas does version 12 keep?", "Version 12 keeps replicas.");
  EXPECT_EQ(echo.parts.at("answer"), 0.0);
}

TEST_F(AnswerabilityTest, ANegatedQuestionNeedsANegatingSentence) {
  const std::string q = "Which country did Japan not force into an alliance?";
  const Answerability plain = Score(q, "Japan pressured Thailand into an alliance.");
  const Answerability negated = Score(q, "Japan did not force Burma into an alliance.");
  EXPECT_EQ(plain.parts.at("negation"), 0.0);
  EXPECT_EQ(negated.parts.at("negation"), 1.0);
  EXPECT_LT(plain.score, negated.score);
  // A question without negation is not penalised either way.
  EXPECT_EQ(Score("Which country did Japan force into an alliance?", "Japan did not spare Thailand.").parts.at("negation"),
            1.0);
}

TEST_F(AnswerabilityTest, AnExcludedWordIsNeitherATermToCoverNorANegationToMatch) {
  AnswerabilityInput in;
  in.analyzer = &analyzer_;
  in.question = "Which changes affect subscribers, not publishers?";
  in.sentences = {AnsweringSentence{"c1", "Changes that affect subscribers: parallel workers apply them.", "", "", ""}};
  const Answerability plain = ScoreAnswerability(in);
  EXPECT_EQ(plain.parts.at("negation"), 0.0) << "without the plan's exclusion the question negates";
  in.excluded = {"publishers"};
  const Answerability excluded = ScoreAnswerability(in);
  EXPECT_EQ(excluded.parts.at("negation"), 1.0);
  EXPECT_EQ(excluded.parts.at("rare"), 1.0) << "\"publishers\" is not a term the answer must mention";
  EXPECT_GT(excluded.score, plain.score);
}

TEST_F(AnswerabilityTest, AWordTheSourceNeverMentionsLowersTheScore) {
  const std::string sentence = "Various species of poison dart frogs secrete alkaloid toxins.";
  const Answerability frogs = Score("Various species of frogs secrete what?", sentence);
  const Answerability lizards = Score("Various species of lizards secrete what?", sentence);
  EXPECT_LT(lizards.score, frogs.score);
  EXPECT_LT(lizards.parts.at("rare"), 1.0);
  EXPECT_LT(lizards.parts.at("coverage"), frogs.parts.at("coverage"));
}

// The subject part is reported (the verifier's relevance check judges claims about another
// subject); it does not enter the score until it can be calibrated.
TEST_F(AnswerabilityTest, TheSubjectPartSaysWhetherTheSourceIsAboutTheSubject) {
  const std::string q = "What is the default value of max_wal_senders?";
  const Answerability other = Score(q, "The default is 0.9.", "checkpoint_completion_target: The default is 0.9.",
                                    Focus::kValue, "max_wal_senders");
  const Answerability own = Score(q, "The default is 10.", "max_wal_senders: The default is 10.", Focus::kValue,
                                  "max_wal_senders");
  EXPECT_LT(other.parts.at("subject"), 1.0);
  EXPECT_EQ(own.parts.at("subject"), 1.0);
  EXPECT_LE(other.score, own.score);
}

TEST_F(AnswerabilityTest, TheBestSentenceIsReportedAndNoSentenceScoresZero) {
  AnswerabilityInput in;
  in.analyzer = &analyzer_;
  in.question = "When did the Normans conquer England?";
  in.sentences = {AnsweringSentence{"c1", "Normandy is a region of France.", "", "", ""},
                  AnsweringSentence{"c2", "The Normans conquered England in 1066.", "", "", ""}};
  const Answerability a = ScoreAnswerability(in);
  EXPECT_EQ(a.claim_id, "c2");
  EXPECT_GT(a.score, 0.5);
  in.sentences.clear();
  EXPECT_EQ(ScoreAnswerability(in).score, 0.0);
}

TEST_F(AnswerabilityTest, TheFocusDecidesTheKindOfAnswerAndTheQuestionWordIsTheFallback) {
  EXPECT_EQ(ExpectedAnswerKind(Focus::kVersion, "How many versions are there?"), Focus::kVersion);
  EXPECT_EQ(ExpectedAnswerKind(Focus::kNone, "How many versions are there?"), Focus::kNumber);
  EXPECT_EQ(ExpectedAnswerKind(Focus::kNone, "When was it released?"), Focus::kDate);
  EXPECT_EQ(ExpectedAnswerKind(Focus::kNone, "Who wrote it?"), Focus::kName);
  EXPECT_EQ(ExpectedAnswerKind(Focus::kNone, "What does it do?"), Focus::kNone);
  // A date question is answered by a year or a month, not by the question's own year.
  EXPECT_EQ(Score("When was the bridge finished?", "The bridge was finished in March.").parts.at("answer"), 1.0);
  EXPECT_EQ(Score("When was the 1990 bridge finished?", "The 1990 bridge was finished late.").parts.at("answer"), 0.0);
}

}  // namespace
}  // namespace attest
