#include "support/crash_corpus.h"

#include <nlohmann/json.hpp>

namespace attest::testing_support {
namespace {

constexpr const char* kSyllables[] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo",
                                      "ze", "pa", "qui", "bre", "dro", "fle", "gni", "hu"};

// One of 4,096 made-up words (three syllables), chosen by a hash of (doc, paragraph, slot).
std::string Word(uint64_t h) {
  std::string w;
  for (int i = 0; i < 3; ++i, h >>= 4) w += kSyllables[h & 15];
  return w;
}

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb3f97ca8cd53ULL;
  return x ^ (x >> 33);
}

}  // namespace

std::string CrashCorpus::Title(int doc, int version) {
  return "Document " + std::to_string(doc) + " version " + std::to_string(version);
}

std::string CrashCorpus::Text(int doc, int version) {
  const int paragraphs = doc % 5 == 0 ? 24 : 2;
  std::string text;
  for (int p = 0; p < paragraphs; ++p) {
    if (p) text += "\n\n";
    text += Token(doc) + " vq" + std::to_string(doc) + "z" + std::to_string(version) +
            " replication slots keep write ahead log segments until every consumer confirms them";
    for (int w = 0; w < 10; ++w) {
      // Topic words shared by neighbouring documents, so the corpus has structure to learn.
      text += " " + Word(Mix(uint64_t(doc / 8) * 131 + uint64_t(w % 4) * 7 + uint64_t(p % 3)));
      if (w % 3 == 2) text += " " + Word(Mix(uint64_t(doc) * 977 + uint64_t(p) * 31 + uint64_t(w)));
    }
    text += ".";
  }
  return text;
}

std::string CrashCorpus::JsonlLine(int doc, int version) {
  nlohmann::json j = {{"_id", Id(doc)}, {"title", Title(doc, version)}, {"text", Text(doc, version)}};
  return j.dump();
}

DocumentSpec CrashCorpus::Spec(int doc, int version) {
  DocumentSpec s;
  s.id = Id(doc);
  s.title = Title(doc, version);
  s.text = Text(doc, version);
  return s;
}

void CrashCorpus::Change(std::mt19937_64& rng, int version, double share) {
  std::uniform_real_distribution<double> u(0, 1);
  for (int& v : versions_) {
    if (u(rng) < share) v = version;
  }
}

std::string CrashCorpus::Jsonl() const {
  std::string out;
  for (int i = 0; i < kDocuments; ++i) out += JsonlLine(i, versions_[i]) + "\n";
  return out;
}

std::map<std::string, int> CrashCorpus::Versions() const {
  std::map<std::string, int> out;
  for (int i = 0; i < kDocuments; ++i) out[Id(i)] = versions_[i];
  return out;
}

}  // namespace attest::testing_support
