// False positives of the injection screen on real documentation: every sentence of a directory of
// HTML pages (e.g. /usr/share/doc/postgresql-doc-15/html) is screened, as the answer pipeline
// screens evidence passages, and the flagged ones are counted by rule with examples.
//
//   injection_screen_fp DIR|CORPUS.jsonl [--examples N] [--links]
//
// A .jsonl argument is read as a BEIR corpus ({"_id", "title", "text"} per line), one document per
// line.
// Without --links the screen runs without retrieval context (no corroboration). With --links every
// page of DIR is one retrieved document for every sentence, so a link counts as corroborated when
// another page names its host: the most generous retrieval. The report also gives the number of
// sentences that carry any link, the upper bound of what the corroboration rule can flag when a
// question retrieves nothing else that names the host.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ingest/html_extractor.h"
#include "text/sentence_splitter.h"
#include "verify/injection_screen.h"
#include "verify/link_screen.h"

namespace {

struct Page {
  std::string id;
  std::string url;
  std::vector<std::string> sentences;
  std::string text;
};

std::string ReadAll(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Rule(const std::string& reason) { return reason.substr(0, reason.find(':')); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: injection_screen_fp DIR [--examples N] [--links]\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  size_t examples = 5;
  bool links = false;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--examples" && i + 1 < argc) examples = std::stoul(argv[++i]);
    if (a == "--links") links = true;
  }
  std::vector<std::filesystem::path> files;
  std::vector<Page> pages;
  if (dir.extension() == ".jsonl") {
    std::ifstream in(dir);
    std::string line;
    while (std::getline(in, line)) {
      const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      if (!j.is_object()) continue;
      Page p;
      p.id = j.value("_id", "");
      p.text = j.value("text", "");
      for (const attest::SentenceSpan& s : attest::SplitSentences(p.text)) {
        p.sentences.emplace_back(p.text.substr(s.start, s.end - s.start));
      }
      pages.push_back(std::move(p));
    }
  }
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(dir.extension() == ".jsonl" ? dir.parent_path() : dir)) {
    if (dir.extension() == ".jsonl") break;
    if (e.is_regular_file() && (e.path().extension() == ".html" || e.path().extension() == ".htm"))
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    attest::ParsedDocument doc;
    attest::ExtractHtml(ReadAll(f), &doc);
    Page p;
    p.id = f.filename().string();
    p.url = doc.url;
    for (const attest::Block& b : doc.blocks) {
      if (b.kind == attest::BlockKind::kCode || b.kind == attest::BlockKind::kTable) continue;  // not evidence prose
      p.text += b.text + "\n";
      for (const attest::SentenceSpan& s : attest::SplitSentences(b.text)) {
        p.sentences.emplace_back(b.text.substr(s.start, s.end - s.start));
      }
    }
    pages.push_back(std::move(p));
  }
  attest::LinkCorroboration corroboration;
  if (links) {
    for (const Page& p : pages) corroboration.AddDocument(p.id, p.url, p.text);
  }
  size_t sentences = 0, flagged = 0, with_links = 0;
  std::map<std::string, std::vector<std::string>> by_rule;
  for (const Page& p : pages) {
    const attest::ScreenContext ctx{links ? &corroboration : nullptr, p.id};
    for (const std::string& s : p.sentences) {
      ++sentences;
      const auto found = attest::FindLinks(s);
      if (std::any_of(found.begin(), found.end(), [](const attest::LinkRef& l) { return !l.email; })) ++with_links;
      const attest::InjectionFinding f = attest::ScreenPassage(s, ctx);
      if (!f.flagged) continue;
      ++flagged;
      by_rule[Rule(f.reason)].push_back(f.reason + "  <<" + s.substr(0, 240) + ">>  [" + p.id + "]");
    }
  }
  std::printf("pages %zu, sentences %zu, flagged %zu (%.4f%%), sentences with a link (not an e-mail address) %zu\n",
              pages.size(), sentences, flagged, sentences ? 100.0 * double(flagged) / double(sentences) : 0.0,
              with_links);
  std::vector<std::pair<std::string, std::vector<std::string>>> rules(by_rule.begin(), by_rule.end());
  std::sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  for (const auto& [rule, hits] : rules) {
    std::printf("\n%-40s %zu\n", rule.c_str(), hits.size());
    for (size_t i = 0; i < hits.size() && i < examples; ++i) std::printf("  - %s\n", hits[i].c_str());
  }
  return 0;
}
