// Evidence about the question's subject and focus, end to end below the store: sentence subjects
// from chunk spans (answer/evidence_builder.h), the extractive writer's leading sentence and its
// subject label (write/extractive_writer.h), the off_topic verdict (verify/verifier.h) and the
// stream's sentence gate (answer/sentence_gate.h). Passages are shaped like PostgreSQL's
// runtime-config-wal.html / runtime-config-replication.html entries and git-config's keys.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "answer/answer_stages.h"
#include "answer/evidence_builder.h"
#include "answer/sentence_gate.h"
#include "text/analyzer.h"
#include "verify/verifier.h"
#include "write/extractive_writer.h"

namespace attest {
namespace {

// A chunk built from definition-list entries: each entry is its term line and its description,
// both spans with the term as their subject (text/chunker.h), joined by blank lines.
struct EntryChunk {
  std::string text;
  std::vector<ChunkSpan> spans;

  void Heading(const std::string& heading) { Add(heading, SpanRole::kHeading, heading); }
  void Entry(const std::string& term, const std::string& description) {
    Add(term, SpanRole::kDefinition, term);
    Add(description, SpanRole::kDefinition, term);
  }
  void Add(const std::string& block, SpanRole role, const std::string& subject) {
    if (!text.empty()) text += "\n\n";
    const uint32_t begin = static_cast<uint32_t>(text.size());
    text += block;
    spans.push_back(ChunkSpan{begin, static_cast<uint32_t>(text.size()), role, subject});
  }
};

EvidenceCandidate Candidate(const EntryChunk& chunk, const std::string& doc, uint64_t id, const std::string& section) {
  EvidenceCandidate c;
  c.hit.doc_id = doc;
  c.hit.chunk_id = ChunkId(id);
  c.hit.title = "19.5. Write Ahead Log";
  c.hit.section = section;
  c.hit.source_type = "official";
  c.text = chunk.text;
  c.spans = chunk.spans;
  c.subquery = "q0";
  c.rank = static_cast<uint32_t>(id);
  return c;
}

EntryChunk CheckpointsChunk() {
  EntryChunk c;
  c.Heading("19.5.2. Checkpoints");
  c.Entry("checkpoint_timeout (integer)",
          "Maximum time between automatic WAL checkpoints. If this value is specified without units, it is "
          "taken as seconds. The default is five minutes (5min).");
  c.Entry("checkpoint_completion_target (floating point)",
          "Specifies the target of checkpoint completion, as a fraction of total time between checkpoints. "
          "The default is 0.9, which spreads the checkpoint across almost all of the available interval, "
          "providing fairly consistent I/O load while also giving some overhead for checkpoint completion.");
  c.Entry("checkpoint_warning (integer)",
          "Write a message to the server log if checkpoints caused by the filling of WAL segment files happen "
          "closer together than this amount of time (which suggests that max_wal_size ought to be raised). "
          "If this value is specified without units, it is taken as seconds. The default is 30 seconds (30s). "
          "Zero disables the warning.");
  return c;
}

// The analyzed terms of the question's content words, as BuildEvidenceQuery gives them.
EvidenceQuery Query(const std::string& words, Focus focus, std::string subject) {
  static const Analyzer analyzer;
  EvidenceQuery q;
  q.terms = analyzer.Terms(words);
  q.focus = focus;
  q.subject = std::move(subject);
  return q;
}

const EvidencePassage* FirstWith(const std::vector<EvidencePassage>& pack, const std::string& needle) {
  for (const EvidencePassage& p : pack) {
    if (p.text.find(needle) != std::string::npos) return &p;
  }
  return nullptr;
}

TEST(SubjectEvidence, SentencesCarryTheirEntrysSubjectAndNeverStraddleTwoEntries) {
  EntryChunk chunk;
  chunk.Entry("wal_level (enum)", "wal_level determines how much information is written to the WAL");  // no period
  chunk.Entry("fsync (boolean)", "If this parameter is on, the server tries to make sure updates are flushed.");
  const PackResult r = BuildEvidence({Candidate(chunk, "wal", 1, "19.5. Write Ahead Log > 19.5.1. Settings")},
                                     Query("wal_level fsync", Focus::kNone, ""), SourceHierarchy::Defaults(),
                                     PackOptions{.per_source = 10});
  for (const EvidencePassage& p : r.pack) {
    const bool wal = p.text.find("wal_level determines") != std::string::npos;
    const bool fsync = p.text.find("If this parameter is on") != std::string::npos;
    EXPECT_FALSE(wal && fsync) << "a passage straddles two entries: " << p.text;
    if (wal) EXPECT_EQ(p.subject, "wal_level (enum)");
    if (fsync) EXPECT_EQ(p.subject, "fsync (boolean)");
  }
  ASSERT_NE(FirstWith(r.pack, "If this parameter is on"), nullptr);
}

TEST(SubjectEvidence, WithoutSpansTheSubjectIsTheInnermostHeading) {
  EvidenceCandidate c;
  c.hit.doc_id = "d";
  c.hit.chunk_id = ChunkId(1);
  c.hit.section = "19.6. Replication > 19.6.1. Sending Servers";
  c.hit.source_type = "official";
  c.text = "These parameters can be set on any server that is to send replication data.";
  const PackResult r = BuildEvidence({c}, Query("replication server", Focus::kNone, ""), SourceHierarchy::Defaults(),
                                     PackOptions{});
  ASSERT_EQ(r.pack.size(), 1u);
  EXPECT_EQ(r.pack[0].subject, "19.6.1. Sending Servers");
}

// Issue 12: "What is the default value of checkpoint_warning?" took checkpoint_completion_target's
// "The default is 0.9".
TEST(SubjectEvidence, TheQuestionsOwnEntryOutranksANeighboursDefault) {
  const PackResult r = BuildEvidence({Candidate(CheckpointsChunk(), "wal", 1, "19.5. Write Ahead Log > 19.5.2. Checkpoints")},
                                     Query("default value checkpoint_warning", Focus::kValue, "checkpoint_warning"),
                                     SourceHierarchy::Defaults(), PackOptions{.per_source = 10});
  ASSERT_FALSE(r.pack.empty());
  EXPECT_EQ(r.pack[0].text, "The default is 30 seconds (30s).");
  EXPECT_EQ(r.pack[0].subject, "checkpoint_warning (integer)");
  const EvidencePassage* neighbour = FirstWith(r.pack, "The default is 0.9");
  ASSERT_NE(neighbour, nullptr);
  EXPECT_EQ(neighbour->subject, "checkpoint_completion_target (floating point)");
  EXPECT_LT(neighbour->score, 0.5 * r.pack[0].score);
}

TEST(SubjectEvidence, DocumentsWithoutStructureKeepTheirOrderWhenNoSubjectOrFocusIsAsked) {
  EvidenceCandidate c;
  c.hit.doc_id = "d";
  c.hit.chunk_id = ChunkId(1);
  c.hit.source_type = "official";
  c.text = "The Normans were a people who gave their name to Normandy. They descended from Norse raiders.";
  const EvidenceQuery plain = Query("Normans people", Focus::kNone, "");
  const PackResult a = BuildEvidence({c}, plain, SourceHierarchy::Defaults(), PackOptions{});
  EvidenceQuery same = plain;
  same.focus = Focus::kDefinition;  // not testable and no entry: scores unchanged
  const PackResult b = BuildEvidence({c}, same, SourceHierarchy::Defaults(), PackOptions{});
  ASSERT_EQ(a.pack.size(), b.pack.size());
  for (size_t i = 0; i < a.pack.size(); ++i) {
    EXPECT_EQ(a.pack[i].text, b.pack[i].text);
    EXPECT_DOUBLE_EQ(a.pack[i].score, b.pack[i].score);
    EXPECT_EQ(a.pack[i].subject, "");
  }
}

EvidencePassage Passage(const std::string& id, const std::string& text, const std::string& subject, double score) {
  EvidencePassage p;
  p.id = id;
  p.doc_id = "runtime-config-replication";
  p.chunk_id = ChunkId(7);
  p.title = "19.6. Replication";
  p.source_type = "official";
  p.text = text;
  p.subject = subject;
  p.score = score;
  return p;
}

// Issue 12: "What is the default value of max_wal_senders?" answered with the term line and two
// sentences that never state the value.
std::vector<EvidencePassage> MaxWalSendersPack() {
  return {Passage("S1", "max_wal_senders (integer)", "max_wal_senders (integer)", 1.0),
          Passage("S2", "In fact, the server will not even start in this mode if max_wal_senders is non-zero.",
                  "wal_level (enum)", 0.9),
          Passage("S3", "Also ensure max_wal_senders is set to a sufficiently large value.", "19.6.1. Sending Servers", 0.8),
          Passage("S4", "The default is 10.", "max_wal_senders (integer)", 0.5)};
}

TEST(ExtractiveWriterFocus, LeadsWithTheSentenceThatAnswersAndNamesItsSubject) {
  const std::vector<EvidencePassage> pack = MaxWalSendersPack();
  WriteArgs wa;
  wa.asks = RelevanceQuestion{Focus::kValue, "max_wal_senders"};
  wa.pack = &pack;
  ExtractiveWriter w;
  auto d = w.Write(wa);
  ASSERT_TRUE(d.ok());
  ASSERT_FALSE(d->claims.empty());
  EXPECT_EQ(d->claims[0].text, "max_wal_senders: The default is 10.");
  ASSERT_EQ(d->claims[0].cites.size(), 1u);
  EXPECT_EQ(d->claims[0].cites[0].source, "S4");
  EXPECT_EQ(d->claims[0].cites[0].quote, "The default is 10.") << "the quote stays verbatim";

  // Verified with the question: the leading claim is supported, the others are off topic.
  VerifyOptions vo;
  vo.asks = wa.asks;
  const std::vector<ClaimVerdict> v = VerifyDraft(pack, d->claims, vo);
  EXPECT_EQ(v[0].verdict, Verdict::kSupported) << v[0].reason;
  for (size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i].verdict, Verdict::kOffTopic) << d->claims[i].text;
}

TEST(ExtractiveWriterFocus, WithoutAQuestionSubjectClaimsAreTheQuotes) {
  const std::vector<EvidencePassage> pack = MaxWalSendersPack();
  WriteArgs wa;
  wa.pack = &pack;
  wa.max_sentences = 4;
  ExtractiveWriter w;
  auto d = w.Write(wa);
  ASSERT_TRUE(d.ok());
  for (const DraftClaim& c : d->claims) EXPECT_EQ(c.text, c.cites[0].quote);
}

TEST(ExtractiveWriterFocus, ASentenceThatOnlyRepeatsItsSourcesTitleIsNeverAClaim) {
  // A note whose text starts by restating its title: the restatement is a label, so quoting it
  // would "answer" any question about the note with a verbatim but empty claim.
  std::vector<EvidencePassage> pack = {Passage("S1", "Sparrow dashboard note.", "", 1.0),
                                       Passage("S2", "The Sparrow dashboard shows the queue depth of every topic.", "",
                                               0.9)};
  for (EvidencePassage& p : pack) p.title = "Sparrow dashboard note";
  WriteArgs wa;
  wa.pack = &pack;
  wa.max_sentences = 3;
  ExtractiveWriter w;
  auto d = w.Write(wa);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->claims.size(), 1u);
  EXPECT_EQ(d->claims[0].cites[0].source, "S2");

