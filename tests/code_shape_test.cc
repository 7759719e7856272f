// The shape of the code (docs/design.md, "Layout"): no file under src/ over 600 lines, and no
// function in the answer path or the service over 150 lines. Functions are found the way this code
// base writes them: a definition starts at column 0 (namespaces are not indented) and ends at the
// next line that is exactly "}" at column 0; in-class member functions are counted with their class.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxFileLines = 600;
constexpr size_t kMaxFunctionLines = 150;

struct Function {
  std::string signature;
  size_t first_line = 0;
  size_t lines = 0;
};

std::vector<std::string> ReadLines(const fs::path& p) {
  std::ifstream in(p);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool IsSource(const fs::path& p) { return p.extension() == ".cc" || p.extension() == ".h"; }

// A function body opens on a column-0 line (or the column-0 signature's continuation) and its
// closing brace is "}" alone at column 0. Class, struct, enum and namespace blocks are not functions.
std::vector<Function> FunctionsOf(const std::vector<std::string>& lines) {
  std::vector<Function> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (l.empty() || l[0] == ' ' || l[0] == '/' || l[0] == '#' || l[0] == '}') continue;
    if (l.rfind("namespace", 0) == 0 || l.rfind("class ", 0) == 0 || l.rfind("struct ", 0) == 0 ||
        l.rfind("enum ", 0) == 0 || l.rfind("union ", 0) == 0 || l.rfind("template", 0) == 0 ||
        l.rfind("using ", 0) == 0 || l.rfind("extern ", 0) == 0) {
      continue;
    }
    if (l.find('(') == std::string::npos) continue;
    // The signature may wrap: find the line that opens the body before any ';'.
    size_t open = i;
    bool body = false;
    for (; open < lines.size() && open < i + 8; ++open) {
      const std::string& s = lines[open];
      if (!s.empty() && s.back() == ';') break;
      if (!s.empty() && s.back() == '{') {
        body = true;
        break;
      }
    }
    if (!body) continue;
    size_t close = open + 1;
    while (close < lines.size() && lines[close] != "}" && lines[close] != "};") ++close;
    if (close >= lines.size()) continue;
    out.push_back(Function{l, i + 1, close - i + 1});
    i = close;
  }
  return out;
}

fs::path SourceDir() { return fs::path(ATTEST_SOURCE_DIR); }

TEST(CodeShapeTest, TheScannerFindsFunctionsAndMeasuresThem) {
  // The check would pass vacuously if the scanner found nothing: prove it measures.
  const std::vector<std::string> text = {
      "namespace attest {",
      "int Short(int a) {",
      "  return a;",
      "}",
      "Result<Thing> Long(const Args& args,",
      "                   int extra) {",
      "  int x = 0;",
      "  if (x) {",
      "    x = 1;",
      "  }",
      "  return x;",
      "}",
      "class NotAFunction {",
      " public:",
      "  void Inline() {}",
      "};",
      "}  // namespace attest",
  };
  const std::vector<Function> f = FunctionsOf(text);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].first_line, 2u);
  EXPECT_EQ(f[0].lines, 3u);
  EXPECT_EQ(f[1].first_line, 5u);
  EXPECT_EQ(f[1].lines, 8u);
}

TEST(CodeShapeTest, NoSourceFileOver600Lines) {
  ASSERT_TRUE(fs::is_directory(SourceDir() / "src")) << "no src/ under " << SourceDir();
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(SourceDir() / "src")) {
    if (!e.is_regular_file() || !IsSource(e.path())) continue;
    ++files;
    const size_t n = ReadLines(e.path()).size();
    EXPECT_LE(n, kMaxFileLines) << e.path().lexically_relative(SourceDir()).string() << " has " << n
                                << " lines: split it by what its parts do";
  }
  EXPECT_GT(files, 100u);
}

TEST(CodeShapeTest, NoFunctionOver150LinesInTheAnswerPathOrTheService) {
  size_t functions = 0;
  for (const char* dir : {"src/answer", "src/service"}) {
    ASSERT_TRUE(fs::is_directory(SourceDir() / dir)) << dir;
    for (const auto& e : fs::recursive_directory_iterator(SourceDir() / dir)) {
      if (!e.is_regular_file() || !IsSource(e.path())) continue;
      for (const Function& f : FunctionsOf(ReadLines(e.path()))) {
        ++functions;
        EXPECT_LE(f.lines, kMaxFunctionLines)
            << e.path().lexically_relative(SourceDir()).string() << ":" << f.first_line << " " << f.signature
            << " is " << f.lines << " lines";
      }
    }
  }
  EXPECT_GT(functions, 50u);
}

}  // namespace
