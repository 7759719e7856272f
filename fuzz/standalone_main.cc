// Replay driver for fuzz targets built without libFuzzer:
//   <target> CORPUS_DIR [--mutations N] [--seed S] [--max-len BYTES] [--max-seconds T]
// Runs every file of CORPUS_DIR (sorted by name) through LLVMFuzzerTestOneInput, then N
// deterministic mutations of them (bit flips, byte edits, truncation, erased and duplicated
// ranges, splices of two seeds, inserted tags / quotes / braces / odd UTF-8). A crash or an
// invariant failure aborts the process, so a non-zero exit is a failure. --max-seconds (default
// 15) stops the mutation loop early on a slow machine; the count actually run is printed.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

constexpr std::string_view kTokens[] = {
    "<", ">", "</", "/>", "<div>", "</div>", "<p>", "</p>", "<li>", "<ul>", "</ul>", "<table>", "<tr>", "<td>",
    "</table>", "<pre>", "</pre>", "<h1>", "</h1>", "<script>", "</script>", "<!--", "-->", "<title>",
    "<meta name=\"date\" content=\"2023-02-30\">", "<link rel=canonical href=\"http://",
    " hidden", " style=\"display:none\"", " class=\"toc\"", "&amp;", "&#x10FFFF;", "&nbsp;", "\"", "'", "\\",
    "\\u0000", "\\ud800", "{", "}", "[", "]", ":", ",", "\"_id\":", "\"text\":", "\"metadata\":", "null", "1e999",
    "-0", "\n", "\r\n", "\n\n", "\t", "    ", "# ", "###### ", "---\n", "```", "~~~", "| a | b |\n|---|---|\n",
    "- ", "1. ", "> ", "*", "_", "`", "[x](y)", "![a](b)", "\xC3", "\xC3\xA9", "\xED\xA0\x80", "\xF4\x90\x80\x80",
    "\xEF\xBB\xBF", std::string_view("\0", 1), "Release 15.4", "Release date: ", "2023-08-10"};

struct Options {
  std::filesystem::path corpus;
  uint64_t mutations = 0;
  uint64_t seed = 0x5eed;
  size_t max_len = 1 << 16;
  double max_seconds = 15;
};

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--mutations") {
      o->mutations = std::strtoull(value("--mutations"), nullptr, 10);
    } else if (a == "--seed") {
      o->seed = std::strtoull(value("--seed"), nullptr, 10);
    } else if (a == "--max-len") {
      o->max_len = std::strtoull(value("--max-len"), nullptr, 10);
    } else if (a == "--max-seconds") {
      o->max_seconds = std::strtod(value("--max-seconds"), nullptr);
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    } else {
      o->corpus = a;
    }
  }
  return !o->corpus.empty();
}

void Run(const std::string& input) {
  // A fresh heap copy so that out-of-bounds reads are caught by sanitizers when enabled.
  std::vector<uint8_t> copy(input.begin(), input.end());
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
}

std::string Mutate(const std::vector<std::string>& seeds, std::mt19937_64& rng, size_t max_len) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  std::string s = seeds[pick(seeds.size())];
  const int steps = 1 + static_cast<int>(pick(4));
  for (int step = 0; step < steps; ++step) {
    switch (pick(8)) {
      case 0:  // flip one bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1:  // set a random byte
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 2:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 3: {  // erase a range
        const size_t at = pick(s.size() + 1);
        s.erase(at, pick(s.size() - at + 1));
        break;
      }
      case 4: {  // duplicate a range in place
        const size_t at = pick(s.size() + 1);
        const std::string piece = s.substr(at, pick(64));
        s.insert(pick(s.size() + 1), piece);
        break;
      }
      case 5: {  // splice: a prefix of this, a suffix of another seed
        const std::string& other = seeds[pick(seeds.size())];
        s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size() + 1));
        break;
      }
      default: {  // insert a structural token, sometimes repeated
        const std::string_view tok = kTokens[pick(std::size(kTokens))];
        const size_t reps = pick(8) == 0 ? 1 + pick(200) : 1;
        std::string ins;
        for (size_t r = 0; r < reps; ++r) ins.append(tok);
        s.insert(pick(s.size() + 1), ins);
        break;
      }
    }
  }
  if (s.size() > max_len) s.resize(max_len);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: %s CORPUS_DIR [--mutations N] [--seed S] [--max-len BYTES] [--max-seconds T]\n", argv[0]);
    return 2;
  }
  std::error_code ec;
  std::vector<std::filesystem::path> paths;
  for (std::filesystem::directory_iterator it(o.corpus, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) paths.push_back(it->path());
  }
  if (ec) {
    std::fprintf(stderr, "cannot read corpus directory %s: %s\n", o.corpus.c_str(), ec.message().c_str());
    return 2;
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> seeds;
  for (const auto& p : paths) {
    std::ifstream in(p, std::ios::binary);
    seeds.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    Run(seeds.back());
  }
  if (seeds.empty()) seeds.emplace_back();
  Run("");

  std::mt19937_64 rng(o.seed);
  const auto start = std::chrono::steady_clock::now();
  uint64_t done = 0;
  for (; done < o.mutations; ++done) {
    if ((done & 255) == 0 && std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > o.max_seconds) {
      break;
    }
    Run(Mutate(seeds, rng, o.max_len));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("replayed %zu seeds and %llu of %llu mutations (seed %llu) in %.1f s: no crash\n", paths.size(),
              static_cast<unsigned long long>(done), static_cast<unsigned long long>(o.mutations),
              static_cast<unsigned long long>(o.seed), secs);
  return 0;
}