  // With nothing but the title echo there is nothing to say (the pipeline falls back).
  pack.pop_back();
  auto none = w.Write(wa);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->claims.empty());
  // A sentence that adds a word to its title is a statement.
  pack[0].text = "Sparrow dashboard note retired.";
  EXPECT_EQ(w.Write(wa)->claims.size(), 1u);
}

DraftClaim Claim(const std::string& id, const std::string& text, const std::string& source, const std::string& quote) {
  return DraftClaim{id, text, {Citation{source, quote}}};
}

TEST(OffTopicVerdict, ANeighbouringEntrysDefaultIsOffTopicAndTheRightEntryPasses) {
  const std::vector<EvidencePassage> pack = {
      Passage("S1", "The default is 0.9, which spreads the checkpoint across almost all of the available interval.",
              "checkpoint_completion_target (floating point)", 1.0),
      Passage("S2", "The default is 30 seconds (30s).", "checkpoint_warning (integer)", 0.8)};
  VerifyOptions vo;
  vo.asks = RelevanceQuestion{Focus::kValue, "checkpoint_warning"};
  const auto v = VerifyDraft(pack,
                             {Claim("c1", "The default is 0.9.", "S1", "The default is 0.9"),
                              Claim("c2", "checkpoint_warning: The default is 30 seconds (30s).", "S2",
                                    "The default is 30 seconds (30s).")},
                             vo);
  EXPECT_EQ(v[0].verdict, Verdict::kOffTopic);
  EXPECT_NE(v[0].reason.find("checkpoint_warning"), std::string::npos) << v[0].reason;
  EXPECT_NE(v[0].reason.find("checkpoint_completion_target"), std::string::npos) << v[0].reason;
  EXPECT_EQ(v[1].verdict, Verdict::kSupported) << v[1].reason;
  EXPECT_TRUE(KeptClaimIds(v, /*keep_partial=*/true) == std::vector<std::string>{"c2"});

  // Without a question (or with one naming no subject or focus) the same quote stands on support.
  EXPECT_EQ(VerifyDraft(pack, {Claim("c1", "The default is 0.9.", "S1", "The default is 0.9")})[0].verdict,
            Verdict::kSupported);
}

