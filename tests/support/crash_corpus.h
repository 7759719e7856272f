// The documents of the crash campaign: doc-<i> at version <v>, deterministic text, every fifth
// document long enough for several chunks. Every paragraph carries the document's identity token
// (kq<i>) and its version token (vq<i>z<v>), and a title "Document <i> version <v>"; the filler words
// come from a made-up vocabulary so that a corpus model has something to learn.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "attest/engine.h"

namespace attest::testing_support {

class CrashCorpus {
 public:
  static constexpr int kDocuments = 160;

  void Reset() { versions_.assign(kDocuments, 0); }
  CrashCorpus() { Reset(); }

  static std::string Id(int doc) { return "doc-" + std::to_string(doc); }
  static std::string Token(int doc) { return "kq" + std::to_string(doc); }
  static std::string Title(int doc, int version);
  static std::string Text(int doc, int version);  // paragraphs separated by blank lines
  static std::string JsonlLine(int doc, int version);
  static DocumentSpec Spec(int doc, int version);  // default tenant, public, plain text

  int version(int doc) const { return versions_[doc]; }
  void set_version(int doc, int version) { versions_[doc] = version; }
  // Gives a random share of the documents the new `version`.
  void Change(std::mt19937_64& rng, int version, double share);
  // The whole corpus at the current versions, one JSONL line per document.
  std::string Jsonl() const;
  std::map<std::string, int> Versions() const;

 private:
  std::vector<int> versions_;
};

}  // namespace attest::testing_support
