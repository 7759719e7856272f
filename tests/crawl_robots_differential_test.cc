// Differential test of robots.txt matching (src/crawl/robots.h) against Debian's python3-protego,
// run as a separate process (scripts/robots_protego_oracle.py): thousands of seeded random rule
// sets and paths, and every Allowed() answer must equal protego's can_fetch.
//
// The generated files stay inside the region where RFC 9309 and protego (0.2.1) agree. Each
// exclusion below is a place where protego knowingly differs from the RFC (read in protego.py):
// - agents: protego matches a group when its whole user-agent value is a SUBSTRING of the crawler's
//   name, the RFC compares the product token. Agent names here are bare tokens, none a substring of
//   another, each at least 2 characters (protego scores '*' as 1 and a name by its length).
// - user-agent values containing '*' other than the lone "*": protego strips the stars.
// - sitemap, crawl-delay and unknown lines: protego lets them end a run of user-agent lines, the RFC
//   (and Google) do not; none are generated.
// - patterns start with '/' (protego prepends '/' to "*x", changing its length and rank) and never
//   with "//" (urllib.parse reads what follows as a host); paths likewise.
// - '$' only as a pattern's last character (protego also adds a literal "%24" twin of every '$'
//   rule; paths never contain '$' or "%24", so the twin can never match).
// - raw reserved characters other than '/' and '?' (':' '=' '&' ';' '@' ...): protego
//   percent-encodes them in the path part and not in the query, the RFC keeps them as they are.
//   The query part (after '?') holds only unreserved characters and '/': protego compares it
//   unnormalised, so percent-escapes and non-ASCII appear only before the '?'; urllib drops an
//   empty query, so a URL never ends in '?' and a pattern never in "?$".
// - percent-escapes are complete UTF-8 sequences or ASCII: protego replaces an invalid UTF-8 escape
//   with U+FFFD.
// - no "index.html" (protego adds an allow for the directory); the letters used cannot spell it.
// - lines are separated by LF, CR or CR LF and blanks are spaces (str.splitlines and str.split(' ')
//   know more separators); a missing colon only as "key value" with one space, one word and the
//   key in lower case (protego looks the key up before lower-casing it when the colon is missing).
//
// Without python3-protego the test FAILS; ATTEST_ALLOW_MISSING_PROTEGO=1 turns that into a skip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "crawl/robots.h"
#include "support/process.h"

namespace attest {
namespace {

constexpr const char* kPython = "/usr/bin/python3";  // Debian's, where python3-protego installs

class Generator {
 public:
  explicit Generator(uint32_t seed) : rng_(seed) {}

  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }
  bool Chance(int percent) { return static_cast<int>(Pick(100)) < percent; }

  // A piece of the path part (before '?'): unreserved characters, '/', escapes, non-ASCII.
  std::string PathPiece() {
    static const std::vector<std::string> kPieces = {
        "a",  "b",  "c", "x",   "y",   "A",   "B",   "/",      "/",      ".",      "-",
        "_",  "~",  "1", "%61", "%7e", "%2F", "%2f", "%3A",    "%3a",    "%25",    "ü",
        "ツ", "%C3%BC", "%c3%bc", "%E3%83%84"};
    return kPieces[Pick(kPieces.size())];
  }
  std::string QueryPiece() {
    static const std::vector<std::string> kPieces = {"a", "b", "x", "B", "/", ".", "-", "_", "1"};
    return kPieces[Pick(kPieces.size())];
  }

  // "/" + pieces, never "//" at the start, optionally a query.
  std::string Path(size_t max_pieces, bool with_star) {
    std::string out = "/";
    const size_t n = Pick(max_pieces + 1);
    for (size_t i = 0; i < n; ++i) {
      if (with_star && Chance(15)) {
        out += "*";
        continue;
      }
      std::string piece = PathPiece();
      if (out == "/" && piece == "/") piece = "a";
      out += piece;
    }
    if (Chance(20)) {
      out += "?";
      const size_t q = (with_star ? 0 : 1) + Pick(4);  // a URL's query is never empty (see above)
      for (size_t i = 0; i < q; ++i) out += (with_star && Chance(15)) ? "*" : QueryPiece();
    }
    return out;
  }

  std::string Pattern() {
    std::string p = Path(5, /*with_star=*/true);
    if (Chance(20) && p.back() != '?') p += "$";
    return p;
  }

