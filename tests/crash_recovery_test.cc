// Kill -9 during ingestion, many times, at random moments; after each kill the store must reopen
// with every acknowledged document present (at its acknowledged version or a later one that was
// sent), no partial document, and an index that agrees with the catalog.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "attest/engine.h"
#include "store/store.h"
#include "support/process.h"

namespace attest {
namespace {

using testing_support::ChildProcess;
using testing_support::TempDir;
using testing_support::WriteFile;

constexpr int kDocs = 240;

std::string IdentityToken(int doc) { return "kq" + std::to_string(doc); }
std::string VersionToken(int doc, int version) { return "vq" + std::to_string(doc) + "z" + std::to_string(version); }

// One JSONL corpus; doc i at version versions[i]. Every fifth document is long (several chunks);
// every paragraph carries both tokens so every chunk of the document is findable by them.
std::string MakeCorpus(const std::vector<int>& versions) {
  std::ostringstream out;
  for (int i = 0; i < kDocs; ++i) {
    int v = versions[i];
    std::string para = IdentityToken(i) + " " + VersionToken(i, v) +
                       " replication slots keep write ahead log segments until every consumer confirms them.";
    int paragraphs = (i % 5 == 0) ? 40 : 2;
    std::string text;
    for (int p = 0; p < paragraphs; ++p) {
      if (p) text += "\\n\\n";
      text += para + " Paragraph " + std::to_string(p) + " adds filler words about checkpoints and vacuum.";
    }
    out << "{\"_id\":\"doc-" << i << "\",\"title\":\"Document " << i << " version " << v << "\",\"text\":\"" << text
        << "\"}\n";
  }
  return out.str();
}

size_t CountAcks(const std::string& out) {
  size_t n = 0;
  for (size_t pos = out.find("ack "); pos != std::string::npos; pos = out.find("ack ", pos + 1)) ++n;
  return n;
}

int VersionFromTitle(const std::string& title) {
  auto pos = title.rfind(' ');
  return std::stoi(title.substr(pos + 1));
}

std::map<std::string, int> ParseAcks(const std::string& out, const std::vector<int>& versions) {
  std::map<std::string, int> acked;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ack doc-", 0) != 0) continue;
    // A line cut by the kill is not an acknowledgement.
    int doc = std::stoi(line.substr(8));
    acked["doc-" + std::to_string(doc)] = versions[doc];
  }
  return acked;
}

TEST(CrashRecovery, KillNineDuringIngestLosesNothingAcknowledged) {
  TempDir tmp;
  const std::string data = tmp.str("data");
  std::mt19937 rng(20261130);
  std::vector<int> versions(kDocs, 0);
  std::map<std::string, int> durable;  // doc id -> latest acknowledged version
  std::map<std::string, int> max_sent;  // doc id -> latest version ever sent

  const int kRounds = 14;
  int kills = 0;
  for (int round = 0; round < kRounds; ++round) {
    // Change a random third of the documents each round (replacements), keep the rest (no-ops).
    if (round > 0) {
      for (int i = 0; i < kDocs; ++i) {
        if (rng() % 3 == 0) versions[i] = round;
      }
    }
    for (int i = 0; i < kDocs; ++i) {
      auto& m = max_sent["doc-" + std::to_string(i)];
      m = std::max(m, versions[i]);
    }
    const std::string corpus = tmp.str("corpus-" + std::to_string(round) + ".jsonl");
    WriteFile(corpus, MakeCorpus(versions));

    ChildProcess child({ATTEST_BINARY, "--data", data, "--threads", "2", "ingest", corpus, "--batch-docs", "16",
                        "--print-acks"});
    // Kill after a random number of acknowledgements plus a random delay, so the kill lands at a
    // random point of the ingestion whatever the machine's load (parsing, segment write, catalog
    // commit, merge).
    const bool kill_this_round = round > 0;
    const size_t kill_after_acks = rng() % (kDocs - 16);  // before the last commit, mostly
    const auto extra_delay = std::chrono::microseconds(rng() % 20000);
    bool killed = false;
    std::optional<std::chrono::steady_clock::time_point> deadline;
    while (child.Running()) {
      child.Poll();
      if (kill_this_round && !deadline && CountAcks(child.out()) >= kill_after_acks) {
        deadline = std::chrono::steady_clock::now() + extra_delay;
      }
      if (deadline && std::chrono::steady_clock::now() >= *deadline) {
        child.Kill(SIGKILL);
        killed = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    int rc = child.Wait();
    if (round == 0) {
      ASSERT_EQ(rc, 0) << child.out();
    }
    if (killed && rc == -SIGKILL) ++kills;
    for (const auto& [id, v] : ParseAcks(child.out(), versions)) durable[id] = v;

    // Reopen (the writer open runs recovery) and check every invariant.
    StoreOptions so;
    so.dir = data;
    auto store = Store::Open(so);
    ASSERT_TRUE(store.ok()) << "round " << round << ": " << store.status().ToString();
    auto snap = (*store)->Pin();
    uint64_t live_docs = 0, live_chunks = 0;
    for (int i = 0; i < kDocs; ++i) {
      const std::string id = "doc-" + std::to_string(i);
      auto doc = snap->FindDocument({"", id});
      auto it = durable.find(id);
      if (!doc.ok()) {
        ASSERT_EQ(it, durable.end()) << "round " << round << ": acknowledged " << id << " is missing";
        continue;
      }
      ++live_docs;
      live_chunks += doc->chunk_count;
      int v = VersionFromTitle(doc->title);
      if (it != durable.end()) {
        EXPECT_GE(v, it->second) << "round " << round << ": " << id << " went back to an older version";
      }
      EXPECT_LE(v, max_sent[id]);
      ASSERT_GE(doc->chunk_count, 1u);
      if (i % 5 == 0) {
        EXPECT_GE(doc->chunk_count, 2u) << id << " is long enough for several chunks";
      } else {
        EXPECT_EQ(doc->chunk_count, 1u) << id;
      }
      // The index holds exactly this version's chunks for the document: its identity token matches
      // exactly chunk_count chunks, all of this version.
      LexicalQuery q;
      q.clauses.push_back({Occur::kShould, {IdentityToken(i)}, {0}, false});
      LexicalSearchArgs args;
      args.query = &q;
      args.k = 1000;
      auto hits = snap->lexical().TopK(args);
      ASSERT_EQ(hits.size(), doc->chunk_count) << "round " << round << ": " << id;
      std::vector<ChunkId> ids;
      for (const auto& h : hits) ids.push_back(h.id);
      auto chunks = snap->GetChunks(ids);
      ASSERT_TRUE(chunks.ok());
      ASSERT_EQ(chunks->size(), hits.size()) << "index returned chunks the catalog does not have";
      auto doc_of = snap->DocumentsOf(ids);
      ASSERT_TRUE(doc_of.ok()) << doc_of.status().ToString();
      for (const DocNum& d : *doc_of) EXPECT_EQ(d, doc->num) << "in-memory chunk->document map disagrees";
      for (const auto& c : *chunks) {
        EXPECT_EQ(c.doc, doc->num);
        EXPECT_NE(c.text.find(VersionToken(i, v)), std::string::npos) << "stale chunk text for " << id;
      }
    }
    auto stats = snap->Stats();
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->documents, live_docs);
    EXPECT_EQ(stats->chunks, live_chunks);
    EXPECT_EQ(snap->lexical().num_docs() >= live_chunks, true);
  }
  // The test is only meaningful if kills really interrupted ingestion.
  EXPECT_GE(kills, kRounds / 2) << "too few rounds were interrupted";
  std::cout << "killed " << kills << " of " << kRounds - 1 << " rounds; " << durable.size()
            << " documents acknowledged" << std::endl;
}

}  // namespace
}  // namespace attest
