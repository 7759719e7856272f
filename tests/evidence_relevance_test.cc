// Subject and focus matching (evidence/relevance.h) on the shapes documentation gives its terms:
// PostgreSQL's runtime-config entries, git-config keys, git's option lists and manual page titles.
#include "evidence/relevance.h"

#include <gtest/gtest.h>

namespace attest {
namespace {

TEST(SubjectMatch, DefinitionTermWithTypeMatchesItsName) {
  EXPECT_TRUE(SubjectsMatch("max_wal_senders", "max_wal_senders (integer)"));
  EXPECT_TRUE(SubjectsMatch("MAX_WAL_SENDERS", "max_wal_senders (integer)"));
  EXPECT_TRUE(SubjectsMatch("checkpoint_warning", "checkpoint_warning (integer)"));
}

TEST(SubjectMatch, AnIdentifierIsNeverMatchedByAPartOfIt) {
  EXPECT_FALSE(SubjectsMatch("checkpoint_warning", "checkpoint_completion_target (floating point)"));
  EXPECT_FALSE(SubjectsMatch("core.eol", "core.autocrlf"));
  EXPECT_FALSE(SubjectsMatch("max_wal_senders", "max_replication_slots (integer)"));
  EXPECT_FALSE(SubjectsMatch("wal_level", "wal_level_extra"));
}

TEST(SubjectMatch, GitConfigKeysAreCaseInsensitive) {
  EXPECT_TRUE(SubjectsMatch("core.sshCommand", "core.sshcommand"));
  EXPECT_TRUE(SubjectsMatch("core.eol", "core.eol"));
}

TEST(SubjectMatch, OptionAlternativesAndPlaceholders) {
  EXPECT_TRUE(SubjectsMatch("--interactive", "-i, --interactive"));
  EXPECT_TRUE(SubjectsMatch("-i", "-i, --interactive"));
  EXPECT_TRUE(SubjectsMatch("--onto", "--onto <newbase>"));
  EXPECT_TRUE(SubjectsMatch("--exec", "-x <cmd>, --exec <cmd>"));
  EXPECT_TRUE(SubjectsMatch("--strategy", "-s <strategy>, --strategy=<strategy>"));
  EXPECT_TRUE(SubjectsMatch("--no-verify", "--[no-]verify"));
  EXPECT_TRUE(SubjectsMatch("--verify", "--[no-]verify"));
  EXPECT_TRUE(SubjectsMatch("onto", "--onto <newbase>"));  // dashes optional in the question
  EXPECT_FALSE(SubjectsMatch("--onto", "--root"));
  EXPECT_FALSE(SubjectsMatch("--interactive", "--rebase-merges"));
}

TEST(SubjectMatch, CommandsAndHeadings) {
  EXPECT_TRUE(SubjectsMatch("git rebase", "git-rebase(1) Manual Page"));
  EXPECT_TRUE(SubjectsMatch("rebase", "git-rebase(1)"));
  EXPECT_TRUE(SubjectsMatch("logical replication", "31.1. Logical Replication Architecture"));
  EXPECT_FALSE(SubjectsMatch("git rebase", "git-merge(1)"));
  EXPECT_FALSE(SubjectsMatch("", "anything"));
}

TEST(SubjectMention, WholeIdentifiersInText) {
  EXPECT_TRUE(MentionsSubject("Also ensure max_wal_senders is set to a sufficiently large value.", "max_wal_senders"));
  EXPECT_TRUE(MentionsSubject("See git-rebase(1) for details.", "git rebase"));
  EXPECT_TRUE(MentionsSubject("Use --onto to move the branch.", "--onto <newbase>"));
  EXPECT_FALSE(MentionsSubject("The default is 10.", "max_wal_senders (integer)"));
  EXPECT_FALSE(MentionsSubject("Set max_wal_senders_extra instead.", "max_wal_senders"));
  EXPECT_FALSE(MentionsSubject("It moves the branch onto the new base.", "--onto"));  // the word, not the option
}

TEST(SubjectLabel, DecorationsRemoved) {
  EXPECT_EQ(SubjectLabel("max_wal_senders (integer)"), "max_wal_senders");
  EXPECT_EQ(SubjectLabel("19.6.1. Sending Servers"), "Sending Servers");
  EXPECT_EQ(SubjectLabel("-i, --interactive"), "-i, --interactive");
  EXPECT_EQ(SubjectLabel("core.eol"), "core.eol");
  EXPECT_EQ(SubjectLabel(""), "");
}

TEST(FocusMatch, ValueStatements) {
  EXPECT_TRUE(AnswersFocus(Focus::kValue, "The default is 10."));
  EXPECT_TRUE(AnswersFocus(Focus::kValue, "Defaults to native."));
  EXPECT_TRUE(AnswersFocus(Focus::kValue, "If this variable is set to input, line endings are converted."));
  EXPECT_TRUE(AnswersFocus(Focus::kValue, "The value is `true` unless configured otherwise."));
  EXPECT_FALSE(AnswersFocus(Focus::kValue, "Also ensure max_wal_senders is set to a sufficiently large value."));
  EXPECT_FALSE(AnswersFocus(Focus::kValue,
                            "In fact, the server will not even start in this mode if max_wal_senders is non-zero."));
  EXPECT_FALSE(AnswersFocus(Focus::kValue, "max_wal_senders (integer)"));
  EXPECT_FALSE(AnswersFocus(Focus::kValue, "If this value is specified without units, it is taken as seconds."));
}

TEST(FocusMatch, NumbersDatesVersions) {
  EXPECT_TRUE(AnswersFocus(Focus::kNumber, "It holds up to 64 segments."));
  EXPECT_TRUE(AnswersFocus(Focus::kNumber, "Three servers are required."));
  EXPECT_FALSE(AnswersFocus(Focus::kNumber, "Servers are required."));
  EXPECT_TRUE(AnswersFocus(Focus::kDate, "It was released in 2019."));
  EXPECT_TRUE(AnswersFocus(Focus::kDate, "The branch closed on May 3."));
  EXPECT_TRUE(AnswersFocus(Focus::kDate, "The Normans settled there in the 10th century."));
  EXPECT_TRUE(AnswersFocus(Focus::kDate, "Rollo was baptised in 912."));
  EXPECT_FALSE(AnswersFocus(Focus::kDate, "The setting may be changed at any time."));
  EXPECT_TRUE(AnswersFocus(Focus::kVersion, "This parameter was added in PostgreSQL 9.6."));
  EXPECT_TRUE(AnswersFocus(Focus::kVersion, "Available since version 2 of the protocol."));
  EXPECT_FALSE(AnswersFocus(Focus::kVersion, "This parameter controls the WAL level."));
}

TEST(FocusMatch, UntestableFocusesAlwaysPass) {
  EXPECT_TRUE(AnswersFocus(Focus::kDefinition, "anything"));
  EXPECT_TRUE(AnswersFocus(Focus::kNone, "anything"));
  EXPECT_FALSE(FocusIsTestable(Focus::kProcedure));
  EXPECT_TRUE(FocusIsTestable(Focus::kValue));
}

TEST(SubjectKind, NamesAndDescriptions) {
  EXPECT_TRUE(IsNameLike("max_wal_senders"));
  EXPECT_TRUE(IsNameLike("core.eol"));
  EXPECT_TRUE(IsNameLike("--onto"));
  EXPECT_TRUE(IsNameLike("CREATE INDEX"));
  EXPECT_TRUE(IsNameLike("Eiffel Tower"));
  EXPECT_TRUE(IsNameLike("vacuum"));  // one word: could be a key or a command
  EXPECT_FALSE(IsNameLike("index without locking writes"));
  EXPECT_FALSE(IsNameLike("replication slot"));
}

EvidencePassage PassageAbout(std::string subject) {
  EvidencePassage p;
  p.id = "S1";
  p.subject = std::move(subject);
  p.text = "When this option is used, PostgreSQL will build the index without taking any locks.";
  return p;
}

TEST(SubjectKind, ADescriptionNoPassageDefinesIsLeftOutOfTheCheck) {
  const std::vector<EvidencePassage> pack{PassageAbout("CONCURRENTLY")};
  EXPECT_EQ(RelevanceFor(Focus::kProcedure, "index without locking writes", pack).subject, "");
  // A name is always checked, defined by the evidence or not: another entry's default is not its answer.
  EXPECT_EQ(RelevanceFor(Focus::kValue, "checkpoint_warning", pack).subject, "checkpoint_warning");
  // A description that an entry of the evidence defines is checked.
  const std::vector<EvidencePassage> glossary{PassageAbout("Replication slot"), PassageAbout("CONCURRENTLY")};
  EXPECT_EQ(RelevanceFor(Focus::kDefinition, "replication slot", glossary).subject, "replication slot");
  EXPECT_EQ(RelevanceFor(Focus::kValue, "", pack).focus, Focus::kValue);
}

}  // namespace
}  // namespace attest