  std::string Key(std::string key) {
    for (char& c : key) {
      if (Chance(30) && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return key;
  }

  std::string Blanks() { return std::string(Pick(3), Chance(50) ? ' ' : '\t'); }

  std::string Line(const std::string& key, const std::string& value) {
    if (!value.empty() && value.find(' ') == std::string::npos && Chance(5)) {
      return key + " " + value;  // the tolerated missing colon (lower case: see above)
    }
    std::string line = Blanks() + Key(key) + Blanks() + ":" + Blanks() + value + Blanks();
    if (Chance(10)) line += "# note";
    return line;
  }

  std::string Agent() {
    static const std::vector<std::string> kAgents = {"*", "FooBot", "foobot", "BARBOT", "BarBot",
                                                     "bazbot", "*"};
    return kAgents[Pick(kAgents.size())];
  }

  std::string RobotsFile() {
    std::vector<std::string> lines;
    if (Chance(20)) lines.push_back(Line("disallow", Pattern()));  // before any group: ignored
    const size_t groups = 1 + Pick(4);
    for (size_t g = 0; g < groups; ++g) {
      const size_t agents = 1 + Pick(2);
      for (size_t a = 0; a < agents; ++a) {
        lines.push_back(Line("user-agent", Agent()));
        if (Chance(10)) lines.push_back("");
        if (Chance(5)) lines.push_back("# comment");
      }
      const size_t rules = Pick(6);
      for (size_t r = 0; r < rules; ++r) {
        const bool allow = Chance(45);
        const std::string value = Chance(5) ? "" : Pattern();
        lines.push_back(Line(allow ? "allow" : "disallow", value));
        if (Chance(8)) lines.push_back("");
      }
    }
    static const std::vector<std::string> kEol = {"\n", "\r\n", "\r"};
    const std::string eol = kEol[Pick(kEol.size())];
    std::string out;
    for (const std::string& line : lines) out += line + eol;
    return out;
  }

 private:
  std::mt19937 rng_;
};

struct Case {
  std::string robots;
  std::string agent;
  std::vector<std::string> paths;
};

bool ProtegoPresent() {
  const std::string probe = std::string(kPython) + " -c 'import protego' >/dev/null 2>&1";
  return std::system(probe.c_str()) == 0;
}

TEST(CrawlRobotsDifferentialTest, AgreesWithProtegoOnGeneratedRuleSets) {
  if (!ProtegoPresent()) {
    const char* allow_missing = std::getenv("ATTEST_ALLOW_MISSING_PROTEGO");
    if (allow_missing != nullptr && std::string(allow_missing) == "1") {
      GTEST_SKIP() << "python3-protego is missing and ATTEST_ALLOW_MISSING_PROTEGO=1: the robots.txt "
                      "differential test is SKIPPED";
    }
    FAIL() << "python3-protego is missing (" << kPython
           << " cannot import protego): run scripts/bootstrap, or set "
              "ATTEST_ALLOW_MISSING_PROTEGO=1 to skip this test";
  }

  constexpr int kCases = 3000;
  constexpr int kPathsPerCase = 8;
  static const std::vector<std::string> kCrawlers = {"FooBot", "BarBot", "QuxBot"};
  Generator gen(20260914);
  std::vector<Case> cases;
  nlohmann::json input = nlohmann::json::array();
  for (int i = 0; i < kCases; ++i) {
    Case c;
    c.robots = gen.RobotsFile();
    c.agent = kCrawlers[gen.Pick(kCrawlers.size())];
    for (int k = 0; k < kPathsPerCase; ++k) c.paths.push_back(gen.Path(7, /*with_star=*/false));
    input.push_back({{"robots", c.robots}, {"agent", c.agent}, {"paths", c.paths}});
    cases.push_back(std::move(c));
  }

  testing_support::TempDir dir;
  testing_support::WriteFile(dir.path() / "cases.json", input.dump());
  testing_support::ChildProcess oracle({kPython, std::string(ATTEST_SOURCE_DIR) +
                                                     "/scripts/robots_protego_oracle.py",
                                        dir.str("cases.json"), dir.str("answers.json")});
  ASSERT_EQ(oracle.Wait(), 0) << "the protego oracle failed";
  std::ifstream in(dir.str("answers.json"));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json answers = nlohmann::json::parse(text.str());
  ASSERT_EQ(answers.size(), cases.size());

  int compared = 0;
  int allowed = 0;
  int differences = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const RobotsRules rules = RobotsRules::Parse(cases[i].robots, cases[i].agent);
    for (size_t k = 0; k < cases[i].paths.size(); ++k) {
      const bool ours = rules.Allowed(cases[i].paths[k]);
      const bool theirs = answers[i][k].get<bool>();
      ++compared;
      allowed += ours ? 1 : 0;
      if (ours != theirs && ++differences <= 5) {
        ADD_FAILURE() << "case " << i << " agent " << cases[i].agent << " path "
                      << cases[i].paths[k] << ": ours " << ours << ", protego " << theirs
                      << "\nrobots.txt:\n"
                      << cases[i].robots;
      }
    }
  }
  EXPECT_EQ(differences, 0) << "of " << compared << " comparisons";
  // The generator must exercise both answers, or the comparison proves little.
  EXPECT_GT(allowed, compared / 10);
  EXPECT_LT(allowed, compared - compared / 10);
  std::printf("robots differential: %d comparisons, %d allowed, %d differences\n", compared,
              allowed, differences);
}

}  // namespace
}  // namespace attest