TEST(OffTopicVerdict, TheRightEntryWithoutTheFocusIsOffTopicNamingTheFocus) {
  const std::vector<EvidencePassage> pack = {
      Passage("S1", "Zero disables the warning.", "checkpoint_warning (integer)", 1.0),
      Passage("S2", "Sets the line ending type to use in the working directory for files that are marked as text. "
                    "The default value is native.",
              "core.eol", 0.9)};
  VerifyOptions vo;
  vo.asks = RelevanceQuestion{Focus::kValue, "checkpoint_warning"};
  auto v = VerifyDraft(pack, {Claim("c1", "Zero disables the warning.", "S1", "Zero disables the warning.")}, vo);
  EXPECT_EQ(v[0].verdict, Verdict::kOffTopic);
  EXPECT_NE(v[0].reason.find("value"), std::string::npos) << v[0].reason;

  vo.asks = RelevanceQuestion{Focus::kValue, "core.eol"};
  v = VerifyDraft(pack, {Claim("c1", "core.eol: The default value is native.", "S2", "The default value is native.")}, vo);
  EXPECT_EQ(v[0].verdict, Verdict::kSupported) << v[0].reason;
  vo.asks = RelevanceQuestion{Focus::kValue, "core.autocrlf"};
  v = VerifyDraft(pack, {Claim("c1", "The default value is native.", "S2", "The default value is native.")}, vo);
  EXPECT_EQ(v[0].verdict, Verdict::kOffTopic) << "another git-config key's default";
}

