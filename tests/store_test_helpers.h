// Helpers shared by the store tests: temporary directories, documents with hand-made tokens (no
// analyzer), a whitespace reindex function and single-term searches.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "common/checksum.h"
#include "lexical/lexical_searcher.h"
#include "store/store.h"

namespace attest::store_test {

// A fresh directory under ::testing::TempDir(), unique per test and call, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("attest_store_") + (info ? info->test_suite_name() : "x") + "_" +
                       (info ? info->name() : "x") + "_" + std::to_string(::getpid()) + "_" +
                       std::to_string(counter++);
    path_ = std::filesystem::path(::testing::TempDir()) / name;
    std::filesystem::remove_all(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::vector<Token> Tokenize(const std::string& text) {
  std::vector<Token> out;
  std::istringstream in(text);
  std::string w;
  uint32_t pos = 0;
  while (in >> w) {
    Token t;
    t.term = w;
    t.position = pos++;
    out.push_back(std::move(t));
  }
  return out;
}

inline IndexedChunk IndexText(const std::string& title, const std::string& section, const std::string& body) {
  IndexedChunk ic;
  const std::string no_terms;
  const std::string* texts[kNumFields] = {&title, &section, &body, &no_terms};
  for (int f = 0; f < kNumFields; ++f) {
    ic.fields[f].tokens = Tokenize(*texts[f]);
    ic.fields[f].length = static_cast<uint32_t>(ic.fields[f].tokens.size());
  }
  return ic;
}

// The reindex function tests pass to StoreOptions (same tokenization as MakeDoc).
inline IndexedChunk Reindex(const ChunkRecord& c, const DocumentRecord& d) {
  return IndexText(d.title, c.section_path, c.text);
}

// A document whose chunks are `texts`; its sha256 is derived from the id, title and texts.
inline PreparedDocument MakeDoc(const std::string& id, const std::vector<std::string>& texts,
                                const std::string& tenant = "", const std::string& title = "title") {
  PreparedDocument d;
  d.record.tenant = tenant;
  d.record.id = id;
  d.record.url = "https://example.test/" + id;
  d.record.title = title;
  d.record.site = "example.test";
  d.record.source_type = "docs";
  d.record.language = "en";
  std::string all = id + "\n" + title;
  for (size_t i = 0; i < texts.size(); ++i) {
    TextChunk tc;
    tc.ordinal = static_cast<uint32_t>(i);
    tc.section_path = "Intro";
    tc.text = texts[i];
    d.chunks.push_back(tc);
    d.indexed.push_back(IndexText(title, tc.section_path, tc.text));
    all += "\n" + texts[i];
    d.record.bytes += texts[i].size();
  }
  d.record.sha256 = Sha256Hex(all);
  return d;
}

// Opens the store, recording a test failure (and returning null) when it cannot.
inline std::unique_ptr<Store> OpenOrDie(const StoreOptions& o) {
  auto s = Store::Open(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

inline StoreOptions Options(const std::filesystem::path& dir, bool with_reindex = true) {
  StoreOptions o;
  o.dir = dir;
  if (with_reindex) o.reindex = Reindex;
  return o;
}

// Ids of the chunks containing `term` (any field), via the production top-k path, sorted by id.
inline std::vector<ChunkId> Search(const Snapshot& snap, const std::string& term, size_t k = 1000) {
  LexicalQuery q;
  QueryClause c;
  c.terms = {term};
  c.positions = {0};
  q.clauses.push_back(c);
  LexicalSearchArgs args;
  args.query = &q;
  args.k = k;
  std::vector<ChunkId> ids;
  for (const ScoredChunk& s : snap.lexical().TopK(args)) ids.push_back(s.id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

inline std::vector<std::string> Texts(const std::vector<ChunkRecord>& chunks) {
  std::vector<std::string> out;
  for (const auto& c : chunks) out.push_back(c.text);
  return out;
}

inline std::vector<std::filesystem::path> SegmentFiles(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir / "segments")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace attest::store_test