TEST(OffTopicVerdict, AQuoteThatNamesTheSubjectIsAboutItWhateverItsSection) {
  const std::vector<EvidencePassage> pack = {
      Passage("S1", "The default value of max_wal_senders is 10.", "19.6.1. Sending Servers", 1.0)};
  VerifyOptions vo;
  vo.asks = RelevanceQuestion{Focus::kValue, "max_wal_senders"};
  const auto v = VerifyDraft(pack, {Claim("c1", "The default value of max_wal_senders is 10.", "S1",
                                          "The default value of max_wal_senders is 10.")},
                             vo);
  EXPECT_EQ(v[0].verdict, Verdict::kSupported) << v[0].reason;
}

TEST(SentenceGateRelevance, AStreamedSentenceQuotingAnotherEntryIsRetractedAsOffTopic) {
  std::vector<EvidencePassage> pack = {
      Passage("S1", "The default is 0.9, which spreads the checkpoint across almost all of the available interval.",
              "checkpoint_completion_target (floating point)", 1.0),
      Passage("S2", "The default is 30 seconds (30s).", "checkpoint_warning (integer)", 0.8)};
  SentenceGate gate;
  gate.SetSources(SourcesOf(pack));
  gate.SetQuestion("value", "checkpoint_warning");
  auto wrong = gate.Check("The default is 0.9.", {"S1"});
  ASSERT_TRUE(wrong.has_value());
  EXPECT_FALSE(wrong->release);
  EXPECT_EQ(wrong->reason, "off_topic");
  auto right = gate.Check("The default is 30 seconds (30s).", {"S2"});
  ASSERT_TRUE(right.has_value());
  EXPECT_TRUE(right->release) << right->reason;

  SentenceGate plain;  // no question given: only quote and support
  plain.SetSources(SourcesOf(pack));
  auto v = plain.Check("The default is 0.9.", {"S1"});
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(v->release);
}

}  // namespace
}  // namespace attest
